#include "hopsim/traces/run_options.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>

#include "hopsim/core/progress.hpp"
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

namespace {

std::string size_text(double bytes) {
    if (bytes >= 1e9) return fmt::format("{:.1f} GB", bytes / 1e9);
    if (bytes >= 1e7) return fmt::format("{:.0f} MB", bytes / 1e6);
    return fmt::format("{:.1f} MB", bytes / 1e6);
}

}  // namespace

std::function<std::string(double)> size_projection(const TraceWriter& trace) {
    constexpr double kFirstProjection = 0.02;  // fraction of the run before which no projection is made
    constexpr double kFirstWarning = 0.05;     // ... and no warning
    constexpr double kUnlimitedWarning = 1073741824.0;
    const bool windowed =
        trace.options().window_begin > 0 || trace.options().window_end < std::numeric_limits<double>::infinity();
    auto warned = std::make_shared<bool>(false);
    return [&trace, windowed, warned](double fraction) -> std::string {
        const double now = trace.estimated_bytes();
        if (trace.detail_full()) return fmt::format("trace {}, detail stopped at its limit", size_text(now));
        if (windowed || fraction < kFirstProjection || fraction >= 1.0) return fmt::format("trace {}", size_text(now));
        const double projected = now / fraction;
        const auto limit = static_cast<double>(trace.options().max_bytes);
        if (!*warned && fraction >= kFirstWarning && (limit > 0 ? projected > limit : projected > kUnlimitedWarning)) {
            *warned = true;
            hopsim::end_progress_line();
            std::cerr << fmt::format(
                             "hopsim: trace {}: about {} projected for the whole run ({} after {:.0f}% of it); {}; "
                             "--trace-detail counters, --trace-window or fewer repeats make it smaller\n",
                             trace.path().string(), size_text(projected), size_text(now), 100 * fraction,
                             limit > 0
                                 ? fmt::format("detail stops at its limit of {} (--trace-max-size)", size_text(limit))
                                 : std::string("it has no size limit (--trace-max-size 0)"))
                      << std::flush;
        }
        return fmt::format("trace {}, about {} at the end", size_text(now), size_text(projected));
    };
}

}  // namespace hopsim::traces
