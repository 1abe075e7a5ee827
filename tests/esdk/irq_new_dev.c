/* The second program on the core (state_host reset), loaded after a reset:
 * it attaches no handler. It sees the reset's state (nothing masked,
 * interrupts disabled, no handler running), enables interrupts, says it is
 * ready and sleeps in idle until the host's e_signal; the interrupt has no
 * handler, so the first program's must not run (it would write 0xAAAA). */
#include <e_lib.h>

int main(void) {
  volatile unsigned* mbox = (volatile unsigned*)0x7000;
  const unsigned imask = e_reg_read(E_REG_IMASK), status = e_reg_read(E_REG_STATUS);
  const unsigned ipend = e_reg_read(E_REG_IPEND);
  e_irq_global_mask(E_FALSE);
  mbox[0] = 1;
  __asm__ __volatile__("idle");
  mbox[2] = imask == 0 && status == 2 && ipend == 0 && mbox[1] == 0;
  mbox[0] = 0xC0DE0000u;
  return 0;
}
