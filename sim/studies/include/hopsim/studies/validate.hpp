#pragma once
// `hopsim validate`: matches a run's published-style figures (results.json
// sim.metrics) to reference rows (system, experiment, configuration,
// metric) and reports the error of each.
#include <string>
#include <vector>

#include "hopsim/core/program.hpp"
#include "hopsim/traces/import.hpp"

namespace hopsim::studies {

struct ValidationRow {
  Metric sim;
  traces::ResultRow ref;
  double error_pct = 0;  // (sim - ref) / ref
  bool within = false;
};

struct Validation {
  std::vector<ValidationRow> rows;
  std::vector<Metric> predictions;  // simulated figures with no reference row
  std::size_t unmatched_refs = 0;   // reference rows with no simulated figure
};

// The `sim.metrics` of a results.json; ConfigError naming the file if it is
// missing, malformed or has none.
std::vector<Metric> load_result_metrics(const std::string& results_json);
// ConfigError if a matched pair has different units.
Validation validate(const std::vector<Metric>& sim, const std::vector<traces::ResultRow>& ref, double tolerance_pct);

}  // namespace hopsim::studies
