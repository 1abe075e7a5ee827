/* Loads of the core's own memory-mapped registers through pointers (as
 * programs read CTIMER0 with `ldr` of its address): COREID by its local
 * and its global address, CTIMER0 counting down. Reports through the
 * mailbox at 0x7000 as mailbox_dev.c does. */
#include <e_lib.h>

int main(void) {
  volatile unsigned* mbox = (volatile unsigned*)0x7000;
  unsigned row = e_group_config.core_row, col = e_group_config.core_col;
  const unsigned id = e_get_coreid();
  const unsigned local_id = *(volatile unsigned*)E_REG_COREID;
  const volatile unsigned* global_id = (const volatile unsigned*)e_get_global_address(row, col, (void*)E_REG_COREID);
  unsigned ok = local_id == id && *global_id == id;
  e_ctimer_set(E_CTIMER_0, E_CTIMER_MAX);
  e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
  unsigned before, after;
  const unsigned* timer = (const unsigned*)e_get_global_address(row, col, (void*)E_REG_CTIMER0);
  __asm__ __volatile__("ldr %0, [%1]" : "=r"(before) : "r"(timer));
  for (volatile int i = 0; i < 100; i++) {
  }
  __asm__ __volatile__("ldr %0, [%1]" : "=r"(after) : "r"(timer));
  e_ctimer_stop(E_CTIMER_0);
  ok &= before <= E_CTIMER_MAX && after <= before;
  mbox[1] = local_id;
  mbox[2] = ok;
  mbox[0] = 0xC0DE0000u | id;
  return 0;
}
