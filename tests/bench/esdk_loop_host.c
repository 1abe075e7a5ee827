/* Runs esdk_loop.c's device build on core (0,0) and waits for it. */
#include <e-hal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  e_epiphany_t dev;
  unsigned status = 1;
  if (argc < 2 || e_init(NULL) != E_OK || e_open(&dev, 0, 0, 1, 1) != E_OK) return 1;
  if (e_load(argv[1], &dev, 0, 0, E_TRUE) != E_OK) return 1;
  while (status & 1) { /* E_REG_STATUS bit 0: the core is active */
    usleep(1000);
    e_read(&dev, 0, 0, E_REG_STATUS, &status, 4);
  }
  e_close(&dev);
  e_finalize();
  return 0;
}
