/* The first of two programs on one core (state_host reset): it attaches a
 * handler to E_USER_INT, masks E_TIMER1_INT, enables interrupts, says it is
 * ready (0x7000 = 1) and sleeps in idle until the host's e_signal. */
#include <e_lib.h>

void __attribute__((interrupt)) on_user(int sig) {
  (void)sig;
  ((volatile unsigned*)0x7000)[1] = 0xAAAAu;
}

int main(void) {
  volatile unsigned* mbox = (volatile unsigned*)0x7000;
  e_irq_attach(E_USER_INT, on_user);
  e_irq_mask(E_USER_INT, E_FALSE);
  e_irq_mask(E_TIMER1_INT, E_TRUE);
  e_irq_global_mask(E_FALSE);
  mbox[0] = 1;
  while (mbox[1] != 0xAAAAu) __asm__ __volatile__("idle");
  mbox[2] = 1;
  mbox[0] = 0xC0DE0000u;
  return 0;
}
