/* A store to the core's own CTIMER0 through a pointer: refused by name
 * (register writes go through e_reg_write). */
#include <e_lib.h>
int main(void) {
  *(volatile unsigned*)E_REG_CTIMER0 = 5;
  return 0;
}
