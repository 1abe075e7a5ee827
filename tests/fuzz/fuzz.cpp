#include "fuzz.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <streambuf>

#include "hopsim/traces/db.hpp"
#include "hopsim/traces/export.hpp"
#include "hopsim/traces/reader.hpp"
#include "hopsim/traces/writer.hpp"

namespace hopsim::fuzz {

void violation(std::string_view what, std::string_view message) {
  std::cerr << "fuzz contract violated: " << what;
  if (!message.empty()) std::cerr << ": " << message;
  std::cerr << std::endl;
  std::abort();
}

namespace {
// The scratch folder: one per process under /dev/shm (else the temp
// folder), removed at exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec) ? std::filesystem::path("/dev/shm")
                                                                               : std::filesystem::temp_directory_path();
    std::string tmpl = (base / "hopsim-fuzz-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) violation("cannot create a scratch folder", tmpl);
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

const std::filesystem::path& scratch_dir() {
  static const ScratchDir dir;
  return dir.path();
}

// An ostream that discards what it is given but still formats it.
class NullBuf : public std::streambuf {
 protected:
  int_type overflow(int_type c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char* /*s*/, std::streamsize n) override { return n; }
};
}  // namespace

ScratchFile::ScratchFile(const std::string& name) : path_(scratch_dir() / name) {}

const std::filesystem::path& ScratchFile::write(const std::uint8_t* data, std::size_t size) {
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) violation("cannot write the scratch file", path_.string());
  // The reader sees a fresh file: drop SQLite's side files of the last input.
  std::error_code ec;
  std::filesystem::remove(path_.string() + "-journal", ec);
  std::filesystem::remove(path_.string() + "-wal", ec);
  std::filesystem::remove(path_.string() + "-shm", ec);
  return path_;
}

DocAndLines split_doc(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  DocAndLines out;
  const std::string sep = "\n----\n";
  const auto at = text.find(sep);
  if (at == std::string::npos) {
    out.doc = text;
    return out;
  }
  out.doc = text.substr(0, at);
  std::size_t pos = at + sep.size();
  while (pos <= text.size()) {
    const auto end = std::min(text.find('\n', pos), text.size());
    if (end > pos) out.lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

void query_everything(const std::filesystem::path& trace) {
  const traces::TraceReader r(trace);
  (void)r.meta_value("machine");
  (void)r.schema_version();
  (void)r.complete();
  (void)r.detail();
  (void)r.clock_hz();
  const auto nodes = r.nodes();
  const auto links = r.links();
  (void)r.link_totals();
  const auto [t0, t1] = r.time_range();
  const double mid = t0 + (t1 - t0) / 2;
  for (std::size_t i = 0; i < links.size() && i < 8; ++i) {
    (void)r.link_counters(links[i].id);
    (void)r.hops(links[i].id, t0, t1);
  }
  (void)r.link_totals(t0, t1);
  (void)r.link_totals(mid, t1);
  (void)r.bucket_window(t0, mid);
  for (std::size_t i = 0; i < nodes.size() && i < 4; ++i) (void)r.node_link_totals(nodes[i].id, t0, t1);
  (void)r.transaction_count();
  (void)r.transactions(0, 64);
  (void)r.transactions(2, 3);
  (void)r.hop_count();
  (void)r.hops(t0, t1);
  (void)r.hops(mid, t1);
  std::size_t n = 0;
  r.for_each_hop(-1e300, 1e300, [&](const traces::Hop&) { ++n; });
  (void)r.pes();
  (void)r.pe_states(t0, t1);
  r.for_each_pe_state(-1e300, 1e300, [&](const traces::PeStateSpan&) { ++n; });
  (void)r.launches();
  NullBuf buf;
  std::ostream sink(&buf);
  traces::export_perfetto(r, sink);
  for (const char* table : {"meta", "nodes", "links", "transactions", "hops", "link_counters", "pe_states"})
    traces::export_csv(r, table, sink);
}

const std::filesystem::path& write_sample_trace(const std::filesystem::path& path, int variant) {
  using namespace hopsim::traces;
  std::error_code ec;
  std::filesystem::remove(path, ec);
  Meta meta =
      run_meta("epiphany", R"({"machine":{"preset":"e16g301"}})", "e16g301", variant == 3 ? "native" : "sim", 7, 600e6);
  meta.bucket_cycles = 100;
  const Detail detail = variant == 1 ? Detail::counters : variant == 0 ? Detail::hops : Detail::transactions;
  WriterOptions options;
  options.notice = [](std::string_view) {};
  TraceWriter w(path, meta, detail, options);
  for (int i = 0; i < 4; ++i)
    w.add_node({i, "core (" + std::to_string(i / 2) + "," + std::to_string(i % 2) + ")", "core",
                "[" + std::to_string(i / 2) + "," + std::to_string(i % 2) + "]"});
  if (variant != 3) {
    w.add_link({10, "cmesh", 0, 1, "(0,0)->(0,1)"});
    w.add_link({11, "cmesh", 1, 3, "(0,1)->(1,1)"});
    w.add_link({12, "rmesh", 3, 2, "(1,1)->(1,0)"});
  }
  for (int k = 0; k < 6; ++k) {
    const double t = 40.0 * k;
    const auto id = w.add_transaction({0, k % 4, (k + 3) % 4, 64 << (k % 3), t, t + 30 + k, k % 2 ? "read" : "write"});
    if (variant != 3) {
      w.add_hop({id, 10 + k % 3, t + 2, t + 12});
      w.add_hop({id, 10 + (k + 1) % 3, t + 12, t + 25});
      w.add_link_sample(10 + k % 3, t + 2, 64, 10, k % 2, 1);
    }
    w.add_pe_state(k % 4, k % 2 ? PeState::waiting : PeState::compute, 100.0 * (k / 4), 100.0 * (k / 4) + 60);
  }
  w.add_launch({"sim", "unicast", 3, 1e-6, 600, 192, true});
  if (variant == 3) w.add_launch({"native", "unicast", 3, 2e-6, 1200, 192, false});
  if (variant == 2)
    (void)w.abort("interrupted");
  else
    (void)w.finish();
  {
    const sql::Db db(path, sql::OpenMode::create);
    db.exec("PRAGMA page_size=512; VACUUM;");
  }
  return path;
}

}  // namespace hopsim::fuzz
