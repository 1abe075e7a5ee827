/* Core (0,0) waits 2M cycles, then raises the user interrupt of core
 * (0,1), which polls a flag its handler sets and reports, at its 0x7000,
 * how many cycles after its start the handler ran. */
#include <e_lib.h>

volatile unsigned got;
unsigned at;

void __attribute__((interrupt)) on_user(int sig) {
  (void)sig;
  at = E_CTIMER_MAX - e_ctimer_get(E_CTIMER_0);
  got = 1;
}

int main(void) {
  unsigned* mbox = (unsigned*)0x7000;
  if (e_group_config.core_col == 0) {
    e_wait(E_CTIMER_1, 2000000);
    e_irq_set(0, 1, E_USER_INT);
    mbox[0] = 0xD0E;
    return 0;
  }
  e_ctimer_set(E_CTIMER_0, E_CTIMER_MAX);
  e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
  e_irq_attach(E_USER_INT, on_user);
  e_irq_mask(E_USER_INT, E_FALSE);
  e_irq_global_mask(E_FALSE);
  while (!got) {
  }
  mbox[1] = at;
  mbox[0] = 0xD0E;
  return 0;
}
