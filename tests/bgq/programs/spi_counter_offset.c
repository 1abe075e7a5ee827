/* A reception counter reached through an offset from a base address
 * (tests/bgq/CMakeLists.txt): the counter is the third of an array whose
 * start is the base address, its offset from MUSPI_GetAtomicOffsetFromBaseAddress;
 * a bare loop polls it while the previous rank puts three thirds of a
 * message, placed by MUSPI_SetRecPutOffset. */
#include <hwi/include/bqc/A2_inlines.h>
#include <spi/include/kernel/MU.h>
#include <spi/include/kernel/location.h>
#include <spi/include/kernel/memory.h>
#include <spi/include/mu/Addressing_inlines.h>
#include <spi/include/mu/GIBarrier.h>
#include <spi/include/mu/InjFifo.h>
#include <stdio.h>
#include <string.h>
#include "spi_common.h"

#define N 1000
static double out[N], in[3 * N];
static volatile uint64_t counters[4];
static char inj_memory[4096] __attribute__((aligned(64)));

int main(void) {
  Personality_t p;
  Kernel_GetPersonality(&p, sizeof p);
  const int rank = spi_rank(&p), size = spi_size(&p);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int i = 0; i < N; i++) out[i] = rank * 10000 + i;
  for (int i = 0; i < 3 * N; i++) in[i] = -1;
  counters[2] = 3 * sizeof out;

  MUSPI_InjFifoSubGroup_t isg;
  spi_open_inj_fifo(&isg, 2, inj_memory, sizeof inj_memory);
  MUSPI_BaseAddressTableSubGroup_t bat;
  uint32_t bids[2] = {3, 5};
  Kernel_AllocateBaseAddressTable(2, &bat, 2, bids, 0);
  MUSPI_SetBaseAddress(&bat, 3, (uint64_t)in);
  MUSPI_SetBaseAddress(&bat, 5, (uint64_t)counters);
  const uint64_t offset =
      MUSPI_GetAtomicOffsetFromBaseAddress(&bat, 5, (uint64_t)&counters[2], MUHWI_ATOMIC_OPCODE_STORE_ADD);
  MUSPI_GIBarrier_t gi;
  MUSPI_GIBarrierInit(&gi, 0);
  MUSPI_GIBarrierEnter(&gi);
  MUSPI_GIBarrierPollWithTimeout(&gi, ~0ull);

  MUSPI_Pt2PtDirectPutDescriptorInfo_t pi;
  memset(&pi, 0, sizeof pi);
  pi.Base.Payload_Address = (uint64_t)out;
  pi.Base.Message_Length = sizeof out;
  pi.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP;
  pi.Base.Dest = spi_dest(next, &p);
  pi.DirectPut.Rec_Payload_Base_Address_Id = 2 * 8 + 3;
  pi.DirectPut.Rec_Payload_Offset = sizeof out; /* the middle third */
  pi.DirectPut.Rec_Counter_Base_Address_Id = 2 * 8 + 5;
  pi.DirectPut.Rec_Counter_Offset = offset;
  MUHWI_Descriptor_t d;
  MUSPI_CreatePt2PtDirectPutDescriptor(&d, &pi);
  MUSPI_InjFifo_t* f = MUSPI_IdToInjFifo(0, &isg);
  MUSPI_InjFifoInject(f, &d);
  MUSPI_SetRecPutOffset(&d, 0);
  MUSPI_InjFifoInject(f, &d);
  MUSPI_SetRecPutOffset(&d, 2 * sizeof out);
  const uint64_t n = MUSPI_InjFifoInject(f, &d);
  while (counters[2] > 0)
    ;
  while (!MUSPI_CheckDescComplete(f, n))
    ;
  int wrong = 0;
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < N; i++) wrong += in[k * N + i] != prev * 10000 + i;
  MUSPI_GIBarrierEnter(&gi);
  MUSPI_GIBarrierPollWithTimeout(&gi, ~0ull);
  printf("rank %d: three puts from rank %d: %d wrong, counters %lu %lu %lu\n", rank, prev, wrong,
         (unsigned long)counters[0], (unsigned long)counters[1], (unsigned long)counters[2]);
  return 0;
}
