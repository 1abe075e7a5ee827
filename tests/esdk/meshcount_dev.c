/* The routers' event counters (ctimers in their mesh modes): core (0,0)
 * sends 256 dwords by DMA and 10 plain stores to core (1,2); the XY route
 * passes (0,1) and (0,2). Cores (0,1) and (1,2) count with both ctimers,
 * event codes chosen in MESHCFG: ctimer 0 (config 0xF) takes bits [7:4],
 * ctimer 1 (config 0xE) bits [11:8]. Each counter core reports the counts
 * at 0x7008 and 0x700c; the host reads them. */
#include <e_lib.h>

#define CTIMER_MESH_0 0xf
#define CTIMER_MESH_1 0xe

long long block[256] SECTION(".data_bank1");
long long inbox[256] SECTION(".data_bank2");

int main(void) {
  volatile unsigned* ready = (volatile unsigned*)0x7000;
  volatile unsigned* done = (volatile unsigned*)0x7004;
  volatile unsigned* counts = (volatile unsigned*)0x7008;
  unsigned row = e_group_config.core_row, col = e_group_config.core_col;
  if (row == 0 && col == 0) {
    /* The sender: the host says go once both counters run. */
    while (*ready == 0) {
    }
    for (int i = 0; i < 256; i++) block[i] = (long long)i * 0x10001;
    e_dma_copy(e_get_global_address(1, 2, inbox), block, sizeof block);
    volatile unsigned* far = (volatile unsigned*)e_get_global_address(1, 2, (void*)0x6000);
    for (unsigned i = 0; i < 10; i++) far[i] = i;
    *(volatile unsigned*)e_get_global_address(1, 2, (void*)done) = 1;
    *(volatile unsigned*)e_get_global_address(0, 1, (void*)done) = 1;
    return 0;
  }
  /* (0,1): west access and any access; (1,2): north access and west access. */
  const unsigned first = row == 0 ? 12 : 11, second = row == 0 ? 15 : 12;
  e_reg_write(E_REG_MESHCFG, (e_reg_read(E_REG_MESHCFG) & ~0xff0u) | (first << 4) | (second << 8));
  e_ctimer_set(E_CTIMER_0, E_CTIMER_MAX);
  e_ctimer_set(E_CTIMER_1, E_CTIMER_MAX);
  e_ctimer_start(E_CTIMER_0, (e_ctimer_config_t)CTIMER_MESH_0);
  e_ctimer_start(E_CTIMER_1, (e_ctimer_config_t)CTIMER_MESH_1);
  *ready = 1;
  while (*done == 0) {
  }
  counts[0] = E_CTIMER_MAX - e_ctimer_stop(E_CTIMER_0);
  counts[1] = E_CTIMER_MAX - e_ctimer_stop(E_CTIMER_1);
  if (row == 1) {
    unsigned ok = 1;
    for (int i = 0; i < 256; i++) ok &= inbox[i] == (long long)i * 0x10001;
    counts[2] = ok;
  }
  *ready = 2;
  return 0;
}
