#include "hopsim/traces/run_options.hpp"

#include <cstdint>

#include "hopsim/core/scenario.hpp"

namespace hopsim::traces {

WriterOptions run_writer_options(std::string_view window, double max_bytes, double clock_hz,
                                 std::string_view window_key) {
    WriterOptions o;
    const auto w = hopsim::parse_trace_window(window, clock_hz, window_key);
    o.window_begin = w.begin;
    o.window_end = w.end;
    o.max_bytes = max_bytes > 0 ? static_cast<std::uint64_t>(max_bytes) : 0;
    return o;
}

}  // namespace hopsim::traces
