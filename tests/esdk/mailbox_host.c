/* Host side of mailbox_dev.c: clears each core's flag and mailbox, loads
 * the program on every core, starts the group and polls each mailbox. */
#include <e-hal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const char* prog = argc > 1 ? argv[1] : "mailbox_dev.elf";
  e_platform_t plat;
  e_epiphany_t dev;
  if (e_init(NULL) != E_OK || e_reset_system() != E_OK || e_get_platform_info(&plat) != E_OK) return 1;
  if (e_open(&dev, 0, 0, plat.rows, plat.cols) != E_OK) return 1;
  const unsigned zero[3] = {0, 0, 0};
  for (unsigned r = 0; r < plat.rows; r++)
    for (unsigned c = 0; c < plat.cols; c++) {
      e_write(&dev, r, c, 0x6000, zero, 4);
      e_write(&dev, r, c, 0x7000, zero, sizeof zero);
    }
  if (e_load_group(prog, &dev, 0, 0, plat.rows, plat.cols, E_FALSE) != E_OK) return 1;
  e_start_group(&dev);
  int failures = 0;
  for (unsigned r = 0; r < plat.rows; r++)
    for (unsigned c = 0; c < plat.cols; c++) {
      unsigned m[3] = {0, 0, 0};
      for (int polls = 0; polls < 1000000; polls++) {
        if (e_read(&dev, r, c, 0x7000, m, sizeof m) != sizeof m) return 1;
        if ((m[0] >> 16) == 0xC0DE) break;
        usleep(100);
      }
      printf("core (%u,%u): mailbox 0x%08x sum 0x%08x %s\n", r, c, m[0], m[1], m[2] ? "ok" : "WRONG");
      failures += !((m[0] >> 16) == 0xC0DE && m[2]);
    }
  e_close(&dev);
  e_finalize();
  printf("mailbox: %s\n", failures ? "FAILED" : "PASSED");
  return failures != 0;
}
