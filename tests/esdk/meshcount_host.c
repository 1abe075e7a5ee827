/* Host side of meshcount_dev.c: starts the sender and the two counter
 * cores, says go when both counters run, prints the counts. */
#include <e-hal.h>
#include <stdio.h>
#include <unistd.h>

static int wait_word(e_epiphany_t* dev, unsigned r, unsigned c, unsigned want) {
  for (int polls = 0; polls < 100000; polls++) {
    unsigned v = 0;
    if (e_read(dev, r, c, 0x7000, &v, sizeof v) != sizeof v) return 0;
    if (v == want) return 1;
    usleep(100);
  }
  return 0;
}

int main(int argc, char** argv) {
  const char* prog = argc > 1 ? argv[1] : "meshcount_dev.elf";
  e_platform_t plat;
  e_epiphany_t dev;
  if (e_init(NULL) != E_OK || e_reset_system() != E_OK || e_get_platform_info(&plat) != E_OK) return 1;
  if (e_open(&dev, 0, 0, plat.rows, plat.cols) != E_OK) return 1;
  const unsigned zero[6] = {0, 0, 0, 0, 0, 0};
  const unsigned cores[3][2] = {{0, 0}, {0, 1}, {1, 2}};
  for (int i = 0; i < 3; i++) {
    e_write(&dev, cores[i][0], cores[i][1], 0x7000, zero, sizeof zero);
    if (e_load(prog, &dev, cores[i][0], cores[i][1], E_FALSE) != E_OK) return 1;
  }
  for (int i = 2; i >= 0; i--) e_start(&dev, cores[i][0], cores[i][1]);
  if (!wait_word(&dev, 0, 1, 1) || !wait_word(&dev, 1, 2, 1)) return 1;
  const unsigned one = 1;
  e_write(&dev, 0, 0, 0x7000, &one, sizeof one);
  if (!wait_word(&dev, 0, 1, 2) || !wait_word(&dev, 1, 2, 2)) return 1;
  unsigned a[3], b[3];
  e_read(&dev, 0, 1, 0x7008, a, sizeof a);
  e_read(&dev, 1, 2, 0x7008, b, sizeof b);
  printf("(0,1): west access %u, any access %u\n", a[0], a[1]);
  printf("(1,2): north access %u, west access %u, data %s\n", b[0], b[1], b[2] ? "ok" : "WRONG");
  /* 256 DMA dwords + 10 stores + the done flags that pass each router. */
  const int pass = a[0] == 268 && a[1] == 268 && b[0] == 267 && b[1] == 0 && b[2];
  e_close(&dev);
  e_finalize();
  printf("meshcount: %s\n", pass ? "PASSED" : "FAILED");
  return !pass;
}
