#pragma once
// The result and trace tools of the CLI, each printing to standard output
// and returning the exit code; ConfigError on bad input.
#include <optional>
#include <string>
#include <vector>

namespace hopsim::studies {

// Hottest links, per-PE breakdown and totals of a trace; 3 if it is incomplete.
int trace_stats(const std::string& file, int top);
// The trace for Perfetto and/or one table as CSV (to `out`, or stdout). `perfetto`'s extension picks
// the format: .json trace-event JSON, .perfetto-trace or .pftrace protobuf; ConfigError for others.
int trace_export(const std::string& file, const std::optional<std::string>& perfetto,
                 const std::optional<std::string>& csv, const std::optional<std::string>& out);
// A run's sim.metrics against reference rows; 3 when a matched row is beyond `tolerance` percent.
int validate_results(const std::string& result, const std::vector<std::string>& references, double tolerance);
// Real-device results (reference, passing, hpcc, ham formats) as reference CSV (to `output`, or stdout).
int import_results(const std::string& file, const std::string& format, const std::string& system,
                   const std::string& output);

}  // namespace hopsim::studies
