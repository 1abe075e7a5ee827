// Simulated vs native timings of a run, side by side. A trace of a `--mode both` run holds
// the launches of both modes (its launches table); for older traces the native launches
// come from the run's results.json, found through the trace's scenario (outputs.dir) or
// opened by hand.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hopsim/traces/reader.hpp"

namespace hopsim::gui {

/// One launch measured both ways.
struct TimingPoint {
  std::string method;
  int n = 0;
  double native_s = 0;  ///< native run's seconds
  double sim_s = 0;     ///< simulated device seconds
};

struct Comparison {
  std::filesystem::path source;      ///< the results.json read
  std::vector<std::string> methods;  ///< in first-seen order
  std::vector<TimingPoint> points;   ///< launches present in both runs, by method then n
};

/// Reads native and simulated launches from a results.json; nullopt (with `why`) when the
/// file is unreadable, not JSON, or lacks either run.
std::optional<Comparison> load_comparison(const std::filesystem::path& results, std::string* why = nullptr);

/// Native and simulated launches from the trace's own launches table; nullopt (with `why`)
/// when it lacks either mode (a trace of a single-mode run, or one older than the table).
std::optional<Comparison> comparison_from_trace(const traces::TraceReader& trace, std::string* why = nullptr);

/// The results.json written by the run that wrote `trace`: outputs.dir of the trace's
/// scenario, taken as given, then relative to the trace's folder; only a file whose
/// sim.trace names this trace counts. Empty when none is found.
std::filesystem::path find_results_for(const traces::TraceReader& trace);

}  // namespace hopsim::gui
