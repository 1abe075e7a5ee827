// SPI kernels on hopsim's BG/Q machine, native and simulated: the halo
// exchange moves the right data in both modes and the same data in each;
// kernels that break the MU's rules stop with a clear error.
#include <catch2/catch.hpp>

#include <spi/include/kernel/MU.h>
#include <spi/include/kernel/location.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>

#include "hopsim/bgq/run.hpp"
#include "hopsim/bgq_kernel.h"
#include "hopsim/core/error.hpp"
#include "hopsim/traces/reader.hpp"
#include "mpi.h"
#include "register.h"

using namespace hopsim;

namespace {

Scenario halo_scenario(const std::string& mode, nlohmann::json args,
                       nlohmann::json machine = nlohmann::json::object()) {
  machine["preset"] = "bgq";
  nlohmann::json doc = {{"machine", machine},
                        {"kernel", {{"name", "halo"}, {"args", args}}},
                        {"mode", mode},
                        {"outputs",
                         {{"dir", (std::filesystem::temp_directory_path() / "hopsim-test-bgq").string()},
                          {"json", false},
                          {"csv", false}}}};
  return scenario_from_json(doc, "test");
}

double mean(const bgq::ModeOutcome& m, const std::string& what) {
  double s = 0;
  int n = 0;
  for (const auto& r : m.timings)
    for (const auto& t : r)
      if (t.what == what) {
        s += t.cycles;
        ++n;
      }
  return n ? s / n : -1;
}

// A kernel that sends a bad descriptor: which field is broken comes from an argument.
extern "C" void bad_descriptor_main() {
  const long what = hopsim_bgq_arg("what");
  Personality_t p;
  Kernel_GetPersonality(&p, sizeof p);
  MUSPI_InjFifoSubGroup_t sg;
  uint32_t id = 0;
  Kernel_AllocateInjFifos(0, &sg, 1, &id, nullptr);
  static thread_local char buf[256];
  MUSPI_Pt2PtDirectPutDescriptorInfo_t info;
  std::memset(&info, 0, sizeof info);
  info.Base.Payload_Address = reinterpret_cast<uint64_t>(buf);
  info.Base.Message_Length = what == 0 ? 0 : 64;
  info.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP;
  MUSPI_SetUpDestination(&info.Base.Dest, what == 1 ? 5 : 0, 0, 0, 0, 0);
  info.DirectPut.Rec_Payload_Base_Address_Id = 3;  // never set at the destination
  info.DirectPut.Rec_Counter_Base_Address_Id = 3;
  MUHWI_Descriptor_t d;
  MUSPI_CreatePt2PtDirectPutDescriptor(&d, &info);
  MUSPI_InjFifoInject(MUSPI_IdToInjFifo(0, &sg), &d);
}

// Every rank waits for a counter nobody decrements.
extern "C" void spin_forever_main() {
  static thread_local volatile uint64_t never = 1;
  while (never > 0) HOPSIM_SPIN_WAIT();
}

// Remote get: rank 0 asks rank 1's MU to direct-put rank 1's buffer into rank 0's.
extern "C" void remote_get_main() {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  constexpr int N = 3000;
  std::vector<unsigned char> buf(N);
  auto* counter = static_cast<uint64_t*>(std::aligned_alloc(8, 8));
  *counter = N;
  for (int i = 0; i < N; ++i) buf[static_cast<size_t>(i)] = rank == 1 ? static_cast<unsigned char>(i * 11 + 3) : 0;
  MUSPI_InjFifoSubGroup_t sg;
  uint32_t ids[2] = {0, 1};
  Kernel_AllocateInjFifos(0, &sg, 2, ids, nullptr);
  MUSPI_BaseAddressTableSubGroup_t bat;
  Kernel_AllocateBaseAddressTable(0, &bat, 2, ids, 0);
  MUSPI_SetBaseAddress(&bat, 0, reinterpret_cast<uint64_t>(buf.data()));
  MUSPI_SetBaseAddress(&bat, 1,
                       MUSPI_GetAtomicAddress(reinterpret_cast<uint64_t>(counter), MUHWI_ATOMIC_OPCODE_STORE_ADD));
  uint64_t theirs = 0, mine = reinterpret_cast<uint64_t>(buf.data());
  const int peer = rank == 0 ? 1 : rank == 1 ? 0 : MPI_PROC_NULL;
  MPI_Sendrecv(&mine, 1, MPI_UNSIGNED_LONG, peer, 0, &theirs, 1, MPI_UNSIGNED_LONG, peer, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    Personality_t p;
    Kernel_GetPersonality(&p, sizeof p);
    // The descriptor rank 1's MU will run: put its buffer into rank 0's (BAT 0), counting on rank 0's counter (BAT 1).
    static thread_local MUHWI_Descriptor_t put __attribute__((aligned(64)));
    MUSPI_Pt2PtDirectPutDescriptorInfo_t pi;
    std::memset(&pi, 0, sizeof pi);
    pi.Base.Payload_Address = theirs;
    pi.Base.Message_Length = N;
    pi.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_EP;
    MUSPI_SetUpDestination(&pi.Base.Dest, p.Network_Config.Acoord, p.Network_Config.Bcoord, p.Network_Config.Ccoord,
                           p.Network_Config.Dcoord, p.Network_Config.Ecoord);
    pi.DirectPut.Rec_Payload_Base_Address_Id = 0;
    pi.DirectPut.Rec_Counter_Base_Address_Id = 1;
    MUSPI_CreatePt2PtDirectPutDescriptor(&put, &pi);
    MUSPI_Pt2PtRemoteGetDescriptorInfo_t gi;
    std::memset(&gi, 0, sizeof gi);
    gi.Base.Payload_Address = reinterpret_cast<uint64_t>(&put);
    gi.Base.Message_Length = sizeof put;
    gi.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_EP;
    MUSPI_SetUpDestination(&gi.Base.Dest, 0, 0, 0, 0, 1);  // rank 1
    gi.RemoteGet.Type = MUHWI_PACKET_TYPE_GET;
    gi.RemoteGet.Rget_Inj_FIFO_Id = 1;
    MUHWI_Descriptor_t get;
    MUSPI_CreatePt2PtRemoteGetDescriptor(&get, &gi);
    MUSPI_InjFifoInject(MUSPI_IdToInjFifo(0, &sg), &get);
    volatile uint64_t& c = *counter;
    while (c > 0) HOPSIM_SPIN_WAIT();
    uint64_t wrong = 0;
    for (int i = 0; i < N; ++i) wrong += buf[static_cast<size_t>(i)] != static_cast<unsigned char>(i * 11 + 3);
    hopsim_bgq_check("remote get", N, wrong, "");
    hopsim_bgq_digest(buf.data(), N);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  std::free(counter);
}

// Every rank direct-puts N bytes to the rank half the machine away, polls
// MUSPI_CheckDescComplete in a bare loop, then overwrites its send buffer:
// the data that arrives is the data of the moment the MU took it.
extern "C" void reuse_after_complete_main() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  constexpr int N = 16384;
  auto pattern = [](int r, int i) { return static_cast<unsigned char>(r * 37 + i * 13 + 1); };
  std::vector<unsigned char> out(N), in(N, 0);
  for (int i = 0; i < N; ++i) out[static_cast<size_t>(i)] = pattern(rank, i);
  auto* counter = static_cast<uint64_t*>(std::aligned_alloc(8, 8));
  *counter = N;
  MUSPI_InjFifoSubGroup_t sg;
  uint32_t ids[2] = {0, 1};
  Kernel_AllocateInjFifos(0, &sg, 1, ids, nullptr);
  MUSPI_BaseAddressTableSubGroup_t bat;
  Kernel_AllocateBaseAddressTable(0, &bat, 2, ids, 0);
  MUSPI_SetBaseAddress(&bat, 0, reinterpret_cast<uint64_t>(in.data()));
  MUSPI_SetBaseAddress(&bat, 1,
                       MUSPI_GetAtomicAddress(reinterpret_cast<uint64_t>(counter), MUHWI_ATOMIC_OPCODE_STORE_ADD));
  MPI_Barrier(MPI_COMM_WORLD);
  const int to = (rank + size / 2) % size, from = (rank - size / 2 + size) % size;
  const int e = to % 2, d = to / 2 % 2, c = to / 4 % 2, b = to / 8 % 2, a = to / 16;
  MUSPI_Pt2PtDirectPutDescriptorInfo_t pi;
  std::memset(&pi, 0, sizeof pi);
  pi.Base.Payload_Address = reinterpret_cast<uint64_t>(out.data());
  pi.Base.Message_Length = N;
  pi.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP;
  MUSPI_SetUpDestination(&pi.Base.Dest, static_cast<uint32_t>(a), static_cast<uint32_t>(b), static_cast<uint32_t>(c),
                         static_cast<uint32_t>(d), static_cast<uint32_t>(e));
  pi.DirectPut.Rec_Payload_Base_Address_Id = 0;
  pi.DirectPut.Rec_Counter_Base_Address_Id = 1;
  MUHWI_Descriptor_t put;
  MUSPI_CreatePt2PtDirectPutDescriptor(&put, &pi);
  MUSPI_InjFifo_t* fifo = MUSPI_IdToInjFifo(0, &sg);
  const uint64_t n = MUSPI_InjFifoInject(fifo, &put);
  uint64_t polls = 0;
  while (!MUSPI_CheckDescComplete(fifo, n)) ++polls;
  std::memset(out.data(), 0xEE, N);
  volatile uint64_t& cnt = *counter;
  while (cnt > 0) HOPSIM_SPIN_WAIT();
  uint64_t wrong = 0;
  for (int i = 0; i < N; ++i) wrong += in[static_cast<size_t>(i)] != pattern(from, i);
  hopsim_bgq_check("reuse after MUSPI_CheckDescComplete", N, wrong, "");
  hopsim_bgq_digest(in.data(), N);
  if (hopsim_bgq_arg("bad") != 0)
    while (!MUSPI_CheckDescComplete(fifo, n + 1)) {
    }
  MPI_Barrier(MPI_COMM_WORLD);
  std::free(counter);
}

void register_test_kernels() {
  static bool done = false;
  if (done) return;
  done = true;
  bgq::register_bgq_kernels();
  bgq::BgqKernel bad;
  bad.package.name = "test-bad-descriptor";
  bad.package.description = "test";
  bad.package.args = {{"what", 0, "0 zero length, 1 outside the torus, 2 unknown base address", 0, 2, {}, false}};
  bad.entry = &bad_descriptor_main;
  bgq::register_kernel(bad);
  bgq::BgqKernel rget;
  rget.package.name = "test-remote-get";
  rget.package.description = "test";
  rget.entry = &remote_get_main;
  bgq::register_kernel(rget);
  bgq::BgqKernel spin;
  spin.package.name = "test-spin-forever";
  spin.package.description = "test";
  spin.entry = &spin_forever_main;
  bgq::register_kernel(spin);
  bgq::BgqKernel reuse;
  reuse.package.name = "test-reuse-after-complete";
  reuse.package.description = "test";
  reuse.package.args = {{"bad", 0, "1: also ask about a descriptor never injected", 0, 1, {}, false}};
  reuse.entry = &reuse_after_complete_main;
  bgq::register_kernel(reuse);
}

Scenario scenario_for(const std::string& kernel, const std::string& mode, nlohmann::json args,
                      const std::string& transport = "threads") {
  nlohmann::json doc = {{"machine", {{"preset", "bgq"}, {"transport", transport}}},
                        {"kernel", {{"name", kernel}, {"args", args}}},
                        {"mode", mode},
                        {"outputs",
                         {{"dir", (std::filesystem::temp_directory_path() / "hopsim-test-bgq").string()},
                          {"json", false},
                          {"csv", false}}}};
  return scenario_from_json(doc, "test");
}

}  // namespace

TEST_CASE("halo exchange: right data natively and simulated, the same in both", "[bgq][run]") {
  register_test_kernels();
  const auto r = bgq::run(halo_scenario("both", {{"iterations", 2}, {"msg_size", 4096}, {"package", 1024}}));
  REQUIRE(r.modes.size() == 2);
  for (const auto& m : r.modes) {
    CHECK(m.wrong == 0);
    CHECK(m.checked == 32ull * 2 * 3 * 8 * 4096 / 8);  // ranks x iterations x 3 checks x values
    // The halo's, and MPI's set-up messages (8 MPI_Sendrecv per rank, MPI_Cart_create's 2 x 31), a packet each.
    CHECK(m.descriptors == 32ull * 2 * 3 * 8 * 4 + 32 * 8 + 2 * 31);
    CHECK(m.packets == 32ull * 2 * 3 * 8 * 8 + 32 * 8 + 2 * 31);
  }
  CHECK(r.compared);
  CHECK(r.differing_ranks.empty());
  CHECK(bgq::exit_code(r) == 0);
}

TEST_CASE("halo exchange on a 4x4x2x2x2 torus with the program's own message sizes", "[bgq][run]") {
  register_test_kernels();
  const auto r =
      bgq::run(halo_scenario("sim", {{"iterations", 1}, {"program_sizes", 1}, {"package", 8192}, {"threads", 64}},
                             {{"torus_a", 4}, {"torus_b", 4}}));
  REQUIRE(r.modes.size() == 1);
  CHECK(r.modes[0].wrong == 0);
  CHECK(r.modes[0].checked == 128ull * 3 * 262144 / 8);
}

TEST_CASE("simulated halo timings have the published structure", "[bgq][run]") {
  register_test_kernels();
  const auto r = bgq::run(halo_scenario("sim", {{"iterations", 1}}));
  const auto& m = r.modes.at(0);
  const double comm = mean(m, "communication only"), comp = mean(m, "computation only");
  const double seq = mean(m, "computation + communication without overlap");
  const double ovl = mean(m, "computation + communication overlapped");
  CHECK(ovl < seq);
  CHECK(ovl >= comp);
  CHECK(seq == Approx(comm + comp).epsilon(0.05));
  // Deterministic routing sends x+ and x- (the same node) over one link each way: never faster.
  const auto det = bgq::run(halo_scenario("sim", {{"iterations", 1}, {"dynamic", 0}}));
  CHECK(mean(det.modes.at(0), "communication only") >= comm * 0.99);
}

TEST_CASE("bad descriptors stop the run with the device's error", "[bgq][run]") {
  register_test_kernels();
  // Native: host threads, and a process per rank over double copy and CMA.
  for (const auto& [mode, transport] : {std::pair{"sim", "threads"}, std::pair{"native", "threads"},
                                        std::pair{"native", "double"}, std::pair{"native", "cma"}}) {
    INFO(mode << " " << transport);
    CHECK_THROWS_WITH(bgq::run(scenario_for("test-bad-descriptor", mode, {{"what", 0}}, transport)),
                      Catch::Contains("Message_Length 0"));
    CHECK_THROWS_WITH(bgq::run(scenario_for("test-bad-descriptor", mode, {{"what", 1}}, transport)),
                      Catch::Contains("outside the 2x2x2x2x2 torus"));
    CHECK_THROWS_WITH(bgq::run(scenario_for("test-bad-descriptor", mode, {{"what", 2}}, transport)),
                      Catch::Contains("base-address id 3 is not allocated"));
  }
}

TEST_CASE("a native run on host threads whose ranks all wait for nothing stops as a deadlock", "[bgq][run]") {
  register_test_kernels();
  CHECK_THROWS_WITH(bgq::run(scenario_for("test-spin-forever", "native", nlohmann::json::object())),
                    Catch::Contains("native run (host threads): deadlock: nothing moved for 3 s while every rank "
                                    "waits: ranks 0-31 polling memory the MU writes"));
}

TEST_CASE("a simulated kernel that waits for a delivery that never comes is a deadlock", "[bgq][run]") {
  register_test_kernels();
  CHECK_THROWS_AS(bgq::run(scenario_for("test-spin-forever", "sim", nlohmann::json::object())), DeadlockError);
  CHECK_THROWS_WITH(bgq::run(scenario_for("test-spin-forever", "sim", nlohmann::json::object())),
                    Catch::Contains("spinning on memory"));
}

TEST_CASE("bgq scenarios reject unknown kernels, arguments and parameters", "[bgq][run]") {
  register_test_kernels();
  CHECK_THROWS_AS(bgq::run(scenario_for("passing", "sim", nlohmann::json::object())), ConfigError);
  CHECK_THROWS_WITH(bgq::run(halo_scenario("sim", {{"bogus", 1}})), Catch::Contains("kernel.args.bogus"));
  CHECK_THROWS_WITH(bgq::run(halo_scenario("sim", {{"iterations", 1}}, {{"torus_e", 3}})), Catch::Contains("torus_e"));
  CHECK_THROWS_WITH(bgq::run(halo_scenario("sim", {{"iterations", 1}}, {{"hop_latency", "3 GHz"}})),
                    Catch::Contains("hop_latency"));
}

TEST_CASE("a simulated bgq run writes a trace with torus coordinates, links, packets and hops", "[bgq][run]") {
  register_test_kernels();
  const auto file = std::filesystem::temp_directory_path() / "hopsim-test-bgq-trace.db";
  std::filesystem::remove(file);
  auto sc = halo_scenario("sim", {{"iterations", 1}, {"msg_size", 2048}, {"package", 1024}});
  sc.outputs.trace = file.string();
  sc.outputs.trace_detail = "hops";
  const auto r = bgq::run(sc);
  REQUIRE(r.modes.at(0).trace == file.string());
  traces::TraceReader rd(file);
  CHECK(rd.complete());
  const auto nodes = rd.nodes();
  REQUIRE(nodes.size() == 32);
  CHECK(nodes[0].coords == "[0,0,0,0,0]");
  CHECK(nodes[31].coords == "[1,1,1,1,1]");
  CHECK(rd.links().size() == 32 * 10);
  // The halo: 3 exchanges x 8 directions x 2 descriptors per rank. MPI's own
  // memory-FIFO messages: the 8 MPI_Sendrecv of the set-up per rank, and
  // MPI_Cart_create agreeing on a context (a reduce and a broadcast, 31 each).
  const auto txns = rd.transactions(0, 100000);
  CHECK(rd.transaction_count() == 32 * 3 * 8 * 2 + 32 * 8 + 2 * 31);
  CHECK(std::count_if(txns.begin(), txns.end(), [](const auto& t) { return t.kind == "direct put"; }) ==
        32 * 3 * 8 * 2);
  CHECK(std::count_if(txns.begin(), txns.end(), [](const auto& t) { return t.kind == "memory fifo"; }) ==
        32 * 8 + 2 * 31);
  CHECK(rd.hop_count() == static_cast<std::int64_t>(r.modes.at(0).packet_hops));
  std::int64_t bytes = 0;
  for (const auto& t : rd.link_totals()) bytes += t.bytes;
  // Each packet crosses one link per coordinate in which the nodes differ (a
  // 2x2x2x2x2 torus: the bits of the node ids), with its 32-byte header and
  // its payload in whole 32-byte chunks.
  std::int64_t expect = 0;
  for (const auto& t : txns) {
    std::int64_t wire = 0;
    for (std::int64_t left = t.bytes; left > 0; left -= 512)
      wire += 32 + (std::min<std::int64_t>(left, 512) + 31) / 32 * 32;
    expect += wire * std::popcount(static_cast<std::uint64_t>(t.src ^ t.dst));
  }
  CHECK(bytes == expect);
  std::filesystem::remove(file);
}

TEST_CASE("remote get: the destination's MU runs the carried descriptor, natively and simulated", "[bgq][run]") {
  register_test_kernels();
  for (const std::string transport : {"threads", "double", "cma"}) {
    INFO("native transport " << transport);
    const auto r = bgq::run(scenario_for("test-remote-get", "both", nlohmann::json::object(), transport));
    REQUIRE(r.modes.size() == 2);
    for (const auto& m : r.modes) {
      CHECK(m.checked == 3000);
      CHECK(m.wrong == 0);
      // Rank 0 injected one, rank 1's MU ran the other; and the MPI_Sendrecv of the set-up, a packet each way.
      CHECK(m.descriptors == 1 + 2);
      CHECK(m.packets == 1 + 6 + 2);
    }
    CHECK(r.differing_ranks.empty());
  }
}

TEST_CASE("a send buffer written once MUSPI_CheckDescComplete says so leaves the data sent unchanged", "[bgq][run]") {
  register_test_kernels();
  const auto r = bgq::run(scenario_for("test-reuse-after-complete", "both", nlohmann::json::object()));
  REQUIRE(r.modes.size() == 2);
  for (const auto& m : r.modes) {
    CHECK(m.checked == 32ull * 16384);
    CHECK(m.wrong == 0);
    CHECK(m.descriptors == 32);
  }
  CHECK(r.compared);
  CHECK(r.differing_ranks.empty());
}

TEST_CASE("a bare MUSPI_CheckDescComplete loop for a descriptor never injected stops the run naming it", "[bgq][run]") {
  register_test_kernels();
  for (const auto& [mode, transport] :
       {std::pair{"sim", "threads"}, std::pair{"native", "threads"}, std::pair{"native", "double"}}) {
    INFO(mode << " " << transport);
    // Simulated: a million polls in a row; native: the watchdog, naming what each rank waits for.
    const std::string want = std::string(mode) == "sim"
                                 ? "MUSPI_CheckDescComplete polled 1000000 times in a row for 2 descriptors of "
                                   "injection FIFO 0, but 1 were injected: it would wait forever"
                                 : "ranks 0-31 in MUSPI_CheckDescComplete, waiting for 2 descriptors of injection "
                                   "FIFO 0, more than it was given";
    CHECK_THROWS_WITH(bgq::run(scenario_for("test-reuse-after-complete", mode, {{"bad", 1}}, transport)),
                      Catch::Contains(want));
  }
}

TEST_CASE("halo exchange over 1 to 64 threads, three iterations: right data in both modes, the same in each",
          "[bgq][run]") {
  register_test_kernels();
  for (int threads : {1, 2, 4, 8, 16, 32, 64}) {
    INFO("threads " << threads);
    const auto r = bgq::run(halo_scenario("both", {{"iterations", 3}, {"threads", threads}}));
    REQUIRE(r.modes.size() == 2);
    for (const auto& m : r.modes) {
      CHECK(m.wrong == 0);
      CHECK(m.checked == 32ull * 3 * 3 * 8 * 32768 / 8);  // ranks x iterations x 3 checks x values
    }
    CHECK(r.compared);
    CHECK(r.differing_ranks.empty());
  }
}
