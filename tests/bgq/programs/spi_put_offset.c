/* Memory-FIFO put offsets (tests/bgq/CMakeLists.txt): each rank sends the
 * next rank one message of M bytes as five descriptors, each naming where
 * its part goes by Rec_Put_Offset (the last one by MUSPI_SetRecPutOffset
 * on the created descriptor). The receive function places each packet at
 * the put offset of its header: the descriptor's plus the packet's offset
 * in the message. */
#include <hwi/include/bqc/A2_inlines.h>
#include <spi/include/kernel/MU.h>
#include <spi/include/kernel/location.h>
#include <spi/include/kernel/memory.h>
#include <spi/include/mu/Addressing_inlines.h>
#include <spi/include/mu/GIBarrier.h>
#include <spi/include/mu/InjFifo.h>
#include <spi/include/mu/RecFifo.h>
#include <stdio.h>
#include <string.h>
#include "spi_common.h"

#define M 20000
#define PART 4000
#define FN 9
static unsigned char out[M], in[M];
static int got, packets, soft_wrong;
static char rec_memory[4096] __attribute__((aligned(64)));
static char inj_memory[1024] __attribute__((aligned(64)));

static int on_packet(void* param, MUHWI_PacketHeader_t* hdr, uint32_t bytes) {
  (void)param;
  const MUHWI_MU_MemoryFIFOHeader_t* h = &hdr->messageUnitHeader.Packet_Types.Memory_FIFO;
  const uint64_t off = ((uint64_t)h->Put_Offset_MSB << 32) | h->Put_Offset_LSB;
  uint32_t n = bytes - 32;
  if (off >= M) return 0;
  if (off + n > M) n = (uint32_t)(M - off);
  if (h->Unused2[0] != FN || h->Unused2[1] != 0x5A) soft_wrong++;
  memcpy(in + off, (const char*)hdr + 32, n);
  got += (int)n;
  packets++;
  return 0;
}

int main(void) {
  Personality_t p;
  Kernel_GetPersonality(&p, sizeof p);
  const int rank = spi_rank(&p), size = spi_size(&p);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int i = 0; i < M; i++) out[i] = (unsigned char)(rank * 13 + i);

  MUSPI_InjFifoSubGroup_t isg;
  spi_open_inj_fifo(&isg, 0, inj_memory, sizeof inj_memory);
  MUSPI_RecFifoSubGroup_t rsg;
  spi_open_rec_fifo(&rsg, rec_memory, sizeof rec_memory, on_packet, FN);
  MUSPI_GIBarrier_t gi;
  MUSPI_GIBarrierInit(&gi, 0);
  MUSPI_GIBarrierEnter(&gi);
  MUSPI_GIBarrierPollWithTimeout(&gi, ~0ull);

  /* The parts in reverse order, so that an offset ignored puts them in the wrong place. */
  MUSPI_InjFifo_t* f = MUSPI_IdToInjFifo(0, &isg);
  MUSPI_RecFifo_t* r = MUSPI_IdToRecFifo(0, &rsg);
  for (int k = M / PART - 1; k >= 0; k--) {
    MUSPI_Pt2PtMemoryFIFODescriptorInfo_t mi;
    memset(&mi, 0, sizeof mi);
    mi.Base.Payload_Address = (uint64_t)(out + k * PART);
    mi.Base.Message_Length = PART;
    mi.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP;
    mi.Base.Dest = spi_dest(next, &p);
    mi.MemFIFO.Rec_FIFO_Id = 0;
    mi.MemFIFO.SoftwareBytes[0] = FN;
    mi.MemFIFO.SoftwareBytes[1] = 0x5A;
    mi.MemFIFO.Rec_Put_Offset = k == 0 ? 7 : (uint64_t)k * PART;
    MUHWI_Descriptor_t d;
    MUSPI_CreatePt2PtMemoryFIFODescriptor(&d, &mi);
    if (k == 0) MUSPI_SetRecPutOffset(&d, 0);
    while (MUSPI_InjFifoInject(f, &d) == (uint64_t)-1) MUSPI_RecFifoPoll(r, 64);
  }
  while (got < M) MUSPI_RecFifoPoll(r, 64);
  int wrong = 0;
  for (int i = 0; i < M; i++) wrong += in[i] != (unsigned char)(prev * 13 + i);
  MUSPI_GIBarrierEnter(&gi);
  MUSPI_GIBarrierPollWithTimeout(&gi, ~0ull);
  printf("rank %d: %d bytes in %d packets from rank %d by put offset: %d wrong, %d software bytes wrong\n", rank, got,
         packets, prev, wrong, soft_wrong);
  return 0;
}
