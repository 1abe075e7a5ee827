/* DirectPut halo exchange on the Blue Gene/Q messaging unit, in the style of
 * urbach/Qspi (tmLQCD's "Blue Gene SPI" test): 8 neighbours of a periodic
 * 4-D grid, one rank per node, messages sent as direct puts in packages of
 * a configurable size (one descriptor per package), a reception counter
 * polled to zero, an overlap computation (a reduction over the send
 * buffer) on 1..64 threads, and four timings per loop: communication only,
 * computation only, both without overlap, both overlapped.
 *
 * Written for hopsim's SPI (same names as the BG/Q driver); the only
 * changes a real BG/Q build would not need are the arguments from
 * hopsim_bgq_arg() instead of #defines and the reporting calls. The
 * polling loop is bare: hopsim builds this file through the
 * hopsim-bgq-poll pass, as hopsim-mpicc builds a user's program. The 4-D grid is {A*B, C, D, E} of the
 * torus: {4,2,2,2} on the 32-node block, as in the published run. */
#include <hwi/include/bqc/A2_inlines.h>
#include <mpi.h>
#include <spi/include/kernel/MU.h>
#include <spi/include/kernel/location.h>
#include <spi/include/mu/Addressing_inlines.h>
#include <spi/include/mu/GIBarrier.h>
#include <spi/include/mu/InjFifo.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "hopsim/bgq_kernel.h"

namespace {

constexpr int NUM_DIRS = 8;
constexpr int INJ_FIFO_SIZE = 64 * 1024;  // bytes of descriptors per FIFO

struct Dir {
  uint64_t size;    // bytes sent to (and received from) this neighbour
  uint64_t offset;  // of this direction in the send and the receive buffer
};

// Value i of the data `rank` sends in direction `dir` in iteration `iter`:
// exact in a double, different for every (rank, dir, iter, i).
double value(int rank, int dir, int iter, uint64_t i) {
  return static_cast<double>((static_cast<uint64_t>(rank) * 8 + static_cast<uint64_t>(dir)) * 1048576ull +
                             i % 1048576ull) +
         0.25 * (iter % 4);
}

// Reduction over the send buffer: static chunks per thread, partial sums
// added in thread order, so the result does not depend on timing.
double reduce(const double* v, uint64_t n, int threads) {
  double total = 0;
  const uint64_t chunk = (n + static_cast<uint64_t>(threads) - 1) / static_cast<uint64_t>(threads);
  for (int t = 0; t < threads; ++t) {
    double part = 0;
    const uint64_t b = static_cast<uint64_t>(t) * chunk, e = b + chunk < n ? b + chunk : n;
    for (uint64_t i = b; i < e; ++i) part += v[i];
    total += part;
  }
  hopsim_bgq_compute(n, threads);
  return total;
}

}  // namespace

extern "C" void hopsim_bgq_halo_main() {
  const long iterations = hopsim_bgq_arg("iterations");
  const long msg = hopsim_bgq_arg("msg_size");
  const long pkg = hopsim_bgq_arg("package");
  const long threads = hopsim_bgq_arg("threads");
  const bool program_sizes = hopsim_bgq_arg("program_sizes") != 0;
  const bool dynamic = hopsim_bgq_arg("dynamic") != 0;

  MPI_Init(nullptr, nullptr);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  Personality_t pers;
  Kernel_GetPersonality(&pers, sizeof(pers));
  const auto& nc = pers.Network_Config;
  int dims[4] = {static_cast<int>(nc.Anodes * nc.Bnodes), static_cast<int>(nc.Cnodes), static_cast<int>(nc.Dnodes),
                 static_cast<int>(nc.Enodes)};
  int periods[4] = {1, 1, 1, 1};
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 4, dims, periods, 0, &cart);
  int nb[NUM_DIRS];
  for (int d = 0; d < 4; ++d) MPI_Cart_shift(cart, d, 1, &nb[2 * d + 1], &nb[2 * d]);  // [2d] = +, [2d+1] = -

  // Torus coordinates of the neighbours: send mine towards d, receive theirs from d.
  uint32_t me[5] = {nc.Acoord, nc.Bcoord, nc.Ccoord, nc.Dcoord, nc.Ecoord};
  uint32_t coords[NUM_DIRS][5];
  for (int d = 0; d < NUM_DIRS; ++d)
    MPI_Sendrecv(me, 5, MPI_UNSIGNED, nb[d ^ 1], d, coords[d], 5, MPI_UNSIGNED, nb[d], d, cart, MPI_STATUS_IGNORE);

  // Message sizes: uniform, or the program's own (16 KiB t, 48 KiB x, 32 KiB y and z).
  Dir dir[NUM_DIRS];
  uint64_t total = 0;
  for (int d = 0; d < NUM_DIRS; ++d) {
    const uint64_t s = program_sizes ? (d < 2 ? 16384u : d < 4 ? 49152u : 32768u) : static_cast<uint64_t>(msg);
    dir[d] = {s, total};
    total += s;
  }
  for (int d = 0; d < NUM_DIRS; ++d)
    if (dir[d].size % static_cast<uint64_t>(pkg) != 0) {
      char what[160];
      std::snprintf(what, sizeof what, "message of %llu bytes is not a whole number of %ld-byte packages",
                    static_cast<unsigned long long>(dir[d].size), pkg);
      hopsim_bgq_check("set-up", 1, 1, what);
      return;
    }

  // Two send buffers, one per iteration parity. This node's counter reaching
  // zero says nothing about its own sends, which its MU may still be reading;
  // an iteration writes the buffer of the iteration before last, whose
  // descriptors were all delivered before the barrier that began the last.
  std::vector<double> sendv(2 * total / sizeof(double)), recvv(total / sizeof(double));
  char* sendbuf = reinterpret_cast<char*>(sendv.data());
  char* recvbuf = reinterpret_cast<char*>(recvv.data());
  // The reception counter: 8-byte aligned, one per rank (ranks share an address space in hopsim).
  volatile uint64_t& recvCounter = *static_cast<uint64_t*>(std::aligned_alloc(8, 8));

  // Injection FIFOs: one per direction, in subgroup 0.
  MUSPI_InjFifoSubGroup_t injFifoSubGroup;
  uint32_t fifoids[NUM_DIRS];
  Kernel_InjFifoAttributes_t attrs[NUM_DIRS];
  std::memset(attrs, 0, sizeof attrs);
  for (int d = 0; d < NUM_DIRS; ++d) fifoids[d] = static_cast<uint32_t>(d);
  if (Kernel_AllocateInjFifos(0, &injFifoSubGroup, NUM_DIRS, fifoids, attrs) != 0) {
    hopsim_bgq_check("set-up", 1, 1, "Kernel_AllocateInjFifos failed");
    return;
  }
  std::vector<void*> fifoMem(NUM_DIRS);
  Kernel_MemoryRegion_t fifoRegion[NUM_DIRS];
  for (int d = 0; d < NUM_DIRS; ++d) {
    fifoMem[static_cast<size_t>(d)] = std::aligned_alloc(64, INJ_FIFO_SIZE);
    Kernel_CreateMemoryRegion(&fifoRegion[d], fifoMem[static_cast<size_t>(d)], INJ_FIFO_SIZE);
    Kernel_InjFifoInit(
        &injFifoSubGroup, fifoids[d], &fifoRegion[d],
        reinterpret_cast<uint64_t>(fifoMem[static_cast<size_t>(d)]) - reinterpret_cast<uint64_t>(fifoRegion[d].BaseVa),
        INJ_FIFO_SIZE - 1);
  }
  Kernel_InjFifoActivate(&injFifoSubGroup, NUM_DIRS, fifoids, KERNEL_INJ_FIFO_ACTIVATE);

  // Base address table: 0 = receive buffer, 1 = the reception counter (store-add).
  Kernel_MemoryRegion_t recvRegion, sendRegion, cntRegion;
  Kernel_CreateMemoryRegion(&recvRegion, recvbuf, total);
  Kernel_CreateMemoryRegion(&sendRegion, sendbuf, 2 * total);
  Kernel_CreateMemoryRegion(&cntRegion, const_cast<uint64_t*>(&recvCounter), sizeof(uint64_t));
  const uint64_t recvPA = reinterpret_cast<uint64_t>(recvRegion.BasePa);
  const uint64_t sendPA = reinterpret_cast<uint64_t>(sendRegion.BasePa);
  const uint64_t cntPA = reinterpret_cast<uint64_t>(cntRegion.BasePa);
  MUSPI_BaseAddressTableSubGroup_t batSubGroup;
  uint32_t batids[2] = {0, 1};
  Kernel_AllocateBaseAddressTable(0, &batSubGroup, 2, batids, 0);
  MUSPI_SetBaseAddress(&batSubGroup, 0, recvPA);
  MUSPI_SetBaseAddress(&batSubGroup, 1, MUSPI_GetAtomicAddress(cntPA, MUHWI_ATOMIC_OPCODE_STORE_ADD));

  // One descriptor per direction (re-used for every package).
  MUHWI_Descriptor_t desc[NUM_DIRS];
  for (int d = 0; d < NUM_DIRS; ++d) {
    MUSPI_Pt2PtDirectPutDescriptorInfo_t info;
    std::memset(&info, 0, sizeof info);
    info.Base.Pre_Fetch_Only = 0;
    info.Base.Payload_Address = sendPA + dir[d].offset;
    info.Base.Message_Length = static_cast<uint64_t>(pkg);
    info.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP |
                               MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_BM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_BP |
                               MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CP |
                               MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_DM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_DP |
                               MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_EM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_EP;
    MUSPI_SetUpDestination(&info.Base.Dest, coords[d][0], coords[d][1], coords[d][2], coords[d][3], coords[d][4]);
    info.Pt2Pt.Hints_ABCD = 0;  // the hardware computes the hint bits
    info.Pt2Pt.Misc1 = (dynamic ? MUHWI_PACKET_USE_DYNAMIC_ROUTING : MUHWI_PACKET_USE_DETERMINISTIC_ROUTING) |
                       MUHWI_PACKET_DO_NOT_DEPOSIT | MUHWI_PACKET_DO_NOT_ROUTE_TO_IO_NODE;
    info.Pt2Pt.Misc2 = dynamic ? MUHWI_PACKET_VIRTUAL_CHANNEL_DYNAMIC : MUHWI_PACKET_VIRTUAL_CHANNEL_DETERMINISTIC;
    info.Pt2Pt.Skip = 0;
    info.DirectPut.Rec_Payload_Base_Address_Id = 0;
    info.DirectPut.Rec_Payload_Offset = dir[d ^ 1].offset;  // lands in the neighbour's slot for the opposite side
    info.DirectPut.Rec_Counter_Base_Address_Id = 1;
    info.DirectPut.Rec_Counter_Offset = 0;
    info.DirectPut.Pacing = MUHWI_PACKET_DIRECT_PUT_IS_NOT_PACED;
    MUSPI_CreatePt2PtDirectPutDescriptor(&desc[d], &info);
  }

  MUSPI_GIBarrier_t barrier;
  MUSPI_GIBarrierInit(&barrier, 0);
  MPI_Barrier(MPI_COMM_WORLD);  // every node's base address table is set

  auto global_barrier = [&] {
    MUSPI_GIBarrierEnter(&barrier);
    MUSPI_GIBarrierPollWithTimeout(&barrier, 1000000000ull);
  };
  int cur = 0;  // this iteration's send buffer
  auto inject_all = [&] {
    const uint64_t base = sendPA + static_cast<uint64_t>(cur) * total;
    for (int d = 0; d < NUM_DIRS; ++d) {
      MUSPI_InjFifo_t* fifo = MUSPI_IdToInjFifo(fifoids[d], &injFifoSubGroup);
      for (uint64_t off = 0; off < dir[d].size; off += static_cast<uint64_t>(pkg)) {
        desc[d].Pa_Payload = base + dir[d].offset + off;
        desc[d].Message_Length = static_cast<uint64_t>(pkg);
        MUSPI_SetRecPutOffset(&desc[d], dir[d ^ 1].offset + off);
        MUSPI_InjFifoInject(fifo, &desc[d]);
      }
    }
  };
  auto wait_counter = [&] {
    while (recvCounter > 0) {
    }
    mbar();
  };
  const uint64_t nvals = total / sizeof(double);
  double sink = 0;
  auto compute = [&] {
    sink += reduce(sendv.data() + static_cast<uint64_t>(cur) * nvals, nvals, static_cast<int>(threads));
  };

  auto check = [&](int iter, const char* what) {
    uint64_t wrong = 0;
    char example[200] = "";
    for (int d = 0; d < NUM_DIRS; ++d) {
      const double* got = recvv.data() + dir[d].offset / sizeof(double);
      for (uint64_t i = 0; i < dir[d].size / sizeof(double); ++i) {
        const double want = value(nb[d], d ^ 1, iter, i);
        if (got[i] != want && wrong++ == 0)
          std::snprintf(example, sizeof example,
                        "iteration %d, from direction %d (rank %d), value %llu: %.17g, expected %.17g", iter, d, nb[d],
                        static_cast<unsigned long long>(i), got[i], want);
      }
    }
    hopsim_bgq_check(what, nvals, wrong, example);
    hopsim_bgq_digest(recvbuf, total);
  };
  auto prepare = [&](int iter) {
    for (int d = 0; d < NUM_DIRS; ++d)
      for (uint64_t i = 0; i < dir[d].size / sizeof(double); ++i)
        sendv[static_cast<uint64_t>(cur) * nvals + dir[d].offset / sizeof(double) + i] = value(rank, d, iter, i);
    std::memset(recvbuf, 0xFF, total);  // NaNs: stale data cannot pass the check
    recvCounter = total;
    global_barrier();  // everybody's counter is set and buffers are ready
  };

  for (int it = 0; it < iterations; ++it) {
    cur = it % 2;
    prepare(it);
    uint64_t t0 = GetTimeBase();
    inject_all();
    wait_counter();
    uint64_t t1 = GetTimeBase();
    hopsim_bgq_record("communication only", it, t1 - t0);
    check(it, "communication only");

    t0 = GetTimeBase();
    compute();
    t1 = GetTimeBase();
    hopsim_bgq_record("computation only", it, t1 - t0);

    prepare(it);
    t0 = GetTimeBase();
    inject_all();
    wait_counter();
    compute();
    t1 = GetTimeBase();
    hopsim_bgq_record("computation + communication without overlap", it, t1 - t0);
    check(it, "without overlap");

    prepare(it);
    t0 = GetTimeBase();
    inject_all();
    compute();
    wait_counter();
    t1 = GetTimeBase();
    hopsim_bgq_record("computation + communication overlapped", it, t1 - t0);
    check(it, "overlapped");
  }
  hopsim_bgq_digest(&sink, sizeof sink);
  global_barrier();  // nobody frees memory others may still write
  for (void* p : fifoMem) std::free(p);
  std::free(const_cast<uint64_t*>(&recvCounter));
  MPI_Finalize();
}
