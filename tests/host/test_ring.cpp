// The ring benchmark: every message is checksummed by its receiver, and
// damage in transit is caught on each transport.
#include <sched.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "hopsim/core/error.hpp"
#include "hopsim/host/calibrate.hpp"
#include "hopsim/host/ring.hpp"

using hopsim::host::Kind;
namespace hh = hopsim::host;

namespace {
hh::RingOptions small(Kind k, int procs) {
  hh::RingOptions o;
  o.procs = procs;
  o.kind = k;
  o.sizes = {8, 1000, 100 * 1024};
  o.bytes_per_rep = 256 * 1024;
  o.reps = 1;
  o.max_iters = 20;
  o.chunk = 16 * 1024;  // several chunks per message
  return o;
}
// Runs a ring with a damaged message: the receiver's checksum must catch it,
// with the message `what` followed by the transport's name.
void expect_caught(const hh::RingOptions& o, const std::string& what) {
  INFO(hopsim::host::kind_name(o.kind));
  try {
    (void)hh::run_ring(o);
    FAIL("the damaged message must be caught");
  } catch (const hopsim::DataMismatchError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith(what + std::string(hopsim::host::kind_name(o.kind))));
  }
}
// The first CPU of `all`, alone.
cpu_set_t first_cpu_of(const cpu_set_t& all) {
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &all)) {
      CPU_SET(c, &one);
      break;
    }
  return one;
}
}  // namespace

TEST_CASE("checksum sees a flipped bit anywhere and a swapped word", "[host][ring]") {
  std::vector<std::byte> d(4099);
  hh::fill_pattern(d, 3, 1);
  const auto c = hh::checksum(d);
  for (std::size_t i : {std::size_t{0}, std::size_t{7}, std::size_t{2048}, std::size_t{4098}}) {
    d[i] ^= std::byte{1};
    CHECK(hh::checksum(d) != c);
    d[i] ^= std::byte{1};
  }
  std::swap_ranges(d.begin(), d.begin() + 8, d.begin() + 8);
  CHECK(hh::checksum(d) != c);
}

TEST_CASE("ring neighbours form one cycle in natural and random order", "[host][ring]") {
  for (bool random : {false, true}) {
    std::vector<int> left, right;
    hh::ring_neighbours(8, random, 42, left, right);
    std::set<int> seen;
    int r = 0;
    for (int i = 0; i < 8; ++i) {
      seen.insert(r);
      CHECK(left[right[r]] == r);
      r = right[r];
    }
    CHECK(r == 0);
    CHECK(seen.size() == 8);
    if (!random) CHECK(right[3] == 4);
  }
}

TEST_CASE("ring runs over every transport with every message checked", "[host][ring]") {
  for (Kind k : {Kind::double_copy, Kind::cma, Kind::zero_copy}) {
    for (bool random : {false, true}) {
      auto o = small(k, 3);
      o.random_order = random;
      o.remap = k == Kind::zero_copy && random;
      const auto cells = hh::run_ring(o);
      REQUIRE(cells.size() == 3);
      for (const auto& c : cells) {
        INFO(hopsim::host::kind_name(k) << " size " << c.size);
        CHECK(c.bandwidth > 0);
        CHECK(c.messages_checked == static_cast<std::uint64_t>(3 * (hh::kWarmupSteps + c.iters)));
        CHECK(c.order == (random ? "random" : "natural"));
      }
    }
  }
}

TEST_CASE("a corrupted message is caught by the receiver's checksum", "[host][ring]") {
  for (Kind k : {Kind::double_copy, Kind::cma, Kind::zero_copy}) {
    auto o = small(k, 2);
    o.corrupt_rank = 1;
    o.corrupt_message = 2;
    expect_caught(o, "rank 1: checksum mismatch: rank 1 received message 2 of 8 bytes from rank 0 over ");
  }
}

TEST_CASE("a two-way ring sends each way every step, every message checked", "[host][ring]") {
  for (Kind k : {Kind::double_copy, Kind::cma, Kind::zero_copy}) {
    for (int procs : {2, 3, 4}) {
      auto o = small(k, procs);
      o.two_way = true;
      o.random_order = procs == 4;
      o.cma_buffers = procs == 3 ? 0 : 4;  // CMA's rendezvous too
      INFO(hopsim::host::kind_name(k) << ", " << procs << " processes");
      const auto cells = hh::run_ring(o);
      REQUIRE(cells.size() == 3);
      for (const auto& c : cells) {
        CHECK(c.two_way);
        CHECK(c.messages_checked == static_cast<std::uint64_t>(2 * procs * (hh::kWarmupSteps + c.iters)));
        // Both directions' bytes count.
        CHECK(c.bandwidth == Approx(2.0 * static_cast<double>(c.size) * c.iters / c.seconds));
      }
    }
  }
}

TEST_CASE("a two-way ring's damaged message from the right neighbour is caught", "[host][ring]") {
  for (Kind k : {Kind::double_copy, Kind::cma, Kind::zero_copy}) {
    auto o = small(k, 3);
    o.two_way = true;
    o.corrupt_rank = 1;
    o.corrupt_message = 3;  // rank 1's second message of step 1: from its right neighbour, rank 2
    expect_caught(o, "rank 1: checksum mismatch: rank 1 received message 1 of 8 bytes from rank 2 over ");
  }
}

TEST_CASE("a ring of one process is rejected with a clear message", "[host][ring]") {
  auto o = small(Kind::cma, 1);
  CHECK_THROWS_MATCHES(hh::run_ring(o), hopsim::ConfigError,
                       Catch::Message("ring: a ring of 1 process has no neighbour to send to (at least 2 processes)"));
  o.procs = 2;
  o.sizes = {4};
  CHECK_THROWS_WITH(hh::run_ring(o), Catch::Contains("below the minimum of 8"));
}

TEST_CASE("speed spells are fitted to batch rates: levels, share and length", "[host][calibrate]") {
  // Two CPUs, 100 us batches: runs of 30 fast (10 GB/s) and 20 slow (5 GB/s) batches.
  std::vector<double> one;
  for (int k = 0; k < 4; ++k) {
    one.insert(one.end(), 30, 10e9);
    one.insert(one.end(), 20, 5e9);
  }
  const auto f = hh::fit_speed_spells({one, one}, 1e-4);
  CHECK(f.slow_speed == Approx(0.5));
  CHECK(f.slow_share == Approx(0.4));
  CHECK(f.slow_dwell == Approx(20 * 1e-4));  // 16 runs of 20 batches
  CHECK(f.batches == 400);
  // A run split between the two CPUs' series counts as two spells.
  const auto g = hh::fit_speed_spells(
      {std::vector<double>(one.begin(), one.begin() + 40), std::vector<double>(one.begin() + 40, one.end())}, 1e-4);
  CHECK(g.slow_dwell == Approx(80 * 1e-4 / 5));
  // Steady rates, noise within 3/4 of the fast level, too few batches, or
  // slow batches under 5%: no spells.
  CHECK(hh::fit_speed_spells({std::vector<double>(100, 8e9)}, 1e-4).slow_share == 0);
  std::vector<double> noisy;
  for (int i = 0; i < 100; ++i) noisy.push_back(i % 2 ? 8e9 : 6.5e9);
  CHECK(hh::fit_speed_spells({noisy}, 1e-4).slow_share == 0);
  CHECK(hh::fit_speed_spells({std::vector<double>(one.begin(), one.begin() + 19)}, 1e-4).slow_share == 0);
  std::vector<double> rare(100, 10e9);
  rare[50] = rare[51] = rare[52] = rare[53] = 4e9;  // 4%
  CHECK(hh::fit_speed_spells({rare}, 1e-4).slow_share == 0);
  rare[54] = 4e9;  // 5%
  CHECK(hh::fit_speed_spells({rare}, 1e-4).slow_share == Approx(0.05));
}

TEST_CASE("the CPU probe records its batches when asked", "[host][calibrate]") {
  std::vector<std::vector<double>> batches;
  const auto rates = hh::checksum_rates(0.02, &batches, 1e-3);
  REQUIRE(batches.size() == rates.size());
  for (std::size_t i = 0; i < rates.size(); ++i) {
    // 20 ms in batches of at least 1 ms: at most 20. How many of them end
    // within the 20 ms depends on how often the machine preempts the probe
    // (4 under a parallel build), so only their presence is required.
    CHECK(!batches[i].empty());
    CHECK(batches[i].size() <= 20);
    for (double b : batches[i]) CHECK(b > 1e6);
  }
}

TEST_CASE("the CPU probe gives one checksum rate per allowed CPU", "[host][calibrate]") {
  cpu_set_t all;
  REQUIRE(::sched_getaffinity(0, sizeof all, &all) == 0);
  const auto rates = hh::checksum_rates(0.01);
  CHECK(rates.size() == static_cast<std::size_t>(CPU_COUNT(&all)));
  for (double r : rates) CHECK(r > 1e6);  // 256 KiB checksums: even a crowded CPU does one in 0.25 s
  // Restricted to one CPU, the probe sees that one.
  const cpu_set_t one = first_cpu_of(all);
  REQUIRE(::sched_setaffinity(0, sizeof one, &one) == 0);
  const auto single = hh::checksum_rates(0.01);
  ::sched_setaffinity(0, sizeof all, &all);
  CHECK(single.size() == 1);
}

TEST_CASE("the CPUs' speeds are the all-busy probes in the tables' passes, the end probe apart", "[host][calibrate]") {
  hh::CalibrateOptions o;
  o.seconds_per_point = 0.002;
  o.pingpong_rounds = 2000;
  o.sizes = {4096, 65536};
  const auto c = hh::calibrate(o);
  // One probe per pass of the single-process tables, each rate over the
  // reference measured in the same passes; the probe at the end is kept
  // beside it, not averaged in.
  CHECK(c.speed_probes == 5);
  REQUIRE(c.core_speed.size() == static_cast<std::size_t>(c.cores));
  CHECK(c.speed_end.size() == c.core_speed.size());
  for (double s : c.core_speed) CHECK(s > 0.05);
}

TEST_CASE("ring cells carry the hand-over of ranks 0 and 1 when spread over two CPUs, else none", "[host][ring]") {
  cpu_set_t all;
  REQUIRE(::sched_getaffinity(0, sizeof all, &all) == 0);
  auto o = small(Kind::double_copy, 3);
  o.reps = 2;
  if (CPU_COUNT(&all) >= 2) {
    for (const auto& c : hh::run_ring(o)) {
      INFO("size " << c.size);
      CHECK(c.handover > 0);
      CHECK(c.handover < c.seconds);  // one line's hand-over, far under a repetition
    }
  }
  o.bind = hopsim::host::Bind::none;
  for (const auto& c : hh::run_ring(o)) CHECK(c.handover == -1);
  // Spread over one CPU: ranks 0 and 1 share it, nothing to probe.
  o.bind = hopsim::host::Bind::spread;
  const cpu_set_t one = first_cpu_of(all);
  REQUIRE(::sched_setaffinity(0, sizeof one, &one) == 0);
  const auto single = hh::run_ring(o);
  ::sched_setaffinity(0, sizeof all, &all);
  for (const auto& c : single) CHECK(c.handover == -1);
}

TEST_CASE("exchanges are sorted by placement: near ones kept, apart ones as the apart tables", "[host][calibrate]") {
  auto run = [](std::vector<double> w, std::vector<double> x, double h, bool apart) {
    hh::ExchangeRun r;
    r.tables.xwrite_bw = std::move(w);
    r.tables.xcopy_bw = std::move(x);
    r.tables.xcma_bw = {1, 1};
    r.tables.xread_bw = {2, 2};
    r.handover = h;
    r.apart = apart;
    r.rounds = 10;
    return r;
  };
  hh::Calibration c;
  c.c2c_latency = 40e-9;
  // Two near (45, 50 ns), one apart (210 ns): per entry the faster of the near ones.
  hh::sort_exchanges(
      c, {run({10, 20}, {1, 2}, 45e-9, false), run({4, 4}, {9, 9}, 210e-9, true), run({15, 10}, {3, 1}, 50e-9, false)});
  CHECK(c.xwrite_bw == std::vector<double>{15, 20});
  CHECK(c.xcopy_bw == std::vector<double>{3, 2});
  CHECK(c.exchange_handover == Approx(50e-9));
  CHECK(c.xwrite_bw_apart == std::vector<double>{4, 4});
  CHECK(c.xcopy_bw_apart == std::vector<double>{9, 9});
  CHECK(c.xread_bw_apart == std::vector<double>{2, 2});
  CHECK(c.apart_handover == Approx(210e-9));
  CHECK(c.exchange_handovers == std::vector<double>{45e-9, 210e-9, 50e-9});
  CHECK(c.c2c_latency == Approx(40e-9));
  CHECK(c.rounds_near == 20);
  CHECK(c.rounds_apart == 10);
  CHECK(c.entries_filled == 0);
  // All apart: they are the tables, none apart.
  hh::Calibration d;
  d.c2c_latency = 200e-9;
  hh::sort_exchanges(d, {run({1, 1}, {1, 1}, 220e-9, true), run({2, 0.5}, {1, 1}, 230e-9, true)});
  CHECK(d.xwrite_bw == std::vector<double>{2, 1});
  CHECK(d.xwrite_bw_apart.empty());
  CHECK(d.apart_handover == 0);
  CHECK(d.exchange_handover == Approx(230e-9));
  // The ping-pong met only the apart placement, an exchange the near one:
  // the flags' latency is the near one.
  hh::Calibration e;
  e.c2c_latency = 209e-9;
  hh::sort_exchanges(e, {run({1, 1}, {1, 1}, 238e-9, true), run({7, 7}, {5, 5}, 49e-9, false)});
  CHECK(e.xwrite_bw == std::vector<double>{7, 7});
  CHECK(e.xwrite_bw_apart == std::vector<double>{1, 1});
  CHECK(e.exchange_handover == Approx(49e-9));
  CHECK(e.apart_handover == Approx(238e-9));
  CHECK(e.c2c_latency == Approx(49e-9));
}

TEST_CASE("an entry met in one placement only is filled from the other by the median ratio", "[host][calibrate]") {
  auto run = [](std::vector<double> w, bool apart) {
    hh::ExchangeRun r;
    r.tables.xwrite_bw = std::move(w);
    r.tables.xcopy_bw = {1, 1, 1, 1, 1};
    r.tables.xcma_bw = {1, 1, 1, 1, 1};
    r.tables.xread_bw = {1, 1, 1, 1, 1};
    r.handover = apart ? 220e-9 : 45e-9;
    r.apart = apart;
    return r;
  };
  hh::Calibration c;
  // Near misses entry 4, apart misses entry 0; ratios near/apart 3, 4, 2
  // (median 3) over the entries both have.
  hh::sort_exchanges(c, {run({0, 12, 8, 10, 9}, true), run({30, 36, 32, 20, 0}, false)});
  REQUIRE(c.xwrite_bw.size() == 5);
  CHECK(c.xwrite_bw[3] == 20);
  CHECK(c.xwrite_bw[4] == Approx(27));
  REQUIRE(c.xwrite_bw_apart.size() == 5);
  CHECK(c.xwrite_bw_apart[0] == Approx(10));
  CHECK(c.xwrite_bw_apart[1] == 12);
  CHECK(c.entries_filled == 2);
  // A second exchange that met the entry fills it with a measurement.
  hh::Calibration d;
  hh::sort_exchanges(d, {run({0, 12, 8, 10, 9}, true), run({30, 36, 32, 20, 0}, false), run({5, 0, 0, 0, 0}, true),
                         run({0, 0, 0, 0, 25}, false)});
  CHECK(d.xwrite_bw == std::vector<double>{30, 36, 32, 20, 25});
  CHECK(d.xwrite_bw_apart == std::vector<double>{5, 12, 8, 10, 9});
  CHECK(d.entries_filled == 0);
}

TEST_CASE("hand-overs split into placements at the widest gap over 2.5x", "[host][calibrate]") {
  // A VM's three measured levels: 17-30 ns and 40-60 ns are one placement (near), 190-240 ns another.
  CHECK(hh::placement_split({17e-9, 45e-9, 52e-9, 30e-9, 210e-9, 235e-9, 190e-9}) == Approx(std::sqrt(52e-9 * 190e-9)));
  CHECK(std::isinf(hh::placement_split({17e-9, 30e-9, 45e-9, 60e-9})));
  CHECK(std::isinf(hh::placement_split({200e-9, 230e-9, 0.0})));
  CHECK(std::isinf(hh::placement_split({})));
}

TEST_CASE("an exchange's rounds are sorted by the probes around their blocks", "[host][calibrate]") {
  hh::ExchangeRounds x;
  x.sizes = {1000};
  x.time.resize(1);
  x.before.resize(1);
  x.after.resize(1);
  // 24 double-copy rounds: 8 near (1 us each), 8 apart (4 us), 8 in blocks
  // whose placement changed (100 us, must not count); CMA never ran.
  for (int k = 0; k < 24; ++k) {
    const int kind = k / 8;
    for (std::size_t t : {0u, 1u}) {
      x.time[0][t].push_back(kind == 0 ? 1e-6 : kind == 1 ? 4e-6 : 100e-6);
      x.before[0][t].push_back(kind == 0 ? 40e-9 : kind == 1 ? 220e-9 : 45e-9);
      x.after[0][t].push_back(kind == 0 ? 50e-9 : 220e-9);
    }
  }
  int mixed = 0;
  const auto runs = hh::split_exchange(x, 100e-9, &mixed);
  REQUIRE(runs.size() == 2);
  CHECK_FALSE(runs[0].apart);
  CHECK(runs[0].tables.xwrite_bw[0] == Approx(1e9));
  CHECK(runs[0].tables.xcopy_bw[0] == Approx(1e9));
  CHECK(runs[0].tables.xcma_bw[0] == 0);
  CHECK(runs[0].rounds == 8);
  CHECK(runs[0].handover == Approx(50e-9));
  CHECK(runs[1].apart);
  CHECK(runs[1].tables.xwrite_bw[0] == Approx(0.25e9));
  CHECK(runs[1].handover == Approx(220e-9));
  CHECK(mixed == 8);
  // Too few rounds in a placement (2 of 24 < max(3, 24/8)): no entry for it.
  for (int k = 0; k < 22; ++k) x.before[0][0][k] = x.after[0][0][k] = 220e-9;
  x.before[0][0][22] = x.after[0][0][22] = x.before[0][0][23] = x.after[0][0][23] = 40e-9;
  const auto few = hh::split_exchange(x, 100e-9);
  REQUIRE(few.size() == 2);
  CHECK(few[0].tables.xwrite_bw[0] == 0);
  CHECK(few[1].tables.xwrite_bw[0] > 0);
}

TEST_CASE("memcpy reference: 64 KiB copies are not slowed by a misaligned destination", "[host][calibrate]") {
  // Heap buffers 16 bytes off a line made 64 KiB copies run at 3 GB/s here
  // against 37 at 1 MiB (the ring's /memcpy column read 2.0). Cached 64 KiB
  // copies go at least as fast as 1 MiB ones on any machine we know.
  const double small_bw = hh::memcpy_bandwidth(64 * 1024, 0.02), big_bw = hh::memcpy_bandwidth(1 << 20, 0.02);
  INFO("64 KiB " << small_bw / 1e9 << " GB/s, 1 MiB " << big_bw / 1e9 << " GB/s");
  CHECK(small_bw > 0.4 * big_bw);
}
