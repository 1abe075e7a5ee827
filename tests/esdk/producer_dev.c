/* Writes a block into a shared memory segment, waits on a core timer, then
 * interrupts the consumer core (0, 1). */
#include <e_lib.h>

int main(void) {
  e_memseg_t shm;
  if (e_shm_attach(&shm, "hopsim_test_shm") != E_OK) return 1;
  int data[16];
  for (int i = 0; i < 16; i++) data[i] = i * 3 + 1;
  e_write(&shm, data, 0, 0, (void*)0, sizeof data);
  e_ctimer_set(E_CTIMER_0, E_CTIMER_MAX);
  e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
  e_wait(E_CTIMER_1, 2000);
  unsigned elapsed = E_CTIMER_MAX - e_ctimer_stop(E_CTIMER_0);
  unsigned waited = elapsed >= 2000;
  e_write(&shm, &waited, 0, 0, (void*)(66 * 4), 4);
  e_irq_set(0, 1, E_USER_INT);
  return 0;
}
