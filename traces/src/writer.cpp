#include "hopsim/traces/writer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <system_error>
#include <utility>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hopsim/core/file_output.hpp"
#include "hopsim/core/progress.hpp"
#include "hopsim/traces/error.hpp"
#include "hopsim/traces/reader.hpp"
#include "hopsim/traces/schema.hpp"

namespace hopsim::traces {

namespace fs = std::filesystem;

namespace {

std::string num(double v) { return fmt::format("{}", v); }

std::string utc_now() { return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr))); }

fs::path with_suffix(const fs::path& p, std::string_view suffix) { return {p.string() + std::string(suffix)}; }

void remove_quietly(const fs::path& p) noexcept {
    std::error_code ec;
    fs::remove(p, ec);
}

}  // namespace

struct TraceWriter::Statements {
    explicit Statements(const sql::Db& db)
        : node(db, schema::kInsertNode),
          link(db, schema::kInsertLink),
          transaction(db, schema::kInsertTransaction),
          hop(db, schema::kInsertHop),
          counter(db, schema::kAddCounter),
          pe_state(db, schema::kInsertPeState),
          launch(db, schema::kInsertLaunch) {}
    sql::Stmt node, link, transaction, hop, counter, pe_state, launch;
};

void TraceWriter::Batch::clear() noexcept {
    nodes.clear();
    links.clear();
    transactions.clear();
    hops.clear();
    samples.clear();
    pe_states.clear();
    launches.clear();
    rows = 0;
}

fs::path TraceWriter::prepare_partial(const fs::path& path, const Meta& meta) {
    if (!(meta.bucket_cycles > 0) || !std::isfinite(meta.bucket_cycles)) {
        throw TraceError(fmt::format("trace {}: bucket_cycles must be a positive number, not {}", path.string(),
                                     meta.bucket_cycles));
    }
    if (!(meta.clock_hz >= 0) || !std::isfinite(meta.clock_hz)) {
        throw TraceError(fmt::format("trace {}: clock_hz must be >= 0, not {}", path.string(), meta.clock_hz));
    }
    if (!meta.scenario.empty() && !nlohmann::json::accept(meta.scenario)) {
        throw TraceError(fmt::format("trace {}: the scenario is not valid JSON", path.string()));
    }
    for (const auto& [key, value] : meta.extra) {
        const auto reserved = meta_key::reserved();
        if (std::find(reserved.begin(), reserved.end(), key) != reserved.end()) {
            throw TraceError(fmt::format("trace {}: meta key '{}' is reserved", path.string(), key));
        }
    }
    // Never clobber something that is not ours (a typo'd --trace pointing at a source file).
    std::string why;
    if (probe_trace(path, &why) == TraceFileState::not_a_trace) {
        throw TraceError(fmt::format("refusing to write trace {}: the file exists and is not a hopsim trace ({})",
                                     path.string(), why));
    }
    fs::path partial = partial_path(path);
    remove_quietly(partial);  // left over by a killed run
    remove_quietly(with_suffix(partial, "-journal"));
    return partial;
}

TraceWriter::TraceWriter(fs::path path, const Meta& meta, Detail detail, WriterOptions options)
    : path_(std::move(path)),
      partial_(partial_path(path_)),
      detail_(detail),
      want_transactions_(detail != Detail::counters),
      want_hops_(detail == Detail::hops),
      bucket_cycles_(meta.bucket_cycles),
      options_(std::move(options)),
      db_(prepare_partial(path_, meta), sql::OpenMode::create) {
    options_.batch_rows = std::max<std::size_t>(options_.batch_rows, 1);
    options_.max_queued_batches = std::max<std::size_t>(options_.max_queued_batches, 1);
    try {
        // The file is renamed into place at the end, so durability per commit buys nothing;
        // the rollback journal still keeps a killed run's file consistent up to its last batch.
        db_.exec("PRAGMA synchronous = OFF; PRAGMA journal_mode = DELETE;");
        sql::Transaction tx(db_);
        db_.exec(schema::kCreate);
        sql::Stmt put(db_, schema::kPutMeta);
        auto set = [&](std::string_view key, std::string_view value) { put.bind(1, key).bind(2, value).run(); };
        set(meta_key::schema_version, std::to_string(kSchemaVersion));
        set(meta_key::hopsim_version, meta.hopsim_version);
        set(meta_key::git_revision, meta.git_revision);
        set(meta_key::scenario, meta.scenario.empty() ? std::string("{}") : meta.scenario);
        set(meta_key::machine, meta.machine);
        set(meta_key::mode, meta.mode);
        set(meta_key::seed, std::to_string(meta.seed));
        set(meta_key::detail, to_string(detail_));
        set(meta_key::complete, "0");  // until finish() says otherwise
        set(meta_key::created, utc_now());
        set(meta_key::bucket_cycles, num(meta.bucket_cycles));
        if (meta.clock_hz > 0) set(meta_key::clock_hz, num(meta.clock_hz));
        for (const auto& [key, value] : meta.extra) set(key, value);
        if (options_.window_begin > 0 || std::isfinite(options_.window_end)) {
            set(meta_key::window, num(options_.window_begin) + ":" +
                                      (std::isfinite(options_.window_end) ? num(options_.window_end) : std::string()));
        }
        if (options_.max_bytes > 0) set(meta_key::max_bytes, std::to_string(options_.max_bytes));
        tx.commit();
        thread_ = std::thread(&TraceWriter::run_writer, this);
    } catch (...) {
        try {
            db_.close();
        } catch (...) {
        }
        remove_quietly(partial_);
        throw;
    }
}

TraceWriter::~TraceWriter() {
    try {
        {
            std::lock_guard lock(mutex_);
            if (closed_) return;
            if (incomplete_reason_.empty()) {
                incomplete_reason_ = "trace writer destroyed before finish() (exception or interrupted run)";
            }
        }
        close(false);
        if (error_) say(fmt::format("trace {}: writing failed: {}", path_.string(), error_message_));
    } catch (const std::exception& e) {
        say(fmt::format("trace {}: could not be closed: {}", path_.string(), e.what()));
    } catch (...) {
        say(fmt::format("trace {}: could not be closed", path_.string()));
    }
}

void TraceWriter::check_open_locked() const {
    if (error_) {
        throw TraceError(fmt::format("trace {}: writing failed earlier: {}", path_.string(), error_message_));
    }
    if (closed_) throw TraceError(fmt::format("trace {}: the writer is already closed", path_.string()));
}

void TraceWriter::push_done_locked(std::unique_lock<std::mutex>& lock) {
    // Backpressure: a simulator outrunning the disk waits instead of growing memory without bound.
    space_cv_.wait(lock, [&] { return queue_.size() < options_.max_queued_batches || error_ || stop_; });
    check_open_locked();
    if (current_.rows < options_.batch_rows) return;  // another producer handed it over meanwhile
    queue_.push_back(std::move(current_));
    if (spare_.empty()) {
        current_ = Batch{};
    } else {
        current_ = std::move(spare_.back());
        spare_.pop_back();
    }
    work_cv_.notify_one();
}

void TraceWriter::add_node(const Node& node) {
    const std::string_view coords = node.coords.empty() ? std::string_view("[]") : node.coords;
    const auto parsed = nlohmann::json::parse(coords, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_array()) {
        throw TraceError(
            fmt::format("trace {}: node {} coords are not a JSON array: {}", path_.string(), node.id, node.coords));
    }
    std::unique_lock lock(mutex_);
    check_open_locked();
    if (!node_ids_.insert(node.id).second) {
        throw TraceError(fmt::format("trace {}: duplicate node id {}", path_.string(), node.id));
    }
    current_.nodes.push_back(node);
    current_.nodes.back().coords = std::string(coords);
    if (++current_.rows >= options_.batch_rows) push_done_locked(lock);
}

void TraceWriter::add_link(const Link& link) {
    std::unique_lock lock(mutex_);
    check_open_locked();
    if (!link_ids_.insert(link.id).second) {
        throw TraceError(fmt::format("trace {}: duplicate link id {}", path_.string(), link.id));
    }
    current_.links.push_back(link);
    if (++current_.rows >= options_.batch_rows) push_done_locked(lock);
}

double TraceWriter::estimated_bytes() const {
    std::lock_guard lock(mutex_);
    return file_bytes_ + static_cast<double>(detail_rows_added_ - detail_rows_written_) * bytes_per_row_;
}

bool TraceWriter::in_window(double begin, double end) const noexcept {
    return end >= options_.window_begin && begin < options_.window_end;
}

// Whether detail rows are no longer recorded because the trace reached max_bytes; remembers
// the cycle it happened at. The size is the file's at its last batch plus the detail rows
// queued since at the file's bytes per detail row so far (queued batches count before they
// are written). Called with mutex_ held, after check_open_locked().
bool TraceWriter::detail_closed_locked(double start) {
    if (!detail_full_.load(std::memory_order_relaxed) && options_.max_bytes > 0) {
        const double estimate =
            file_bytes_ + static_cast<double>(detail_rows_added_ - detail_rows_written_) * bytes_per_row_;
        if (estimate > static_cast<double>(options_.max_bytes)) {
            detail_full_.store(true, std::memory_order_relaxed);
            say(
                fmt::format("trace {}: reached its size limit of {} MB at cycle {:.0f}; from here on it records link "
                            "counters and launches only (raise outputs.trace_max_size / --trace-max-size, or "
                            "record a part of the run with --trace-window)",
                            path_.string(), static_cast<double>(options_.max_bytes) / 1e6, latest_detail_));
        }
    }
    if (detail_full_.load(std::memory_order_relaxed)) {
        if (detail_stopped_at_ < 0) detail_stopped_at_ = latest_detail_;
        return true;
    }
    latest_detail_ = std::max(latest_detail_, start);
    ++detail_rows_added_;
    return false;
}

std::int64_t TraceWriter::add_transaction(Transaction txn) {
    if (!want_transactions_) return 0;
    if (!(txn.arrive >= txn.inject)) {  // also rejects NaN
        throw TraceError(fmt::format("trace {}: transaction arrives ({}) before it is injected ({})", path_.string(),
                                     txn.arrive, txn.inject));
    }
    if (!in_window(txn.inject, txn.arrive)) return 0;
    std::unique_lock lock(mutex_);
    check_open_locked();
    if (detail_closed_locked(txn.inject)) return 0;
    txn.id = next_txn_id_++;
    const std::int64_t id = txn.id;
    current_.transactions.push_back(std::move(txn));
    if (++current_.rows >= options_.batch_rows) push_done_locked(lock);
    return id;
}

void TraceWriter::add_hop(const Hop& hop) {
    if (!want_hops_) return;
    if (!(hop.leave >= hop.enter)) {
        throw TraceError(fmt::format("trace {}: hop on link {} leaves ({}) before it enters ({})", path_.string(),
                                     hop.link, hop.leave, hop.enter));
    }
    if (!in_window(hop.enter, hop.leave)) return;
    std::unique_lock lock(mutex_);
    check_open_locked();
    if (detail_closed_locked(hop.enter)) return;
    current_.hops.push_back(hop);
    if (++current_.rows >= options_.batch_rows) push_done_locked(lock);
}

void TraceWriter::add_link_sample(std::int64_t link, double time, std::int64_t bytes, double busy, double stall,
                                  std::int64_t packets) {
    if (!std::isfinite(time)) {
        throw TraceError(fmt::format("trace {}: link {} sample at non-finite time", path_.string(), link));
    }
    std::unique_lock lock(mutex_);
    check_open_locked();
    current_.samples.push_back({link, time, bytes, busy, stall, packets});
    if (++current_.rows >= options_.batch_rows) push_done_locked(lock);
}

void TraceWriter::add_pe_state(std::int64_t pe, PeState state, double start, double end) {
    if (!want_transactions_) return;
    if (!(end >= start)) {
        throw TraceError(
            fmt::format("trace {}: PE {} state ends ({}) before it starts ({})", path_.string(), pe, end, start));
    }
    if (!in_window(start, end)) return;
    start = std::max(start, options_.window_begin);
    end = std::min(end, options_.window_end);
    std::unique_lock lock(mutex_);
    check_open_locked();
    if (detail_closed_locked(start)) return;
    current_.pe_states.push_back({pe, state, start, end});
    if (++current_.rows >= options_.batch_rows) push_done_locked(lock);
}

void TraceWriter::add_launch(const Launch& launch) {
    if (!(launch.seconds >= 0)) {
        throw TraceError(fmt::format("trace {}: launch {} n={} lasts {} s", path_.string(), launch.method, launch.n,
                                     launch.seconds));
    }
    std::unique_lock lock(mutex_);
    check_open_locked();
    current_.launches.push_back(launch);
    if (++current_.rows >= options_.batch_rows) push_done_locked(lock);
}

void TraceWriter::set_meta(std::string key, std::string value) {
    const auto reserved = meta_key::reserved();
    if (std::find(reserved.begin(), reserved.end(), key) != reserved.end())
        throw TraceError(fmt::format("trace {}: meta key '{}' is reserved", path_.string(), key));
    std::lock_guard lock(mutex_);
    late_meta_[std::move(key)] = std::move(value);
}

void TraceWriter::mark_incomplete(std::string reason) {
    std::lock_guard lock(mutex_);
    incomplete_reason_ = reason.empty() ? std::string("marked incomplete") : std::move(reason);
}

fs::path TraceWriter::finish() {
    fs::path where = close(true);
    if (error_) std::rethrow_exception(error_);
    return where;
}

fs::path TraceWriter::abort(std::string reason) {
    mark_incomplete(std::move(reason));
    return finish();
}

void TraceWriter::run_writer() noexcept {
    std::unique_lock lock(mutex_, std::defer_lock);
    try {
        Statements st(db_);
        lock.lock();
        for (;;) {
            work_cv_.wait(lock, [&] { return !queue_.empty() || stop_; });
            if (queue_.empty()) break;  // stopped and drained
            Batch batch = std::move(queue_.front());
            queue_.pop_front();
            space_cv_.notify_all();
            lock.unlock();
            write_batch(batch, st);
            check_size(batch.transactions.size() + batch.hops.size() + batch.pe_states.size());
            batch.clear();
            lock.lock();
            // Enough spares that a steady run reuses capacity instead of allocating.
            if (spare_.size() < options_.max_queued_batches + 1) spare_.push_back(std::move(batch));
        }
    } catch (const std::exception& e) {
        if (!lock.owns_lock()) lock.lock();
        error_ = std::current_exception();
        error_message_ = e.what();
    } catch (...) {
        if (!lock.owns_lock()) lock.lock();
        error_ = std::current_exception();
        error_message_ = "unknown error";
    }
    if (error_) {
        queue_.clear();
        space_cv_.notify_all();  // wake blocked producers so they see the error
    }
}

// Writer thread, after each batch: the file's size and the detail rows in it, for the
// producers' estimate (detail_closed_locked).
void TraceWriter::check_size(std::uint64_t detail_rows) {
    std::error_code ec;
    const auto size = fs::file_size(partial_, ec);
    std::lock_guard lock(mutex_);
    detail_rows_written_ += detail_rows;
    if (!ec) file_bytes_ = static_cast<double>(size);
    if (detail_rows_written_ > 0) bytes_per_row_ = file_bytes_ / static_cast<double>(detail_rows_written_);
}

void TraceWriter::write_batch(Batch& b, Statements& st) {
    sql::Transaction tx(db_);
    for (const Node& n : b.nodes) st.node.bind(1, n.id).bind(2, n.name).bind(3, n.kind).bind(4, n.coords).run();
    for (const Link& l : b.links) {
        st.link.bind(1, l.id).bind(2, l.net).bind(3, l.src).bind(4, l.dst).bind(5, l.name).run();
    }
    for (const Transaction& t : b.transactions) {
        st.transaction.bind(1, t.id).bind(2, t.src).bind(3, t.dst).bind(4, t.bytes);
        st.transaction.bind(5, t.inject).bind(6, t.arrive).bind(7, t.kind).run();
    }
    for (const Hop& h : b.hops) {
        st.hop.bind(1, h.txn).bind(2, h.link).bind(3, h.enter).bind(4, h.leave).run();
        max_hop_cycles_ = std::max(max_hop_cycles_, h.leave - h.enter);
    }
    if (!b.samples.empty()) {
        // Sum within the batch first: one upsert per touched bucket instead of per sample.
        std::map<std::pair<std::int64_t, std::int64_t>, LinkCounter> sums;
        for (const LinkSample& s : b.samples) {
            const auto bucket = static_cast<std::int64_t>(std::floor(s.time / bucket_cycles_));
            LinkCounter& c = sums[{s.link, bucket}];
            c.bytes += s.bytes;
            c.packets += s.packets;
            c.busy += s.busy;
            c.stall += s.stall;
        }
        for (const auto& [key, c] : sums) {
            st.counter.bind(1, key.first).bind(2, key.second).bind(3, c.bytes).bind(4, c.packets);
            st.counter.bind(5, c.busy).bind(6, c.stall).run();
        }
    }
    for (const PeStateSpan& p : b.pe_states) {
        st.pe_state.bind(1, p.pe).bind(2, to_string(p.state)).bind(3, p.start).bind(4, p.end).run();
    }
    for (const Launch& l : b.launches) {
        st.launch.bind(1, l.mode).bind(2, l.method).bind(3, l.n).bind(4, l.seconds).bind(5, l.cycles);
        st.launch.bind(6, l.bytes).bind(7, static_cast<std::int64_t>(l.check_ok ? 1 : 0));
        if (l.start)
            st.launch.bind(8, *l.start);
        else
            st.launch.bind_null(8);
        st.launch.run();
    }
    tx.commit();
}

fs::path TraceWriter::close(bool complete_requested) {
    std::string reason;
    {
        std::lock_guard lock(mutex_);
        if (closed_) return final_path_;
        closed_ = true;
        stop_ = true;
        if (current_.rows > 0 && !error_) queue_.push_back(std::move(current_));
        reason = incomplete_reason_;
    }
    work_cv_.notify_all();
    space_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    // From here on this thread alone touches db_ and error_.

    if (error_ && reason.empty()) reason = "writing failed: " + error_message_;
    const bool complete = complete_requested && reason.empty();
    if (!complete && reason.empty()) reason = "closed without finish()";
    try {
        {
            sql::Transaction tx(db_);
            sql::Stmt put(db_, schema::kPutMeta);
            put.bind(1, meta_key::complete).bind(2, complete ? "1" : "0").run();
            if (!complete) put.bind(1, meta_key::incomplete_reason).bind(2, reason).run();
            put.bind(1, meta_key::max_hop_cycles).bind(2, num(max_hop_cycles_)).run();
            {
                std::lock_guard lock(mutex_);
                for (const auto& [key, value] : late_meta_) put.bind(1, key).bind(2, value).run();
            }
            if (detail_full_.load()) {
                std::lock_guard lock(mutex_);
                const double at = detail_stopped_at_ >= 0 ? detail_stopped_at_ : latest_detail_;
                put.bind(1, meta_key::detail_stopped_at).bind(2, num(at)).run();
            }
            db_.exec(schema::kCreateIndexes);
            tx.commit();
        }  // statements finalized before close
        db_.close();
    } catch (const std::exception& e) {
        std::lock_guard lock(mutex_);  // producers may still read error_
        if (!error_) {
            error_ = std::current_exception();
            error_message_ = e.what();
        }
        try {
            db_.close();
        } catch (...) {
        }
    }
    final_path_ = place_output(complete);
    if (!complete) say(fmt::format("trace {} is incomplete: {}", final_path_.string(), reason));
    return final_path_;
}

fs::path TraceWriter::place_output(bool complete) {
    std::string why;
    const TraceFileState there = probe_trace(path_, &why);
    fs::path target = path_;
    if (there == TraceFileState::not_a_trace) {
        // Appeared during the run; leave both alone.
        say(fmt::format("{} is not a hopsim trace ({}); the trace stays at {}", path_.string(), why,
                        partial_.string()));
        return partial_;
    }
    if (!complete && there == TraceFileState::complete) {
        target = with_suffix(path_, ".incomplete");
        say(fmt::format("{} holds a complete trace, so this run's incomplete trace is kept as {}", path_.string(),
                        target.string()));
    }
    std::error_code ec;
    fs::rename(partial_, target, ec);  // atomic replace on POSIX
    if (ec) {
        throw TraceError(fmt::format("trace {}: cannot rename {} to {}: {}", path_.string(), partial_.string(),
                                     target.string(), ec.message()));
    }
    remove_quietly(with_suffix(partial_, "-journal"));
    return target;
}

void TraceWriter::say(std::string_view message) const {
    if (options_.notice) {
        options_.notice(message);
    } else {
        hopsim::end_progress_line();
        fmt::print(stderr, "hopsim: {}\n", message);
    }
}

}  // namespace hopsim::traces
