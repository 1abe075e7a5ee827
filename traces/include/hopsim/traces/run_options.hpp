// The trace options a run asks for, read from its scenario's outputs.
#pragma once

#include <string_view>

#include "hopsim/traces/writer.hpp"

namespace hopsim::traces {

/// WriterOptions for a run's trace: the window `window` (outputs.trace_window syntax, see
/// hopsim::parse_trace_window) on a device clocked at `clock_hz`, and the size limit
/// `max_bytes` (0: none). Throws hopsim::ConfigError naming `window_key` on a bad window.
WriterOptions run_writer_options(std::string_view window, double max_bytes, double clock_hz,
                                 std::string_view window_key = "outputs.trace_window");

}  // namespace hopsim::traces
