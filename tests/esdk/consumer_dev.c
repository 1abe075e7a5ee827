/* Sleeps with idle until the producer's user interrupt, then sums the
 * producer's block from the shared segment and reports there. */
#include <e_lib.h>

volatile int got SECTION(".data_bank1");

void on_user(int sig) {
  (void)sig;
  got = got + 1;
}

int main(void) {
  e_memseg_t shm;
  if (e_shm_attach(&shm, "hopsim_test_shm") != E_OK) return 1;
  got = 0;
  e_irq_attach(E_USER_INT, on_user);
  e_irq_mask(E_USER_INT, E_FALSE);
  e_irq_global_mask(E_FALSE);
  while (got == 0) __asm__ __volatile__("idle");
  int data[16];
  e_read(&shm, data, 0, 0, (void*)0, sizeof data);
  int sum = 0;
  for (int i = 0; i < 16; i++) sum += data[i];
  e_write(&shm, &sum, 0, 0, (void*)(65 * 4), 4);
  unsigned done = 0xD0E;
  e_write(&shm, &done, 0, 0, (void*)(64 * 4), 4);
  return 0;
}
