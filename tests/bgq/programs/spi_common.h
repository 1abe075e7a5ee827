/* Set-up shared by the SPI test programs: this node's rank (A..E, E
 * fastest), the node count, the torus destination of a rank, one injection
 * FIFO, and reception FIFO 0 of subgroup 0 with a receive function
 * registered. */
#ifndef HOPSIM_TESTS_SPI_COMMON_H
#define HOPSIM_TESTS_SPI_COMMON_H
#include <spi/include/kernel/MU.h>
#include <spi/include/kernel/location.h>
#include <spi/include/kernel/memory.h>
#include <spi/include/mu/Addressing_inlines.h>
#include <string.h>

static inline int spi_rank(const Personality_t* p) {
  const Personality_Networks_t* n = &p->Network_Config;
  return (int)((((n->Acoord * n->Bnodes + n->Bcoord) * n->Cnodes + n->Ccoord) * n->Dnodes + n->Dcoord) * n->Enodes +
               n->Ecoord);
}

static inline int spi_size(const Personality_t* p) {
  const Personality_Networks_t* n = &p->Network_Config;
  return (int)(n->Anodes * n->Bnodes * n->Cnodes * n->Dnodes * n->Enodes);
}

static inline MUHWI_Destination_t spi_dest(int rank, const Personality_t* p) {
  const uint32_t E = p->Network_Config.Enodes, D = p->Network_Config.Dnodes, C = p->Network_Config.Cnodes,
                 B = p->Network_Config.Bnodes;
  MUHWI_Destination_t d;
  MUSPI_SetUpDestination(&d, rank / (E * D * C * B), rank / (E * D * C) % B, rank / (E * D) % C, rank / E % D,
                         rank % E);
  return d;
}

/* Injection FIFO 0 of `subgroup` over `memory`, activated. */
static inline void spi_open_inj_fifo(MUSPI_InjFifoSubGroup_t* isg, uint32_t subgroup, char* memory, uint64_t bytes) {
  uint32_t ids[1] = {0};
  Kernel_InjFifoAttributes_t attrs[1];
  memset(attrs, 0, sizeof attrs);
  Kernel_AllocateInjFifos(subgroup, isg, 1, ids, attrs);
  Kernel_MemoryRegion_t inj_region;
  Kernel_CreateMemoryRegion(&inj_region, memory, bytes);
  Kernel_InjFifoInit(isg, 0, &inj_region, 0, bytes - 1);
  Kernel_InjFifoActivate(isg, 1, ids, KERNEL_INJ_FIFO_ACTIVATE);
}

/* Reception FIFO 0 of subgroup 0 (global id 0) over `memory`, enabled, its
 * packets with function id `id` handed to `fn`. */
static inline void spi_open_rec_fifo(MUSPI_RecFifoSubGroup_t* rsg, char* memory, uint64_t bytes,
                                     MUSPI_RecvFunction_t fn, uint32_t id) {
  uint32_t rid = 0;
  Kernel_RecFifoAttributes_t rattr;
  memset(&rattr, 0, sizeof rattr);
  Kernel_AllocateRecFifos(0, rsg, 1, &rid, &rattr);
  Kernel_MemoryRegion_t rec_region;
  Kernel_CreateMemoryRegion(&rec_region, memory, bytes);
  Kernel_RecFifoInit(rsg, 0, &rec_region, 0, bytes - 1);
  Kernel_RecFifoEnable(0, 0x8000);
  MUSPI_RegisterRecvFunction(fn, NULL, id);
}
#endif
