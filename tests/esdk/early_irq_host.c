/* Host side of early_irq_dev.c: starts both cores and prints whether the
 * polling core's handler ran at the interrupt's raise time, before the
 * flag it polls arrived (a core running ahead must not make it late). */
#include <e-hal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  e_epiphany_t dev;
  const unsigned zero[5] = {0, 0, 0, 0, 0};
  unsigned m[2] = {0, 0}, r[2] = {0, 0};
  if (e_init(NULL) != E_OK || e_open(&dev, 0, 0, 1, 2) != E_OK) return 1;
  e_write(&dev, 0, 0, 0x7000, zero, sizeof zero);
  e_write(&dev, 0, 1, 0x7000, zero, sizeof zero);
  if (e_load_group(argc > 1 ? argv[1] : "early_irq_dev.elf", &dev, 0, 0, 1, 2, E_TRUE) != E_OK) return 1;
  for (int polls = 0; polls < 100000 && (m[0] != 0xD0E || r[0] != 0xD0E); polls++) {
    usleep(100);
    e_read(&dev, 0, 1, 0x7000, m, sizeof m);
    e_read(&dev, 0, 0, 0x7000, r, sizeof r);
  }
  e_close(&dev);
  e_finalize();
  const int ok = m[0] == 0xD0E && r[0] == 0xD0E && r[1] == 0x1234 && m[1] < 1000000;
  printf("early irq: %s\n", ok ? "PASSED (taken when raised)" : "FAILED");
  if (!ok) fprintf(stderr, "raiser read 0x%x; handler ran %u cycles after the core started\n", r[1], m[1]);
  return !ok;
}
