#pragma once
// One `hopsim run`: resolve the machine and the kernel, run the host
// program natively and/or simulated, compare the data of the two modes,
// print the side-by-side table, write JSON and CSV results.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hopsim/core/report.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/epiphany/device.hpp"
#include "hopsim/epiphany/model/params.hpp"
#include "hopsim/epiphany_host.hpp"

namespace hopsim::epiphany {

struct ModeResult {
  Mode mode = Mode::sim;
  std::vector<LaunchRecord> records;
  std::vector<CoreCounters> cores;
  nlohmann::json links = nlohmann::json::array();  // simulated: per-link counters of links that carried traffic
  double wall_seconds = 0;                         // host seconds the whole mode took
  double device_seconds = 0;                       // sum of launch durations (simulated or wall)
  std::uint64_t remote_writes = 0;
  std::string trace;            // the trace file written, if one was asked for
  std::vector<Metric> metrics;  // figures comparable with published measurements
};

struct RunReport {
  Scenario scenario;
  epiphany::model::Params params;
  nlohmann::json machine;  // resolved parameters with sources
  nlohmann::json kernel_args;
  std::optional<ModeResult> native, sim;
  bool compared = false;
  std::vector<std::string> data_diffs;      // (method, n) whose native and simulated data differ
  std::vector<std::string> check_failures;  // launches with unexpected mismatches
};

// Resolves a scenario's machine (preset + overrides) for the Epiphany family.
epiphany::model::Params resolve_epiphany(const Scenario& sc, nlohmann::json* resolved = nullptr);

// The scenario's kernel package: built in, kernel.library, or NAME.hopsim.so
// in the kernel folders (loaded with one private copy per core).
const KernelPackage& resolve_package(const Scenario& sc, std::uint32_t cores);

// Runs everything the scenario asks for. Throws ConfigError, KernelError,
// DeadlockError; data problems are in the report (see exit_code).
RunReport run_scenario(const Scenario& sc);

// Writes results.json and results.csv into the output folder atomically
// (a temporary file renamed into place), so a failed run never leaves a
// half-written result over a good one.
void write_outputs(const RunReport& r, const hopsim::RunReport& common);
void print_report(const RunReport& r, std::ostream& out);
// 0: all good; 3: a data check failed; 4: native and simulated data differ.
int exit_code(const RunReport& r);
nlohmann::json to_json(const RunReport& r);

}  // namespace hopsim::epiphany
