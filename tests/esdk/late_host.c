/* Host side of late_dev.c: sleeps 100 simulated seconds, then starts core
 * (0,0) and waits for its mailbox. The mesh must not keep the idle time in
 * its link calendars (the test caps the process's memory). */
#include <e-hal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  e_epiphany_t dev;
  const unsigned zero = 0;
  unsigned done = 0, word = 0;
  if (e_init(NULL) != E_OK || e_open(&dev, 0, 0, 1, 2) != E_OK) return 1;
  e_write(&dev, 0, 0, 0x7000, &zero, 4);
  e_write(&dev, 0, 1, 0x7100, &zero, 4);
  sleep(100);
  if (e_load(argc > 1 ? argv[1] : "late_dev.elf", &dev, 0, 0, E_TRUE) != E_OK) return 1;
  for (int polls = 0; polls < 100000 && done != 0xD0E; polls++) {
    usleep(100);
    e_read(&dev, 0, 0, 0x7000, &done, 4);
  }
  e_read(&dev, 0, 1, 0x7100, &word, 4);
  e_close(&dev);
  e_finalize();
  printf("late: %s (word %u)\n", done == 0xD0E && word == 42 ? "PASSED" : "FAILED", word);
  return !(done == 0xD0E && word == 42);
}
