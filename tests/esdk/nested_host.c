/* Host side of nested_dev.c: runs it on core (0,0) and prints the order
 * the handlers ran in and the IPEND seen by the nested one. */
#include <e-hal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  e_epiphany_t dev;
  unsigned zero[8] = {0}, m[3] = {0, 0, 0};
  char order[17] = {0};
  if (e_init(NULL) != E_OK || e_open(&dev, 0, 0, 1, 1) != E_OK) return 1;
  e_write(&dev, 0, 0, 0x7000, zero, sizeof zero);
  if (e_load(argc > 1 ? argv[1] : "nested_dev.elf", &dev, 0, 0, E_TRUE) != E_OK) return 1;
  for (int polls = 0; polls < 100000 && m[0] != 0xD0E; polls++) {
    usleep(100);
    e_read(&dev, 0, 0, 0x7000, m, sizeof m);
  }
  e_read(&dev, 0, 0, 0x7010, order, 16);
  e_close(&dev);
  e_finalize();
  printf("nested: order %s, ipend 0x%03x, %u notes\n", order, m[1], m[2]);
  return m[0] != 0xD0E;
}
