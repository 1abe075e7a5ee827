/* Host side of polling_dev.c: lets the core wait a long time on the first
 * loop (200 ms), and on the second until it has been seen spinning, before
 * writing the words it waits for. */
#include <e-hal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  e_epiphany_t dev;
  const unsigned zero[4] = {0, 0, 0, 0}, one = 1, two = 2;
  unsigned m[4] = {0, 0, 0, 0};
  if (e_init(NULL) != E_OK || e_open(&dev, 0, 0, 1, 1) != E_OK) return 1;
  e_write(&dev, 0, 0, 0x5000, zero, 8);
  e_write(&dev, 0, 0, 0x7000, zero, sizeof zero);
  if (e_load(argc > 1 ? argv[1] : "polling_dev.elf", &dev, 0, 0, E_TRUE) != E_OK) return 1;
  usleep(200000);
  e_write(&dev, 0, 0, 0x5000, &one, 4);
  for (int polls = 0; polls < 100000 && m[3] == 0; polls++) {
    usleep(100);
    e_read(&dev, 0, 0, 0x700C, &m[3], 4);
  }
  e_write(&dev, 0, 0, 0x5004, &two, 4);
  for (int polls = 0; polls < 100000 && m[0] != 0xD0E; polls++) {
    usleep(100);
    e_read(&dev, 0, 0, 0x7000, m, 3 * sizeof m[0]);
  }
  e_close(&dev);
  e_finalize();
  printf("polling: %s (sum %u, spun %u)\n", m[0] == 0xD0E && m[1] == 3 && m[2] == 1 ? "PASSED" : "FAILED", m[1], m[2]);
  return !(m[0] == 0xD0E && m[1] == 3 && m[2] == 1);
}
