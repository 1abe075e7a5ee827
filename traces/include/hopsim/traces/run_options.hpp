// The trace options a run asks for, read from its scenario's outputs.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "hopsim/traces/writer.hpp"

namespace hopsim::traces {

/// WriterOptions for a run's trace: the window `window` (outputs.trace_window syntax, see
/// hopsim::parse_trace_window) on a device clocked at `clock_hz`, and the size limit
/// `max_bytes` (0: none). Throws hopsim::ConfigError naming `window_key` on a bad window.
WriterOptions run_writer_options(std::string_view window, double max_bytes, double clock_hz,
                                 std::string_view window_key = "outputs.trace_window");

/// A progress note on `trace` while a run writes it, from the fraction of the run done:
/// "trace 12 MB, about 150 MB at the end" (the projection assumes detail grows with the
/// run; without one before 2% of the run, or with a window, the size so far only). The
/// first time the projection passes the trace's size limit it also says so once on stderr,
/// naming the limit and the options that make the trace smaller. Call it on every progress
/// update, shown or not.
std::function<std::string(double fraction)> size_projection(const TraceWriter& trace);

}  // namespace hopsim::traces
