// TraceWriter: records a run into a trace database from the simulator's hot
// path. Calls only append to an in-memory batch under a mutex; a background
// thread writes full batches in one SQLite transaction each, and indexes are
// built once when the writer closes (cheaper than maintaining them per row).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "hopsim/traces/db.hpp"
#include "hopsim/traces/records.hpp"

namespace hopsim::traces {

/// Tuning of a TraceWriter; the defaults suit a simulator run.
struct WriterOptions {
    std::size_t batch_rows = 20000;      ///< rows per background transaction
    std::size_t max_queued_batches = 8;  ///< producers block beyond this (bounds memory)
    /// Transactions, hops and PE states are recorded only where they overlap the cycles
    /// [window_begin, window_end) (PE states clipped to it); nodes, links, link counters and
    /// launches cover the whole run. Written to meta.window unless it is the whole run.
    double window_begin = 0;
    double window_end = std::numeric_limits<double>::infinity();
    /// Once the file holds more than this many bytes, transactions, hops and PE states are no
    /// longer recorded (meta.detail_stopped_at says from which cycle; a notice says so once);
    /// link counters and launches go on. 0: no limit.
    std::uint64_t max_bytes = 0;
    /// Where notices go (incomplete trace kept aside, errors in the destructor); default stderr.
    std::function<void(std::string_view)> notice;
};

/// Writes one trace file. Thread-safe: any thread may call the add_* functions.
class TraceWriter {
public:
    /// Creates `path + ".partial"`, writes the schema and `meta`, and starts the writer thread.
    /// Throws TraceError if `path` exists and is not a hopsim trace (it is left untouched),
    /// or if meta is invalid (scenario not JSON, bucket_cycles <= 0, reserved extra key).
    TraceWriter(std::filesystem::path path, const Meta& meta, Detail detail, WriterOptions options = {});
    /// Without finish(): flushes, marks the trace incomplete and places it (see finish()); never throws.
    ~TraceWriter();
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    /// The level chosen at construction.
    Detail detail() const noexcept { return detail_; }
    /// Whether add_transaction and add_pe_state record anything.
    bool records_transactions() const noexcept { return want_transactions_; }
    /// Whether add_hop records anything.
    bool records_hops() const noexcept { return want_hops_; }
    /// The destination given at construction.
    const std::filesystem::path& path() const noexcept { return path_; }
    /// The options given at construction.
    const WriterOptions& options() const noexcept { return options_; }
    /// The trace's size in bytes so far: the file after its last written batch plus the detail
    /// rows queued since, at the file's bytes per detail row (an estimate while rows are queued).
    double estimated_bytes() const;
    /// Whether detail is no longer recorded because the trace reached options().max_bytes.
    bool detail_full() const noexcept { return detail_full_.load(std::memory_order_relaxed); }

    /// Declares a node (every level). Throws TraceError on a duplicate id or coords that are not a JSON array.
    void add_node(const Node& node);
    /// Declares a link (every level). Throws TraceError on a duplicate id.
    void add_link(const Link& link);
    /// Records a transaction and returns its id (1, 2, ...) for add_hop; 0 below Detail::transactions.
    std::int64_t add_transaction(Transaction txn);
    /// Records one link traversal; no-op below Detail::hops. Throws TraceError if leave < enter.
    void add_hop(const Hop& hop);
    /// Adds one packet's use of `link` to the counter bucket holding `time` (every level).
    void add_link_sample(std::int64_t link, double time, std::int64_t bytes, double busy, double stall,
                         std::int64_t packets = 1);
    /// Records that `pe` was in `state` over [start, end); no-op below Detail::transactions.
    /// A PE's spans must not overlap (window queries rely on it).
    void add_pe_state(std::int64_t pe, PeState state, double start, double end);
    /// Records a launch of either mode (every level). Throws TraceError on a negative duration.
    void add_launch(const Launch& launch);

    /// Sets a further meta key that is known only at the end of the run (written when the trace
    /// closes; a later call for the same key replaces the value). Throws TraceError on a reserved key.
    void set_meta(std::string key, std::string value);
    /// Records that the run did not finish properly; finish() then writes complete=0 with the reason.
    void mark_incomplete(std::string reason);
    /// Flushes, writes counters and meta (complete=1 unless marked incomplete), builds the
    /// indexes, closes and renames to the destination. Returns where the trace is (path, or
    /// path + ".incomplete" when incomplete and path holds a complete trace). Rethrows a
    /// background write error after placing the file. Later calls return the same path.
    std::filesystem::path finish();
    /// mark_incomplete(reason), then the same as finish().
    std::filesystem::path abort(std::string reason);
    /// Where the trace ended up once closed (empty before).
    const std::filesystem::path& final_path() const noexcept { return final_path_; }

private:
    struct LinkSample {
        std::int64_t link;
        double time;
        std::int64_t bytes;
        double busy;
        double stall;
        std::int64_t packets;
    };
    struct Batch {
        std::vector<Node> nodes;
        std::vector<Link> links;
        std::vector<Transaction> transactions;
        std::vector<Hop> hops;
        std::vector<LinkSample> samples;
        std::vector<PeStateSpan> pe_states;
        std::vector<Launch> launches;
        std::size_t rows = 0;
        void clear() noexcept;
    };

    struct Statements;  // the writer thread's prepared inserts

    static std::filesystem::path prepare_partial(const std::filesystem::path& path, const Meta& meta);
    void check_open_locked() const;
    void push_done_locked(std::unique_lock<std::mutex>& lock);
    void run_writer() noexcept;
    void write_batch(Batch& batch, Statements& st);
    std::filesystem::path close(bool complete_requested);
    std::filesystem::path place_output(bool complete);
    void say(std::string_view message) const;
    bool in_window(double begin, double end) const noexcept;
    bool detail_closed_locked(double start);
    void check_size(std::uint64_t detail_rows);

    const std::filesystem::path path_;
    const std::filesystem::path partial_;
    const Detail detail_;
    const bool want_transactions_;
    const bool want_hops_;
    const double bucket_cycles_;
    WriterOptions options_;

    sql::Db db_;  // used by the constructor, then only by the writer thread, then by close()

    // Guarded by mutex_.
    mutable std::mutex mutex_;
    std::condition_variable work_cv_;   // writer thread: a batch is queued or stop_
    std::condition_variable space_cv_;  // producers: the queue has room or the writer failed
    Batch current_;
    std::deque<Batch> queue_;
    std::vector<Batch> spare_;  // cleared batches kept for their capacity
    std::set<std::int64_t> node_ids_;
    std::set<std::int64_t> link_ids_;
    std::int64_t next_txn_id_ = 1;
    bool stop_ = false;
    bool closed_ = false;
    std::exception_ptr error_;  // first background failure
    std::string error_message_;
    std::string incomplete_reason_;
    std::map<std::string, std::string> late_meta_;  // set_meta, written at close

    double max_hop_cycles_ = 0;             // writer thread only
    std::atomic<bool> detail_full_{false};  // set once the trace's estimated size passed max_bytes
    // Guarded by mutex_: the size limit's estimate and where detail stopped.
    double latest_detail_ = 0;               // the latest start of a detail row
    double detail_stopped_at_ = -1;          // latest_detail_ when detail_full_ was seen
    std::uint64_t detail_rows_added_ = 0;    // detail rows accepted
    std::uint64_t detail_rows_written_ = 0;  // of those, in written batches
    double file_bytes_ = 0;                  // the file's size after the last written batch
    double bytes_per_row_ = 48;              // file_bytes_ per written detail row (48 until a batch is written)
    std::filesystem::path final_path_;
    std::thread thread_;  // last: starts after everything above exists
};

}  // namespace hopsim::traces
