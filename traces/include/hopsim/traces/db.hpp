// Thin RAII layer over the SQLite C API. Every failure throws TraceError
// carrying the database path and SQLite's own message.
#pragma once

#include <concepts>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <sqlite3.h>

namespace hopsim::traces::sql {

class Stmt;

/// How Db opens its file.
enum class OpenMode {
    read_only,  ///< the file must exist; nothing is ever written
    create,     ///< read-write, created when missing
};

/// An open database connection (closed on destruction).
class Db {
public:
    /// Opens `path`; throws TraceError naming it on failure.
    Db(const std::filesystem::path& path, OpenMode mode);

    Db(Db&&) noexcept = default;
    Db& operator=(Db&&) noexcept = default;
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;
    ~Db() = default;

    /// The raw handle, for calls this wrapper does not cover.
    sqlite3* get() const noexcept { return db_.get(); }
    /// The file this connection was opened on.
    const std::filesystem::path& path() const noexcept { return path_; }
    /// Whether the connection is still open.
    bool is_open() const noexcept { return db_ != nullptr; }

    /// Runs one or more statements that return no rows.
    void exec(std::string_view sql) const;
    /// Compiles one statement.
    Stmt prepare(std::string_view sql) const;
    /// Closes now and reports errors (the destructor can only swallow them).
    void close();

    /// Throws TraceError "<path>: <what>: <sqlite message>".
    [[noreturn]] void fail(std::string_view what) const;

private:
    struct Closer {
        void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
    };
    std::unique_ptr<sqlite3, Closer> db_;
    std::filesystem::path path_;
};

/// A compiled statement; the Db's connection must stay open while it lives.
class Stmt {
public:
    /// Compiles `sql` on `db`; throws TraceError with the SQL on failure.
    Stmt(const Db& db, std::string_view sql);

    Stmt(Stmt&&) noexcept = default;
    Stmt& operator=(Stmt&&) noexcept = default;
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    ~Stmt() = default;

    /// Binds parameter `index` (1-based) to an integer.
    template <std::integral T>
    Stmt& bind(int index, T value) {
        return bind_int64(index, static_cast<std::int64_t>(value));
    }
    /// Binds parameter `index` to a real.
    Stmt& bind(int index, double value);
    /// Binds parameter `index` to text (copied by SQLite).
    Stmt& bind(int index, std::string_view value);
    /// Binds parameter `index` to text (copied by SQLite).
    Stmt& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
    /// Binds parameter `index` to NULL.
    Stmt& bind_null(int index);

    /// Advances; true when a row is available, false when done.
    bool step();
    /// Steps a statement that must not return rows, then resets it for reuse (bindings stay).
    void run();
    /// Makes the statement ready to run again, clearing its bindings.
    void reset() noexcept;

    /// Columns in the result.
    int column_count() const noexcept;
    /// Name of result column `col` (0-based).
    std::string column_name(int col) const;
    /// SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL.
    int column_type(int col) const noexcept;
    /// Column `col` of the current row as an integer.
    std::int64_t int64(int col) const noexcept;
    /// Column `col` of the current row as a real.
    double real(int col) const noexcept;
    /// Column `col` of the current row as text ("" for NULL).
    std::string text(int col) const;

private:
    Stmt& bind_int64(int index, std::int64_t value);
    void check_bind(int rc, int index) const;
    [[noreturn]] void fail(std::string_view what) const;

    struct Finalizer {
        void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
    };
    std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
};

/// BEGIN on construction; ROLLBACK on destruction unless commit() ran.
class Transaction {
public:
    /// Starts a transaction (BEGIN IMMEDIATE on writable connections).
    explicit Transaction(const Db& db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    /// Commits; afterwards the destructor does nothing.
    void commit();

private:
    const Db* db_;
    bool done_ = false;
};

}  // namespace hopsim::traces::sql
