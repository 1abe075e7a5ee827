// --ham-trace: a simulated benchmark_ham_offload run writes a hopsim trace of
// the modelled PCIe offload path. The benchmark runs as a child process (its
// path comes from CMake); the expected counts follow from its options.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "hopsim/traces/reader.hpp"

namespace fs = std::filesystem;
using namespace hopsim::traces;

namespace {

struct Result {
  int rc = -1;
  std::string err;
};

// This process's scratch folder, removed when the process exits.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("hopsim-xeonphi-trace-" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

fs::path work(const std::string& name) {
  static const Scratch scratch;
  const fs::path& d = scratch.dir;
  const fs::path p = d / name;
  fs::remove(p);
  return p;
}

Result bench(const std::string& args) {
  const fs::path err = work("stderr.txt");
  const std::string cmd =
      std::string("'") + HOPSIM_BENCHMARK_HAM_OFFLOAD + "' " + args + " > /dev/null 2> '" + err.string() + "'";
  const int st = std::system(cmd.c_str());
  Result r;
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream in(err);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  return r;
}

std::int64_t pcie_bytes(const TraceReader& t) {
  std::map<std::int64_t, std::string> net;
  for (const Link& l : t.links()) net[l.id] = l.net;
  std::int64_t b = 0;
  for (const LinkTotals& x : t.link_totals())
    if (net.at(x.link) == "pcie") b += x.bytes;
  return b;
}

}  // namespace

TEST_CASE("a simulated call benchmark writes one transaction per message and PCIe counters of the same bytes",
          "[xeonphi][trace]") {
  const fs::path db = work("call.db");
  const unsigned runs = 10, warmup = 1;  // the benchmark's default warm-up is one run
  const Result r = bench("-c -r " + std::to_string(runs) + " --ham-mode sim --ham-trace " + db.string());
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const TraceReader t(db);
  CHECK(t.complete());
  CHECK(t.meta_value("mode") == "sim");
  CHECK(t.meta_value("machine") == "knc-7120p");
  CHECK(t.clock_hz() > 1e9);
  const auto sc = nlohmann::json::parse(*t.meta_value("scenario"));
  CHECK(sc["arguments"] == nlohmann::json::array({"-c", "-r", "10"}));
  CHECK(sc["ham"]["preset"] == "knc-7120p");

  // Each synchronous call is a message to the card and a result back; nothing else crosses.
  const std::int64_t calls = runs + warmup;
  REQUIRE(t.transaction_count() == 2 * calls);
  const auto txns = t.transactions(1, 1000);
  std::map<std::string, int> kinds;
  std::int64_t bytes = 0;
  for (const Transaction& x : txns) {
    ++kinds[x.kind];
    bytes += x.bytes;
    CHECK(x.arrive > x.inject);
    if (x.kind == "result") CHECK(x.bytes == 16 + 0 + 8);  // header, no result (void), flag
  }
  CHECK(kinds["message"] == calls);
  CHECK(kinds["result"] == calls);
  CHECK(pcie_bytes(t) == bytes);

  std::map<std::string, std::int64_t> node;
  for (const Node& n : t.nodes()) node[n.coords] = n.id;
  CHECK(node.count(R"(["card"])"));
  CHECK(node.count(R"(["host","socket0"])"));
  CHECK(node.count(R"(["host","socket1"])"));
  CHECK(node.count(R"(["host","socket0","root-complex"])"));
  // The card computes once per call; the host polls for each result.
  std::map<std::int64_t, int> spans;
  for (const PeStateSpan& s : t.pe_states(-1, 1e18)) ++spans[s.pe];
  CHECK(spans[node.at(R"(["card"])")] == calls);
  CHECK(spans[node.at(R"(["host","socket0"])")] == calls);
}

TEST_CASE("a far-socket copy-in traced with hops crosses the inter-socket link and PCIe", "[xeonphi][trace]") {
  const fs::path db = work("copyin.db");
  // Core 8 is on socket 1 of knc-7120p's host (2 x 8 cores); the card hangs off socket 0.
  const Result r = bench("-i -s 4096 -r 3 --warmup-runs 0 --ham-mode sim --ham-cpu-affinity 8 --ham-trace " +
                         db.string() + " --ham-trace-detail hops");
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const TraceReader t(db);
  CHECK(t.complete());
  // Each transfer: doorbell, the data, the completion flag; allocate and free
  // of the target buffer are calls (message + result each). Every one crosses QPI and PCIe.
  const std::int64_t txns = 3 * 3 + 2 * 2;
  REQUIRE(t.transaction_count() == txns);
  CHECK(t.hop_count() == 2 * txns);
  std::int64_t bytes = 0, data = 0;
  std::map<std::string, int> kinds;
  for (const Transaction& x : t.transactions(1, 100)) {
    ++kinds[x.kind];
    bytes += x.bytes;
    if (x.kind == "put") data += x.bytes;
  }
  CHECK(kinds ==
        std::map<std::string, int>{{"doorbell", 3}, {"put", 3}, {"dma-done", 3}, {"message", 2}, {"result", 2}});
  CHECK(data == 3 * 4096);
  CHECK(pcie_bytes(t) == bytes);
  std::map<std::int64_t, std::string> net;
  for (const Link& l : t.links()) net[l.id] = l.net;
  std::int64_t qpi = 0;
  for (const LinkTotals& x : t.link_totals())
    if (net.at(x.link) == "qpi") qpi += x.bytes;
  CHECK(qpi == bytes);
}

TEST_CASE("a trace of detail counters holds link counters only", "[xeonphi][trace]") {
  const fs::path db = work("counters.db");
  const Result r = bench("-c -r 5 --ham-mode sim --ham-trace " + db.string() + " --ham-trace-detail counters");
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const TraceReader t(db);
  CHECK(t.transaction_count() == 0);
  CHECK(pcie_bytes(t) > 0);
}

TEST_CASE("a run that fails leaves its trace marked incomplete", "[xeonphi][trace]") {
  const fs::path db = work("failed.db");
  // 8 KiB does not fit a 4 KiB target heap: the benchmark throws after the runtime started.
  const Result r = bench("-i -s 8192 -r 1 --ham-mode sim --ham-card-memory 4096 --ham-trace " + db.string());
  CHECK(r.rc != 0);
  CHECK(r.err.find("target heap exhausted") != std::string::npos);
  const TraceReader t(db);
  CHECK_FALSE(t.complete());
}

TEST_CASE("an unwritable --ham-trace path is a clear configuration error", "[xeonphi][trace]") {
  const Result r = bench("-c -r 1 --ham-mode sim --ham-trace /nonexistent-dir/sub/x.db");
  CHECK(r.rc == 2);
  CHECK(r.err.find("--ham-trace: cannot write the trace /nonexistent-dir/sub/x.db") != std::string::npos);
}

TEST_CASE("a trace in native mode and bad trace options are rejected", "[xeonphi][trace]") {
  const Result native = bench("-c -r 1 --ham-trace " + work("native.db").string());
  CHECK(native.rc == 2);
  CHECK(native.err.find("--ham-trace: traces are written in --ham-mode sim only") != std::string::npos);
  const Result detail = bench("-c -r 1 --ham-mode sim --ham-trace x.db --ham-trace-detail everything");
  CHECK(detail.rc == 2);
  CHECK(detail.err.find("--ham-trace-detail: 'everything' is not counters, transactions or hops") != std::string::npos);
  const Result alone = bench("-c -r 1 --ham-mode sim --ham-trace-detail hops");
  CHECK(alone.rc == 2);
  CHECK(alone.err.find("--ham-trace-detail, -window, -max-size: need --ham-trace") != std::string::npos);
  const Result window = bench("-c -r 1 --ham-mode sim --ham-trace x.db --ham-trace-window 5:1");
  CHECK(window.rc == 2);
  CHECK(window.err.find("--ham-trace-window: '5:1': the window ends before it begins") != std::string::npos);
  const Result size = bench("-c -r 1 --ham-mode sim --ham-trace x.db --ham-trace-max-size lots");
  CHECK(size.rc == 2);
  CHECK(size.err.find("--ham-trace-max-size") != std::string::npos);
}
