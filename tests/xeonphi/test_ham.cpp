// ham::offload on both transports: calls, results, data, futures, the
// handler registry across processes, bad messages and a dying target.
// Every test case runs in its own process (catch_discover_tests), so each
// may start one runtime (native mode forks its target there).
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "ham/offload/offload.hpp"
#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "statistics.hpp"

using namespace ham;
namespace d = ham::offload::detail;

namespace {

int counter = 0;  // lives in each process: the target's copy counts the calls it ran

void bump() { ++counter; }
int read_counter() { return counter; }
float mul(float a, float b) { return a * b; }
double sum(offload::buffer_ptr<double> b, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += b.get()[i];
  return s;
}
void scale(offload::buffer_ptr<double> b, std::size_t n, double f) {
  for (std::size_t i = 0; i < n; ++i) b.get()[i] *= f;
}
int node_here() { return offload::this_node(); }
std::uint32_t key_here() { return d::key_of<function<decltype(&mul), &mul>>(); }
int big(std::array<char, 512> a) { return a[0]; }
void die() { _exit(7); }
int* volatile nowhere = nullptr;
void null_store() { *nowhere = 1; }
void abort_now() { std::abort(); }
int deep(int n) {
  std::array<char, 4096> pad{};
  volatile char* p = pad.data();
  p[0] = static_cast<char>(n);
  return deep(n + 1) + p[0];
}
void overflow() { (void)deep(0); }
void fail() { throw hopsim::Error("bad input on the card"); }
void spend(double cycles) { offload::charge_cycles(cycles); }
void nothing() {}

struct Session {
  explicit Session(d::Options o) { d::start(o); }
  ~Session() {
    try {
      d::stop();
    } catch (...) {
    }
  }
};

d::Options mode(const char* m) {
  d::Options o;
  o.mode = std::string(m) == "sim" ? d::Mode::sim : d::Mode::native;
  o.card_memory = 64 << 20;
  return o;
}

// The same workload on either transport; returns what it computed.
std::vector<double> workload() {
  REQUIRE(offload::is_host());
  REQUIRE(offload::num_nodes() == 2u);
  CHECK(offload::sync(1, f2f(&node_here)) == 1);
  CHECK(offload::sync(1, f2f(&mul, 3.0f, 5.0f)) == 15.0f);
  const std::size_t n = 1000;
  std::vector<double> host(n);
  std::iota(host.begin(), host.end(), 1.0);
  auto remote = offload::allocate<double>(1, n);
  offload::put_sync(host.data(), remote, n);
  CHECK(offload::sync(1, f2f(&sum, remote, n)) == Approx(n * (n + 1) / 2.0));
  offload::sync(1, f2f(&scale, remote, n, 2.0));
  std::vector<double> back(n);
  offload::get_sync(remote, back.data(), n);
  auto other = offload::allocate<double>(1, n);
  offload::copy_sync(remote, other, n);
  std::vector<double> back2(n);
  offload::get_sync(other, back2.data(), n);
  CHECK(back2 == back);
  offload::free(other);
  offload::free(remote);
  return back;
}

}  // namespace

TEST_CASE("statistics: true median, sample variance, errors", "[ham][stats]") {
  bench::statistics s(4, 1);
  for (double x : {100.0, 4.0, 1.0, 3.0, 2.0}) s.add(x);  // the first is a warm-up run
  CHECK(s.count() == 4);
  CHECK(s.median() == 2.5);
  CHECK(s.average() == 2.5);
  CHECK(s.min() == 1.0);
  CHECK(s.max() == 4.0);
  CHECK(s.variance() == Approx(5.0 / 3.0));
  CHECK(s.std_error() == Approx(std::sqrt(5.0 / 3.0 / 4.0)));
  CHECK(s.conf95_error() == Approx(1.96 * s.std_error()));
  bench::statistics odd(3, 0);
  for (double x : {5.0, 1.0, 3.0}) odd.add(x);
  CHECK(odd.median() == 3.0);
  CHECK(bench::statistics::header_string().find("relative_conf95_error\tcount") != std::string::npos);
}

TEST_CASE("options: --ham-* are parsed and removed, bad ones refused", "[ham][options]") {
  std::vector<std::string> args{"prog", "-c", "--ham-mode",         "sim", "--ham-cpu-affinity=3",
                                "-r",   "5",  "--ham-message-size", "256"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  const d::Options o = d::parse_options(argc, argv.data());
  CHECK(o.mode == d::Mode::sim);
  CHECK(o.host_core == 3);
  CHECK(o.message_size == 256);
  REQUIRE(argc == 4);
  CHECK(std::string(argv[1]) == "-c");
  CHECK(std::string(argv[3]) == "5");
  auto parse = [](std::vector<std::string> a) {
    std::vector<char*> v;
    for (auto& s : a) v.push_back(s.data());
    v.push_back(nullptr);
    int n = static_cast<int>(a.size());
    d::parse_options(n, v.data());
  };
  CHECK_THROWS_WITH(parse({"p", "--ham-mode", "gpu"}), Catch::Contains("--ham-mode: 'gpu'"));
  CHECK_NOTHROW(parse({"p", "--ham-mode", "mpi"}));
  CHECK_THROWS_WITH(parse({"p", "--ham-frobnicate", "1"}), Catch::Contains("--ham-frobnicate: unknown"));
  CHECK_THROWS_WITH(parse({"p", "--ham-message-size", "100"}), Catch::Contains("multiple of 64"));
  CHECK_THROWS_WITH(parse({"p", "--ham-cpu-affinity"}), Catch::Contains("needs a value"));
  CHECK_THROWS_WITH(parse({"p", "--ham-targets", "0"}), Catch::Contains("--ham-targets: 0 is not in 1..64"));
  CHECK_THROWS_WITH(parse({"p", "--ham-targets", "65"}), Catch::Contains("--ham-targets: 65 is not in 1..64"));
  std::vector<std::string> three{"p", "--ham-targets=3"};
  std::vector<char*> v{three[0].data(), three[1].data(), nullptr};
  int n = 2;
  CHECK(d::parse_options(n, v.data()).targets == 3);
}

TEST_CASE("native and simulated transports compute the same data", "[ham][native][sim]") {
  std::vector<double> native, sim;
  {
    Session s(mode("native"));
    native = workload();
  }
  {
    Session s(mode("sim"));
    sim = workload();
  }
  REQUIRE(native.size() == 1000);
  CHECK(native == sim);
  CHECK(native[999] == 2000.0);
}

TEST_CASE("handler keys: sorted registry, the same key in host and target process", "[ham][native]") {
  Session s(mode("native"));
  const auto names = d::Registry::names();
  CHECK(std::is_sorted(names.begin(), names.end()));
  const std::uint32_t host_key = key_here();
  CHECK(names.at(host_key) == typeid(function<decltype(&mul), &mul>).name());
  CHECK(offload::sync(1, f2f(&key_here)) == host_key);
}

TEST_CASE("a message larger than the buffer is rejected, not split", "[ham][native][sim]") {
  for (const char* m : {"native", "sim"}) {
    d::Options o = mode(m);
    o.message_size = 256;
    Session s(o);
    std::array<char, 512> a{};
    a[0] = 9;
    CHECK_THROWS_WITH(offload::sync(1, f2f(&big, a)),
                      Catch::Contains("does not fit the message buffer of 256 B") && Catch::Contains("not split"));
    // The runtime is still usable afterwards.
    CHECK(offload::sync(1, f2f(&mul, 2.0f, 2.0f)) == 4.0f);
  }
}

TEST_CASE("a future destroyed without get waits for its call, as HAM-Offload's does", "[ham][native][sim]") {
  for (const char* m : {"native", "sim"}) {
    d::Options o = mode(m);
    o.buffers = 16;
    counter = 0;
    Session s(o);
    for (int i = 0; i < 300; ++i) offload::async(1, f2f(&bump));  // each future dropped at once: 16 slots suffice
    {
      auto kept = offload::async(1, f2f(&bump));
      auto moved = std::move(kept);
      CHECK_FALSE(kept.valid());
    }  // destroyed without get
    CHECK(offload::sync(1, f2f(&read_counter)) == 301);
    if (std::string(m) == "native") CHECK(counter == 0);  // they ran in the target process
    // A failure of a dropped future's call is kept, not lost.
    { offload::async(1, f2f(&fail)); }
    CHECK_THAT(d::take_deferred_error(), Catch::Contains("bad input on the card"));
    CHECK(d::take_deferred_error().empty());
  }
  // Simulated: the destructor returns when the result has arrived.
  Session s(mode("sim"));
  const std::int64_t t0 = offload::now_ps();
  offload::sync(1, f2f(&spend, 1238.0));
  const std::int64_t synced = offload::now_ps() - t0;
  const std::int64_t t1 = offload::now_ps();
  { offload::async(1, f2f(&spend, 1238.0)); }
  CHECK(offload::now_ps() - t1 == synced);
}

TEST_CASE("several targets: each runs its own calls, heap and data; names; bad nodes", "[ham][native][sim]") {
  for (const char* m : {"native", "sim"}) {
    d::Options o = mode(m);
    o.targets = 3;
    Session s(o);
    REQUIRE(offload::num_nodes() == 4u);
    std::vector<double> host(100);
    std::iota(host.begin(), host.end(), 0.0);
    for (offload::node_t t = 1; t <= 3; ++t) {
      CHECK(offload::sync(t, f2f(&node_here)) == t);
      CHECK(std::string(offload::get_node_description(t).name()).find(std::to_string(t)) != std::string::npos);
      auto b = offload::allocate<double>(t, host.size());
      offload::put_sync(host.data(), b, host.size());
      offload::sync(t, f2f(&scale, b, host.size(), static_cast<double>(t)));
      CHECK(offload::sync(t, f2f(&sum, b, host.size())) == Approx(4950.0 * t));
      // Another target's buffer is not this one's memory.
      offload::buffer_ptr<double> elsewhere(b.get(), t % 3 + 1);
      CHECK_THROWS_WITH(offload::get_sync(elsewhere, host.data(), 1), Catch::Contains("not inside"));
      offload::free(b);
    }
    CHECK_THROWS_WITH(offload::sync(4, f2f(&nothing)), Catch::Contains("node 4 does not exist: the targets are 1..3"));
    CHECK_THROWS_WITH(offload::get_node_description(4), Catch::Contains("node 4 does not exist"));
    CHECK(std::string(offload::get_node_description(0).name()).size() > 0);
  }
}

TEST_CASE("futures: test() turns true, get() once, too many held results refused", "[ham][native][sim]") {
  for (const char* m : {"native", "sim"}) {
    d::Options o = mode(m);
    o.buffers = 4;
    Session s(o);
    auto f = offload::async(1, f2f(&mul, 6.0f, 7.0f));
    while (!f.test()) {
    }
    CHECK(f.get() == 42.0f);
    CHECK_THROWS_AS(f.get(), std::logic_error);
    std::vector<offload::future<void>> held;
    for (int i = 0; i < 4; ++i) held.push_back(offload::async(1, f2f(&nothing)));
    CHECK_THROWS_WITH(offload::async(1, f2f(&nothing)), Catch::Contains("all 4 result slots"));
    for (auto& h : held) h.get();
    CHECK(offload::sync(1, f2f(&mul, 1.0f, 2.0f)) == 2.0f);
  }
}

TEST_CASE("an exception on the target comes back as a KernelError", "[ham][native][sim]") {
  for (const char* m : {"native", "sim"}) {
    Session s(mode(m));
    CHECK_THROWS_AS(offload::sync(1, f2f(&fail)), hopsim::KernelError);
    CHECK_THROWS_WITH(offload::sync(1, f2f(&fail)), Catch::Contains("bad input on the card"));
    CHECK(offload::sync(1, f2f(&mul, 2.0f, 3.0f)) == 6.0f);
  }
}

TEST_CASE("bad nodes and transfers outside target memory are refused", "[ham][native][sim]") {
  for (const char* m : {"native", "sim"}) {
    Session s(mode(m));
    CHECK_THROWS_WITH(offload::sync(2, f2f(&nothing)), Catch::Contains("node 2 does not exist"));
    double x[4] = {};
    offload::buffer_ptr<double> bogus(x, 1);
    CHECK_THROWS_WITH(offload::put_sync(x, bogus, 4), Catch::Contains("not inside"));
    // Native checks the target's memory window (as SCIF RMA checks its
    // registered window); sim checks the allocation itself.
    auto b = offload::allocate<double>(1, 4);
    CHECK_THROWS_WITH(offload::get_sync(b, x, (std::size_t(64) << 20) / sizeof(double) + 8),
                      Catch::Contains("not inside"));
    offload::free(b);
  }
}

TEST_CASE("a target dying mid-run is a clear error on the host, not a hang", "[ham][native]") {
  Session s(mode("native"));
  CHECK(offload::sync(1, f2f(&mul, 2.0f, 3.0f)) == 6.0f);
  CHECK_THROWS_WITH(offload::sync(1, f2f(&die)), Catch::Contains("target node 1") &&
                                                     Catch::Contains("exited with status 7") &&
                                                     Catch::Contains("while the host waited for a result"));
  CHECK_THROWS_WITH(offload::sync(1, f2f(&nothing)), Catch::Contains("is gone"));
}

// The target's process crashes (the crash report installed, as the HAM
// runtime's main does): the host names node 1 and the signal; the exit
// status of such a run is 128 + the signal.
TEST_CASE("a target that crashes is named with its signal, not a hang", "[ham][native]") {
  hopsim::crash::install();
  const std::vector<std::tuple<std::function<void()>, int, const char*>> cases = {
      {[] { offload::sync(1, f2f(&null_store)); }, SIGSEGV, "a store through a null pointer"},
      {[] { offload::sync(1, f2f(&abort_now)); }, SIGABRT, "abort()"},
      {[] { offload::sync(1, f2f(&overflow)); }, SIGSEGV, "a stack overflow"}};
  for (const auto& [call, sig, what] : cases) {
    INFO(what);
    Session s(mode("native"));
    try {
      call();
      FAIL("the crash was not reported");
    } catch (const hopsim::CrashError& e) {
      CHECK(e.signal() == sig);
      CHECK_THAT(std::string(e.what()), Catch::Contains("HAM target node 1") &&
                                            Catch::Contains("was killed by signal " + std::to_string(sig) + " ") &&
                                            Catch::Contains("while the host waited for a result"));
    }
    CHECK(hopsim::crash::exit_status(sig) == 128 + sig);
  }
}

TEST_CASE("simulated call times follow the model: compute at the card clock, far socket", "[ham][sim]") {
  d::Options o = mode("sim");
  o.host_core = 0;
  Session s(o);
  auto timed = [](auto msg) {
    const std::int64_t t0 = offload::now_ps();
    offload::sync(1, msg);
    return offload::now_ps() - t0;
  };
  const std::int64_t empty = timed(f2f(&nothing));
  CHECK(empty == Approx(1678.5e3).epsilon(0.01));
  CHECK(timed(f2f(&nothing)) == empty);  // deterministic
  // 1238 cycles at 1.238 GHz: 1 us more (the argument adds a few bytes of PIO).
  const std::int64_t busy = timed(f2f(&spend, 1238.0));
  CHECK(busy - empty == Approx(1000e3).epsilon(0.002));
  CHECK_THROWS_WITH(offload::charge_cycles(5), Catch::Contains("for functions running on a target"));
}

TEST_CASE("simulated far socket: an empty call pays three crossings and two remote cache lines", "[ham][sim]") {
  std::int64_t near = 0, far = 0;
  for (int core : {0, 8}) {
    d::Options o = mode("sim");
    o.host_core = core;
    Session s(o);
    const std::int64_t t0 = offload::now_ps();
    offload::sync(1, f2f(&nothing));
    (core == 0 ? near : far) = offload::now_ps() - t0;
  }
  CHECK(far - near == 191000);  // 3 x 27 ns crossings + 2 x (70 - 15) ns lines (knc-7120p)
}

TEST_CASE("mpi mode outside mpirun is a configuration error naming mpirun -np N+1", "[ham][mpi]") {
  unsetenv("OMPI_COMM_WORLD_SIZE");
  d::Options o;
  o.mode = d::Mode::mpi;
  CHECK_THROWS_WITH(d::start(o), Catch::Contains("mpirun -np N+1"));
  CHECK_THROWS_AS(d::start(o), hopsim::ConfigError);
  CHECK_FALSE(d::has_runtime());
}

// Two simulated cards both copying 64 MiB in: on knc-7120p their Gen2 links
// load neither the root complex nor the inter-socket link, so each copy takes
// what it takes alone; with the root complex set below two links' rate they
// share it.
TEST_CASE("simulated cards share the root complex only where it is the bottleneck", "[ham][sim]") {
  const std::size_t n = std::size_t(64) << 20;
  std::vector<char> data(n, 1);
  auto both = [&](std::vector<std::string> sets) {
    d::Options o = mode("sim");
    o.targets = 2;
    o.card_memory = n + 4096;
    o.sets = std::move(sets);
    Session s(o);
    auto a = offload::allocate<char>(1, n);
    auto b = offload::allocate<char>(2, n);
    const std::int64_t t0 = offload::now_ps();
    offload::put_sync(data.data(), a, n);
    const std::int64_t alone = offload::now_ps() - t0;
    const std::int64_t t1 = offload::now_ps();
    auto fa = offload::put(data.data(), a, n);
    auto fb = offload::put(data.data(), b, n);
    fa.get();
    fb.get();
    return std::make_pair(alone, offload::now_ps() - t1);
  };
  const auto [alone, together] = both({});
  CHECK(together - alone == 2000000);  // the second put starts one driver call (2 us) later, nothing else
  const auto [alone8, together8] = both({"root_complex_bandwidth=8 GB/s"});
  CHECK(alone8 == alone);  // one Gen2 x16 card (7.4 GB/s) does not fill 8 GB/s
  // Together they get 4 GB/s each: the 64 MiB take n / 4 GB/s instead of about n / 7.36 GB/s.
  CHECK(static_cast<double>(together8) * 1e-12 == Approx(static_cast<double>(n) / 4e9).epsilon(0.01));
}
