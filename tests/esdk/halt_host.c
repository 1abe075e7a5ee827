/* e_halt stops a running core (its counter stands still, DEBUGSTATUS says
 * halted) and e_resume lets it go on; then it finishes normally. */
#include <e-hal.h>
#include <stdio.h>
#include <unistd.h>

static unsigned word(e_epiphany_t* dev, off_t at) {
  unsigned v = 0;
  e_read(dev, 0, 0, at, &v, sizeof v);
  return v;
}

static int wait_above(e_epiphany_t* dev, off_t at, unsigned floor) {
  for (int polls = 0; polls < 100000; polls++) {
    if (word(dev, at) > floor) return 1;
    usleep(100);
  }
  return 0;
}

int main(int argc, char** argv) {
  e_platform_t plat;
  e_epiphany_t dev;
  if (e_init(NULL) != E_OK || e_reset_system() != E_OK || e_get_platform_info(&plat) != E_OK) return 1;
  if (e_open(&dev, 0, 0, 1, 1) != E_OK) return 1;
  const unsigned zero[3] = {0, 0, 0};
  if (e_load_group(argc > 1 ? argv[1] : "halt_dev.elf", &dev, 0, 0, 1, 1, E_FALSE) != E_OK) return 1;
  e_write(&dev, 0, 0, 0x6000, zero, sizeof zero);
  e_start_group(&dev);
  int ok = wait_above(&dev, 0x6000, 0);
  unsigned status = 0;
  ok &= e_halt(&dev, 0, 0) == E_OK;
  e_read(&dev, 0, 0, E_REG_DEBUGSTATUS, &status, sizeof status);
  const unsigned c1 = word(&dev, 0x6000);
  usleep(2000);
  const unsigned c2 = word(&dev, 0x6000);
  printf("halt: halted %u, counter still %d\n", status & 1, c1 == c2);
  ok &= (status & 1) == 1 && c1 == c2;
  ok &= e_resume(&dev, 0, 0) == E_OK;
  ok &= wait_above(&dev, 0x6000, c2);
  e_read(&dev, 0, 0, E_REG_DEBUGSTATUS, &status, sizeof status);
  printf("resume: halted %u, counting again\n", status & 1);
  ok &= (status & 1) == 0;
  const unsigned one = 1;
  e_write(&dev, 0, 0, 0x6004, &one, sizeof one);
  ok &= wait_above(&dev, 0x6008, 0);
  e_close(&dev);
  e_finalize();
  printf("halt: %s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
