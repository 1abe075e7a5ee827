/* Crashes on purpose, as chosen by the word the host writes at 0x6000
 * before starting it: 1 abort(), 2 a call through a null function pointer. */
#include <e_lib.h>
#include <stdlib.h>

void (*volatile nothing_there)(void) = 0;

int main(void) {
  volatile int* how = (volatile int*)0x6000;
  if (*how == 1) abort();
  if (*how == 2) nothing_there();
  return 0;
}
