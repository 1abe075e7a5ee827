#pragma once
// `hopsim curve`: latency against offered load of synthetic traffic on a
// mesh or torus, from a traffic scenario file and/or options, optionally
// against a reference curve (BookSim2's); table, CSV and chart.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hopsim/core/scenario.hpp"

namespace hopsim::studies {

struct CurveOptions {
  std::string scenario;
  std::optional<std::string> machine, pattern, topology, routing, dims, injection;
  std::optional<double> step, max_load;
  std::optional<int> bytes;
  int rows = 0, cols = 0;
  std::vector<std::string> sets, keys;
  std::string csv, png;
  std::string reference;            // a reference curve (CSV) to run at and compare with
  std::optional<double> max_error;  // percent; exit 3 when a compared point is further off
  double below = 0.8;               // compare below this fraction of the reference's saturation
  // Percent; exit 3 when the saturation throughput (the accepted load at the
  // highest load finished) is further from the reference's.
  std::optional<double> max_saturation_error;
  // Runs per load, seeds traffic.seed, +1, ...: with more than one, each
  // load reports the mean over the seeds that did not saturate there and
  // its 95% confidence interval (Student's t), and the saturation point is
  // reported over the seeds as well. A reference is compared with the mean.
  int seeds = 1;
  std::optional<int> threads;  // traffic.threads
};

// Runs the curve, prints it, writes the files asked for; 3 when a compared
// load is off by more than max_error. Throws ConfigError on bad options.
int run_curve(const CurveOptions& o);

// Every key of a traffic scenario with its type, default and meaning (hopsim list keys).
std::span<const ScenarioKey> traffic_scenario_keys();

}  // namespace hopsim::studies
