/* Waits for the host the ways programs built without optimisation do:
 * plain (not volatile) loads in a loop with an empty body, then a loop
 * that also stores on every iteration (its count, for the host to see it
 * spin). Reports through 0x7000. */
#include <e_lib.h>

unsigned spins;

int main(void) {
  unsigned* box = (unsigned*)0x5000;
  unsigned* mbox = (unsigned*)0x7000;
  while (box[0] == 0) {
  }
  while (box[1] == 0) {
    spins++;
    mbox[3] = spins;
  }
  mbox[1] = box[0] + box[1];
  mbox[2] = spins > 0;
  mbox[0] = 0xD0E;
  return 0;
}
