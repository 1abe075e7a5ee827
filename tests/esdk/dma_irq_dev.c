/* A DMA descriptor with E_DMA_IRQEN raises E_DMA0_INT when its transfer
 * ends: each core copies a block to the next core's SECTION global with
 * e_dma_start and sleeps with idle until the handler runs; the handler
 * sees the channel idle (the copy ended before it). The core then checks
 * the block it received and reports through the mailbox at 0x7000. */
#include <e_lib.h>

#define N 64
int inbox[N] SECTION(".data_bank2");
int outbox[N] SECTION(".data_bank1");
e_dma_desc_t desc;
volatile int done, busy_in_handler = -1;

void __attribute__((interrupt)) on_dma(int sig) {
  (void)sig;
  busy_in_handler = e_dma_busy(E_DMA_0);
  done = 1;
}

int main(void) {
  volatile unsigned* mbox = (volatile unsigned*)0x7000;
  volatile int* flag = (volatile int*)0x6000;
  unsigned cols = e_group_config.group_cols, rows = e_group_config.group_rows;
  unsigned me = e_group_config.core_row * cols + e_group_config.core_col, n = rows * cols;
  unsigned nr, nc;
  e_neighbor_id(E_NEXT_CORE, E_GROUP_WRAP, &nr, &nc);
  for (int i = 0; i < N; i++) outbox[i] = (int)(me * 7919 + i);
  e_irq_attach(E_DMA0_INT, on_dma);
  e_irq_mask(E_DMA0_INT, E_FALSE);
  e_irq_global_mask(E_FALSE);
  int* next_inbox = (int*)e_get_global_address(nr, nc, inbox);
  e_dma_set_desc(E_DMA_0, E_DMA_ENABLE | E_DMA_MASTER | E_DMA_WORD | E_DMA_IRQEN, 0, 4, 4, N, 1, 0, 0, outbox,
                 next_inbox, &desc);
  e_dma_start(&desc, E_DMA_0);
  while (!done) __asm__ __volatile__("idle");
  volatile int* next_flag = (volatile int*)e_get_global_address(nr, nc, (void*)0x6000);
  *next_flag = (int)me + 1;
  while (*flag == 0) {
  }
  unsigned prev = (me + n - 1) % n, sum = 0;
  int ok = busy_in_handler == 0;
  for (int i = 0; i < N; i++) {
    sum = sum * 31 + (unsigned)inbox[i];
    ok &= inbox[i] == (int)(prev * 7919 + i);
  }
  mbox[1] = sum;
  mbox[2] = (unsigned)ok;
  mbox[0] = 0xC0DE0000u | me;
  return 0;
}
