/* Collectives on the messaging unit as an SPI program writes them: class
 * route 0 (the job's comm world, set before main) and a route the program
 * sets itself (route 1: the 16 nodes with E = 0, a tree over A..D rooted
 * at node 0), with
 *   - an allreduce by direct put (unsigned add of 64-bit words),
 *   - an allreduce into a reception FIFO (floating-point max), received by
 *     a function registered with MUSPI_RegisterReceiveFunction,
 *   - an allreduce on route 1 (signed min of 32-bit words),
 *   - a broadcast from rank 3 to every node.
 * Every rank polls its counters in bare loops and prints one line with what
 * it checked; the lines are the same in every mode. argv[1] selects a
 * mistake instead: 1 a collective on class route 5, which nobody set;
 * 2 rank 0 contributes 16 bytes where the others contribute 8;
 * 3 a class route with two output links (Kernel_SetCollectiveClassRoute's
 * return code is printed). 4 is no mistake: the injection FIFO holds two
 * descriptors (one free slot), so MUSPI_InjFifoInject returns -1 while it
 * is full and the program injects again. */
#include <hwi/include/bqc/A2_inlines.h>
#include <hwi/include/bqc/classroute.h>
#include <mpi.h>
#include <spi/include/kernel/MU.h>
#include <spi/include/kernel/collective.h>
#include <spi/include/kernel/location.h>
#include <spi/include/mu/Addressing_inlines.h>
#include <spi/include/mu/InjFifo.h>
#include <spi/include/mu/RecFifo.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 2048 /* words per allreduce: several packets */
static uint64_t sums[N];
static double maxes[N], maxed[N];
static int32_t mins[64];
static double bcast[64];
/* What the MU writes by direct put, behind one base-address-table entry:
 * offsets from it are the same on every node, whatever the addresses. */
static struct {
  uint64_t summed[N];
  int32_t minned[64];
  double bcasted[64];
  volatile uint64_t counter[3];
} in;
#define OFF(f) ((uint64_t)((char*)&in.f - (char*)&in))
static MUSPI_InjFifoSubGroup_t isg;
static MUSPI_RecFifoSubGroup_t rsg;
static MUSPI_BaseAddressTableSubGroup_t bat;
static char injmem[64 * 64] __attribute__((aligned(64)));
static char recmem[64 * 1024] __attribute__((aligned(32)));
static uint64_t fifo_bytes; /* payload bytes the receive function took */

static int on_packet(void* param, MUHWI_PacketHeader_t* hdr, uint32_t bytes) {
  const MUHWI_MU_MemoryFIFOHeader_t* mh = &hdr->messageUnitHeader.Packet_Types.Memory_FIFO;
  const uint64_t off = ((uint64_t)mh->Put_Offset_MSB << 32) | mh->Put_Offset_LSB;
  uint64_t payload = bytes - 32; /* the header is 32 bytes; the last packet is padded with zeros */
  if (off + payload > sizeof maxed) payload = sizeof maxed - off;
  memcpy((char*)param + off, (char*)hdr + 32, payload);
  fifo_bytes += payload;
  return 0;
}

static void collective(void* src, uint64_t bytes, int put, uint8_t op, uint16_t word, uint8_t route, uint8_t type,
                       uint64_t put_offset, int counter_id, uint32_t recv_fn) {
  MUHWI_Descriptor_t d;
  int rc;
  if (put) {
    MUSPI_CollectiveDirectPutDescriptorInfo_t info;
    memset(&info, 0, sizeof info);
    info.Base.Payload_Address = (uint64_t)src;
    info.Base.Message_Length = bytes;
    info.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CUSER;
    info.Collective.Op_Code = op;
    info.Collective.Word_Length = word;
    info.Collective.Class_Route = route;
    info.Collective.Misc = MUHWI_PACKET_VIRTUAL_CHANNEL_USER_SUB_COMM | type;
    info.DirectPut.Rec_Payload_Base_Address_Id = 0;
    info.DirectPut.Rec_Payload_Offset = put_offset;
    info.DirectPut.Rec_Counter_Base_Address_Id = 0;
    info.DirectPut.Rec_Counter_Offset =
        MUSPI_GetAtomicOffsetFromBaseAddress(&bat, 0, (uint64_t)&in.counter[counter_id], MUHWI_ATOMIC_OPCODE_STORE_ADD);
    rc = MUSPI_CreateCollectiveDirectPutDescriptor(&d, &info);
  } else {
    MUSPI_CollectiveMemoryFIFODescriptorInfo_t info;
    memset(&info, 0, sizeof info);
    info.Base.Payload_Address = (uint64_t)src;
    info.Base.Message_Length = bytes;
    info.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CUSER;
    info.Collective.Op_Code = op;
    info.Collective.Word_Length = word;
    info.Collective.Class_Route = route;
    info.Collective.Misc = MUHWI_PACKET_VIRTUAL_CHANNEL_USER_SUB_COMM | type;
    info.MemFIFO.Rec_FIFO_Id = 0;
    info.MemFIFO.SoftwareBytes[0] = (uint8_t)recv_fn;
    rc = MUSPI_CreateCollectiveMemoryFIFODescriptor(&d, &info);
  }
  if (rc != 0) {
    printf("creating a collective descriptor failed (%d)\n", rc);
    exit(1);
  }
  while (MUSPI_InjFifoInject(MUSPI_IdToInjFifo(0, &isg), &d) == (uint64_t)-1) {
  }
}

/* Route 1: nodes with E = 0; a node's parent is one hop down its first dimension (A..D) whose coordinate is 1. */
static void set_route1(const Personality_t* p, int mistake) {
  const uint32_t c[4] = {p->Network_Config.Acoord, p->Network_Config.Bcoord, p->Network_Config.Ccoord,
                         p->Network_Config.Dcoord};
  const uint16_t minus[4] = {BGQ_CLASS_LINK_AM, BGQ_CLASS_LINK_BM, BGQ_CLASS_LINK_CM, BGQ_CLASS_LINK_DM};
  const uint16_t plus[4] = {BGQ_CLASS_LINK_AP, BGQ_CLASS_LINK_BP, BGQ_CLASS_LINK_CP, BGQ_CLASS_LINK_DP};
  int first = 4;
  for (int d = 0; d < 4; ++d)
    if (c[d] != 0 && first == 4) first = d;
  ClassRoute_t cr = {BGQ_CLASS_INPUT_LINK_LOCAL | BGQ_CLASS_INPUT_VC_SUBCOMM, 0};
  for (int d = 0; d < first; ++d) cr.input |= plus[d]; /* the child across d arrives on this node's + port */
  if (first < 4) cr.output = minus[first];
  if (mistake) cr.output = minus[0] | minus[1];
  if (Kernel_AllocateCollectiveClassRoute(1) != 0) {
    printf("class route 1 is taken\n");
    exit(1);
  }
  const int32_t rc = Kernel_SetCollectiveClassRoute(1, &cr);
  if (rc != 0) {
    printf("Kernel_SetCollectiveClassRoute returned %d\n", (int)rc);
    exit(4);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int mistake = argc > 1 ? atoi(argv[1]) : 0;
  Personality_t p;
  Kernel_GetPersonality(&p, sizeof p);
  const int on_route1 = p.Network_Config.Ecoord == 0;

  uint32_t id = 0;
  Kernel_AllocateInjFifos(0, &isg, 1, &id, NULL);
  Kernel_MemoryRegion_t region;
  Kernel_CreateMemoryRegion(&region, injmem, sizeof injmem);
  Kernel_InjFifoInit(&isg, 0, &region, 0, (mistake == 4 ? 128 : sizeof injmem) - 1);
  Kernel_InjFifoActivate(&isg, 1, &id, KERNEL_INJ_FIFO_ACTIVATE);
  Kernel_AllocateRecFifos(0, &rsg, 1, &id, NULL);
  Kernel_CreateMemoryRegion(&region, recmem, sizeof recmem);
  Kernel_RecFifoInit(&rsg, 0, &region, 0, sizeof recmem - 1);
  Kernel_RecFifoEnable(0, 0x8000ULL);
  const int32_t fn = MUSPI_RegisterReceiveFunction(on_packet, maxed);
  Kernel_CreateMemoryRegion(&region, &in, sizeof in); /* the MU writes here */
  Kernel_AllocateBaseAddressTable(0, &bat, 1, &id, 0);
  MUSPI_SetBaseAddress(&bat, 0, (uint64_t)&in);
  if (on_route1 || mistake == 3) set_route1(&p, mistake == 3);
  for (int i = 0; i < N; ++i) {
    sums[i] = (uint64_t)rank * 1000003u + (uint64_t)i;
    maxes[i] = (double)((rank * 7919 + i * 104729) % 65536) / 8.0;
  }
  for (int i = 0; i < 64; ++i) {
    mins[i] = (rank * 37 + i * 11) % 101 - 50;
    bcast[i] = rank == 3 ? 0.5 * i + 3 : -1.0;
  }
  in.counter[0] = sizeof in.summed;
  in.counter[1] = on_route1 ? sizeof in.minned : 0;
  in.counter[2] = sizeof in.bcasted;
  MPI_Barrier(MPI_COMM_WORLD); /* every node's routes and tables are set */

  if (mistake == 1)
    collective(sums, 8, 1, MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_ADD, 8, 5, MUHWI_COLLECTIVE_TYPE_ALLREDUCE, 0, 0, 0);
  if (mistake == 2)
    collective(sums, rank == 0 ? 16 : 8, 1, MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_ADD, 8, 0,
               MUHWI_COLLECTIVE_TYPE_ALLREDUCE, OFF(summed), 0, 0);
  collective(sums, sizeof sums, 1, MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_ADD, 8, 0, MUHWI_COLLECTIVE_TYPE_ALLREDUCE,
             OFF(summed), 0, 0);
  collective(maxes, sizeof maxes, 0, MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_MAX, 8, 0, MUHWI_COLLECTIVE_TYPE_ALLREDUCE,
             0, 0, (uint32_t)fn);
  if (on_route1)
    collective(mins, sizeof mins, 1, MUHWI_COLLECTIVE_OP_CODE_SIGNED_MIN, 4, 1, MUHWI_COLLECTIVE_TYPE_ALLREDUCE,
               OFF(minned), 1, 0);
  if (rank == 3) collective(bcast, sizeof bcast, 1, 0, 8, 0, MUHWI_COLLECTIVE_TYPE_BROADCAST, OFF(bcasted), 2, 0);
  while (in.counter[0] != 0 || in.counter[1] != 0 || in.counter[2] != 0) {
  }
  while (fifo_bytes < sizeof maxed) MUSPI_RecFifoPoll(MUSPI_IdToRecFifo(0, &rsg), 4096);

  int wrong_sum = 0, wrong_max = 0, wrong_min = 0, wrong_bcast = 0;
  for (int i = 0; i < N; ++i) {
    uint64_t s = 0;
    double m = 0;
    for (int r = 0; r < size; ++r) {
      s += (uint64_t)r * 1000003u + (uint64_t)i;
      const double v = (double)((r * 7919 + i * 104729) % 65536) / 8.0;
      if (r == 0 || v > m) m = v;
    }
    wrong_sum += in.summed[i] != s;
    wrong_max += maxed[i] != m;
  }
  for (int i = 0; i < 64 && on_route1; ++i) {
    int32_t m = 0;
    int first = 1;
    for (int r = 0; r < size; ++r) {
      if (r % 2 != 0) continue; /* E is the fastest coordinate: E = 0 on even ranks */
      const int32_t v = (r * 37 + i * 11) % 101 - 50;
      if (first || v < m) m = v;
      first = 0;
    }
    wrong_min += in.minned[i] != m;
  }
  for (int i = 0; i < 64; ++i) wrong_bcast += in.bcasted[i] != 0.5 * i + 3;
  printf("rank %d of %d: allreduce add %d wrong, fifo max %d wrong, route 1 %s, broadcast %d wrong\n", rank, size,
         wrong_sum, wrong_max, on_route1 ? (wrong_min ? "WRONG" : "min right") : "not a member", wrong_bcast);
  MPI_Finalize();
  return wrong_sum || wrong_max || wrong_min || wrong_bcast ? 3 : 0;
}
