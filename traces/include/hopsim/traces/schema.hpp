// The one copy of the trace database layout and of every query on it,
// shared by TraceWriter, TraceReader and the exporters.
#pragma once

#include <span>
#include <string_view>

namespace hopsim::traces {

/// Layout version written to meta.schema_version; readers refuse newer files.
/// 2: launches.start.
inline constexpr int kSchemaVersion = 2;

namespace meta_key {
// Keys of the meta table that the trace layer itself writes.
inline constexpr std::string_view schema_version = "schema_version";
inline constexpr std::string_view hopsim_version = "hopsim_version";
inline constexpr std::string_view git_revision = "git_revision";
inline constexpr std::string_view scenario = "scenario";  // JSON text
inline constexpr std::string_view machine = "machine";
inline constexpr std::string_view mode = "mode";
inline constexpr std::string_view seed = "seed";
inline constexpr std::string_view detail = "detail";      // counters | transactions | hops
inline constexpr std::string_view complete = "complete";  // "0" | "1"
inline constexpr std::string_view created = "created";    // ISO 8601 UTC
inline constexpr std::string_view bucket_cycles = "bucket_cycles";
inline constexpr std::string_view clock_hz = "clock_hz";  // absent when unknown
inline constexpr std::string_view incomplete_reason = "incomplete_reason";
inline constexpr std::string_view max_hop_cycles = "max_hop_cycles";  // longest hop: bounds window scans
inline constexpr std::string_view window = "window";        // "BEGIN:END" cycles recorded in detail; absent: all
inline constexpr std::string_view max_bytes = "max_bytes";  // size limit of the detail rows; absent: none
/// Cycle from which detail was no longer recorded because the trace reached max_bytes; absent: never.
inline constexpr std::string_view detail_stopped_at = "detail_stopped_at";
/// All of the above: Meta::extra may not use them.
std::span<const std::string_view> reserved() noexcept;
}  // namespace meta_key

namespace schema {

/// A table as the CSV exporter sees it.
struct Table {
    std::string_view name;
    std::string_view columns;   ///< comma-separated select list, in CSV column order
    std::string_view order_by;  ///< natural row order
};

/// Every table of a trace, in creation order.
std::span<const Table> tables() noexcept;
/// The table called `name`, or nullptr.
const Table* find_table(std::string_view name) noexcept;

// "end" is quoted everywhere: END is an SQL keyword.
inline constexpr std::string_view kCreate = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE nodes(id INTEGER PRIMARY KEY, name TEXT, kind TEXT, coords TEXT);
CREATE TABLE links(id INTEGER PRIMARY KEY, net TEXT, src INTEGER, dst INTEGER, name TEXT);
CREATE TABLE transactions(id INTEGER PRIMARY KEY, src INTEGER, dst INTEGER, bytes INTEGER,
                          inject REAL, arrive REAL, kind TEXT);
CREATE TABLE hops(txn INTEGER, link INTEGER, enter REAL, leave REAL);
CREATE TABLE link_counters(link INTEGER, bucket INTEGER, bytes INTEGER, packets INTEGER,
                           busy REAL, stall REAL, PRIMARY KEY(link, bucket));
CREATE TABLE pe_states(pe INTEGER, state TEXT, start REAL, "end" REAL);
CREATE TABLE launches(mode TEXT, method TEXT, n INTEGER, seconds REAL, cycles REAL, bytes INTEGER,
                      check_ok INTEGER, start REAL);
)sql";

// Built when the writer closes: appending to bare tables runs about 3x faster than
// maintaining these per row, and one sort at the end costs less than that.
// IF NOT EXISTS: a reader may find a killed run's file without them (queries still work).
inline constexpr std::string_view kCreateIndexes = R"sql(
CREATE INDEX IF NOT EXISTS hops_link_enter ON hops(link, enter);
CREATE INDEX IF NOT EXISTS hops_enter ON hops(enter);
CREATE INDEX IF NOT EXISTS pe_states_pe_start ON pe_states(pe, start);
)sql";

// Tables a file must have to be read as a trace.
inline constexpr std::string_view kCountKnownTables =
    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
    "('meta','nodes','links','transactions','hops','link_counters','pe_states')";
inline constexpr int kTableCount = 7;
// launches came later than the other tables: files without it read as having no launches.
inline constexpr std::string_view kHasLaunchesTable =
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'launches'";
// launches.start came with schema version 2.
inline constexpr std::string_view kLaunchesHaveStart =
    "SELECT 1 FROM pragma_table_info('launches') WHERE name = 'start'";
inline constexpr std::string_view kHasMetaTable = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'";

// Writer.
inline constexpr std::string_view kPutMeta = "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)";
inline constexpr std::string_view kInsertNode = "INSERT INTO nodes(id, name, kind, coords) VALUES(?1, ?2, ?3, ?4)";
inline constexpr std::string_view kInsertLink = "INSERT INTO links(id, net, src, dst, name) VALUES(?1, ?2, ?3, ?4, ?5)";
inline constexpr std::string_view kInsertTransaction =
    "INSERT INTO transactions(id, src, dst, bytes, inject, arrive, kind) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)";
inline constexpr std::string_view kInsertHop = "INSERT INTO hops(txn, link, enter, leave) VALUES(?1, ?2, ?3, ?4)";
inline constexpr std::string_view kAddCounter =
    "INSERT INTO link_counters(link, bucket, bytes, packets, busy, stall) VALUES(?1, ?2, ?3, ?4, ?5, ?6) "
    "ON CONFLICT(link, bucket) DO UPDATE SET bytes = bytes + excluded.bytes, "
    "packets = packets + excluded.packets, busy = busy + excluded.busy, stall = stall + excluded.stall";
inline constexpr std::string_view kInsertLaunch =
    "INSERT INTO launches(mode, method, n, seconds, cycles, bytes, check_ok, start) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
inline constexpr std::string_view kSelectLaunches =
    "SELECT mode, method, n, seconds, cycles, bytes, check_ok, start FROM launches ORDER BY rowid";
inline constexpr std::string_view kSelectLaunchesV1 =
    "SELECT mode, method, n, seconds, cycles, bytes, check_ok, NULL FROM launches ORDER BY rowid";
inline constexpr std::string_view kInsertPeState =
    "INSERT INTO pe_states(pe, state, start, \"end\") VALUES(?1, ?2, ?3, ?4)";

// Reader.
inline constexpr std::string_view kSelectMeta = "SELECT key, value FROM meta";
inline constexpr std::string_view kSelectNodes = "SELECT id, name, kind, coords FROM nodes ORDER BY id";
inline constexpr std::string_view kSelectLinks = "SELECT id, net, src, dst, name FROM links ORDER BY id";
// Every declared link (zeros when it carried nothing) plus links seen only in counters.
inline constexpr std::string_view kLinkTotals = R"sql(
SELECT l.id, coalesce(sum(c.bytes), 0), coalesce(sum(c.packets), 0),
       coalesce(sum(c.busy), 0.0), coalesce(sum(c.stall), 0.0)
  FROM links l LEFT JOIN link_counters c ON c.link = l.id GROUP BY l.id
UNION ALL
SELECT c.link, sum(c.bytes), sum(c.packets), sum(c.busy), sum(c.stall)
  FROM link_counters c WHERE c.link NOT IN (SELECT id FROM links) GROUP BY c.link
ORDER BY 1)sql";
inline constexpr std::string_view kLinkCounters =
    "SELECT link, bucket, bytes, packets, busy, stall FROM link_counters WHERE link = ?1 ORDER BY bucket";
inline constexpr std::string_view kCountTransactions = "SELECT count(*) FROM transactions";
inline constexpr std::string_view kSelectTransactions =
    "SELECT id, src, dst, bytes, inject, arrive, kind FROM transactions WHERE id >= ?1 ORDER BY id LIMIT ?2";
inline constexpr std::string_view kCountHops = "SELECT count(*) FROM hops";
// Window [?2, ?3) over hops: ?1 = ?2 - longest hop lets the (enter) index bound both ends.
// A zero-length hop counts when its instant lies in the window.
inline constexpr std::string_view kHopsWindow =
    "SELECT txn, link, enter, leave FROM hops WHERE enter >= ?1 AND enter < ?3 "
    "AND (leave > ?2 OR enter >= ?2) ORDER BY enter";
inline constexpr std::string_view kHopsWindowLink =
    "SELECT txn, link, enter, leave FROM hops WHERE link = ?4 AND enter >= ?1 AND enter < ?3 "
    "AND (leave > ?2 OR enter >= ?2) ORDER BY enter";
// Same window, with the transaction's kind for exporters (NULL when not recorded).
inline constexpr std::string_view kHopsWindowWithKind =
    "SELECT h.txn, h.link, h.enter, h.leave, t.kind FROM hops h LEFT JOIN transactions t ON t.id = h.txn "
    "WHERE h.enter >= ?1 AND h.enter < ?3 AND (h.leave > ?2 OR h.enter >= ?2) ORDER BY h.enter";
// Counters of the buckets [?1, ?2] summed per link (links without counters there are absent).
inline constexpr std::string_view kLinkTotalsBuckets =
    "SELECT link, sum(bytes), sum(packets), sum(busy), sum(stall) FROM link_counters "
    "WHERE bucket >= ?1 AND bucket <= ?2 GROUP BY link ORDER BY link";
// Hops of transactions from or to node ?4 in the window (as kHopsWindow), summed per link:
// payload bytes, hop count, occupied cycles.
inline constexpr std::string_view kNodeLinkTotals =
    "SELECT h.link, sum(t.bytes), count(*), sum(h.leave - h.enter) FROM hops h JOIN transactions t ON t.id = h.txn "
    "WHERE (t.src = ?4 OR t.dst = ?4) AND h.enter >= ?1 AND h.enter < ?3 AND (h.leave > ?2 OR h.enter >= ?2) "
    "GROUP BY h.link ORDER BY h.link";
// Extent of the recorded activity: counter buckets, hops (via the enter index), PE states. Transactions
// are left out: their links' counters cover them, and scanning a million of them costs a second.
inline constexpr std::string_view kLastBucket = "SELECT min(bucket), max(bucket) FROM link_counters";
// Two subqueries: SQLite answers a lone min() or max() from the index, not both at once.
inline constexpr std::string_view kHopExtent = "SELECT (SELECT min(enter) FROM hops), (SELECT max(enter) FROM hops)";
inline constexpr std::string_view kMaxHopLeave = "SELECT max(leave) FROM hops WHERE enter >= ?1";
inline constexpr std::string_view kPeStateExtent = "SELECT min(start), max(\"end\") FROM pe_states";
// Loose index scan over pe_states(pe, start): one index probe per PE.
inline constexpr std::string_view kNextPe = "SELECT min(pe) FROM pe_states WHERE pe > ?1";
// The span a PE is in at ?2 (states of one PE do not overlap), then those starting in [?2, ?3).
inline constexpr std::string_view kPeStateAt =
    "SELECT pe, state, start, \"end\" FROM pe_states WHERE pe = ?1 AND start < ?2 "
    "ORDER BY start DESC, \"end\" DESC LIMIT 1";
inline constexpr std::string_view kPeStatesFrom =
    "SELECT pe, state, start, \"end\" FROM pe_states WHERE pe = ?1 AND start >= ?2 AND start < ?3 ORDER BY start";

}  // namespace schema
}  // namespace hopsim::traces
