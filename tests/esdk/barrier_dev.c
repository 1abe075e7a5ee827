/* A barrier across a workgroup wherever it lies on the chip: each core
 * starts with e_barrier_init, then, three rounds over, stores the round's
 * number into its slot on core (0,0) and meets the others at e_barrier;
 * core (0,0) checks every slot holds the round. Reports through the
 * mailbox at 0x7000 (mailbox_host's protocol). */
#include <e_lib.h>

volatile e_barrier_t bar[16];
e_barrier_t* tgt[16];
volatile unsigned slot[16];

int main(void) {
  volatile unsigned* mbox = (volatile unsigned*)0x7000;
  unsigned n = e_group_config.group_rows * e_group_config.group_cols;
  unsigned me = e_group_config.core_row * e_group_config.group_cols + e_group_config.core_col;
  e_barrier_init(bar, tgt);
  volatile unsigned* mine = (volatile unsigned*)e_get_global_address(0, 0, (const void*)&slot[me]);
  int ok = 1;
  for (unsigned round = 1; round <= 3; round++) {
    *mine = round;
    e_barrier(bar, tgt);
    if (me == 0)
      for (unsigned i = 0; i < n; i++) ok &= slot[i] == round;
    e_barrier(bar, tgt);
  }
  mbox[1] = n;
  mbox[2] = (unsigned)ok;
  mbox[0] = 0xC0DE0000u | me;
  return 0;
}
