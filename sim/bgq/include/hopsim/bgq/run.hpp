#pragma once
// Running BG/Q kernels: the kernel registry of the BG/Q family and the
// `hopsim run` of a scenario whose machine is a bgq preset.
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hopsim/bgq/model/params.hpp"
#include "hopsim/bgq_package.hpp"
#include "hopsim/core/program.hpp"
#include "hopsim/core/report.hpp"
#include "hopsim/core/scenario.hpp"

namespace hopsim::bgq {

// How a native run executes its ranks: `threads` (default: host threads in
// one address space), or a forked process per rank whose direct puts move
// by a host copy transport: `double` (through shared memory, applied when
// the receiver polls) or `cma` (process_vm_writev into the target's
// buffer). From the scenario's machine.transport; machine.deny_cma (test
// aid) makes the kernel refuse CMA so the fallback to double copy runs.
enum class NativeTransport { threads, double_copy, cma };
struct NativeOptions {
  NativeTransport transport = NativeTransport::threads;
  bool deny_cma = false;
};
std::string to_string(NativeTransport t);  // "threads", "double", "cma"
// ConfigError naming machine.transport for an unknown value or zero copy.
NativeOptions native_options(const Scenario& sc);

// What a native run used: requested and used transport, why they differ.
struct TransportUse {
  std::string requested, used;  // "threads", "double", "cma"
  std::string fallback;         // non-empty when used != requested
};

struct ModeOutcome {
  Mode mode{};
  double wall_seconds = 0;
  double end_cycles = 0;                     // when the last rank ended (simulated; native: host time)
  std::vector<std::vector<Timing>> timings;  // per rank
  std::vector<Check> checks;                 // all ranks, failures first
  std::uint64_t checked = 0, wrong = 0;
  std::vector<std::uint64_t> digests;  // per rank
  std::uint64_t descriptors = 0, packets = 0, packet_hops = 0, bytes = 0;
  std::vector<std::uint64_t> instructions;  // per rank: the code's instructions (counted compute)
  std::vector<Metric> metrics;
  std::string trace;       // the trace file of a simulated run, if one was asked for
  TransportUse transport;  // native runs
};

struct BgqReport {
  Scenario scenario;
  model::Params params;
  nlohmann::json machine, args;
  std::vector<ModeOutcome> modes;
  bool compared = false;
  std::vector<int> differing_ranks;
};

model::Params resolve_params(const Scenario& sc, nlohmann::json* resolved = nullptr);
// Throws ConfigError / KernelError / DeadlockError.
BgqReport run(const Scenario& sc);
void print(const BgqReport& r, std::ostream& out);
void write_outputs(const BgqReport& r, const hopsim::RunReport& common);
int exit_code(const BgqReport& r);
// The family-neutral report of a run (timings: mean cycles per iteration and rank).
hopsim::RunReport common_report(const BgqReport& r);

}  // namespace hopsim::bgq
