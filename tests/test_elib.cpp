// e-lib and stdcl kernel API on both devices: addresses, neighbours,
// barrier, mutex, DMA, timers.
#include <array>
#include <atomic>
#include <vector>

#include <catch2/catch.hpp>

#include "coreid16.h"
#include "e_lib.h"
#include "hopsim/core/error.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/epiphany/native_device.hpp"
#include "hopsim/epiphany/sim_device.hpp"
#include "hopsim/ocl_kernel.h"

using namespace hopsim;
using namespace hopsim::epiphany;
using namespace hopsim::epiphany::model;
using Catch::Matchers::Contains;

namespace {
epiphany::model::Params e16() {
  const auto preset = load_preset("e16g301");
  return epiphany::model::params_from(ParamSet::resolve(epiphany::model::param_decls(), preset, nullptr, "machine"));
}

// Runs `kernel` once on every core of a native E16.
void native_launch(const std::function<void()>& kernel) {
  const auto p = e16();
  MemoryWindows w{epiphany::model::AddressMap(p)};
  NativeDevice d(p, w);
  DeviceScope scope(d);
  d.launch(kernel);
}

// Runs `host` as the host program of a simulated E16 (once per process).
void sim_host(const std::function<void(SimDevice&)>& host) {
  const auto p = e16();
  MemoryWindows w{epiphany::model::AddressMap(p)};
  SimDevice d(p, w, ComputeModel::annotated, 1.0);
  DeviceScope scope(d);
  d.run([&] { host(d); });
}

int* array_on(unsigned gid, unsigned offset) {
  return reinterpret_cast<int*>(static_cast<std::uintptr_t>(LOCAL_MEM_ADDRESS_BASE(gid) + offset));
}
}  // namespace

TEST_CASE("e-lib ids and addresses match hand-computed values") {
  struct R {
    e_coreid_t id;
    unsigned row, col;
    void* global_local;
    void* global_own;
    void* global_other;
    e_bool_t on_core_own, on_core_other;
  };
  std::array<R, 16> r{};
  native_launch([&] {
    const unsigned me = get_global_id(0);
    auto& x = r[me];
    x.id = e_get_coreid();
    e_coords_from_coreid(x.id, &x.row, &x.col);
    x.global_local = e_get_global_address(1, 2, reinterpret_cast<void*>(0x100));
    int local = 0;
    x.global_own = e_get_global_address(3, 3, &local);
    x.global_other = e_get_global_address(3, 3, reinterpret_cast<void*>(0x80900010u));
    x.on_core_own = e_is_on_core(&local);
    x.on_core_other = e_is_on_core(reinterpret_cast<void*>(0x8CB00000u));
  });
  for (unsigned g = 0; g < 16; ++g) {
    const unsigned row = g / 4, col = g % 4;
    CHECK(r[g].id == (((32 + row) << 6) | (8 + col)));
    CHECK(r[g].row == row);
    CHECK(r[g].col == col);
    CHECK(r[g].global_local == reinterpret_cast<void*>(0x84A00100u));  // row 33, col 10
    // A pointer into the caller's own window is local: retargeted to core (3,3).
    CHECK((reinterpret_cast<std::uintptr_t>(r[g].global_own) >> 20) == 0x8CB);
    // Other cores' global pointers pass through (for core 1 that window is its own: local).
    CHECK(r[g].global_other == reinterpret_cast<void*>(g == 1 ? 0x8CB00010u : 0x80900010u));
    CHECK(r[g].on_core_own == E_TRUE);
    CHECK(r[g].on_core_other == (g == 15 ? E_TRUE : E_FALSE));
    CHECK(LOCAL_MEM_ADDRESS_BASE(g) == r[g].id << 20);
  }
}

TEST_CASE("e_coreid_from_coords and e_neighbor_id follow the group layout") {
  std::array<std::array<unsigned, 8>, 16> r{};
  e_coreid_t from_coords = 0;
  native_launch([&] {
    const unsigned me = get_global_id(0);
    auto& x = r[me];
    e_neighbor_id(E_NEXT_CORE, E_GROUP_WRAP, &x[0], &x[1]);
    e_neighbor_id(E_NEXT_CORE, E_ROW_WRAP, &x[2], &x[3]);
    e_neighbor_id(E_NEXT_CORE, E_COL_WRAP, &x[4], &x[5]);
    e_neighbor_id(E_PREV_CORE, E_GROUP_WRAP, &x[6], &x[7]);
    if (me == 0) from_coords = e_coreid_from_coords(2, 3);
  });
  CHECK(from_coords == ((34u << 6) | 11u));
  // Core (1,3) = gid 7.
  CHECK(r[7] == std::array<unsigned, 8>{2, 0, 1, 0, 2, 3, 1, 2});
  // Core (0,0): previous in the group wraps to (3,3).
  CHECK(r[0][6] == 3);
  CHECK(r[0][7] == 3);
  // Core (3,3): next in the group wraps to (0,0); next in its column wraps to row 0.
  CHECK(r[15][0] == 0);
  CHECK(r[15][1] == 0);
  CHECK(r[15][4] == 0);
}

TEST_CASE("the original include vocabulary: core bases, ring, row and mesh helpers") {
  CHECK(core00 == 0x80800000u);
  CHECK(core23 == LOCAL_MEM_ADDRESS_BASE(14));  // X = column 2, Y = row 3
  CHECK(core01 == LOCAL_MEM_ADDRESS_BASE(4));
  int v[4] = {0, 0, 0, 0};
  // On hopsim the array's address is global; NEIGHBOUR_LOC keeps its local offset.
  const unsigned loc = NEIGHBOUR_LOC(core10, v, 2, sizeof(int));
  CHECK(loc == core10 + ((static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(v)) & 0xFFFFFu) + 8));
  std::array<std::array<unsigned, 4>, 16> ring{}, row{}, mesh{};
  native_launch([&] {
    const unsigned me = get_global_id(0);
    unsigned order[CORECOUNT];
    initRing(&ring[me][0], &ring[me][1], &ring[me][2], order);
    initRow(&row[me][0], &row[me][1], &row[me][2], order);
    initMesh(&mesh[me][0], &mesh[me][1], &mesh[me][2], &mesh[me][3]);
  });
  // Ring: ... 3 -> 7 -> 11 ...; gid 7 is ring index 4.
  CHECK(ring[7][0] == core32);  // NEXT = gid 11 = row 2, col 3
  CHECK(ring[7][1] == core30);  // PREV = gid 3
  CHECK(ring[7][2] == 4);
  CHECK(ring[4][0] == core00);  // the ring closes 4 -> 0
  // Row: 0 has no left, 12 (the last) has no right.
  CHECK(row[0][1] == 0u);
  CHECK(row[12][0] == 0u);
  CHECK(row[12][2] == 15);
  CHECK(row[3][0] == LOCAL_MEM_ADDRESS_BASE(7));
  // Mesh: north/west of core 0 are 0; core 5's neighbours.
  CHECK(mesh[0][0] == 0u);
  CHECK(mesh[0][3] == 0u);
  CHECK(mesh[5][0] == LOCAL_MEM_ADDRESS_BASE(1));
  CHECK(mesh[5][1] == LOCAL_MEM_ADDRESS_BASE(9));
  CHECK(mesh[5][2] == LOCAL_MEM_ADDRESS_BASE(6));
  CHECK(mesh[5][3] == LOCAL_MEM_ADDRESS_BASE(4));
  CHECK(mesh[15][1] == 0u);
  CHECK(mesh[15][2] == 0u);
}

namespace {
// Each round every core writes the round number into its slot on every
// other core, then waits at the barrier; after it, every slot must hold the
// round number (a core leaving early would see the previous round).
std::atomic<int> g_bad{0};
void barrier_rounds() {
  const unsigned me = get_global_id(0);
  for (int round = 1; round <= 5; ++round) {
    for (unsigned peer = 0; peer < 16; ++peer) {
      if (peer == me) continue;
      e_write(&e_group_config, &round, peer / 4, peer % 4, reinterpret_cast<void*>(0x1000 + 4 * me), sizeof(int));
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    const int* slots = array_on(me, 0x1000);
    for (unsigned peer = 0; peer < 16; ++peer)
      if (peer != me && slots[peer] != round) ++g_bad;
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  }
}
}  // namespace

TEST_CASE("barrier: no core leaves before every core arrived (native)") {
  g_bad = 0;
  native_launch(barrier_rounds);
  CHECK(g_bad == 0);
}

TEST_CASE("barrier: no core leaves before every core arrived (simulated)") {
  g_bad = 0;
  double cycles = 0;
  sim_host([&](SimDevice& d) {
    d.launch(barrier_rounds);
    cycles = d.last_launch().cycles;
  });
  CHECK(g_bad == 0);
  // Ten barriers, each at least the calibrated software cost.
  CHECK(cycles > 10 * e16().barrier_overhead);
}

TEST_CASE("e_barrier with arrays on the kernel stack synchronises (simulated)") {
  std::atomic<int> bad{0};
  sim_host([&](SimDevice& d) {
    d.launch([&] {
      volatile e_barrier_t bars[16];
      e_barrier_t* tgts[16];
      e_barrier_init(bars, tgts);
      barrier(0);  // everyone initialised before the first e_barrier
      const unsigned me = get_global_id(0);
      for (int round = 1; round <= 3; ++round) {
        for (unsigned peer = 0; peer < 16; ++peer)
          if (peer != me)
            e_write(&e_group_config, &round, peer / 4, peer % 4, reinterpret_cast<void*>(0x1000 + 4 * me), 4);
        e_barrier(bars, tgts);
        for (unsigned peer = 0; peer < 16; ++peer)
          if (peer != me && array_on(me, 0x1000)[peer] != round) ++bad;
        e_barrier(bars, tgts);
      }
    });
  });
  CHECK(bad == 0);
}

namespace {
void mutex_increments() {
  // Counter and mutex live on core (0,0) at fixed offsets.
  auto* mutex = reinterpret_cast<e_mutex_t*>(0x2000);
  int* counter = reinterpret_cast<int*>(0x2004);
  for (int i = 0; i < 10; ++i) {
    e_mutex_lock(0, 0, mutex);
    int v = 0;
    e_read(&e_group_config, &v, 0, 0, counter, sizeof v);
    ++v;
    e_write(&e_group_config, &v, 0, 0, counter, sizeof v);
    e_mutex_unlock(0, 0, mutex);
  }
}
}  // namespace

TEST_CASE("e_mutex serialises read-modify-write of a shared counter (native)") {
  int final_count = 0;
  const auto p = e16();
  MemoryWindows w{epiphany::model::AddressMap(p)};
  NativeDevice d(p, w);
  DeviceScope scope(d);
  d.launch(mutex_increments);
  final_count = *array_on(0, 0x2004);
  CHECK(final_count == 160);
}

TEST_CASE("e_mutex serialises read-modify-write of a shared counter (simulated)") {
  int final_count = 0;
  sim_host([&](SimDevice& d) {
    d.launch(mutex_increments);
    final_count = *array_on(0, 0x2004);
  });
  CHECK(final_count == 160);
}

TEST_CASE("ctimer counts the simulated cycles of remote writes and a remote read") {
  unsigned writes = 0, read = 0;
  sim_host([&](SimDevice& d) {
    d.launch([&] {
      if (get_global_id(0) != 0) return;
      int v = 7;
      e_ctimer_set(E_CTIMER_0, E_CTIMER_MAX);
      e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
      for (int i = 0; i < 10; ++i) e_write(&e_group_config, &v, 0, 1, reinterpret_cast<void*>(0x3000), 4);
      writes = E_CTIMER_MAX - e_ctimer_get(E_CTIMER_0);
      e_ctimer_set(E_CTIMER_0, E_CTIMER_MAX);
      e_ctimer_start(E_CTIMER_0, E_CTIMER_CLK);
      e_read(&e_group_config, &v, 0, 1, reinterpret_cast<void*>(0x3000), 4);
      read = E_CTIMER_MAX - e_ctimer_get(E_CTIMER_0);
    });
  });
  const auto p = e16();
  // Each posted write: the e-lib call plus one store issue.
  CHECK(writes == static_cast<unsigned>(10 * (p.api_call + p.store_issue)));
  // A read to a neighbour: the call, then the read's fixed 15 cycles and 1.5 x 2 routers each
  // way (the last write to that word arrived long before).
  CHECK(read == static_cast<unsigned>(p.api_call + p.read_overhead + 2 * 2 * p.hop_latency));
}

TEST_CASE("e_dma_copy moves data and takes mesh time (simulated)") {
  double cycles = 0;
  bool ok = true;
  sim_host([&](SimDevice& d) {
    d.launch([&] {
      if (get_global_id(0) != 0) return;
      int* src = array_on(0, 0x4000);
      for (int i = 0; i < 256; ++i) src[i] = i * 3;
      const double t0 = d.now_cycles();
      e_dma_copy(array_on(5, 0x4000), src, 256 * sizeof(int));
      cycles = d.now_cycles() - t0;
    });
    for (int i = 0; i < 256; ++i) ok = ok && array_on(5, 0x4000)[i] == i * 3;
  });
  CHECK(ok);
  // 1 KiB as 128 double-words, one per cycle, plus setup and the path latency.
  CHECK(cycles >= 128);
  CHECK(cycles < 400);
}

TEST_CASE("strided DMA descriptors follow inner and outer strides (native)") {
  bool ok = true;
  const auto p = e16();
  MemoryWindows w{epiphany::model::AddressMap(p)};
  NativeDevice d(p, w);
  DeviceScope scope(d);
  d.launch([&] {
    if (get_global_id(0) != 0) return;
    int* src = array_on(0, 0x4000);
    for (int i = 0; i < 64; ++i) src[i] = i;
    // Take every other int of 4 rows of 8 (inner: 4 elements, stride 8 B; outer: next row 32 B on).
    e_dma_desc_t desc;
    e_dma_set_desc(E_DMA_0, E_DMA_ENABLE | E_DMA_MASTER | E_DMA_WORD, nullptr, 8, 4, 4, 4, 8, 4, src,
                   array_on(1, 0x4000), &desc);
    e_dma_start(&desc, E_DMA_0);
    e_dma_wait(E_DMA_0);
  });
  const int* dst = array_on(1, 0x4000);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) ok = ok && dst[r * 4 + c] == r * 8 + 2 * c;
  CHECK(ok);
}

TEST_CASE("a write outside every core's memory names the core and the address") {
  CHECK_THROWS_WITH(native_launch([] {
                      int v = 1;
                      if (get_global_id(0) == 5) e_write(&e_group_config, &v, 7, 7, reinterpret_cast<void*>(0x10), 4);
                    }),
                    Contains("core(1,1)") && Contains("0x9cf00010") && Contains("outside"));
}

TEST_CASE("the stdcl barrier and e-lib writes on a simulated 64-core E64G401") {
  const auto preset = load_preset("e64g401");
  const auto p =
      epiphany::model::params_from(ParamSet::resolve(epiphany::model::param_decls(), preset, nullptr, "machine"));
  MemoryWindows w{epiphany::model::AddressMap(p)};
  SimDevice d(p, w, ComputeModel::annotated, 1.0);
  DeviceScope scope(d);
  std::atomic<int> bad{0};
  d.run([&] {
    d.launch([&] {
      const unsigned me = get_global_id(0);
      CHECK(get_global_size(0) == 64);
      for (int round = 1; round <= 3; ++round) {
        const unsigned peer = (me + 9) % 64;  // a core a row and a column away
        e_write(&e_group_config, &round, peer / 8, peer % 8, reinterpret_cast<void*>(0x1000 + 4 * me), 4);
        barrier(0);
        const unsigned from = (me + 64 - 9) % 64;
        const auto base = static_cast<std::uintptr_t>(e_get_coreid()) << 20;
        if (reinterpret_cast<int*>(base + 0x1000)[from] != round) ++bad;
        barrier(0);
      }
    });
  });
  CHECK(bad == 0);
  CHECK(d.last_launch().cycles > 6 * p.barrier_overhead);
}
