/* Every core writes a block to the next core's SECTION global, with plain
 * stores, with e_dma_copy and with a chain of two DMA descriptors, then raises the next core's flag at a fixed local
 * address; each core checks what it received and reports through a
 * mailbox at 0x7000 that the host polls with e_read. */
#include <e_lib.h>

#define N 8
int inbox[2 * N] SECTION(".data_bank2");
int outbox[N] SECTION(".data_bank1");
e_dma_desc_t chain[2];

int main(void) {
  volatile unsigned* mbox = (volatile unsigned*)0x7000;
  volatile int* flag = (volatile int*)0x6000;
  unsigned rows = e_group_config.group_rows, cols = e_group_config.group_cols;
  unsigned me = e_group_config.core_row * cols + e_group_config.core_col, n = rows * cols;
  unsigned nr, nc;
  e_neighbor_id(E_NEXT_CORE, E_GROUP_WRAP, &nr, &nc);
  for (int i = 0; i < N; i++) outbox[i] = (int)(me * 1000 + i * i);
  int* next_inbox = (int*)e_get_global_address(nr, nc, inbox);
  for (int i = 0; i < N; i++) next_inbox[i] = outbox[i];
  e_dma_copy(next_inbox + N, outbox, sizeof outbox / 2);
  e_dma_set_desc(E_DMA_0, E_DMA_ENABLE | E_DMA_MASTER | E_DMA_WORD, 0, 4, 4, N / 4, 1, 0, 0, outbox + 3 * N / 4,
                 next_inbox + N + 3 * N / 4, &chain[1]);
  e_dma_set_desc(E_DMA_0, E_DMA_ENABLE | E_DMA_MASTER | E_DMA_WORD | E_DMA_CHAIN, &chain[1], 4, 4, N / 4, 1, 0, 0,
                 outbox + N / 2, next_inbox + N + N / 2, &chain[0]);
  e_dma_start(&chain[0], E_DMA_0);
  e_dma_wait(E_DMA_0);
  volatile int* next_flag = (volatile int*)e_get_global_address(nr, nc, (void*)0x6000);
  *next_flag = (int)me + 1;
  while (*flag == 0) {
  }
  unsigned prev = (me + n - 1) % n;
  int ok = *flag == (int)prev + 1;
  unsigned sum = 0;
  for (int i = 0; i < 2 * N; i++) {
    sum = sum * 31 + (unsigned)inbox[i];
    ok &= inbox[i] == (int)(prev * 1000 + (i % N) * (i % N));
  }
  /* Single-instruction inline assembly: a special register, a load, a store. */
  unsigned id, first;
  __asm__ __volatile__("movfs %0, coreid" : "=r"(id));
  __asm__ __volatile__("ldr %0, [%1]" : "=r"(first) : "r"(&inbox[0]));
  ok &= id == e_get_coreid() && first == (unsigned)inbox[0];
  __asm__ __volatile__("str %0, [%1]" : : "r"(sum), "r"(&mbox[1]));
  mbox[2] = (unsigned)ok;
  mbox[0] = 0xC0DE0000u | me;
  return 0;
}
