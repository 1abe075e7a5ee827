/* Host-side mistakes and device faults, one per run:
 *   negative_host missing            e_load of a file that does not exist
 *   negative_host notprog FILE       e_load of a file e-gcc did not build
 *   negative_host read_outside       e_read beyond a core's local memory
 *   negative_host store_outside DEV  a device program storing outside every memory
 *   negative_host halt               e_halt of a core outside the workgroup
 *   negative_host open_outside       e_open of a workgroup larger than the chip
 *   negative_host open_wraps         e_open at row or column 0xFFFFFFFF (row + rows wraps)
 *   negative_host crash DEV HOW      core (1,1) running DEV, told HOW (a word at 0x6000) to crash
 * Prints what e-hal returned; a device fault ends the process (exit 5), a
 * device program's crash too (exit 128 + the signal). */
#include <e-hal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  e_epiphany_t dev;
  if (e_init(NULL) != E_OK || e_open(&dev, 0, 0, 2, 2) != E_OK) return 1;
  int rc = 0;
  if (!strcmp(argv[1], "missing")) {
    rc = e_load("no-such-program.elf", &dev, 0, 0, E_FALSE);
  } else if (!strcmp(argv[1], "notprog") && argc > 2) {
    rc = e_load(argv[2], &dev, 0, 0, E_FALSE);
  } else if (!strcmp(argv[1], "read_outside")) {
    unsigned v = 0x12345678;
    rc = (int)e_read(&dev, 0, 0, 0x9000, &v, 4);
    if (v != 0x12345678) printf("buffer changed\n");
  } else if (!strcmp(argv[1], "halt")) {
    rc = e_halt(&dev, 2, 0);
  } else if (!strcmp(argv[1], "open_outside")) {
    e_epiphany_t big;
    rc = e_open(&big, 2, 2, 4, 4);
  } else if (!strcmp(argv[1], "open_wraps")) {
    e_epiphany_t wrapped;
    rc = e_open(&wrapped, 0xFFFFFFFFu, 0, 2, 1);
    if (rc == E_OK) printf("opened at row 0xFFFFFFFF\n");
    if (e_open(&wrapped, 0, 0xFFFFFFFFu, 1, 2) == E_OK) {
      printf("opened at column 0xFFFFFFFF\n");
      rc = E_OK;
    }
  } else if (!strcmp(argv[1], "crash") && argc > 3) {
    int how = atoi(argv[3]);
    if (e_load(argv[2], &dev, 1, 1, E_FALSE) != E_OK || e_write(&dev, 1, 1, 0x6000, &how, sizeof how) != sizeof how ||
        e_start(&dev, 1, 1) != E_OK)
      return 1;
    for (int i = 0; i < 5000; i++) usleep(1000);
    printf("the crash did not stop the run\n");
    return 0;
  } else if (!strcmp(argv[1], "store_outside") && argc > 2) {
    rc = e_load(argv[2], &dev, 0, 0, E_TRUE);
    for (int i = 0; i < 1000; i++) usleep(1000);
    printf("the fault did not stop the run\n");
    return 0;
  } else {
    return 2;
  }
  printf("%s: returned %d\n", argv[1], rc);
  e_finalize();
  return rc == E_ERR ? 0 : 1;
}
