// Native BG/Q runs with a process per rank over a host copy transport
// (machine.transport = double | cma): the same data as the simulated run,
// the transport reported, CMA refusal falling back to double copy, and a
// failing, dying or deadlocked rank stopping the run with its name.
#include <catch2/catch.hpp>

#include <signal.h>

#include <cstdlib>
#include <filesystem>

#include "hopsim/bgq/run.hpp"
#include "hopsim/bgq_kernel.h"
#include "hopsim/core/error.hpp"
#include "mpi.h"
#include "register.h"

using namespace hopsim;

namespace {

Scenario scenario(const std::string& kernel, const std::string& mode, nlohmann::json args, nlohmann::json machine) {
  machine["preset"] = machine.value("preset", "bgq");
  nlohmann::json doc = {{"machine", machine},
                        {"kernel", {{"name", kernel}, {"args", args}}},
                        {"mode", mode},
                        {"outputs",
                         {{"dir", (std::filesystem::temp_directory_path() / "hopsim-test-bgq-proc").string()},
                          {"json", false},
                          {"csv", false}}}};
  return scenario_from_json(doc, "test");
}

const nlohmann::json kHalo = {{"iterations", 1}, {"msg_size", 4096}, {"package", 1024}};

// Rank 3 fails (a kernel error) while the others wait for it in a barrier.
extern "C" void proc_fail_main() {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 3) hopsim_bgq_arg("no_such_argument");
  MPI_Barrier(MPI_COMM_WORLD);
}

// Rank 2's process dies (SIGKILL) while the others wait for it.
extern "C" void proc_die_main() {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 2) ::raise(SIGKILL);
  MPI_Barrier(MPI_COMM_WORLD);
}

// Rank 0 waits for a message nobody sends; the others wait in a barrier.
extern "C" void proc_wait_main() {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    int v = 0;
    MPI_Sendrecv(nullptr, 0, MPI_INT, MPI_PROC_NULL, 0, &v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

void register_kernels() {
  static bool done = false;
  if (done) return;
  done = true;
  bgq::register_bgq_kernels();
  for (auto [name, entry] : {std::pair{"test-proc-fail", &proc_fail_main}, std::pair{"test-proc-die", &proc_die_main},
                             std::pair{"test-proc-wait", &proc_wait_main}}) {
    bgq::BgqKernel k;
    k.package.name = name;
    k.package.description = "test";
    k.entry = entry;
    bgq::register_kernel(k);
  }
}

}  // namespace

TEST_CASE("halo over processes: double copy and CMA give the simulated run's data", "[bgq][process]") {
  register_kernels();
  for (const std::string t : {"double", "cma"}) {
    INFO("transport " << t);
    const auto r = bgq::run(scenario("halo", "both", kHalo, {{"transport", t}}));
    REQUIRE(r.modes.size() == 2);
    const auto& nat = r.modes[0];
    CHECK(nat.mode == Mode::native);
    CHECK(nat.transport.requested == t);
    CHECK(nat.transport.used == t);
    CHECK(nat.transport.fallback.empty());
    CHECK(nat.wrong == 0);
    CHECK(nat.checked == 32ull * 3 * 8 * 4096 / 8);
    // The halo's, and MPI's set-up messages: the coordinates' MPI_Sendrecv (8 per rank) and
    // MPI_Cart_create agreeing on a context (a reduce and a broadcast, 31 messages each), a packet each.
    CHECK(nat.descriptors == 32ull * 3 * 8 * 4 + 32 * 8 + 2 * 31);
    CHECK(nat.packets == 32ull * 3 * 8 * 8 + 32 * 8 + 2 * 31);
    CHECK(nat.timings.at(5).size() == 4);  // every rank's timings came back
    CHECK(r.compared);
    CHECK(r.differing_ranks.empty());
    CHECK(bgq::exit_code(r) == 0);
    CHECK(r.machine["transport"] == t);
  }
}

TEST_CASE("double copy through a reception ring smaller than one exchange: waits for room, wraps", "[bgq][process]") {
  register_kernels();
  // 4 ranks (2x1x1x1x2): each receives 4 x 512 KiB per exchange from its
  // one other neighbour, twice its 1 MiB ring.
  const auto r = bgq::run(scenario("halo", "both", {{"iterations", 1}, {"msg_size", 524288}, {"package", 65536}},
                                   {{"transport", "double"}, {"torus_b", 1}, {"torus_c", 1}, {"torus_d", 1}}));
  REQUIRE(r.modes.size() == 2);
  CHECK(r.modes[0].transport.used == "double");
  CHECK(r.modes[0].wrong == 0);
  CHECK(r.modes[0].checked == 4ull * 3 * 8 * 524288 / 8);
  CHECK(r.differing_ranks.empty());
}

TEST_CASE("memory-FIFO ping-pong over processes matches the simulated run", "[bgq][process]") {
  register_kernels();
  const auto r =
      bgq::run(scenario("pingpong", "both", {{"iterations", 3}, {"msg_size", 1500}}, {{"transport", "cma"}}));
  REQUIRE(r.modes.size() == 2);
  CHECK(r.modes[0].transport.used == "cma");
  CHECK(r.modes[0].wrong == 0);
  CHECK(r.modes[0].checked == 3 * 1500);  // rank 0 checks every echoed byte of each iteration
  CHECK(r.differing_ranks.empty());
}

TEST_CASE("CMA refused by the kernel falls back to double copy and says so", "[bgq][process]") {
  register_kernels();
  const auto r = bgq::run(scenario("halo", "both", kHalo, {{"transport", "cma"}, {"deny_cma", true}}));
  const auto& nat = r.modes.at(0);
  CHECK(nat.transport.requested == "cma");
  CHECK(nat.transport.used == "double");
  CHECK_THAT(nat.transport.fallback, Catch::Contains("CMA refused") && Catch::Contains("EPERM") &&
                                         Catch::Contains("falling back to double copy"));
  CHECK(nat.wrong == 0);
  CHECK(r.differing_ranks.empty());
}

TEST_CASE("a rank that fails stops the process run, named with its error", "[bgq][process]") {
  register_kernels();
  for (const std::string t : {"double", "cma"}) {
    INFO("transport " << t);
    try {
      bgq::run(scenario("test-proc-fail", "native", nlohmann::json::object(), {{"transport", t}}));
      FAIL("the failing rank was not reported");
    } catch (const KernelError& e) {
      CHECK_THAT(std::string(e.what()),
                 Catch::StartsWith("rank 3: hopsim_bgq_arg: the kernel has no integer argument 'no_such_argument'"));
    }
  }
}

TEST_CASE("a rank whose process dies stops the run, named with the signal", "[bgq][process]") {
  register_kernels();
  CHECK_THROWS_WITH(bgq::run(scenario("test-proc-die", "native", nlohmann::json::object(), {{"transport", "double"}})),
                    Catch::StartsWith("rank 2: killed by signal 9"));
}

TEST_CASE("a process run in which every rank waits forever is a deadlock naming the waiting ranks", "[bgq][process]") {
  register_kernels();
  try {
    bgq::run(scenario("test-proc-wait", "native", nlohmann::json::object(), {{"transport", "double"}}));
    FAIL("no deadlock reported");
  } catch (const DeadlockError& e) {
    const std::string m = e.what();
    CHECK_THAT(m, Catch::Contains("deadlock: no data moved for 3 s while every rank waits"));
    CHECK_THAT(m, Catch::Contains("rank 0 in MPI_Sendrecv (rank 1, tag 7)"));
    CHECK_THAT(m, Catch::Contains("ranks 1-31 in the GI barrier"));
  }
}

TEST_CASE("machine.transport: unknown values, zero copy and too many ranks are configuration errors",
          "[bgq][process]") {
  register_kernels();
  CHECK_THROWS_WITH(bgq::run(scenario("halo", "native", kHalo, {{"transport", "shm"}})),
                    "machine.transport: unknown transport 'shm' (expected threads, double or cma)");
  CHECK_THROWS_AS(bgq::run(scenario("halo", "sim", kHalo, {{"transport", "shm"}})), ConfigError);
  CHECK_THROWS_WITH(bgq::run(scenario("halo", "native", kHalo, {{"transport", "zero"}})),
                    Catch::StartsWith("machine.transport: zero copy cannot carry BG/Q direct puts") &&
                        Catch::Contains("private to each rank's process"));
  CHECK_THROWS_WITH(bgq::run(scenario("halo", "native", kHalo, {{"deny_cma", 1}})),
                    "machine.deny_cma: expected true or false");
  CHECK_THROWS_WITH(bgq::run(scenario("halo", "native", kHalo, {{"preset", "bgq-512"}, {"transport", "cma"}})),
                    Catch::Contains("at most 64; this torus has 512 nodes"));
}
