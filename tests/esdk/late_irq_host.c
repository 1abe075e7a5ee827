/* Host side of late_irq_dev.c: starts both cores and prints whether the
 * handler ran no earlier than half the raiser's wait (an interrupt is not
 * taken before it is raised, on the receiving core's clock). */
#include <e-hal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  e_epiphany_t dev;
  const unsigned zero[2] = {0, 0};
  unsigned m[2] = {0, 0}, done = 0;
  if (e_init(NULL) != E_OK || e_open(&dev, 0, 0, 1, 2) != E_OK) return 1;
  e_write(&dev, 0, 0, 0x7000, zero, sizeof zero);
  e_write(&dev, 0, 1, 0x7000, zero, sizeof zero);
  if (e_load_group(argc > 1 ? argv[1] : "late_irq_dev.elf", &dev, 0, 0, 1, 2, E_TRUE) != E_OK) return 1;
  for (int polls = 0; polls < 100000 && (m[0] != 0xD0E || done != 0xD0E); polls++) {
    usleep(100);
    e_read(&dev, 0, 1, 0x7000, m, sizeof m);
    e_read(&dev, 0, 0, 0x7000, &done, 4);
  }
  e_close(&dev);
  e_finalize();
  const int ok = m[0] == 0xD0E && m[1] >= 1000000;
  printf("late irq: %s\n", ok ? "PASSED (taken after it was raised)" : "FAILED");
  if (!ok) fprintf(stderr, "handler ran %u cycles after the core started\n", m[1]);
  return !ok;
}
