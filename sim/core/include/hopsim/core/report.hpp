#pragma once
// What every family's runner returns, besides printing its own report and
// writing its results: the timings both modes measured, paired by name,
// with their data checks, so `hopsim compare` and the other studies treat
// every family alike.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hopsim/core/scenario.hpp"

namespace hopsim {

struct Timing {
  std::string name;                                  // unique in the report, e.g. "unicast n=3", "communication only"
  std::string group;                                 // timings shown together in a chart (a method; or the name itself)
  nlohmann::json labels = nlohmann::json::object();  // the family's keys of this timing ({"method", "n"})
  // Per operation (RunReport::per); NaN where a mode did not run or has no such figure.
  double native_seconds = NAN, sim_seconds = NAN;
  double native_bytes_per_s = NAN, sim_bytes_per_s = NAN;
  double native_cycles = NAN, sim_cycles = NAN;     // device cycles, where the family counts them
  std::string native_check = "-", sim_check = "-";  // ok, FAIL:n, faulty:n; "-": not run
  std::string data = "-";                           // equal, DIFFER; "-": one mode only
};

struct RunReport {
  std::string family, kernel, machine;  // machine: the preset
  std::string machine_summary;          // e.g. "4x4 cores, 600 MHz"
  std::string per = "operation";        // what one operation is, e.g. "iteration and rank"
  double operations = 1;                // operations per launch the seconds were divided by
  std::vector<Timing> timings;          // in the order the program ran them
  bool native = false, sim = false;     // the modes that ran
  double native_wall_seconds = 0, sim_wall_seconds = 0;
  std::optional<bool> data_equal;  // both modes ran: whether their data agreed
  std::string results_dir;         // where the family wrote results.json
  int exit_code = 0;               // the process exit code of the run (README)
};

// The schema every results.json carries (docs/results.md).
inline constexpr const char* kResultsSchema = "hopsim-results/1";

// {"per", "operations", "timings": [...], "data_equal", "exit_code"}.
nlohmann::json to_json(const RunReport& r);

// Writes OUT/results.json and OUT/results.csv (those the scenario's outputs
// ask for) atomically: `doc` is the family's own part (machine, kernel,
// native, sim, ...); the common keys are added to it: schema, hopsim
// (version, git), scenario (resolved), family, mode, report (to_json(r)).
void write_results(const Scenario& sc, const RunReport& r, nlohmann::json doc, const std::string& csv);

}  // namespace hopsim
