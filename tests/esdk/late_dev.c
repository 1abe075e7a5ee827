/* Started after the host has slept a long time: stores a word on core
 * (0,1) over the mesh and reports through its own mailbox at 0x7000. */
#include <e_lib.h>

int main(void) {
  volatile unsigned* there = (volatile unsigned*)e_get_global_address(0, 1, (void*)0x7100);
  volatile unsigned* mbox = (volatile unsigned*)0x7000;
  *there = 42;
  mbox[0] = 0xD0E;
  return 0;
}
