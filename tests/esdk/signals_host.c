/* Two different programs in one workgroup (producer on core (0,0),
 * consumer on (0,1)) meeting in a named shared memory segment; the host
 * polls the segment with e_read. */
#include <e-hal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const char* producer = argc > 2 ? argv[1] : "producer_dev.elf";
  const char* consumer = argc > 2 ? argv[2] : "consumer_dev.elf";
  e_epiphany_t dev;
  e_mem_t shm;
  if (e_init(NULL) != E_OK) return 1;
  e_reset_system();
  if (e_shm_alloc(&shm, "hopsim_test_shm", 4096) != E_OK && e_shm_attach(&shm, "hopsim_test_shm") != E_OK) return 1;
  unsigned zero[128];
  memset(zero, 0, sizeof zero);
  e_write(&shm, 0, 0, 0, zero, sizeof zero);
  if (e_open(&dev, 0, 0, 1, 2) != E_OK) return 1;
  if (e_load(consumer, &dev, 0, 1, E_TRUE) != E_OK) return 1;
  if (e_load(producer, &dev, 0, 0, E_TRUE) != E_OK) return 1;
  unsigned w[3] = {0, 0, 0};
  for (int polls = 0; polls < 1000000 && w[0] != 0xD0E; polls++) {
    e_read(&shm, 0, 0, 64 * 4, w, sizeof w);
    if (w[0] != 0xD0E) usleep(50);
  }
  printf("signals: done 0x%x sum %u waited %u\n", w[0], w[1], w[2]);
  int ok = w[0] == 0xD0E && w[1] == 376 && w[2] == 1;
  e_close(&dev);
  e_shm_release("hopsim_test_shm");
  e_finalize();
  printf("signals: %s\n", ok ? "PASSED" : "FAILED");
  return !ok;
}
