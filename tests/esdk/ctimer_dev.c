/* The ctimers as e-lib runs them: e_ctimer_start on a timer already
 * counting goes on from where it stands (not from the value last set), and
 * e_wait counts its timer down from `clicks` to 0, leaves it there and
 * latches the timer's interrupt (not taken: interrupts stay disabled).
 * CONFIG holds the timers' modes: writing it stops and restarts a timer.
 * Reports through the mailbox at 0x7000 (bit i of the second word: check i held). */
#include <e_lib.h>

int main(void) {
  volatile unsigned* mbox = (volatile unsigned*)0x7000;
  e_ctimer_set(E_CTIMER_0, E_CTIMER_MAX);
  e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
  e_wait(E_CTIMER_1, 100000);
  const unsigned before = e_ctimer_get(E_CTIMER_0);
  e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
  const unsigned after = e_ctimer_get(E_CTIMER_0);
  const unsigned waited = e_ctimer_get(E_CTIMER_1);
  const unsigned ilat = e_reg_read(E_REG_ILAT);
  /* CONFIG holds the timers' modes (bits 7:4, 11:8); writing it stops and starts them. */
  const unsigned config = e_reg_read(E_REG_CONFIG);
  e_reg_write(E_REG_CONFIG, config & ~0xf0u);
  const unsigned stopped = e_ctimer_get(E_CTIMER_0);
  e_wait(E_CTIMER_1, 1000);
  const int stood = e_ctimer_get(E_CTIMER_0) == stopped && ((e_reg_read(E_REG_CONFIG) >> 4) & 0xfu) == E_CTIMER_OFF;
  e_reg_write(E_REG_CONFIG, (config & ~0xf0u) | E_CTIMER_CLK << 4);
  e_wait(E_CTIMER_1, 1000);
  const int counted = e_ctimer_get(E_CTIMER_0) < stopped;
  unsigned bits = 0;
  bits |= (E_CTIMER_MAX - before >= 100000u) << 0; /* e_wait waited its clicks */
  bits |= (after <= before) << 1;                  /* the restart did not go back */
  bits |= (waited == 0) << 2;
  bits |= ((ilat >> E_TIMER1_INT) & 1u) << 3;
  bits |= (((config >> 4) & 0xfu) == E_CTIMER_CLK && ((config >> 8) & 0xfu) == E_CTIMER_OFF) << 4;
  bits |= stood << 5;
  bits |= counted << 6;
  const int ok = bits == 0x7f;
  mbox[1] = bits;
  mbox[2] = (unsigned)ok;
  mbox[0] = 0xC0DE0000u;
  return 0;
}
