/* Runs a device program on a workgroup anywhere on the chip, the way the
 * eSDK's examples do (e_load_group, started at load), and polls each
 * core's mailbox at 0x7000 as mailbox_host does:
 *   group_host DEV ROW COL ROWS COLS */
#include <e-hal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 6) return 2;
  const unsigned row = (unsigned)atoi(argv[2]), col = (unsigned)atoi(argv[3]);
  const unsigned rows = (unsigned)atoi(argv[4]), cols = (unsigned)atoi(argv[5]);
  e_epiphany_t dev;
  if (e_init(NULL) != E_OK || e_reset_system() != E_OK || e_open(&dev, row, col, rows, cols) != E_OK) return 1;
  const unsigned zero[3] = {0, 0, 0};
  for (unsigned r = 0; r < rows; r++)
    for (unsigned c = 0; c < cols; c++) e_write(&dev, r, c, 0x7000, zero, sizeof zero);
  if (e_load_group(argv[1], &dev, 0, 0, rows, cols, E_TRUE) != E_OK) return 1;
  int failures = 0;
  for (unsigned r = 0; r < rows; r++)
    for (unsigned c = 0; c < cols; c++) {
      unsigned m[3] = {0, 0, 0};
      for (int polls = 0; polls < 20000; polls++) {
        if (e_read(&dev, r, c, 0x7000, m, sizeof m) != sizeof m) return 1;
        if ((m[0] >> 16) == 0xC0DE) break;
        usleep(100);
      }
      printf("core (%u,%u) of the group at (%u,%u): mailbox 0x%08x, %u cores, %s\n", r, c, row, col, m[0], m[1],
             m[2] ? "ok" : "WRONG");
      failures += !((m[0] >> 16) == 0xC0DE && m[2]);
    }
  e_close(&dev);
  e_finalize();
  printf("group: %s\n", failures ? "FAILED" : "PASSED");
  return failures != 0;
}
