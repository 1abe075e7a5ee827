#include "hopsim/traces/db.hpp"

#include <fmt/format.h>

#include "hopsim/traces/error.hpp"

namespace hopsim::traces::sql {

namespace {

std::string errmsg(sqlite3* db) { return db ? sqlite3_errmsg(db) : "out of memory"; }

}  // namespace

Db::Db(const std::filesystem::path& path, OpenMode mode) : path_(path) {
    // NOMUTEX: a connection is used by one thread at a time (the writer hands its
    // connection to its background thread and back), so SQLite's own locking is waste.
    const int flags =
        (mode == OpenMode::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
        SQLITE_OPEN_NOMUTEX;
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
    db_.reset(raw);  // sqlite hands out a handle even on failure; it must be closed
    if (rc != SQLITE_OK) {
        throw TraceError(fmt::format("cannot open trace {}: {}", path.string(), errmsg(raw)));
    }
    sqlite3_extended_result_codes(raw, 1);
    // A reader racing a writer on the same file waits instead of failing at once.
    sqlite3_busy_timeout(raw, 2000);
}

void Db::exec(std::string_view sql) const {
    const std::string text(sql);  // sqlite3_exec needs a terminated string
    char* err = nullptr;
    const int rc = sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        std::string msg = err ? err : errmsg(db_.get());
        sqlite3_free(err);
        throw TraceError(fmt::format("{}: {}: {}", path_.string(), text.substr(0, 60), msg));
    }
}

Stmt Db::prepare(std::string_view sql) const { return {*this, sql}; }

void Db::close() {
    if (!db_) return;
    sqlite3* raw = db_.release();
    // sqlite3_close (not _v2) reports statements still open instead of deferring.
    if (sqlite3_close(raw) != SQLITE_OK) {
        const std::string msg = errmsg(raw);
        sqlite3_close_v2(raw);
        throw TraceError(fmt::format("{}: cannot close: {}", path_.string(), msg));
    }
}

void Db::fail(std::string_view what) const {
    throw TraceError(fmt::format("{}: {}: {}", path_.string(), what, errmsg(db_.get())));
}

Stmt::Stmt(const Db& db, std::string_view sql) {
    sqlite3_stmt* raw = nullptr;
    const int rc = sqlite3_prepare_v2(db.get(), sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
    stmt_.reset(raw);
    if (rc != SQLITE_OK) {
        db.fail(fmt::format("cannot prepare \"{}\"", sql.substr(0, 80)));
    }
}

void Stmt::check_bind(int rc, int index) const {
    if (rc != SQLITE_OK) fail(fmt::format("cannot bind parameter {}", index));
}

Stmt& Stmt::bind_int64(int index, std::int64_t value) {
    check_bind(sqlite3_bind_int64(stmt_.get(), index, value), index);
    return *this;
}

Stmt& Stmt::bind(int index, double value) {
    check_bind(sqlite3_bind_double(stmt_.get(), index, value), index);
    return *this;
}

Stmt& Stmt::bind(int index, std::string_view value) {
    check_bind(sqlite3_bind_text64(stmt_.get(), index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
               index);
    return *this;
}

Stmt& Stmt::bind_null(int index) {
    check_bind(sqlite3_bind_null(stmt_.get(), index), index);
    return *this;
}

bool Stmt::step() {
    const int rc = sqlite3_step(stmt_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail("query failed");
}

void Stmt::run() {
    const bool row = step();
    sqlite3_reset(stmt_.get());  // bindings kept: callers rebind every parameter anyway
    if (row) fail("statement returned rows where none were expected");
}

void Stmt::reset() noexcept {
    sqlite3_reset(stmt_.get());
    sqlite3_clear_bindings(stmt_.get());
}

int Stmt::column_count() const noexcept { return sqlite3_column_count(stmt_.get()); }

std::string Stmt::column_name(int col) const {
    const char* name = sqlite3_column_name(stmt_.get(), col);
    return name ? name : "";
}

int Stmt::column_type(int col) const noexcept { return sqlite3_column_type(stmt_.get(), col); }

std::int64_t Stmt::int64(int col) const noexcept { return sqlite3_column_int64(stmt_.get(), col); }

double Stmt::real(int col) const noexcept { return sqlite3_column_double(stmt_.get(), col); }

std::string Stmt::text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_.get(), col));
    if (!p) return {};
    return {p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_.get(), col))};
}

void Stmt::fail(std::string_view what) const {
    // Asked of SQLite rather than kept: a Db may move while its statements live.
    sqlite3* db = sqlite3_db_handle(stmt_.get());
    const char* file = sqlite3_db_filename(db, "main");
    const char* sql = sqlite3_sql(stmt_.get());
    throw TraceError(fmt::format("{}: {} (\"{}\"): {}", file ? file : "?", what,
                                 std::string_view(sql ? sql : "").substr(0, 80), errmsg(db)));
}

Transaction::Transaction(const Db& db) : db_(&db) {
    // IMMEDIATE takes the write lock up front so a commit cannot fail on a lock upgrade.
    db.exec(sqlite3_db_readonly(db.get(), "main") == 1 ? "BEGIN" : "BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
    if (!done_ && db_->is_open()) {
        sqlite3_exec(db_->get(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
}

void Transaction::commit() {
    db_->exec("COMMIT");
    done_ = true;
}

}  // namespace hopsim::traces::sql
