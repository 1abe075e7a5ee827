#include "hopsim/traces/reader.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <string_view>
#include <system_error>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "hopsim/traces/error.hpp"
#include "hopsim/traces/schema.hpp"

namespace hopsim::traces {

namespace fs = std::filesystem;

namespace {

constexpr double kLowest = std::numeric_limits<double>::lowest();
constexpr double kHighest = std::numeric_limits<double>::max();

[[noreturn]] void not_a_trace(const fs::path& path, std::string_view why) {
    throw TraceError(fmt::format("{}: not a hopsim trace ({})", path.string(), why), TraceError::Reason::not_a_trace);
}

std::uint32_t be32(const unsigned char* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// A run killed in the middle of a batch (SIGKILL, power loss) leaves PATH-journal, the
// rollback journal of that batch. SQLite rolls it back on the next open with write access;
// a read-only open fails instead. Roll it back here, so the trace opens as of its last batch.
void recover_interrupted_write(const fs::path& path) {
    std::error_code ec;
    const fs::path journal = path.string() + "-journal";
    if (!fs::is_regular_file(journal, ec) || fs::file_size(journal, ec) == 0 || ec) return;
    sqlite3* raw = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
    if (rc == SQLITE_OK) rc = sqlite3_exec(raw, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    const std::string why = raw != nullptr ? sqlite3_errmsg(raw) : "out of memory";
    sqlite3_close_v2(raw);
    if (rc != SQLITE_OK) {
        throw TraceError(
            fmt::format("{}: an interrupted write left {}, which could not be rolled back ({}); open "
                        "the trace once with write access to recover it",
                        path.string(), journal.string(), why));
    }
}

// SQLite only notices a cut-off file when a query reaches a missing page, which may be
// never for small queries; the header states the size, so check it up front.
void check_sqlite_header(const fs::path& path) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) throw TraceError(fmt::format("cannot open trace {}: {}", path.string(), ec.message()));
    if (size == 0) not_a_trace(path, "empty file");
    std::array<unsigned char, 100> h{};
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TraceError(fmt::format("cannot open trace {}: {}", path.string(), std::strerror(errno)));
    in.read(reinterpret_cast<char*>(h.data()), h.size());
    static constexpr std::string_view kMagic{"SQLite format 3\0", 16};
    if (in.gcount() < static_cast<std::streamsize>(h.size()) ||
        std::memcmp(h.data(), kMagic.data(), kMagic.size()) != 0) {
        not_a_trace(path, "not an SQLite database");
    }
    std::uint32_t page_size = (std::uint32_t{h[16]} << 8) | h[17];
    if (page_size == 1) page_size = 65536;
    if (page_size < 512 || (page_size & (page_size - 1)) != 0) not_a_trace(path, "corrupt SQLite header");
    const std::uint32_t pages = be32(&h[28]);
    const bool pages_valid = be32(&h[24]) == be32(&h[92]);  // the in-header size is trusted only then
    if (size % page_size != 0) {
        not_a_trace(path, fmt::format("truncated or corrupt: {} bytes is not a whole number of {}-byte pages", size,
                                      page_size));
    }
    if (pages_valid && std::uint64_t{pages} * page_size > size) {
        not_a_trace(path, fmt::format("truncated: the header promises {} bytes, the file has {}",
                                      std::uint64_t{pages} * page_size, size));
    }
}

std::optional<double> to_double(std::string_view s) {
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<long long> to_int(std::string_view s) {
    long long v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

// Infinite bounds become the largest finite ones so SQLite compares them plainly.
double clamp_time(const fs::path& path, double t) {
    if (std::isnan(t)) throw TraceError(fmt::format("{}: window bound is NaN", path.string()));
    if (t < kLowest) return kLowest;
    if (t > kHighest) return kHighest;
    return t;
}

Hop hop_row(const sql::Stmt& st) { return {st.int64(0), st.int64(1), st.real(2), st.real(3)}; }

PeStateSpan pe_row(const fs::path& path, const sql::Stmt& st) {
    const std::string name = st.text(1);
    const auto state = parse_pe_state(name);
    if (!state) throw TraceError(fmt::format("{}: unknown PE state '{}'", path.string(), name));
    return {st.int64(0), *state, st.real(2), st.real(3)};
}

}  // namespace

TraceFileState probe_trace(const fs::path& path, std::string* why) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (!fs::exists(status)) return TraceFileState::missing;
    if (!fs::is_regular_file(status)) {
        if (why) *why = "not a regular file";
        return TraceFileState::not_a_trace;
    }
    try {
        const TraceReader reader(path);
        return reader.complete() ? TraceFileState::complete : TraceFileState::incomplete;
    } catch (const TraceError& e) {
        if (e.reason() == TraceError::Reason::newer_schema) return TraceFileState::complete;
        if (why) *why = e.what();
        return TraceFileState::not_a_trace;
    }
}

TraceReader::TraceReader(const fs::path& path)
    : db_((recover_interrupted_write(path), check_sqlite_header(path), path), sql::OpenMode::read_only) {
    // Window queries walk an index and fetch rows from all over the table: memory-mapped
    // reads and a bigger page cache keep that from turning into one pread per row
    // (the GUI's PE timeline of a 150 k-state trace: 1.7 s -> see docs/gui.md).
    try {
        db_.exec("PRAGMA mmap_size = 17179869184; PRAGMA cache_size = -65536;");
        sql::Stmt has_meta(db_, schema::kHasMetaTable);
        if (!has_meta.step()) not_a_trace(path, "no meta table");
        sql::Stmt st(db_, schema::kSelectMeta);
        while (st.step()) meta_[st.text(0)] = st.text(1);
    } catch (const TraceError& e) {
        if (e.reason() == TraceError::Reason::not_a_trace) throw;
        // "file is not a database", "database disk image is malformed", ...
        not_a_trace(path, sqlite3_errmsg(db_.get()));
    }

    const auto version_text = meta_value(meta_key::schema_version);
    if (!version_text) not_a_trace(path, "meta has no schema_version");
    const auto version = to_int(*version_text);
    if (!version || *version < 1) not_a_trace(path, fmt::format("bad schema_version '{}'", *version_text));
    if (*version > kSchemaVersion) {
        throw TraceError(fmt::format("{}: trace schema version {} is newer than version {}, the newest this "
                                     "hopsim reads; use a newer hopsim",
                                     path.string(), *version, kSchemaVersion),
                         TraceError::Reason::newer_schema);
    }
    schema_version_ = static_cast<int>(*version);

    sql::Stmt tables(db_, schema::kCountKnownTables);
    if (!tables.step() || tables.int64(0) != schema::kTableCount) not_a_trace(path, "trace tables missing");

    complete_ = meta_value(meta_key::complete) == "1";
    if (const auto d = meta_value(meta_key::detail)) {
        const auto parsed = parse_detail(*d);
        if (!parsed) throw TraceError(fmt::format("{}: unknown detail level '{}'", path.string(), *d));
        detail_ = *parsed;
    }
    if (const auto c = meta_value(meta_key::clock_hz)) clock_hz_ = to_double(*c).value_or(0);
    if (const auto b = meta_value(meta_key::bucket_cycles)) bucket_cycles_ = to_double(*b).value_or(0);
    if (const auto m = meta_value(meta_key::max_hop_cycles)) max_hop_cycles_ = to_double(*m).value_or(-1);
}

std::optional<std::string> TraceReader::meta_value(std::string_view key) const {
    const auto it = meta_.find(std::string(key));
    if (it == meta_.end()) return std::nullopt;
    return it->second;
}

std::vector<Node> TraceReader::nodes() const {
    std::vector<Node> out;
    sql::Stmt st(db_, schema::kSelectNodes);
    while (st.step()) out.push_back({st.int64(0), st.text(1), st.text(2), st.text(3)});
    return out;
}

std::vector<Link> TraceReader::links() const {
    std::vector<Link> out;
    sql::Stmt st(db_, schema::kSelectLinks);
    while (st.step()) out.push_back({st.int64(0), st.text(1), st.int64(2), st.int64(3), st.text(4)});
    return out;
}

std::vector<LinkTotals> TraceReader::link_totals() const {
    std::vector<LinkTotals> out;
    sql::Stmt st(db_, schema::kLinkTotals);
    while (st.step()) out.push_back({st.int64(0), st.int64(1), st.int64(2), st.real(3), st.real(4)});
    return out;
}

std::vector<LinkCounter> TraceReader::link_counters(std::int64_t link) const {
    std::vector<LinkCounter> out;
    sql::Stmt st(db_, schema::kLinkCounters);
    st.bind(1, link);
    while (st.step()) {
        out.push_back({st.int64(0), st.int64(1), st.int64(2), st.int64(3), st.real(4), st.real(5)});
    }
    return out;
}

std::pair<std::int64_t, std::int64_t> TraceReader::bucket_window(double t0, double t1) const {
    if (std::isnan(t0) || std::isnan(t1)) throw TraceError(fmt::format("{}: window bound is NaN", path().string()));
    if (!(bucket_cycles_ > 0) || !(t1 > t0)) return {1, 0};
    // Bucket b covers [b*w, (b+1)*w): overlap means b*w < t1 and (b+1)*w > t0.
    constexpr double kMaxBucket = 9.0e18;
    const double first = std::clamp(std::floor(t0 / bucket_cycles_), -kMaxBucket, kMaxBucket);
    const double last = std::clamp(std::ceil(t1 / bucket_cycles_) - 1, -kMaxBucket, kMaxBucket);
    return {static_cast<std::int64_t>(first), static_cast<std::int64_t>(last)};
}

std::vector<LinkTotals> TraceReader::link_totals(double t0, double t1) const {
    std::vector<LinkTotals> out;
    const auto [first, last] = bucket_window(t0, t1);
    if (first > last) return out;
    sql::Stmt st(db_, schema::kLinkTotalsBuckets);
    st.bind(1, first).bind(2, last);
    while (st.step()) out.push_back({st.int64(0), st.int64(1), st.int64(2), st.real(3), st.real(4)});
    return out;
}

std::vector<LinkTotals> TraceReader::node_link_totals(std::int64_t node, double t0, double t1) const {
    std::vector<LinkTotals> out;
    if (detail_ != Detail::hops) return out;
    t0 = clamp_time(path(), t0);
    t1 = clamp_time(path(), t1);
    sql::Stmt st(db_, schema::kNodeLinkTotals);
    st.bind(1, clamp_time(path(), t0 - hop_lookback())).bind(2, t0).bind(3, t1).bind(4, node);
    while (st.step()) out.push_back({st.int64(0), st.int64(1), st.int64(2), st.real(3), 0.0});
    return out;
}

std::pair<double, double> TraceReader::time_range() const {
    double lo = kHighest, hi = kLowest;
    auto take = [&](const sql::Stmt& st) {
        if (st.column_type(0) != SQLITE_NULL) lo = std::min(lo, st.real(0));
        if (st.column_type(1) != SQLITE_NULL) hi = std::max(hi, st.real(1));
    };
    {
        sql::Stmt st(db_, schema::kLastBucket);
        if (st.step() && st.column_type(1) != SQLITE_NULL) {
            lo = std::min(lo, static_cast<double>(st.int64(0)) * bucket_cycles_);
            hi = std::max(hi, (static_cast<double>(st.int64(1)) + 1) * bucket_cycles_);
        }
    }
    {
        sql::Stmt st(db_, schema::kHopExtent);
        if (st.step() && st.column_type(1) != SQLITE_NULL) {
            take(st);
            // The last hop to leave entered within the longest hop of the last enter.
            sql::Stmt leave(db_, schema::kMaxHopLeave);
            leave.bind(1, clamp_time(path(), st.real(1) - hop_lookback()));
            if (leave.step() && leave.column_type(0) != SQLITE_NULL) hi = std::max(hi, leave.real(0));
        }
    }
    {
        sql::Stmt st(db_, schema::kPeStateExtent);
        if (st.step()) take(st);
    }
    if (lo > hi) return {0, 0};
    return {lo, hi};
}

std::int64_t TraceReader::transaction_count() const {
    sql::Stmt st(db_, schema::kCountTransactions);
    return st.step() ? st.int64(0) : 0;
}

std::vector<Transaction> TraceReader::transactions(std::int64_t first_id, std::size_t max_count) const {
    std::vector<Transaction> out;
    sql::Stmt st(db_, schema::kSelectTransactions);
    const auto limit = std::min<std::size_t>(max_count, std::numeric_limits<std::int64_t>::max());
    st.bind(1, first_id).bind(2, static_cast<std::int64_t>(limit));
    while (st.step()) {
        out.push_back({st.int64(0), st.int64(1), st.int64(2), st.int64(3), st.real(4), st.real(5), st.text(6)});
    }
    return out;
}

std::int64_t TraceReader::hop_count() const {
    sql::Stmt st(db_, schema::kCountHops);
    return st.step() ? st.int64(0) : 0;
}

double TraceReader::hop_lookback() const noexcept { return max_hop_cycles_ >= 0 ? max_hop_cycles_ : kHighest; }

void TraceReader::for_each_hop(double t0, double t1, const std::function<void(const Hop&)>& fn) const {
    t0 = clamp_time(path(), t0);
    t1 = clamp_time(path(), t1);
    sql::Stmt st(db_, schema::kHopsWindow);
    st.bind(1, clamp_time(path(), t0 - hop_lookback())).bind(2, t0).bind(3, t1);
    while (st.step()) fn(hop_row(st));
}

std::vector<Hop> TraceReader::hops(double t0, double t1) const {
    std::vector<Hop> out;
    for_each_hop(t0, t1, [&](const Hop& h) { out.push_back(h); });
    return out;
}

std::vector<Hop> TraceReader::hops(std::int64_t link, double t0, double t1) const {
    t0 = clamp_time(path(), t0);
    t1 = clamp_time(path(), t1);
    std::vector<Hop> out;
    sql::Stmt st(db_, schema::kHopsWindowLink);
    st.bind(1, clamp_time(path(), t0 - hop_lookback())).bind(2, t0).bind(3, t1).bind(4, link);
    while (st.step()) out.push_back(hop_row(st));
    return out;
}

std::vector<std::int64_t> TraceReader::pes() const {
    std::vector<std::int64_t> out;
    sql::Stmt st(db_, schema::kNextPe);
    std::int64_t after = std::numeric_limits<std::int64_t>::min();
    for (;;) {
        st.bind(1, after);
        if (!st.step() || st.column_type(0) == SQLITE_NULL) break;
        // A damaged row's text or real id would read as some integer not above
        // `after` and restart the walk forever.
        if (st.column_type(0) != SQLITE_INTEGER)
            throw TraceError(fmt::format("{}: pe_states: a PE id that is not an integer", path().string()));
        after = st.int64(0);
        out.push_back(after);
        st.reset();
    }
    return out;
}

void TraceReader::for_each_pe_state(double t0, double t1, const std::function<void(const PeStateSpan&)>& fn) const {
    t0 = clamp_time(path(), t0);
    t1 = clamp_time(path(), t1);
    sql::Stmt at(db_, schema::kPeStateAt);
    sql::Stmt from(db_, schema::kPeStatesFrom);
    for (const std::int64_t pe : pes()) {
        at.bind(1, pe).bind(2, t0);
        if (at.step()) {
            const PeStateSpan s = pe_row(path(), at);
            if (s.end > t0 && s.start < t1) fn(s);
        }
        at.reset();
        from.bind(1, pe).bind(2, t0).bind(3, t1);
        while (from.step()) fn(pe_row(path(), from));
        from.reset();
    }
}

std::vector<PeStateSpan> TraceReader::pe_states(double t0, double t1) const {
    std::vector<PeStateSpan> out;
    for_each_pe_state(t0, t1, [&](const PeStateSpan& s) { out.push_back(s); });
    return out;
}

std::vector<Launch> TraceReader::launches() const {
    std::vector<Launch> out;
    sql::Stmt has(db_, schema::kHasLaunchesTable);
    if (!has.step()) return out;
    sql::Stmt with_start(db_, schema::kLaunchesHaveStart);
    sql::Stmt st(db_, with_start.step() ? schema::kSelectLaunches : schema::kSelectLaunchesV1);
    while (st.step()) {
        Launch l;
        l.mode = st.text(0);
        l.method = st.text(1);
        l.n = st.int64(2);
        l.seconds = st.real(3);
        l.cycles = st.real(4);
        l.bytes = st.int64(5);
        l.check_ok = st.int64(6) != 0;
        if (st.column_type(7) != SQLITE_NULL) l.start = st.real(7);
        out.push_back(std::move(l));
    }
    return out;
}

std::map<std::int64_t, std::uint64_t> TraceReader::instructions() const {
    std::map<std::int64_t, std::uint64_t> out;
    const auto it = meta_.find("instructions");
    if (it == meta_.end()) return out;
    const auto j = nlohmann::json::parse(it->second, nullptr, false);
    if (!j.is_object()) return out;
    for (const auto& [pe, n] : j.items()) {
        std::int64_t id = 0;
        const auto [end, ec] = std::from_chars(pe.data(), pe.data() + pe.size(), id);
        if (ec == std::errc() && end == pe.data() + pe.size() && n.is_number_unsigned())
            out[id] = n.get<std::uint64_t>();
    }
    return out;
}

}  // namespace hopsim::traces
