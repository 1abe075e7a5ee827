/* Core (0,0) raises the user interrupt of core (0,1) early, waits 2M
 * cycles, then sets the flag (0,1) polls and at once reads what (0,1)'s
 * handler wrote: the handler must have run when the interrupt was raised,
 * not when the flag arrived. Reports at each core's 0x7000. */
#include <e_lib.h>

unsigned at;

void __attribute__((interrupt)) on_user(int sig) {
  (void)sig;
  at = E_CTIMER_MAX - e_ctimer_get(E_CTIMER_0);
  *(volatile unsigned*)0x7010 = 0x1234;
}

int main(void) {
  volatile unsigned* mbox = (volatile unsigned*)0x7000;
  if (e_group_config.core_col == 0) {
    e_wait(E_CTIMER_1, 100000);
    e_irq_set(0, 1, E_USER_INT);
    e_wait(E_CTIMER_1, 2000000);
    *(volatile unsigned*)e_get_global_address(0, 1, (void*)0x7008) = 1;
    mbox[1] = *(volatile unsigned*)e_get_global_address(0, 1, (void*)0x7010);
    mbox[0] = 0xD0E;
    return 0;
  }
  e_ctimer_set(E_CTIMER_0, E_CTIMER_MAX);
  e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
  e_irq_attach(E_USER_INT, on_user);
  e_irq_mask(E_USER_INT, E_FALSE);
  e_irq_global_mask(E_FALSE);
  while (mbox[2] == 0) {
  }
  mbox[1] = at;
  mbox[0] = 0xD0E;
  return 0;
}
