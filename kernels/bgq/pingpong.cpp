/* Memory-FIFO ping-pong on the Blue Gene/Q messaging unit: rank 0 sends a
 * message to `partner` as memory-FIFO packets, the partner's registered
 * receive function collects them from its reception FIFO, and it sends the
 * same bytes back. Timed per round trip with GetTimeBase; the echoed data
 * is checked. Other ranks only take part in the final barrier. */
#include <hwi/include/bqc/A2_inlines.h>
#include <mpi.h>
#include <spi/include/kernel/MU.h>
#include <spi/include/kernel/location.h>
#include <spi/include/mu/InjFifo.h>
#include <spi/include/mu/RecFifo.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "hopsim/bgq_kernel.h"

namespace {

struct RecvState {
  char* buf;
  uint64_t received;
  uint64_t size;
};

// `bytes` is the packet with its header; the last packet's payload is padded to 32-byte chunks.
int on_packet(void* param, MUHWI_PacketHeader_t* hdr, uint32_t bytes) {
  auto* st = static_cast<RecvState*>(param);
  const auto& mh = hdr->messageUnitHeader.Packet_Types.Memory_FIFO;
  const uint64_t off = (static_cast<uint64_t>(mh.Put_Offset_MSB) << 32) | mh.Put_Offset_LSB;
  uint64_t payload = bytes - sizeof(MUHWI_PacketHeader_t);
  if (off + payload > st->size) payload = st->size - off;
  std::memcpy(st->buf + off, hdr + 1, payload);
  st->received += payload;
  return 0;
}

}  // namespace

extern "C" void hopsim_bgq_pingpong_main() {
  const long iterations = hopsim_bgq_arg("iterations");
  const long msg = hopsim_bgq_arg("msg_size");
  const long partner = hopsim_bgq_arg("partner");
  MPI_Init(nullptr, nullptr);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (partner < 1 || partner >= nranks) {
    if (rank == 0) {
      char what[96];
      std::snprintf(what, sizeof what, "partner %ld is not a rank from 1 to %d", partner, nranks - 1);
      hopsim_bgq_check("set-up", 1, 1, what);
    }
    return;
  }
  const bool active = rank == 0 || rank == partner;
  const int peer = rank == 0 ? static_cast<int>(partner) : 0;

  Personality_t pers;
  Kernel_GetPersonality(&pers, sizeof pers);
  uint32_t me[5] = {pers.Network_Config.Acoord, pers.Network_Config.Bcoord, pers.Network_Config.Ccoord,
                    pers.Network_Config.Dcoord, pers.Network_Config.Ecoord};
  uint32_t peer_coords[5] = {0, 0, 0, 0, 0};
  if (active)
    MPI_Sendrecv(me, 5, MPI_UNSIGNED, peer, 0, peer_coords, 5, MPI_UNSIGNED, peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);

  std::vector<char> sendbuf(static_cast<size_t>(msg)), recvbuf(static_cast<size_t>(msg));
  RecvState st{recvbuf.data(), 0, static_cast<uint64_t>(msg)};

  // Reception FIFO 0 of subgroup 0 with receive function 0.
  MUSPI_RecFifoSubGroup_t recSubGroup;
  uint32_t recid = 0;
  Kernel_RecFifoAttributes_t rattr;
  std::memset(&rattr, 0, sizeof rattr);
  Kernel_AllocateRecFifos(0, &recSubGroup, 1, &recid, &rattr);
  const size_t recSize = 1 << 20;
  void* recMem = std::aligned_alloc(32, recSize);
  Kernel_MemoryRegion_t recRegion;
  Kernel_CreateMemoryRegion(&recRegion, recMem, recSize);
  Kernel_RecFifoInit(&recSubGroup, recid, &recRegion, 0, recSize - 1);
  Kernel_RecFifoEnable(0, 0x8000ULL);
  MUSPI_RegisterRecvFunction(on_packet, &st, 0);
  MUSPI_RecFifo_t* recFifo = MUSPI_IdToRecFifo(recid, &recSubGroup);

  MUSPI_InjFifoSubGroup_t injSubGroup;
  uint32_t injid = 0;
  Kernel_InjFifoAttributes_t iattr;
  std::memset(&iattr, 0, sizeof iattr);
  Kernel_AllocateInjFifos(0, &injSubGroup, 1, &injid, &iattr);
  void* injMem = std::aligned_alloc(64, 64 * 1024);
  Kernel_MemoryRegion_t injRegion;
  Kernel_CreateMemoryRegion(&injRegion, injMem, 64 * 1024);
  Kernel_InjFifoInit(&injSubGroup, injid, &injRegion, 0, 64 * 1024 - 1);
  Kernel_InjFifoActivate(&injSubGroup, 1, &injid, KERNEL_INJ_FIFO_ACTIVATE);

  MUHWI_Descriptor_t desc;
  MUSPI_Pt2PtMemoryFIFODescriptorInfo_t info;
  std::memset(&info, 0, sizeof info);
  info.Base.Payload_Address = reinterpret_cast<uint64_t>(rank == 0 ? sendbuf.data() : recvbuf.data());
  info.Base.Message_Length = static_cast<uint64_t>(msg);
  info.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP |
                             MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_BM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_BP |
                             MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CP |
                             MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_DM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_DP |
                             MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_EM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_EP;
  MUSPI_SetUpDestination(&info.Base.Dest, peer_coords[0], peer_coords[1], peer_coords[2], peer_coords[3],
                         peer_coords[4]);
  info.Pt2Pt.Misc1 = MUHWI_PACKET_USE_DETERMINISTIC_ROUTING | MUHWI_PACKET_DO_NOT_ROUTE_TO_IO_NODE;
  info.Pt2Pt.Misc2 = MUHWI_PACKET_VIRTUAL_CHANNEL_DETERMINISTIC;
  info.MemFIFO.Rec_FIFO_Id = 0;
  info.MemFIFO.SoftwareBytes[0] = 0;  // receive function 0
  MUSPI_CreatePt2PtMemoryFIFODescriptor(&desc, &info);
  MUSPI_InjFifo_t* injFifo = MUSPI_IdToInjFifo(injid, &injSubGroup);
  MPI_Barrier(MPI_COMM_WORLD);

  uint64_t wrong = 0, checked = 0;
  char example[160] = "";
  for (int it = 0; it < iterations && active; ++it) {
    for (long i = 0; i < msg; ++i) sendbuf[static_cast<size_t>(i)] = static_cast<char>((i * 13 + it * 7 + 1) & 0xFF);
    st.received = 0;
    if (rank == 0) {
      const uint64_t t0 = GetTimeBase();
      MUSPI_InjFifoInject(injFifo, &desc);
      while (st.received < static_cast<uint64_t>(msg)) MUSPI_RecFifoPoll(recFifo, 1u << 20);
      const uint64_t t1 = GetTimeBase();
      hopsim_bgq_record("round trip", it, t1 - t0);
      for (long i = 0; i < msg; ++i, ++checked)
        if (recvbuf[static_cast<size_t>(i)] != sendbuf[static_cast<size_t>(i)] && wrong++ == 0)
          std::snprintf(example, sizeof example, "iteration %d byte %ld", it, i);
      hopsim_bgq_digest(recvbuf.data(), recvbuf.size());
    } else {
      while (st.received < static_cast<uint64_t>(msg)) MUSPI_RecFifoPoll(recFifo, 1u << 20);
      MUSPI_InjFifoInject(injFifo, &desc);  // echo what arrived
    }
  }
  if (rank == 0) hopsim_bgq_check("echo", checked, wrong, example);
  MPI_Barrier(MPI_COMM_WORLD);
  std::free(recMem);
  std::free(injMem);
  MPI_Finalize();
}

/* The global-interrupt barrier alone: enter, poll until every node entered, timed. */
extern "C" void hopsim_bgq_gibarrier_main() {
  const long iterations = hopsim_bgq_arg("iterations");
  MUSPI_GIBarrier_t b;
  MUSPI_GIBarrierInit(&b, 0);
  for (int it = 0; it < iterations; ++it) {
    const uint64_t t0 = GetTimeBase();
    MUSPI_GIBarrierEnter(&b);
    MUSPI_GIBarrierPollWithTimeout(&b, 1000000000ull);
    const uint64_t t1 = GetTimeBase();
    hopsim_bgq_record("gi barrier", it, t1 - t0);
  }
  hopsim_bgq_check("barrier", 1, 0, "");
}
