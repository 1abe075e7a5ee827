/* DMA bandwidth, device side: one e_dma_copy between this core's buffer at
 * local 0x2000 and another core's memory, timed with CTIMER0.
 *
 * The host writes the plan into this core's mailbox at 0x7000:
 *   [0] row, [1] col of the other core, [2] bytes, [3] offset into the
 *   source, [4] offset into the destination, [5] direction (0: write, this
 *   core's buffer to the other core's 0x2000 + offset; 1: read, the other
 *   core's 0x2000 + offset into this core's buffer; 2: write as a chain of
 *   two descriptors of half the bytes each), [6] start flag (set by
 *   the host once every flow of a case is loaded), [7] destination base in
 *   the other core (write) or source base there (read).
 * It answers in [8] cycles and [9] done = 1. */
#include <e_lib.h>

e_dma_desc_t first, second;

/* A doubleword write of `bytes` (a multiple of 16) as two chained descriptors. */
static void chained_write(char* dst, char* src, unsigned bytes) {
  const unsigned half = bytes / 2, dw = half / 8;
  const unsigned config = E_DMA_ENABLE | E_DMA_MASTER | E_DMA_DWORD;
  e_dma_set_desc(E_DMA_1, config, 0, 8, 8, dw, 1, 0, 0, src + half, dst + half, &second);
  e_dma_set_desc(E_DMA_1, config | E_DMA_CHAIN, &second, 8, 8, dw, 1, 0, 0, src, dst, &first);
  e_dma_start(&first, E_DMA_1);
  e_dma_wait(E_DMA_1);
}

int main(void) {
  volatile unsigned* box = (volatile unsigned*)0x7000;
  const unsigned row = box[0], col = box[1], bytes = box[2];
  const unsigned soff = box[3], doff = box[4], dir = box[5], base = box[7];
  char* local = (char*)0x2000;
  char* remote = (char*)e_get_global_address(row, col, (void*)base);
  char* src = dir == 1 ? remote + soff : local + soff;
  char* dst = dir == 1 ? local + doff : remote + doff;
  while (box[6] == 0) {
  }
  e_ctimer_set(E_CTIMER_0, E_CTIMER_MAX);
  e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
  const unsigned t0 = e_ctimer_get(E_CTIMER_0);
  if (dir == 2)
    chained_write(dst, src, bytes);
  else
    e_dma_copy(dst, src, bytes);
  const unsigned t1 = e_ctimer_get(E_CTIMER_0);
  e_ctimer_stop(E_CTIMER_0);
  box[8] = t0 - t1; /* the timer counts down */
  box[9] = 1;
  return 0;
}
