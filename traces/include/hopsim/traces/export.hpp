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

/// Writes the same events as export_perfetto in Perfetto's native protobuf format (a Trace
/// message: .perfetto-trace / .pftrace, about 2.5 times smaller than the JSON), streaming a
/// packet at a time. One packet sequence, nothing interned. Each track is described (a
/// TrackDescriptor at time 0) before its first event: processes PEs, links and launches, a
/// thread track per PE, link and launch mode with the JSON's pid and tid, and per link counter
/// tracks "<link> bytes|busy|stall". Slices are SLICE_BEGIN/SLICE_END pairs with the JSON's
/// category, name and args (debug annotations); a transaction is a zero-length slice on its
/// source's track at inject with flow_ids = {id} and one on its destination's at arrive with
/// terminating_flow_ids = {id}; counters are COUNTER events. Timestamps are whole nanoseconds
/// from cycles and meta clock_hz (1 cycle = 1 us if absent). Meta is not written. Throws
/// TraceError if `out` fails.
void export_perfetto_proto(const TraceReader& trace, std::ostream& out);

/// Writes table `table` (meta, nodes, links, transactions, hops, link_counters, pe_states)
/// as RFC 4180 CSV with a header row. Throws TraceError naming an unknown table.
void export_csv(const TraceReader& trace, std::string_view table, std::ostream& out);

}  // namespace hopsim::traces
