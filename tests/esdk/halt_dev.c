/* Counts until the host says stop; the host halts and resumes it meanwhile. */
#include <e_lib.h>

int main(void) {
  volatile unsigned* count = (volatile unsigned*)0x6000;
  volatile unsigned* stop = (volatile unsigned*)0x6004;
  volatile unsigned* done = (volatile unsigned*)0x6008;
  while (!*stop) *count = *count + 1;
  *done = 1;
  return 0;
}
