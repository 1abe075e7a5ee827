/* A timer counting clock cycles raises E_TIMER0_INT when it expires: each
 * core arms CTIMER0 with a count that grows with its number and sleeps in
 * idle until the handler runs; the handler sees the timer at zero. A
 * stopped timer raises nothing: CTIMER1 is started and stopped before it
 * expires, with its interrupt unmasked. Reports through the mailbox at 0x7000. */
#include <e_lib.h>

volatile int fired0, fired1;
volatile unsigned left_in_handler = 1;

void __attribute__((interrupt)) on_timer0(int sig) {
  (void)sig;
  left_in_handler = e_ctimer_get(E_CTIMER_0);
  fired0 = 1;
}

void __attribute__((interrupt)) on_timer1(int sig) {
  (void)sig;
  fired1 = 1;
}

int main(void) {
  volatile unsigned* mbox = (volatile unsigned*)0x7000;
  unsigned me = e_group_config.core_row * e_group_config.group_cols + e_group_config.core_col;
  e_irq_attach(E_TIMER0_INT, on_timer0);
  e_irq_attach(E_TIMER1_INT, on_timer1);
  e_irq_mask(E_TIMER0_INT, E_FALSE);
  e_irq_mask(E_TIMER1_INT, E_FALSE);
  e_irq_global_mask(E_FALSE);
  e_ctimer_set(E_CTIMER_1, 1000000000u);
  e_ctimer_start(E_CTIMER_1, E_CTIMER_CLK);
  e_ctimer_stop(E_CTIMER_1);
  e_ctimer_set(E_CTIMER_0, 20000u + 1000u * me);
  e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
  while (!fired0) __asm__ __volatile__("idle");
  const int ok = left_in_handler == 0 && fired1 == 0;
  mbox[1] = me;
  mbox[2] = (unsigned)ok;
  mbox[0] = 0xC0DE0000u | me;
  return 0;
}
