/* Nested interrupts: a handler raises an interrupt of higher priority
 * (taken at once, inside it) and one of lower priority (taken after it
 * returns). Each handler appends a letter to a log at 0x7010, upper case on
 * entry, lower case on exit, with the IPEND it saw; 0x7000 reports done. */
#include <e_lib.h>

char log_[16] SECTION(".data_bank3");
unsigned n_, ipend_[16];

static void note(char c) {
  ipend_[n_ & 15] = e_reg_read(E_REG_IPEND);
  log_[n_++] = c;
}

void __attribute__((interrupt)) on_user(int sig) { /* priority 9, the lowest */
  (void)sig;
  note('U');
  e_reg_write(E_REG_ILATST, 1u << E_TIMER0_INT); /* higher: nests here */
  note('u');
}

void __attribute__((interrupt)) on_timer(int sig) { /* priority 3 */
  (void)sig;
  note('T');
  note('t');
}

void __attribute__((interrupt)) on_message(int sig) { /* priority 4 */
  (void)sig;
  note('M');
  e_reg_write(E_REG_ILATST, 1u << E_USER_INT); /* lower: waits for the return */
  note('m');
}

int main(void) {
  unsigned* mbox = (unsigned*)0x7000;
  e_irq_attach(E_USER_INT, on_user);
  e_irq_attach(E_TIMER0_INT, on_timer);
  e_irq_attach(E_MESSAGE_INT, on_message);
  e_irq_mask(E_USER_INT, E_FALSE);
  e_irq_mask(E_TIMER0_INT, E_FALSE);
  e_irq_mask(E_MESSAGE_INT, E_FALSE);
  e_irq_global_mask(E_FALSE);
  e_reg_write(E_REG_ILATST, 1u << E_USER_INT);
  e_reg_write(E_REG_ILATST, 1u << E_MESSAGE_INT);
  e_irq_global_mask(E_TRUE);
  for (unsigned i = 0; i < n_ && i < 16; i++) ((char*)0x7010)[i] = log_[i];
  mbox[1] = ipend_[1]; /* inside on_timer nested in on_user: both pending */
  mbox[2] = n_;
  mbox[0] = 0xD0E;
  return 0;
}
