// Exporters of a trace to formats other tools read.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string_view>

#include "hopsim/traces/reader.hpp"

namespace hopsim::traces {

/// Perfetto track ids: PE p is tid p in process kPePid, link l is tid kLinkTidBase + l in
/// process kLinkPid (tids stay unique across processes, which Perfetto's importer wants).
inline constexpr int kPePid = 1;
inline constexpr int kLinkPid = 2;
inline constexpr std::int64_t kLinkTidBase = 1 << 20;
/// Launches: one track per mode in process kLaunchPid, tid kLaunchTidBase + the mode's
/// index in the order the trace first names it.
inline constexpr int kLaunchPid = 3;
inline constexpr std::int64_t kLaunchTidBase = 1 << 19;

/// Writes Chrome trace-event JSON ({"traceEvents":[...]}) that Perfetto and chrome://tracing
/// open: one "X" event per PE state and per hop, "M" process_name/thread_name events naming
/// each track, and one "C" counter track per declared link (bytes, busy, stall per bucket).
/// ts/dur are microseconds from cycles and meta clock_hz (1 cycle = 1 us if absent).
void export_perfetto(const TraceReader& trace, std::ostream& out);

/// Writes table `table` (meta, nodes, links, transactions, hops, link_counters, pe_states)
/// as RFC 4180 CSV with a header row. Throws TraceError naming an unknown table.
void export_csv(const TraceReader& trace, std::string_view table, std::ostream& out);

}  // namespace hopsim::traces
