/* Host side of count_dev.c: runs it on core (0,0) with n iterations
 * (argument 2) and prints the timer's cycles and the kernel's result. */
#include <e-hal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  e_platform_t plat;
  e_epiphany_t dev;
  if (e_init(NULL) != E_OK || e_reset_system() != E_OK || e_get_platform_info(&plat) != E_OK) return 1;
  if (e_open(&dev, 0, 0, 1, 1) != E_OK) return 1;
  const unsigned in[4] = {(unsigned)atoi(argv[2]), 0, 0, 0};
  if (e_load_group(argv[1], &dev, 0, 0, 1, 1, E_FALSE) != E_OK) return 1;
  e_write(&dev, 0, 0, 0x4000, in, sizeof in); /* after the load, which clears result[] */
  e_start_group(&dev);
  unsigned m[4] = {0, 0, 0, 0};
  for (int polls = 0; polls < 1000000 && !m[3]; polls++) {
    if (e_read(&dev, 0, 0, 0x4000, m, sizeof m) != sizeof m) return 1;
    if (!m[3]) usleep(10);
  }
  printf("count: word %u\n", m[2]);
  fprintf(stderr, "count: cycles %u\n", m[1]);
  e_close(&dev);
  e_finalize();
  return m[3] ? 0 : 1;
}
