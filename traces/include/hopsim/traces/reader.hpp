// TraceReader: read-only access to a trace database, validated on open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hopsim/traces/db.hpp"
#include "hopsim/traces/records.hpp"

namespace hopsim::traces {

/// What a path holds, as far as traces go.
enum class TraceFileState { missing, not_a_trace, incomplete, complete };

/// Classifies `path` without throwing for bad files; `why` (optional) gets the reason
/// for not_a_trace. A trace with a newer schema counts as complete (never clobbered).
TraceFileState probe_trace(const std::filesystem::path& path, std::string* why = nullptr);

/// An open trace. Not thread-safe: give each thread its own reader.
class TraceReader {
public:
    /// Opens read-only and validates. The rollback journal a killed writer left
    /// (PATH-journal) is rolled back first, so such a trace opens as of its last batch.
    /// Throws TraceError:
    /// "not a hopsim trace (...)" for non-SQLite, truncated or corrupt files and for
    /// databases without the trace tables; naming both versions for a newer schema.
    explicit TraceReader(const std::filesystem::path& path);

    /// The file opened.
    const std::filesystem::path& path() const noexcept { return db_.path(); }
    /// Every meta key and value.
    const std::map<std::string, std::string>& meta() const noexcept { return meta_; }
    /// One meta value, if present.
    std::optional<std::string> meta_value(std::string_view key) const;
    /// meta.schema_version (<= kSchemaVersion).
    int schema_version() const noexcept { return schema_version_; }
    /// Whether the run finished and the writer closed properly (meta.complete == "1").
    bool complete() const noexcept { return complete_; }
    /// The recording level (Detail::counters if meta lacks it).
    Detail detail() const noexcept { return detail_; }
    /// Device clock in Hz; 0 when the trace does not say.
    double clock_hz() const noexcept { return clock_hz_; }
    /// Width of a link counter bucket in cycles.
    double bucket_cycles() const noexcept { return bucket_cycles_; }

    /// All nodes by id.
    std::vector<Node> nodes() const;
    /// All links by id.
    std::vector<Link> links() const;
    /// Counters summed per link: every declared link (zeros if idle), by link id.
    std::vector<LinkTotals> link_totals() const;
    /// The counter buckets of one link, by bucket.
    std::vector<LinkCounter> link_counters(std::int64_t link) const;

    /// Counters of the buckets overlapping [t0, t1) summed per link, by link id; links
    /// without counters in those buckets are absent. Whole buckets: the window is widened
    /// to bucket boundaries (bucket_window gives them).
    std::vector<LinkTotals> link_totals(double t0, double t1) const;
    /// The first and last bucket overlapping [t0, t1) (first > last when none can).
    std::pair<std::int64_t, std::int64_t> bucket_window(double t0, double t1) const;
    /// Per link, the hops overlapping [t0, t1) of transactions from or to `node`: bytes = the
    /// transactions' payload, packets = hops, busy = cycles on the link, stall = 0.
    /// Empty below Detail::hops.
    std::vector<LinkTotals> node_link_totals(std::int64_t node, double t0, double t1) const;
    /// First and last cycle of recorded activity: counter buckets (whole buckets), hops and
    /// PE states (every transaction's links are in the counters); {0, 0} for an empty trace.
    std::pair<double, double> time_range() const;

    /// Number of recorded transactions.
    std::int64_t transaction_count() const;
    /// Up to `max_count` transactions with id >= first_id, by id (for paging).
    std::vector<Transaction> transactions(std::int64_t first_id, std::size_t max_count) const;

    /// Number of recorded hops.
    std::int64_t hop_count() const;
    /// Hops whose [enter, leave) overlaps [t0, t1), by enter time.
    std::vector<Hop> hops(double t0, double t1) const;
    /// The same, for one link only.
    std::vector<Hop> hops(std::int64_t link, double t0, double t1) const;
    /// Streams hops overlapping [t0, t1) by enter time without collecting them.
    void for_each_hop(double t0, double t1, const std::function<void(const Hop&)>& fn) const;

    /// PE ids that have states, ascending.
    std::vector<std::int64_t> pes() const;
    /// States overlapping [t0, t1), by PE then start.
    std::vector<PeStateSpan> pe_states(double t0, double t1) const;
    /// Streams states overlapping [t0, t1), by PE then start.
    void for_each_pe_state(double t0, double t1, const std::function<void(const PeStateSpan&)>& fn) const;

    /// Launches of both modes in the order they were recorded (empty for traces without them).
    std::vector<Launch> launches() const;

    /// Counted compute: the instructions each PE ran, by PE id (meta
    /// "instructions", a JSON object; empty when absent or malformed).
    std::map<std::int64_t, std::uint64_t> instructions() const;

    /// The connection, for exporters and ad-hoc queries.
    const sql::Db& db() const noexcept { return db_; }

private:
    double hop_lookback() const noexcept;

    sql::Db db_;
    std::map<std::string, std::string> meta_;
    int schema_version_ = 0;
    bool complete_ = false;
    Detail detail_ = Detail::counters;
    double clock_hz_ = 0;
    double bucket_cycles_ = 0;
    double max_hop_cycles_ = -1;  // < 0: unknown, scan from the start
};

}  // namespace hopsim::traces
