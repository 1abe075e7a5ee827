// Raw-pointer kernels (hopsim-cc, the device pass): remote stores and loads,
// causal polling, per-core globals, atomics, bad addresses; both devices.
#include <cstring>

#include <catch2/catch.hpp>

#include "hopsim/core/error.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/epiphany/native_device.hpp"
#include "hopsim/epiphany/sim_device.hpp"
#include "hopsim/epiphany_package.hpp"

using namespace hopsim;
using namespace hopsim::epiphany;
using namespace hopsim::epiphany::model;
using Catch::Matchers::Contains;

// The calling core's clock in half cycles (the model's resolution), for kernels.
extern "C" __attribute__((visibility("default"))) unsigned long long test_now_cycles(void) {
  return static_cast<unsigned long long>(Device::current().now_cycles() * 2.0 + 0.25);
}

namespace {
epiphany::model::Params e16() {
  const auto preset = load_preset("e16g301");
  return epiphany::model::params_from(ParamSet::resolve(epiphany::model::param_decls(), preset, nullptr, "machine"));
}

const KernelPackage& raw_tests() { return load_kernel_library(HOPSIM_RAW_TESTS_LIB, 16, "test"); }

// Launches kernel `name` of the raw-tests library on every core; `out` is in external memory.
void launch(Device& d, const std::string& name, int* out) {
  const auto& pkg = raw_tests();
  d.launch([&] {
    auto fn = reinterpret_cast<void (*)(int*)>(pkg.resolve(name, Device::current_core()));
    fn(out);
  });
}

template <class F>
void native(F body) {
  const auto p = e16();
  MemoryWindows w{epiphany::model::AddressMap(p)};
  NativeDevice d(p, w);
  DeviceScope s(d);
  raw_tests().prepare(d);  // the kernels' globals into core memory (a run's HostContext does this)
  body(d, reinterpret_cast<int*>(w.emem()));
}

template <class F>
void simulated(F body) {
  const auto p = e16();
  MemoryWindows w{epiphany::model::AddressMap(p)};
  SimDevice d(p, w, ComputeModel::annotated, 1.0);
  DeviceScope s(d);
  raw_tests().prepare(d);
  d.run([&] { body(d, reinterpret_cast<int*>(w.emem())); });
}

int word_at(std::uint32_t coreid, std::uint32_t offset) {
  return *reinterpret_cast<int*>(static_cast<std::uintptr_t>((coreid << 20) + offset));
}
std::uint32_t coreid_of_gid(unsigned gid) { return ((32 + gid / 4) << 6) | (8 + gid % 4); }
}  // namespace

TEST_CASE("a raw remote store reaches the right core and offset (native)") {
  native([](Device& d, int* out) {
    launch(d, "k_remote_store", out);
    for (unsigned g = 0; g < 16; ++g) CHECK(word_at(coreid_of_gid((g + 1) % 16), 0x1000 + 4 * g) == int(g) + 1000);
  });
}

TEST_CASE("a raw remote store reaches the right core and offset and is timed (simulated)") {
  simulated([](SimDevice& d, int* out) {
    launch(d, "k_remote_store", out);
    for (unsigned g = 0; g < 16; ++g) CHECK(word_at(coreid_of_gid((g + 1) % 16), 0x1000 + 4 * g) == int(g) + 1000);
    // One timed remote write per core, plus the barrier's flag writes: each core's to core 0,
    // core 0's to the 15 others.
    const auto& counters = d.counters();
    for (std::size_t c = 0; c < counters.size(); ++c) CHECK(counters[c].writes == (c == 0 ? 16u : 2u));
    std::uint64_t packets = 0;
    for (std::size_t l = 0; l < d.chip().mesh().topology().num_links(); ++l)
      packets += d.chip().mesh().stats(epiphany::model::Net::cmesh, l).packets;
    CHECK(packets > 0);
  });
}

TEST_CASE("a raw remote load stalls the reader for the rMesh/cMesh round trip") {
  simulated([](SimDevice& d, int* out) {
    launch(d, "k_remote_load", out);
    CHECK(out[0] == 4242);
    const auto p = e16();
    // The access's annotated cost, then request and answer over one hop each: 15 + 1.5 x 2 routers x 2.
    CHECK(out[1] == int(p.raw_access + p.read_overhead + 2 * 2 * p.hop_latency));
  });
}

TEST_CASE("a load of the core's own memory by its global address goes through its router (simulated)") {
  simulated([](SimDevice& d, int* out) {
    launch(d, "k_self_global", out);
    CHECK(out[0] == 154);
    const auto p = e16();
    // By the local address: the timer call's cost and one cycle; by the global one:
    // the access's annotated cost and a round trip through the own router
    // (Adapteva's emesh_read_latency expects such a load to take 18 cycles
    // on the chip, not the 1 of a local one).
    const double call = out[2] - p.local_access;
    CHECK(out[3] - call == Approx(p.raw_access + p.read_overhead + 2 * p.hop_latency));
  });
}

TEST_CASE("a consumer polling a flag sees the producer's store no earlier than its simulated arrival") {
  simulated([](SimDevice& d, int* out) {
    launch(d, "k_flag", out);
    const auto* t = reinterpret_cast<const long long*>(out + 8);
    const double stored = double(t[0]) / 2, seen = double(t[1]) / 2;
    const auto p = e16();
    const double arrival = stored + p.raw_access + p.write_overhead + 2 * p.hop_latency;  // neighbours
    INFO("store at " << stored << ", arrival " << arrival << ", seen at " << seen);
    CHECK(seen >= arrival);
    // The poller slept until the write arrived instead of spinning through
    // time; it reads its flag by its global address, so each read is a
    // round trip through its own router.
    const double own_read = p.raw_access + p.read_overhead + 2 * p.hop_latency;
    CHECK(seen <= arrival + own_read + p.poll_cycles + 4 * p.local_access);
  });
}

TEST_CASE("simulated volatile loads of the core's own memory are each seen and charged") {
  simulated([](SimDevice& d, int* out) {
    *reinterpret_cast<int*>(d.windows().core(0) + 0x3000) = 7;
    launch(d, "k_local_volatile", out);
    CHECK(out[3] == 700);
    // 100 loads at local_access each (half cycles): none made inline past the runtime.
    CHECK(out[2] >= int(2 * 100 * e16().local_access));
  });
}

TEST_CASE("native volatile loads of the core's own memory read core memory") {
  native([](Device& d, int* out) {
    *reinterpret_cast<int*>(d.windows().core(0) + 0x3000) = 7;
    launch(d, "k_local_volatile", out);
    CHECK(out[3] == 700);
  });
}

TEST_CASE("kernel globals are per core (native)") {
  native([](Device& d, int* out) {
    launch(d, "k_globals", out);
    for (unsigned g = 0; g < 16; ++g) CHECK(out[16 + g] == 1000 + int(g));
  });
}

TEST_CASE("kernel globals are per core (simulated)") {
  simulated([](SimDevice& d, int* out) {
    launch(d, "k_globals", out);
    launch(d, "k_globals", out);  // a second launch sees each core's count go on
    for (unsigned g = 0; g < 16; ++g) CHECK(out[16 + g] == 2000 + int(g));
  });
}

TEST_CASE("raw atomics on another core's memory are atomic (native)") {
  native([](Device& d, int* out) {
    launch(d, "k_atomics", out);
    CHECK(word_at(0x808, 0x4000) == 160);
  });
}

TEST_CASE("raw atomics on another core's memory are atomic and timed (simulated)") {
  simulated([](SimDevice& d, int* out) {
    launch(d, "k_atomics", out);
    CHECK(word_at(0x808, 0x4000) == 160);
    CHECK(d.last_launch().cycles > 10 * 2 * 14.5);
  });
}

TEST_CASE("a raw store outside every window is reported with core, address and size (native)") {
  CHECK_THROWS_WITH(native([](Device& d, int* out) { launch(d, "k_store_outside", out); }),
                    Contains("core(1,1)") && Contains("stored 4 bytes at 0x84a08000") && Contains("outside"));
}

TEST_CASE("a raw store outside every window is reported with core, address and size (simulated)") {
  CHECK_THROWS_WITH(simulated([](SimDevice& d, int* out) { launch(d, "k_store_outside", out); }),
                    Contains("core(1,1)") && Contains("stored 4 bytes at 0x84a08000"));
}

TEST_CASE("a raw load from a core that does not exist is reported, not a segfault") {
  CHECK_THROWS_WITH(native([](Device& d, int* out) { launch(d, "k_load_nowhere", out); }),
                    Contains("core(0,3)") && Contains("loaded 2 bytes at 0xa2800010"));
}

TEST_CASE("a kernel library names its package and is refused if it is not one") {
  const auto& pkg = raw_tests();
  CHECK(pkg.name == "raw-tests");
  CHECK(pkg.prepare);                                                 // built through the device pass
  CHECK(pkg.resolve("k_globals", 0) != pkg.resolve("k_globals", 1));  // a private copy per core
  CHECK_THROWS_WITH(load_kernel_library("/etc/hostname", 16, "kernel.library"), Contains("kernel.library"));
  CHECK_THROWS_WITH(load_kernel_library("/nonexistent.so", 16, "kernel.library"), Contains("does not exist"));
  CHECK_THROWS_WITH(load_kernel_library(HOPSIM_SANITIZER_KERNEL_LIB, 16, "kernel.library"),
                    Contains("built by an older hopsim-cc") && Contains("rebuild it"));
}
