/* Counted compute: times count_kernel.ll (n iterations, n from the host)
 * with the core's timer; the cycles between the two reads are the
 * kernel's own (a block's cycles are charged when it is entered). */
#include <e-lib.h>

volatile unsigned result[4] SECTION(".data_bank2"); /* n in, then cycles, word, done */
int word = 1;
void count_kernel(int n, int* p);

int main(void) {
  e_ctimer_set(E_CTIMER_0, E_CTIMER_MAX);
  e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
  const unsigned t0 = e_ctimer_get(E_CTIMER_0);
  count_kernel((int)result[0], &word);
  const unsigned t1 = e_ctimer_get(E_CTIMER_0);
  result[1] = t0 - t1;
  result[2] = (unsigned)word;
  result[3] = 1;
  return 0;
}
