/* Each way the SPI moves data, in a program with its own main(), as its
 * author would write it for the machine; prints one line per rank, the same
 * in every mode (simulated, host threads, a process per rank, Open MPI):
 *   - a direct put of N doubles to the next rank, counted down on its
 *     reception counter;
 *   - a memory-FIFO message of M bytes (several packets) to the previous
 *     rank, received by MUSPI_RecFifoPoll through a registered receive
 *     function that places each packet by its put offset;
 *   - a remote get: each rank asks the next rank's MU to direct-put that
 *     rank's table back into its own buffer (the table's address came in
 *     the memory-FIFO message's software bytes: each rank's copy of the
 *     program has its own addresses);
 *   - the GI barrier between the rounds.
 * Argument: a scale for the data (default 1). */
#include <hwi/include/bqc/A2_inlines.h>
#include <spi/include/kernel/MU.h>
#include <spi/include/kernel/location.h>
#include <spi/include/kernel/memory.h>
#include <spi/include/mu/Addressing_inlines.h>
#include <spi/include/mu/GIBarrier.h>
#include <spi/include/mu/InjFifo.h>
#include <spi/include/mu/RecFifo.h>
#include "spi_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopsim/bgq_kernel.h"

#define N 2048 /* doubles of the direct put */
#define M 3000 /* bytes of the memory-FIFO message: 6 packets */
#define G 1000 /* ints of the remote get */
#define FN 7   /* the receive function's id */
static double put_out[N], put_in[N];
static unsigned char fifo_out[M], fifo_in[M];
static int table[G], got[G];
static volatile uint64_t put_counter, get_counter;
static volatile int fifo_bytes;
static uint64_t next_table; /* the next rank's table, from its memory-FIFO message */
static char rec_memory[65536] __attribute__((aligned(64)));
static char inj_memory[4][4096] __attribute__((aligned(64)));
static MUHWI_Descriptor_t get_payload __attribute__((aligned(64)));

static int on_packet(void* param, MUHWI_PacketHeader_t* hdr, uint32_t bytes) {
  (void)param;
  const MUHWI_MU_MemoryFIFOHeader_t* h = &hdr->messageUnitHeader.Packet_Types.Memory_FIFO;
  const uint64_t off = ((uint64_t)h->Put_Offset_MSB << 32) | h->Put_Offset_LSB;
  uint32_t n = bytes - 32;
  if (off + n > M) n = (uint32_t)(M - off); /* the MU pads the last packet to whole 32-byte chunks */
  memcpy(fifo_in + off, (const char*)hdr + 32, n);
  memcpy(&next_table, &h->Unused2[1], sizeof next_table);
  fifo_bytes += (int)n;
  return 0;
}

int main(int argc, char** argv) {
  Personality_t p;
  Kernel_GetPersonality(&p, sizeof p);
  const int rank = spi_rank(&p), size = spi_size(&p);
  const int scale = argc > 1 ? atoi(argv[1]) : 1;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int i = 0; i < N; ++i) put_out[i] = scale * (rank * 100000.0 + i);
  for (int i = 0; i < M; ++i) fifo_out[i] = (unsigned char)(rank * 7 + i * scale);
  for (int i = 0; i < G; ++i) table[i] = scale * (rank * 1000 + i * 3);
  put_counter = sizeof put_in;
  get_counter = sizeof got;

  /* Injection FIFOs 0..3 of subgroup 0: 0 puts, 1 memory FIFO, 2 remote gets, 3 the remote gets' payloads. */
  MUSPI_InjFifoSubGroup_t isg;
  uint32_t ids[4] = {0, 1, 2, 3};
  Kernel_InjFifoAttributes_t attrs[4];
  memset(attrs, 0, sizeof attrs);
  attrs[3].RemoteGet = 1;
  Kernel_AllocateInjFifos(0, &isg, 4, ids, attrs);
  Kernel_MemoryRegion_t inj_region;
  Kernel_CreateMemoryRegion(&inj_region, inj_memory, sizeof inj_memory);
  for (uint32_t f = 0; f < 4; ++f)
    Kernel_InjFifoInit(&isg, f, &inj_region, (uint64_t)f * sizeof inj_memory[f], sizeof inj_memory[f] - 1);
  Kernel_InjFifoActivate(&isg, 4, ids, KERNEL_INJ_FIFO_ACTIVATE);

  /* Reception FIFO 0 of subgroup 0 (global id 0). */
  MUSPI_RecFifoSubGroup_t rsg;
  spi_open_rec_fifo(&rsg, rec_memory, sizeof rec_memory, on_packet, FN);

  /* Base addresses: 0 the put's buffer, 1 its counter, 2 the get's buffer, 3 its counter. */
  MUSPI_BaseAddressTableSubGroup_t bat;
  uint32_t bids[4] = {0, 1, 2, 3};
  Kernel_AllocateBaseAddressTable(0, &bat, 4, bids, 0);
  MUSPI_SetBaseAddress(&bat, 0, (uint64_t)put_in);
  MUSPI_SetBaseAddress(&bat, 1, MUSPI_GetAtomicAddress((uint64_t)&put_counter, MUHWI_ATOMIC_OPCODE_STORE_ADD));
  MUSPI_SetBaseAddress(&bat, 2, (uint64_t)got);
  MUSPI_SetBaseAddress(&bat, 3, MUSPI_GetAtomicAddress((uint64_t)&get_counter, MUHWI_ATOMIC_OPCODE_STORE_ADD));

  MUSPI_GIBarrier_t gi;
  MUSPI_GIBarrierInit(&gi, 0);
  MUSPI_GIBarrierEnter(&gi);
  MUSPI_GIBarrierPollWithTimeout(&gi, ~0ull); /* every node's tables and FIFOs are set */

  /* The direct put to the next rank. */
  MUSPI_Pt2PtDirectPutDescriptorInfo_t pi;
  memset(&pi, 0, sizeof pi);
  pi.Base.Payload_Address = (uint64_t)put_out;
  pi.Base.Message_Length = sizeof put_out;
  pi.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP;
  pi.Base.Dest = spi_dest(next, &p);
  pi.DirectPut.Rec_Payload_Base_Address_Id = 0;
  pi.DirectPut.Rec_Counter_Base_Address_Id = 1;
  MUHWI_Descriptor_t put;
  MUSPI_CreatePt2PtDirectPutDescriptor(&put, &pi);
  MUSPI_InjFifoInject(MUSPI_IdToInjFifo(0, &isg), &put);

  /* The memory-FIFO message to the previous rank. */
  MUSPI_Pt2PtMemoryFIFODescriptorInfo_t mi;
  memset(&mi, 0, sizeof mi);
  mi.Base.Payload_Address = (uint64_t)fifo_out;
  mi.Base.Message_Length = M;
  mi.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AM;
  mi.Base.Dest = spi_dest(prev, &p);
  mi.MemFIFO.Rec_FIFO_Id = 0;
  mi.MemFIFO.SoftwareBytes[0] = FN;
  const uint64_t my_table = (uint64_t)table;
  memcpy(&mi.MemFIFO.SoftwareBytes[1], &my_table, sizeof my_table);
  MUHWI_Descriptor_t msg;
  MUSPI_CreatePt2PtMemoryFIFODescriptor(&msg, &mi);
  MUSPI_InjFifoInject(MUSPI_IdToInjFifo(1, &isg), &msg);

  while (put_counter > 0) HOPSIM_SPIN_WAIT();
  while (fifo_bytes < M) MUSPI_RecFifoPoll(MUSPI_IdToRecFifo(0, &rsg), 4096);

  /* The remote get: the next rank's MU puts its table into this rank's `got` (base addresses 2 and 3 here). */
  MUSPI_Pt2PtDirectPutDescriptorInfo_t back;
  memset(&back, 0, sizeof back);
  back.Base.Payload_Address = next_table;
  back.Base.Message_Length = sizeof table;
  back.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP;
  back.Base.Dest = spi_dest(rank, &p);
  back.DirectPut.Rec_Payload_Base_Address_Id = 2;
  back.DirectPut.Rec_Counter_Base_Address_Id = 3;
  MUSPI_CreatePt2PtDirectPutDescriptor(&get_payload, &back);
  MUSPI_Pt2PtRemoteGetDescriptorInfo_t gi_info;
  memset(&gi_info, 0, sizeof gi_info);
  gi_info.Base.Payload_Address = (uint64_t)&get_payload;
  gi_info.Base.Message_Length = sizeof get_payload;
  gi_info.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP;
  gi_info.Base.Dest = spi_dest(next, &p);
  gi_info.RemoteGet.Type = MUHWI_PACKET_TYPE_GET;
  gi_info.RemoteGet.Rget_Inj_FIFO_Id = 3;
  MUHWI_Descriptor_t get;
  MUSPI_CreatePt2PtRemoteGetDescriptor(&get, &gi_info);
  MUSPI_InjFifoInject(MUSPI_IdToInjFifo(2, &isg), &get);
  while (get_counter > 0) HOPSIM_SPIN_WAIT();

  int put_wrong = 0, fifo_wrong = 0, get_wrong = 0;
  double sum = 0;
  for (int i = 0; i < N; ++i) {
    put_wrong += put_in[i] != scale * (next == rank ? rank : prev) * 100000.0 + scale * i;
    sum += put_in[i];
  }
  for (int i = 0; i < M; ++i) fifo_wrong += fifo_in[i] != (unsigned char)(next * 7 + i * scale);
  for (int i = 0; i < G; ++i) get_wrong += got[i] != scale * (next * 1000 + i * 3);
  hopsim_bgq_check("direct put", N, (uint64_t)put_wrong, "");
  hopsim_bgq_check("memory FIFO", M, (uint64_t)fifo_wrong, "");
  hopsim_bgq_check("remote get", G, (uint64_t)get_wrong, "");
  hopsim_bgq_digest(put_in, sizeof put_in);
  hopsim_bgq_digest(fifo_in, sizeof fifo_in);
  hopsim_bgq_digest(got, sizeof got);

  MUSPI_GIBarrierEnter(&gi);
  MUSPI_GIBarrierPollWithTimeout(&gi, ~0ull);
  printf(
      "rank %d of %d: put from rank %d, %d wrong, sum %.17g; memory FIFO from rank %d, %d bytes, %d wrong; "
      "remote get from rank %d, %d wrong\n",
      rank, size, prev, put_wrong, sum, next, fifo_bytes, fifo_wrong, next, get_wrong);
  return put_wrong || fifo_wrong || get_wrong ? 4 : 0;
}
