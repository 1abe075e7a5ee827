// Harness: a valid trace with values changed. The input is a list of edits
// to one of the project's sample traces (write_sample_trace), each: op,
// table, column, row, then the new value: set a cell to an integer, a real
// (NaN and infinities included), text, a blob or NULL; delete a row; copy a
// row; drop a table or an index. Edits SQLite refuses are skipped. The edited
// trace is then opened and queried as the viewer does. Byte-level fuzzing of
// whole files (fuzz_trace_file) rarely gets past SQLite's page checks; this
// reaches the reader's handling of the values themselves.
#include <sqlite3.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "fuzz.hpp"

namespace {

struct Table {
  std::string name;
  std::vector<std::string> columns;
};

struct Base {
  std::vector<char> bytes;
  std::vector<Table> tables;
  std::vector<std::string> indexes;
};

std::string ident(const std::string& id) { return "\"" + id + "\""; }

const Base& base() {
  static const Base b = [] {
    Base out;
    static hopsim::fuzz::ScratchFile seed("base.db");
    hopsim::fuzz::write_sample_trace(seed.path(), 0);
    std::ifstream in(seed.path(), std::ios::binary);
    out.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    sqlite3* db = nullptr;
    sqlite3_open_v2(seed.path().c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name", -1, &st,
                       nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) {
      const std::string type = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
      if (type == "table")
        out.tables.push_back({name, {}});
      else if (type == "index")
        out.indexes.push_back(name);
    }
    sqlite3_finalize(st);
    for (auto& t : out.tables) {
      sqlite3_prepare_v2(db, ("PRAGMA table_info(" + ident(t.name) + ")").c_str(), -1, &st, nullptr);
      while (sqlite3_step(st) == SQLITE_ROW)
        t.columns.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
      sqlite3_finalize(st);
    }
    sqlite3_close(db);
    if (out.tables.empty()) hopsim::fuzz::violation("the sample trace has no tables", seed.path().string());
    return out;
  }();
  return b;
}

// Reads the input front to back; past the end every read is 0.
class Bytes {
 public:
  Bytes(const std::uint8_t* d, std::size_t n) : d_(d), n_(n) {}
  bool more() const { return i_ < n_; }
  std::uint8_t u8() { return i_ < n_ ? d_[i_++] : 0; }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v = (v << 8) | u8();
    return v;
  }
  std::string text(std::size_t len) {
    std::string s;
    while (len-- > 0 && more()) s.push_back(static_cast<char>(u8()));
    return s;
  }

 private:
  const std::uint8_t* d_;
  std::size_t n_;
  std::size_t i_ = 0;
};

void edit(sqlite3* db, Bytes& in) {
  const Base& b = base();
  const int op = in.u8() % 5;
  const Table& t = b.tables[in.u8() % b.tables.size()];
  const std::string& col = t.columns.empty() ? std::string("rowid") : t.columns[in.u8() % t.columns.size()];
  const int row = in.u8() % 16;
  const std::string pick =
      "rowid = (SELECT rowid FROM " + ident(t.name) + " LIMIT 1 OFFSET " + std::to_string(row) + ")";
  std::string sql;
  switch (op) {
    case 0:
      sql = "UPDATE " + ident(t.name) + " SET " + ident(col) + " = ?1 WHERE " + pick;
      break;
    case 1:
      sql = "DELETE FROM " + ident(t.name) + " WHERE " + pick;
      break;
    case 2:
      sql = "INSERT INTO " + ident(t.name) + " SELECT * FROM " + ident(t.name) + " WHERE " + pick;
      break;
    case 3:
      sql = b.indexes.empty() || row % 2 ? "DROP TABLE " + ident(t.name)
                                         : "DROP INDEX " + ident(b.indexes[row % b.indexes.size()]);
      break;
    default:
      sql = "DELETE FROM " + ident(t.name);
      break;
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return;
  if (op == 0) {
    switch (in.u8() % 6) {
      case 0:
        sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(in.u64()));
        break;
      case 1:
        sqlite3_bind_int64(st, 1, static_cast<std::int8_t>(in.u8()));
        break;
      case 2: {
        const std::uint64_t bits = in.u64();
        double v = 0;
        std::memcpy(&v, &bits, sizeof v);
        sqlite3_bind_double(st, 1, v);
        break;
      }
      case 3: {
        const std::string s = in.text(in.u8() % 32);
        sqlite3_bind_text(st, 1, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
        break;
      }
      case 4: {
        const std::string s = in.text(in.u8() % 32);
        sqlite3_bind_blob(st, 1, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
        break;
      }
      default:
        sqlite3_bind_null(st, 1);
        break;
    }
  }
  sqlite3_step(st);
  sqlite3_finalize(st);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Base& b = base();
  static hopsim::fuzz::ScratchFile file("trace.db");
  const auto& path = file.write(reinterpret_cast<const std::uint8_t*>(b.bytes.data()), b.bytes.size());
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
    hopsim::fuzz::violation("cannot open the sample trace", path.string());
  Bytes in(data, size);
  for (int n = 0; n < 32 && in.more(); ++n) edit(db, in);
  sqlite3_close(db);
  hopsim::fuzz::expect_clean([&] { hopsim::fuzz::query_everything(path); });
  return 0;
}
