// The host model: exact timings computed by hand for small cases, and the
// strict reading of profiles.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "hopsim/core/error.hpp"
#include "hopsim/host/model/model.hpp"
#include "hopsim/host/model/profile.hpp"
#include "hopsim/host/model/report.hpp"

namespace hh = hopsim::host::model;

namespace {
// Flat tables make hand computation easy.
hh::Profile flat() {
  hh::Profile p;
  p.name = "flat";
  p.cores = 2;
  p.core_speed = {1.0, 1.0};
  p.sizes = {4096, 1 << 24};
  p.memcpy_bw = {4e9, 4e9};
  p.memcpy_bw_all = {100e9, 100e9};
  p.read_bw = {2e9, 2e9};
  p.cma_bw = {1e9, 1e9};
  // Exchanges between two cores at the single-process rates, unless a test says otherwise.
  p.xwrite_bw = p.memcpy_bw;
  p.xcopy_bw = p.memcpy_bw;
  p.xcma_bw = p.cma_bw;
  p.xread_bw = p.read_bw;
  p.c2c_latency = 1e-6;
  p.syscall = 1e-7;
  p.switch_cost = 0;
  p.cma_call = 1e-6;
  p.cma_per_page = 1e-7;
  p.remap_call = 1e-5;
  p.remap_per_page = 1e-7;
  for (const char* k :
       {"cores",         "core_speed",      "sizes",          "memcpy_bw",        "memcpy_bw_all", "read_bw",
        "cma_bw",        "xwrite_bw",       "xcopy_bw",       "xcma_bw",          "xread_bw",      "step8_double",
        "step8_cma",     "step8_zero",      "c2c_latency",    "syscall",          "switch_cost",   "cma_call",
        "cma_per_page",  "remap_call",      "remap_per_page", "spin_time",        "yield_delay",   "yield_delay_median",
        "preempt_slice", "background_load", "checksum_rate",  "switch_cost_many", "cma_ok"})
    p.sources[k] = "test";
  return p;
}

// flat() over four table sizes: memcpy as given, double copy's exchange
// (copy in and out) at `xcopy`; the memory system at 1 TB/s, reads at
// 20 GB/s, CMA at 1 GB/s.
hh::Profile four_sizes(std::vector<double> sizes, std::vector<double> memcpy, std::vector<double> xcopy) {
  auto p = flat();
  p.sizes = std::move(sizes);
  p.memcpy_bw = std::move(memcpy);
  p.memcpy_bw_all = {1e12, 1e12, 1e12, 1e12};
  p.read_bw = {20e9, 20e9, 20e9, 20e9};
  p.cma_bw = {1e9, 1e9, 1e9, 1e9};
  p.xwrite_bw = xcopy;
  p.xcopy_bw = std::move(xcopy);
  p.xcma_bw = p.cma_bw;
  p.xread_bw = p.read_bw;
  return p;
}

// flat() with switches and spins that cost something: for rings with
// several processes per core.
hh::Profile sharing_profile() {
  auto p = flat();
  p.switch_cost = 5e-6;
  p.spin_time = 1e-6;
  return p;
}

// 8 processes on flat()'s 2 cores, 4 MiB messages, 4 steps, one cycle order.
hh::SimCell eight_on_two(hh::CopyPath path) {
  hh::SimCell c;
  c.procs = 8;
  c.path = path;
  c.size = 4 << 20;
  c.iters = 4;
  c.orders = 1;
  return c;
}

// A predict-report row of 2 processes: native steady at `native` B/s.
hh::PredictRow report_row(std::size_t size, const char* transport, double native, double predicted) {
  hh::PredictRow r;
  r.procs = 2;
  r.size = size;
  r.requested = r.used = r.used_text = transport;
  r.native = r.native_min = r.native_max = native;
  r.predicted = predicted;
  return r;
}

// A cell of `procs` processes exchanging `size`-byte messages `iters` times per repetition.
hh::SimCell cell(hh::CopyPath path, std::size_t size, int iters, int reps, int procs = 2) {
  hh::SimCell c;
  c.path = path;
  c.size = size;
  c.iters = iters;
  c.reps = reps;
  c.procs = procs;
  return c;
}

// One cell per path: 1 MiB messages, 4 steps, 2 processes; double copy in
// one chunk through one slot, so its time is easy to compute by hand.
std::vector<hh::SimCell> cells_of(std::initializer_list<hh::CopyPath> paths) {
  std::vector<hh::SimCell> cells;
  for (auto path : paths) {
    hh::SimCell c;
    c.path = path;
    c.size = 1 << 20;
    c.iters = 4;
    if (path == hh::CopyPath::double_copy) {
      c.chunk = 1 << 20;
      c.slots = 1;
    }
    cells.push_back(c);
  }
  return cells;
}
}  // namespace

TEST_CASE("host model: timings of the three paths on an idle two-core machine", "[host][model]") {
  const auto p = flat();
  const double S = 1 << 20, L = 1e-6;
  auto cells = cells_of({hh::CopyPath::zero_copy, hh::CopyPath::zero_copy, hh::CopyPath::cma, hh::CopyPath::double_copy,
                         hh::CopyPath::cma});  // double copy: one chunk per message, one slot
  cells[1].remap = true;
  cells[4].cma_buffers = 0;  // rendezvous
  const auto r = hh::simulate_ring(p, cells);
  // Zero copy: control message (L), then the checksum read (S / read_bw).
  CHECK(r[0].seconds == Approx(4 * (L + S / 2e9)).epsilon(1e-9));
  // Remap adds remap_call + 256 pages per message.
  CHECK(r[1].seconds == Approx(4 * (L + 1e-5 + 256 * 1e-7 + S / 2e9)).epsilon(1e-9));
  // CMA from transport buffers: post (L), pull (S / cma_bw), read; the
  // sender does not wait for its message's pull.
  CHECK(r[2].seconds == Approx(4 * (L + S / 1e9 + S / 2e9)).epsilon(1e-9));
  // CMA rendezvous: post (L), pull, done flag (L), read.
  CHECK(r[4].seconds == Approx(4 * (2 * L + S / 1e9 + S / 2e9)).epsilon(1e-9));
  // Double copy, one slot: copy in (S / memcpy_bw), flag (L), copy out, free
  // slot seen by the next message... each step: in, L, out, read; the slot
  // was freed by the copy-out one L before it is needed again.
  CHECK(r[3].seconds == Approx(4 * (2 * S / 4e9 + L + S / 2e9)).epsilon(1e-9));
  CHECK(r[0].bandwidth == Approx(S * 4 / r[0].seconds));
}

TEST_CASE("host model: a memory system too slow for both cores slows both", "[host][model]") {
  auto p = flat();
  // Two reads at 2e9 B/s each ask for 4e9 B/s; the memory system gives
  // 2 x memcpy_bw_all = 2e9 B/s: every read takes twice as long.
  p.memcpy_bw_all = {1e9, 1e9};
  hh::SimCell c;
  c.path = hh::CopyPath::zero_copy;
  c.size = 1 << 20;
  c.iters = 3;
  const auto r = hh::simulate_ring(p, {c});
  CHECK(r[0].seconds == Approx(3 * (1e-6 + 2 * double(1 << 20) / 2e9)).epsilon(1e-9));
}

TEST_CASE("host model: one process per core never hands a core over", "[host][model]") {
  auto p = flat();
  p.memcpy_bw_all = {1e12, 1e12};
  p.switch_cost = 5e-6;
  p.spin_time = 2e-6;
  p.cores = 4;
  hh::SimCell c;
  c.path = hh::CopyPath::zero_copy;
  c.size = 1 << 20;
  c.iters = 3;
  c.procs = 4;
  const auto r = hh::simulate_ring(p, {c});
  CHECK(r[0].yields == 0);
  // As on the idle two-core machine: control message, then the read.
  CHECK(r[0].seconds == Approx(3 * (1e-6 + double(1 << 20) / 2e9)).epsilon(1e-9));
}

TEST_CASE("host model: more processes than cores hand the cores over", "[host][model]") {
  auto p = flat();
  p.memcpy_bw_all = {1e12, 1e12};
  p.spin_time = 2e-6;
  p.switch_cost = 5e-6;
  hh::SimCell four;
  four.path = hh::CopyPath::zero_copy;
  four.size = 4096;
  four.iters = 200;
  four.procs = 4;  // two ranks per core: each step both must run on it
  auto two = four;
  two.procs = 2;
  const auto r = hh::simulate_ring(p, {four, two});
  const double read = 4096 / 2e9;
  // Two processes on two cores never yield; four do, at least once per
  // step and rank, and each core then does two reads and two switches a step.
  CHECK(r[1].yields == 0);
  CHECK(r[0].yields >= 0.95);
  CHECK(r[0].seconds >= 0.98 * four.iters * 2 * (read + p.switch_cost));
  CHECK(r[0].bandwidth < 0.5 * r[1].bandwidth);
}

namespace {
// One core, 1 us spin, 5 us switch between two.
hh::Profile one_core() {
  auto p = flat();
  p.cores = 1;
  p.core_speed = {1.0};
  p.spin_time = 1e-6;
  p.switch_cost = 5e-6;
  return p;
}
// A ring of 8-byte zero-copy messages, 400 steps, one cycle order (from `seed`).
hh::SimCell small_messages(int procs, std::uint64_t seed) {
  hh::SimCell c;
  c.path = hh::CopyPath::zero_copy;
  c.size = 8;
  c.iters = 400;
  c.procs = procs;
  c.orders = 1;
  c.seed = seed;
  return c;
}
}  // namespace

TEST_CASE("host model: a yield hands the core round a fixed cycle", "[host][model]") {
  // Four ring processes on one core, 8-byte zero-copy messages: in a fixed
  // cycle (traced natively: the kernel runs the processes sharing a CPU
  // round in a fixed order) every process gets one turn per cycle and has
  // its message by then, so a step takes one hand-over per rank, whatever
  // the order (natively, 8 processes on 2 CPUs: 1.10 context switches per
  // rank and step, perf stat); a uniform pick at every yield needs about
  // three (simulated: 1.6-4.0).
  std::vector<hh::SimCell> cells;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) cells.push_back(small_messages(4, seed));  // six cycle orders
  for (const auto& x : hh::simulate_ring(one_core(), cells)) {
    CHECK(x.yields > 0.99);
    CHECK(x.yields < 1.01);
  }
}

TEST_CASE("host model: a switch among four or more processes costs switch_cost_many", "[host][model]") {
  auto p = one_core();
  p.switch_cost_many = 20e-6;
  const auto r = hh::simulate_ring(p, {small_messages(4, 1), small_messages(2, 1)});
  // One hand-over per step and rank (see the fixed cycle): 4 of 20 us a step, 2 of 5 us.
  CHECK(r[0].seconds > 0.97 * 400 * 4 * 20e-6);
  CHECK(r[0].seconds < 1.2 * 400 * 4 * (20e-6 + 2e-6));
  CHECK(r[1].seconds < 400 * 2 * 10e-6);
}

TEST_CASE("host model: CMA's copy slows with the buffers of the processes sharing a core", "[host][model]") {
  // Rendezvous (no transport buffers) first: each rank waits for its own pull.
  // 8 processes on 2 cores, 4 MiB: each core's 4 ranks pull 4 x 4 MiB a
  // step from the other core's buffers, so the copy part of a pull goes at
  // the exchange's rate for 16 MiB, not for 4 MiB (the call stays one per
  // message): per byte 1/xcma(S) + (1/xcma(4S) - c/4S) - (1/xcma(S) - c/S),
  // c the call as the exchange meets it.
  auto p = sharing_profile();
  p.xcma_bw = {1e9, 0.5e9};  // log-log: 0.561 GB/s at 4 MiB, 0.5 at 16 MiB
  auto c = eight_on_two(hh::CopyPath::cma);
  c.cma_buffers = 0;
  const double S = c.size;
  CHECK(p.at(p.xcma_bw, S) == Approx(0.561e9).epsilon(0.01));
  const double call = hh::cma_call_exchanged(p);
  CHECK(call == Approx(1e-6));
  const double per_byte =
      1 / p.at(p.xcma_bw, S) + (1 / p.at(p.xcma_bw, 4 * S) - call / (4 * S)) - (1 / p.at(p.xcma_bw, S) - call / S);
  const auto r = hh::simulate_ring(p, {c});
  // Each core makes 4 pulls and 4 checksums (read_bw 2 GB/s) per step, one
  // after another; flags and hand-overs add microseconds to 42 ms. Pulls at
  // xcma(4 MiB), or slowed by memcpy's curve (flat here), would take 38 ms.
  const double step = 4 * S * (per_byte + 1 / 2e9);
  CHECK(r[0].seconds > 0.98 * c.iters * step);
  CHECK(r[0].seconds < 1.05 * c.iters * step);
  // With transport buffers the same: the core's caches hold its ranks'
  // buffers either way (without the term for them, 86 of 132 CMA cells
  // within 25% over 11 rounds, with it 100).
  c.cma_buffers = 4;
  const auto b = hh::simulate_ring(p, {c});
  CHECK(b[0].seconds > 0.98 * c.iters * step);
  CHECK(b[0].seconds < 1.05 * c.iters * step);
  const double step_own = 4 * S * (1 / p.at(p.xcma_bw, S) + 1 / 2e9);
  CHECK(step_own < 0.95 * step);  // the pull at its own size's rate would be told apart
}

TEST_CASE("host model: zero copy's read slows with the buffers of the processes sharing a core", "[host][model]") {
  // 8 processes on 2 cores, 4 MiB: each core's 4 ranks read 4 x 4 MiB of
  // their left neighbours' pool buffers in place a step, so each read goes
  // at the checksum table's rate for 16 MiB, not for 4 MiB (249 of 312
  // zero-copy cells within 25% over 26 rounds with it, 241 without).
  auto p = sharing_profile();
  p.read_bw = {2e9, 0.5e9};  // log-log: 0.63 GB/s at 4 MiB, 0.5 at 16 MiB
  auto c = eight_on_two(hh::CopyPath::zero_copy);
  const double S = c.size;
  CHECK(p.at(p.read_bw, S) == Approx(0.63e9).epsilon(0.01));
  const auto r = hh::simulate_ring(p, {c});
  // Each core makes 4 reads per step, one after another (33.6 ms); flags
  // and hand-overs add microseconds.
  const double step = 4 * S / p.at(p.read_bw, 4 * S);
  CHECK(r[0].seconds > 0.98 * c.iters * step);
  CHECK(r[0].seconds < 1.05 * c.iters * step);
  const double step_own = 4 * S / p.at(p.read_bw, S);
  CHECK(step_own < 0.95 * step);  // the read at its own size's rate would be told apart
  // Alone on its core (2 processes) the read goes at its own size's rate.
  c.procs = 2;
  const auto two = hh::simulate_ring(p, {c});
  CHECK(two[0].seconds > 0.98 * c.iters * S / p.at(p.read_bw, S));
  CHECK(two[0].seconds < 1.05 * c.iters * S / p.at(p.read_bw, S));
}

TEST_CASE("host model: with three or more processes on a core the median over cycle orders counts", "[host][model]") {
  // No background (flat()), so the cycle order is the only thing the seeds
  // change: a cell of 7 orders from seed s is the median of the cells of
  // one order from seeds s .. s + 6.
  auto p = flat();
  p.switch_cost = 5e-6;
  p.spin_time = 1e-6;
  hh::SimCell c;
  c.procs = 8;
  c.path = hh::CopyPath::zero_copy;
  c.size = 4096;
  c.iters = 50;
  c.seed = 10;
  c.orders = 7;
  std::vector<hh::SimCell> cells{c};
  for (int o = 0; o < 7; ++o) {
    auto one = c;
    one.orders = 1;
    one.seed = c.seed + static_cast<std::uint64_t>(o);
    cells.push_back(one);
  }
  CHECK(hh::cycle_orders(c, 2) == 7);
  CHECK(hh::cycle_orders(c, 4) == 1);  // two per core: one cycle
  const auto r = hh::simulate_ring(p, cells);
  std::vector<double> t;
  for (std::size_t i = 1; i < r.size(); ++i) t.push_back(r[i].seconds);
  std::sort(t.begin(), t.end());
  CHECK(r[0].seconds == Approx(t[3]).epsilon(1e-12));
  CHECK(t.front() < t.back());  // the orders do differ
}

TEST_CASE("host model: a slower core sets the ring's pace", "[host][model]") {
  auto p = flat();
  p.core_speed = {1.0, 0.5};  // core 1 takes twice as long for the same work
  const double S = 1 << 20, L = 1e-6;
  const auto r = hh::simulate_ring(p, cells_of({hh::CopyPath::zero_copy}));
  // Rank 1 reads at half the rate and, after the first control message,
  // never waits (rank 0 is always ahead); rank 0 waits for rank 1 every step.
  CHECK(r[0].seconds == Approx(L + 4 * S / 1e9).epsilon(1e-6));
}

TEST_CASE("host model: a cell's own core speeds replace the profile's", "[host][model]") {
  // The profile's cores are equal (flat()); the second cell's run says core
  // 1 ran at half speed: it takes the time of "a slower core sets the
  // ring's pace", the first that of equal cores.
  auto c = cells_of({hh::CopyPath::zero_copy, hh::CopyPath::zero_copy});
  c[1].core_speed = {1.0, 0.5};
  const double S = 1 << 20, L = 1e-6;
  const auto r = hh::simulate_ring(flat(), c);
  CHECK(r[1].seconds == Approx(L + 4 * S / 1e9).epsilon(1e-6));
  CHECK(r[0].seconds < 0.6 * r[1].seconds);
}

TEST_CASE("host model: core speeds for another number of cores are rejected", "[host][model]") {
  auto c = cells_of({hh::CopyPath::zero_copy});
  c[0].core_speed = {1.0, 1.0, 1.0};
  CHECK_THROWS_WITH(hh::simulate_ring(flat(), c), Catch::Contains("3 core speeds for a profile of 2 cores"));
}

TEST_CASE("host model: processes outnumbering cores need a switch cost", "[host][model]") {
  auto p = flat();
  hh::SimCell c;
  c.procs = 3;
  CHECK_THROWS_WITH(hh::simulate_ring(p, {c}), Catch::Contains("switch_cost 0 (must be positive)"));
}

TEST_CASE("host model: background bursts take their fair share of the cores", "[host][model]") {
  auto p = flat();
  p.memcpy_bw_all = {1e12, 1e12};
  hh::SimCell c;
  c.path = hh::CopyPath::zero_copy;
  c.size = 1 << 20;
  c.iters = 400;
  c.procs = 2;
  // One other runnable process per core, in bursts of 100 us: half of each core.
  p.background_load = 2;
  p.preempt_slice = 100e-6;
  const auto r = hh::simulate_ring(p, {c});
  const double t_idle = c.iters * (1e-6 + double(1 << 20) / 2e9);
  CHECK(r[0].background / r[0].seconds == Approx(0.5).epsilon(0.15));
  // Each core can work only half the time, and the ring needs both.
  CHECK(r[0].seconds >= 0.95 * 2 * t_idle);
}

TEST_CASE("host model: double copy slows once its working set outgrows the cached sizes", "[host][model]") {
  // A cache of about 2 MiB: memcpy at 80 GB/s up to 1 MiB, 20 GB/s from 4 MiB.
  auto p = four_sizes({4096, 1 << 20, 1 << 22, 1 << 24}, {80e9, 80e9, 20e9, 20e9}, {80e9, 80e9, 20e9, 20e9});
  std::vector<hh::SimCell> cells(2);
  cells[0].size = 256 << 10;
  cells[1].size = 4 << 20;
  for (auto& c : cells) {
    c.chunk = c.size;  // one chunk per message, one slot: the time by hand
    c.slots = 1;
    c.iters = 4;
  }
  // Working set: message + slot (one process per core).
  CHECK(hh::double_copy_working_set(cells[0], 2) == Approx(512 << 10));
  CHECK(hh::double_copy_working_set(cells[1], 2) == Approx(8 << 20));
  auto eight = cells[1];
  eight.procs = 8;  // four processes share each core's caches
  CHECK(hh::double_copy_working_set(eight, 2) == Approx(4.0 * (8 << 20)));
  const auto r = hh::simulate_ring(p, cells);
  for (int i = 0; i < 2; ++i) {
    const double S = double(cells[i].size);
    const double bw = p.at(p.memcpy_bw, hh::double_copy_working_set(cells[i], 2));
    CHECK(r[i].seconds == Approx(4 * (2 * S / bw + 1e-6 + S / 20e9)).epsilon(1e-9));
  }
  CHECK(p.at(p.memcpy_bw, 512 << 10) == Approx(80e9));
  CHECK(p.at(p.memcpy_bw, 8 << 20) == Approx(20e9));
  // Per step 2 S / 20 GB/s + S / 20 GB/s against 2 S / 80 GB/s + S / 20 GB/s.
  CHECK(r[1].bandwidth < 0.6 * r[0].bandwidth);
}

TEST_CASE("host model: a double-copy receive pays the exchange and the working set's slowdown, a send the exchange",
          "[host][model]") {
  // 1 MiB through 4 slots of 64 KiB, 2 processes: working set 1.25 MiB,
  // where memcpy runs at 40 GB/s against 80 at the chunk's 64 KiB; the
  // exchange moves a 64 KiB chunk at 32 GB/s. A received chunk per byte:
  // 1/32 + (1/40 - 1/80) ns, 22.9 GB/s (the slower of the two alone would
  // give 32 GB/s). A sent chunk only reads the private send buffer: 1/32 ns,
  // without the slowdown.
  auto p = four_sizes({4096, 64 << 10, 1 << 20, 1 << 24}, {80e9, 80e9, 40e9, 40e9}, {32e9, 32e9, 32e9, 32e9});
  p.c2c_latency = 1e-7;
  hh::SimCell c;
  c.size = 1 << 20;
  c.chunk = 64 << 10;
  c.slots = 4;
  c.iters = 8;
  const double S = c.size;
  CHECK(hh::double_copy_working_set(c, 2) == Approx(1.25 * (1 << 20)));
  const double recv_per_byte = 1 / 32e9 + (1 / p.at(p.memcpy_bw, 1.25 * (1 << 20)) - 1 / 80e9);
  CHECK(recv_per_byte == Approx(1 / 32e9 + 1 / 80e9));
  // 16 chunks out, 16 in, the checksum: 131 us a step; both copies paying
  // the slowdown would take 144, neither 118.
  const double step = S / 32e9 + S * recv_per_byte + S / 20e9;
  const auto r = hh::simulate_ring(p, {c});
  CHECK(r[0].seconds / c.iters > 0.98 * step);
  CHECK(r[0].seconds / c.iters < 1.04 * step);
}

TEST_CASE("predict report: per-cell error, spread and the count within the limit", "[host][report]") {
  std::vector<hh::PredictRow> rows(2);
  rows[0].procs = 2;
  rows[0].size = 4096;
  rows[0].requested = rows[0].used = rows[0].used_text = "cma";
  rows[0].native = 100e6;
  rows[0].native_min = 90e6;
  rows[0].native_max = 150e6;  // spread 67%
  rows[0].runs = 3;
  rows[0].predicted = 120e6;  // +20%
  rows[1] = rows[0];
  rows[1].size = 1 << 20;
  rows[1].native_min = 95e6;
  rows[1].native_max = 110e6;
  rows[1].predicted = 50e6;  // -50%
  const auto rep = hh::predict_report(rows, 0.25);
  CHECK(rep.cells == 2);
  CHECK(rep.within == 1);
  CHECK(rep.noisy == 1);
  CHECK(rep.worst == Approx(0.5));
  CHECK(rep.mean == Approx(0.35));
  CHECK_THAT(rep.table, Catch::Contains("+20.0%"));
  CHECK_THAT(rep.table, Catch::Contains("-50.0%"));
  CHECK_THAT(rep.table, Catch::Contains("1 MiB"));
  CHECK_THAT(rep.table,
             Catch::Contains("1 of 2 cells within 25% (* marks the others); mean |error| 35.0%, worst 50.0%; "
                             "1 cell(s) whose native runs differ by more than 25%"));
  CHECK_THAT(rep.csv, Catch::StartsWith("procs,size,transport,used,native_MBps,native_min_MBps,native_max_MBps,"));
  CHECK_THAT(rep.csv, Catch::Contains("\n2,4096,cma,cma,100.0,90.0,150.0,3,120.0,0.2000,1,"));
  CHECK_THAT(rep.csv, Catch::Contains("\n2,1048576,cma,cma,100.0,95.0,110.0,3,50.0,-0.5000,0,"));
}

TEST_CASE("predict report: probed CPU speeds per cell and the cells that ran on a changed machine", "[host][report]") {
  std::vector<hh::PredictRow> rows(2, report_row(4096, "zero-copy", 100e6, 100e6));
  rows[0].speed = {0.98, 0.97};
  rows[0].drift = 0.03;
  rows[1].speed = {0.97, 0.61};
  rows[1].drift = 0.37;
  const auto rep = hh::predict_report(rows, 0.25);
  CHECK(rep.drifted == 1);
  CHECK_THAT(rep.table, Catch::Contains("CPU speeds"));
  CHECK_THAT(rep.table, Catch::Contains("0.97 0.61 ~"));
  CHECK_THAT(rep.table, !Catch::Contains("0.98 0.97 ~"));
  CHECK_THAT(rep.table, Catch::Contains("1 cell(s) ran with a CPU more than 10% off its calibrated speed"));
  CHECK_THAT(rep.csv, Catch::Contains(",cpu_speeds,speed_drift,"));
  CHECK_THAT(rep.csv, Catch::Contains(",\"0.97 0.61\",0.370,"));
  // Not probed: no column, no line.
  for (auto& r : rows) r.speed.clear();
  const auto plain = hh::predict_report(rows, 0.25);
  CHECK_THAT(plain.table, !Catch::Contains("CPU speeds"));
  CHECK_THAT(plain.table, !Catch::Contains("calibrated speed"));
}

TEST_CASE("predict report: each cell's CPU placement, and the cells that ran in another than the profile's",
          "[host][report]") {
  std::vector<hh::PredictRow> rows(3, report_row(65536, "double-copy", 100e6, 110e6));
  for (auto& r : rows) {
    r.profile_handover = 45e-9;
    r.handover = 50e-9;
  }
  rows[1].handover = 230e-9;  // apart: ran at half the prediction
  rows[1].moved = true;
  rows[1].native = rows[1].native_min = rows[1].native_max = 50e6;
  rows[2].predicted = 200e6;  // near, and off
  const auto rep = hh::predict_report(rows, 0.25);
  CHECK(rep.moved == 1);
  CHECK(rep.moved_within == 0);
  CHECK_THAT(rep.table, Catch::Contains("hand-over"));
  CHECK_THAT(rep.table, Catch::Contains("230 ns ^"));
  CHECK_THAT(rep.table, !Catch::Contains("50 ns ^"));
  CHECK_THAT(rep.table, Catch::Contains("1 cell(s) ran with the CPUs placed otherwise than when the profile's exchange "
                                        "tables were measured"));
  CHECK_THAT(rep.table, Catch::Contains("against the profile's 45 ns"));
  CHECK_THAT(rep.table, Catch::Contains("1 of the other 2 cells within 25%"));
  CHECK_THAT(rep.csv,
             Catch::Contains(",native_handover_ns,profile_handover_ns,placement_moved,modelled_apart,order\n"));
  CHECK_THAT(rep.csv, Catch::Contains(",230.0,45.0,1,0,natural\n"));
  CHECK_THAT(rep.csv, Catch::Contains(",50.0,45.0,0,0,natural\n"));
  // Not probed: no column, no line, -1 in the CSV.
  for (auto& r : rows) {
    r.handover = -1;
    r.moved = false;
  }
  const auto plain = hh::predict_report(rows, 0.25);
  CHECK_THAT(plain.table, !Catch::Contains("hand-over"));
  CHECK_THAT(plain.table, !Catch::Contains("placed otherwise"));
  CHECK_THAT(plain.csv, Catch::Contains(",-1.0,45.0,0,0,natural\n"));
  // Simulated on the apart tables: marked +, counted, not among the moved.
  rows[1].handover = 230e-9;
  rows[1].modelled_apart = true;
  const auto both = hh::predict_report(rows, 0.25);
  CHECK(both.apart == 1);
  CHECK(both.moved == 0);
  CHECK_THAT(both.table, Catch::Contains("230 ns +"));
  CHECK_THAT(both.table, Catch::Contains("1 cell(s) ran with the CPUs apart and were simulated on the profile's tables "
                                         "measured apart"));
  CHECK_THAT(both.csv, Catch::Contains(",230.0,45.0,0,1,natural\n"));
  // A random ring's cells: an order column in the table, the order in the CSV.
  CHECK_THAT(both.table, !Catch::Contains(" order "));
  rows[2].order = "random";
  const auto mixed = hh::predict_report(rows, 0.25);
  CHECK_THAT(mixed.table, Catch::Contains("    order"));
  CHECK_THAT(mixed.table, Catch::Contains("64 KiB   random"));
  CHECK_THAT(mixed.table, Catch::Contains("64 KiB  natural"));
  CHECK_THAT(mixed.csv, Catch::Contains(",random\n"));
}

TEST_CASE("host model: data that crosses cores moves at the exchange rates, on one core at the local ones",
          "[host][model]") {
  auto p = flat();
  p.xwrite_bw = {1e9, 1e9};    // a quarter of memcpy_bw
  p.xcopy_bw = {2e9, 2e9};     // half of memcpy_bw
  p.xcma_bw = {0.5e9, 0.5e9};  // half of cma_bw
  p.xread_bw = {1e9, 1e9};     // half of read_bw
  const double S = 1 << 20, L = 1e-6;
  const auto cells = cells_of({hh::CopyPath::zero_copy, hh::CopyPath::cma, hh::CopyPath::double_copy});
  const auto r = hh::simulate_ring(p, cells);
  // Zero copy reads a pool buffer its owner does not rewrite: unchanged.
  CHECK(r[0].seconds == Approx(4 * (L + S / 2e9)).epsilon(1e-9));
  // CMA: post, pull at xcma_bw, checksum at xread_bw.
  CHECK(r[1].seconds == Approx(4 * (L + S / 0.5e9 + S / 1e9)).epsilon(1e-9));
  // Double copy, one slot: in at xwrite_bw, flag, out at xcopy_bw, checksum
  // of a private buffer at read_bw (the slot is free again long before).
  CHECK(r[2].seconds == Approx(4 * (S / 1e9 + L + S / 2e9 + S / 2e9)).epsilon(1e-9));
}

TEST_CASE("host model: on one core nothing crosses, the local rates count", "[host][model]") {
  auto p = flat();
  p.xcma_bw = {0.5e9, 0.5e9};
  p.xread_bw = {1e9, 1e9};
  const double S = 1 << 20;
  auto one = p;
  one.cores = 1;
  one.switch_cost = 1e-6;
  const auto r1 = hh::simulate_ring(one, cells_of({hh::CopyPath::cma}));
  // Each step both ranks write and read at the local rates, one after the other on the core.
  CHECK(r1[0].seconds >= 4 * 2 * (S / 1e9 + S / 2e9));
  CHECK(r1[0].seconds < 4 * 2 * (S / 0.5e9 + S / 1e9));
}

TEST_CASE("host model: an 8-byte step takes the measured 8-byte step of each transport", "[host][model]") {
  auto p = flat();
  p.step8_double = 5e-6;
  p.step8_zero = 3e-6;
  p.step8_cma = 9e-6;  // with cma_call 1e-6 and c2c_latency 1e-6: 7 us of protocol beyond the flag and the call
  CHECK(hh::step_overhead(p, hh::CopyPath::double_copy) == Approx(4e-6));
  CHECK(hh::step_overhead(p, hh::CopyPath::zero_copy) == Approx(2e-6));
  CHECK(hh::step_overhead(p, hh::CopyPath::cma) == Approx(7e-6));
  std::vector<hh::SimCell> cells(3);
  cells[0].path = hh::CopyPath::double_copy;
  cells[1].path = hh::CopyPath::zero_copy;
  cells[2].path = hh::CopyPath::cma;
  for (auto& c : cells) {
    c.size = 8;
    c.iters = 100;
  }
  const auto r = hh::simulate_ring(p, cells);
  // The data terms of 8 bytes are nanoseconds; the step is the measured one
  // (for CMA less the call, which the model's CMA rate at 4 KiB carries).
  CHECK(r[0].seconds / 100 == Approx(5e-6).epsilon(0.01));
  CHECK(r[1].seconds / 100 == Approx(3e-6).epsilon(0.01));
  CHECK(r[2].seconds / 100 == Approx(9e-6 - 1e-6).epsilon(0.01));
  // A profile without the measurement (0) adds nothing.
  CHECK(hh::step_overhead(flat(), hh::CopyPath::cma) == 0.0);
}

TEST_CASE("host model: the CMA call's exchange extra is counted once", "[host][model]") {
  // The 8-byte step was measured with both processes pulling at once; so
  // was the 4 KiB pull of the exchange table. Here the exchange makes the
  // 4 KiB pull 2 us slower than alone (4 us at 1 GB/s alone, 6 us
  // exchanged): the step's protocol part is what remains beyond a call
  // that also took 2 us longer.
  auto p = flat();
  p.step8_cma = 9e-6;
  p.xcma_bw = {4096 / 6.096e-6, 1e9};
  CHECK(hh::cma_call_exchanged(p) == Approx(1e-6 + 2e-6));
  CHECK(hh::step_overhead(p, hh::CopyPath::cma) == Approx(9e-6 - 1e-6 - 3e-6));
  // One 4 KiB step: protocol 5 us + one flag 1 us + the exchanged pull
  // 6.096 us + the checksum 2.048 us. Subtracting only the lone call would
  // give a protocol part of 7 us and a step 2 us longer.
  hh::SimCell c;
  c.path = hh::CopyPath::cma;
  c.size = 4096;
  c.iters = 100;
  const auto r = hh::simulate_ring(p, {c});
  CHECK(r[0].seconds / 100 == Approx(5e-6 + 1e-6 + 6.096e-6 + 2.048e-6).epsilon(0.02));
  // Never below the lone call (an exchange faster than alone), and the lone
  // call without exchange tables.
  p.xcma_bw = {2e9, 2e9};
  CHECK(hh::cma_call_exchanged(p) == Approx(1e-6));
  p.xcma_bw.clear();
  CHECK(hh::cma_call_exchanged(p) == Approx(1e-6));
}

TEST_CASE("host model: a flag latency finer than the time resolution is seen when its event fires", "[host][model]") {
  // A calibrated latency of 167.11012 ns fires at 167.110 ns (1 ps
  // resolution); a process alone on its core that spun out waits for that
  // one event. Compared in seconds the value would still be pending then
  // and the ring would stand still for ever (`host predict` would hang on
  // such a profile); compared in SystemC time it is seen.
  auto p = flat();
  p.c2c_latency = 1.6711011994630097e-07;
  p.spin_time = 1e-7;
  p.yield_delay = p.yield_delay_median = 1e-6;
  std::vector<hh::SimCell> cells;
  for (auto path : {hh::CopyPath::zero_copy, hh::CopyPath::double_copy, hh::CopyPath::cma})
    cells.push_back(cell(path, 4096, 50, 2));
  const auto r = hh::simulate_ring(p, cells);
  REQUIRE(r.size() == 3);
  for (const auto& x : r) {
    CHECK(x.seconds > 0);
    CHECK(x.seconds < 50 * 100e-6);  // microseconds a step, not a stall
  }
}

TEST_CASE("host model rejects a ring of one and CMA on a machine without it", "[host][model]") {
  auto p = flat();
  hh::SimCell c;
  c.procs = 1;
  CHECK_THROWS_WITH(hh::simulate_ring(p, {c}), Catch::Contains("a ring of 1 process"));
  c.procs = 2;
  c.path = hh::CopyPath::cma;
  p.cma_ok = false;
  CHECK_THROWS_WITH(hh::simulate_ring(p, {c}), Catch::Contains("CMA is not available"));
}

TEST_CASE("profiles round-trip and bad ones are rejected naming the key", "[host][profile]") {
  const auto p = flat();
  const auto j = p.to_json();
  const auto q = hh::Profile::from_json(j, "t.json");
  CHECK(q.cores == 2);
  CHECK(q.read_bw == p.read_bw);
  CHECK(q.c2c_latency == p.c2c_latency);
  CHECK(q.spin_time == p.spin_time);
  CHECK(q.preempt_slice == p.preempt_slice);
  CHECK(q.at(q.memcpy_bw, 65536) == Approx(4e9));

  auto bad = j;
  bad["params"]["l3_size"] = {{"value", 1}, {"unit", "B"}, {"source", "x"}};
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"), Catch::Contains("t.json.params.l3_size: unknown parameter"));
  bad = j;
  bad["params"]["c2c_latency"]["unit"] = "ns";
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"),
                    Catch::Contains("c2c_latency.unit: 'ns' but this parameter is in s"));
  bad = j;
  bad["params"].erase("syscall");
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"), Catch::Contains("t.json.params.syscall: missing parameter"));
  bad = j;
  bad["params"]["read_bw"]["value"] = {1e9};
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"), Catch::Contains("read_bw: 1 entries but 'sizes' has 2"));
  bad = j;
  bad["params"]["memcpy_bw"]["source"] = "";
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"), Catch::Contains("every parameter needs a source"));
  bad = j;
  bad["params"]["core_speed"]["value"] = {1.0};
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"),
                    Catch::Contains("core_speed: 1 entries but 'cores' is 2 (one per core)"));
  bad = j;
  bad["params"].erase("xread_bw");
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"),
                    Catch::Contains("t.json.params.xread_bw: missing parameter"));
  bad = j;
  bad["params"]["xcopy_bw"]["value"] = {1e9, 0};
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"), Catch::Contains("xcopy_bw.value: 0 must be positive"));
  bad = j;
  bad["params"].erase("spin_time");
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"),
                    Catch::Contains("t.json.params.spin_time: missing parameter"));
  bad = j;
  bad["params"]["cores"]["value"] = 0;
  CHECK_THROWS_AS(hh::Profile::from_json(bad, "t.json"), hopsim::ConfigError);
}

TEST_CASE("profiles: the exchange's hand-over is optional, kept when known, checked when given", "[host][profile]") {
  auto p = flat();
  const auto j = p.to_json();
  CHECK_FALSE(j["params"].contains("exchange_handover"));  // unknown: left out, as older profiles have it
  CHECK(hh::Profile::from_json(j, "t.json").exchange_handover == 0);
  p.exchange_handover = 45e-9;
  p.sources["exchange_handover"] = "measured";
  const auto k = p.to_json();
  CHECK(hh::Profile::from_json(k, "t.json").exchange_handover == Approx(45e-9));
  auto bad = k;
  bad["params"]["exchange_handover"]["unit"] = "ns";
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"),
                    Catch::Contains("exchange_handover.unit: 'ns' but this parameter is in s"));
  bad = k;
  bad["params"]["exchange_handover"]["value"] = -1;
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"), Catch::Contains("exchange_handover.value: -1"));
}

TEST_CASE("the 32-way SMP preset loads with a source for every parameter", "[host][profile]") {
  const auto p = hh::load_profile("host-smp32");
  CHECK(p.cores == 32);
  for (const auto& [k, v] : p.sources) CHECK_FALSE(v.empty());
}

TEST_CASE("host model: a process that spun out sees its flag a yield delay late", "[host][model]") {
  auto p = flat();
  p.memcpy_bw_all = {1e12, 1e12};
  p.spin_time = 0;  // every wait spins out at once
  p.yield_delay = p.yield_delay_median = 3e-6;
  hh::SimCell c;
  c.path = hh::CopyPath::zero_copy;
  c.size = 1 << 20;
  c.iters = 4;
  const auto r = hh::simulate_ring(p, {c});
  // Each step: control message (L), seen 3 us late, then the read.
  CHECK(r[0].seconds == Approx(4 * (1e-6 + 3e-6 + double(1 << 20) / 2e9)).epsilon(1e-9));
  CHECK(r[0].yields == 0);
}

TEST_CASE("host model: simulate_ring runs again in the same process; how rings are spread over workers changes nothing",
          "[host][model]") {
  // The rings run in worker processes, each with its own SystemC
  // elaboration: this process never elaborates, so a second call works,
  // and a cell's result does not depend on which other rings shared its
  // worker.
  auto p = flat();
  p.cores = 2;
  p.switch_cost = 2e-6;
  std::vector<hh::SimCell> many;
  for (int procs : {2, 4, 8})
    for (auto path : {hh::CopyPath::double_copy, hh::CopyPath::cma, hh::CopyPath::zero_copy})
      many.push_back(cell(path, 65536, 8, 2, procs));
  const auto all = hh::simulate_ring(p, many);
  const auto again = hh::simulate_ring(p, many);
  const auto alone = hh::simulate_ring(p, {many.back()});
  REQUIRE(all.size() == many.size());
  for (std::size_t i = 0; i < many.size(); ++i) {
    INFO("cell " << i);
    CHECK(all[i].seconds > 0);
    CHECK(again[i].seconds == all[i].seconds);
    CHECK(again[i].yields == all[i].yields);
  }
  CHECK(alone[0].seconds == all.back().seconds);
  CHECK(alone[0].ops == all.back().ops);
  CHECK(hh::simulate_ring(p, {}).empty());  // no cells, no workers
}

TEST_CASE("profiles: exchange tables measured apart are optional, checked, and give an apart view", "[host][profile]") {
  auto p = flat();
  CHECK_FALSE(p.has_apart());
  CHECK_THROWS_WITH(p.as_apart(),
                    Catch::Contains("profile 'flat' has no exchange tables measured with the CPUs apart"));
  p.step8_double = 3e-6;
  p.xwrite_bw_apart = {1e9, 1e9};
  p.xcopy_bw_apart = {1.5e9, 1.5e9};
  p.xcma_bw_apart = {0.5e9, 0.5e9};
  p.xread_bw_apart = {1e9, 1e9};
  p.apart_handover = 4e-6;
  for (const char* k : {"xwrite_bw_apart", "xcopy_bw_apart", "xcma_bw_apart", "xread_bw_apart", "apart_handover"})
    p.sources[k] = "test";
  CHECK(p.has_apart());
  const auto j = p.to_json();
  const auto q = hh::Profile::from_json(j, "t.json");
  CHECK(q.xcopy_bw_apart == p.xcopy_bw_apart);
  CHECK(q.apart_handover == Approx(4e-6));
  const auto a = q.as_apart();
  CHECK(a.xwrite_bw == p.xwrite_bw_apart);
  CHECK(a.xcopy_bw == p.xcopy_bw_apart);
  CHECK(a.xcma_bw == p.xcma_bw_apart);
  CHECK(a.xread_bw == p.xread_bw_apart);
  CHECK(a.c2c_latency == Approx(4e-6));
  CHECK(a.step8_double == Approx(3e-6 + 3e-6));  // one flag hand-over later
  CHECK(a.step8_cma == 0);                       // not measured stays so
  CHECK(a.memcpy_bw == p.memcpy_bw);
  auto bad = j;
  bad["params"]["xcopy_bw_apart"]["value"] = {1e9};
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"),
                    Catch::Contains("xcopy_bw_apart: 1 entries but 'sizes' has 2"));
  bad = j;
  bad["params"].erase("xread_bw_apart");  // one table missing: loads, but no apart view
  CHECK_FALSE(hh::Profile::from_json(bad, "t.json").has_apart());
}

TEST_CASE("host model: double copy between cores apart goes at the apart exchange rates", "[host][model]") {
  auto p = flat();
  p.xwrite_bw_apart = {1e9, 1e9};  // a quarter of the near ones
  p.xcopy_bw_apart = {1e9, 1e9};
  p.xcma_bw_apart = p.cma_bw;
  p.xread_bw_apart = p.read_bw;
  p.apart_handover = p.c2c_latency;
  auto c = cell(hh::CopyPath::double_copy, 1 << 20, 8, 1, 2);
  const double near = hh::simulate_ring(p, {c}).front().bandwidth;
  const double apart = hh::simulate_ring(p.as_apart(), {c}).front().bandwidth;
  INFO("near " << near / 1e6 << " MB/s, apart " << apart / 1e6);
  CHECK(apart < 0.5 * near);
  // CMA here has the same tables both ways: the same bandwidth.
  c.path = hh::CopyPath::cma;
  CHECK(hh::simulate_ring(p.as_apart(), {c}).front().bandwidth ==
        Approx(hh::simulate_ring(p, {c}).front().bandwidth).epsilon(1e-9));
}

namespace {
// flat() grown to a machine of `cores` cores on `chips` chips on `nodes`
// nodes, with `link` B/s each way between two nodes (0: no fabric).
hh::Profile smp(int cores, int chips, int nodes, double link) {
  auto p = flat();
  p.cores = cores;
  p.core_speed.assign(static_cast<std::size_t>(cores), 1.0);
  p.chips = chips;
  p.nodes = nodes;
  p.node_link_bw = link;
  for (const char* k : {"chips", "nodes", "node_link_bw"}) p.sources[k] = "test";
  return p;
}
}  // namespace

TEST_CASE("host model: ranks are placed as Linux spreads new processes over nodes, chips and cores",
          "[host][model][topology]") {
  // One chip: rank r on core r mod cores, as before there was a topology.
  CHECK(hh::place_ranks(flat(), 5) == std::vector<int>{0, 1, 0, 1, 0});
  // 32 cores, 16 chips of 2, 4 nodes of 4 chips: ranks 0..3 one per node,
  // rank 4 back on node 0 on its next chip, ..., rank 16 on the second core
  // of rank 0's chip; 32 ranks fill every core once.
  const auto p = smp(32, 16, 4, 0);
  const auto at = hh::place_ranks(p, 32);
  CHECK(std::vector<int>(at.begin(), at.begin() + 5) == std::vector<int>{0, 8, 16, 24, 2});
  CHECK(at[16] == 1);
  auto sorted = at;
  std::sort(sorted.begin(), sorted.end());
  for (int c = 0; c < 32; ++c) CHECK(sorted[static_cast<std::size_t>(c)] == c);
  for (int r = 0; r < 32; ++r) CHECK(p.node_of(at[static_cast<std::size_t>(r)]) == r % 4);
}

TEST_CASE("host model: copies crossing between two nodes share the links joining them", "[host][model][topology]") {
  // 4 cores, 2 chips, 2 nodes: ranks 0 and 2 on node 0, 1 and 3 on node 1,
  // so in the natural ring every zero-copy read comes from the other node:
  // two reads of 2e9 B/s each share each direction's 1e9 B/s, so a step
  // takes L + S / 0.5e9 instead of L + S / 2e9.
  const double S = 1 << 20, L = 1e-6;
  auto c = cell(hh::CopyPath::zero_copy, 1 << 20, 3, 1, 4);
  const auto free = hh::simulate_ring(smp(4, 2, 2, 0), {c});
  CHECK(free[0].seconds == Approx(3 * (L + S / 2e9)).epsilon(1e-9));
  const auto shared = hh::simulate_ring(smp(4, 2, 2, 1e9), {c});
  CHECK(shared[0].seconds == Approx(3 * (L + S / 0.5e9)).epsilon(1e-9));
  // Ordered 0, 2, 1, 3 the ring crosses twice, once each way: each read
  // that crosses has its direction's links to itself (1e9 B/s, under its
  // 2e9), and the ring goes at the pace of the crossing ones; after the
  // first step they find their left neighbour's message already posted
  // (that neighbour reads at 2e9), so only the first step waits for a flag.
  c.ring = {0, 2, 1, 3};
  const auto ordered = hh::simulate_ring(smp(4, 2, 2, 1e9), {c});
  CHECK(ordered[0].seconds == Approx(L + 3 * S / 1e9).epsilon(1e-9));
  // CMA's pull and double copy's receive copy cross the same way.
  for (auto path : {hh::CopyPath::cma, hh::CopyPath::double_copy}) {
    auto d = cell(path, 1 << 20, 3, 1, 4);
    CHECK(hh::simulate_ring(smp(4, 2, 2, 1e8), {d})[0].seconds >
          2 * hh::simulate_ring(smp(4, 2, 2, 0), {d})[0].seconds);
  }
}

TEST_CASE("host model: reads from other chips slow together with the machine's coherence traffic",
          "[host][model][topology]") {
  // 4 cores on 2 chips (= nodes, no link limit): in the natural ring every
  // zero-copy read comes from the other chip. Four reads of 2e9 B/s load
  // the coherence with A = 8e9 B/s; with coherence_bw C = 8e9 each goes
  // 1 + X / C slower, X (1 + X / C) = A: X / C = (sqrt(5) - 1) / 2, so the
  // slowdown is the golden ratio.
  const double S = 1 << 20, L = 1e-6, phi = (1 + std::sqrt(5.0)) / 2;
  auto coherent = [](double c) {
    auto p = smp(4, 2, 2, 0);
    p.coherence_bw = c;
    p.sources["coherence_bw"] = "test";
    return p;
  };
  auto c = cell(hh::CopyPath::zero_copy, 1 << 20, 3, 1, 4);
  CHECK(hh::simulate_ring(coherent(8e9), {c})[0].seconds == Approx(3 * (L + S * phi / 2e9)).epsilon(1e-9));
  // Ordered 0, 2, 1, 3 only two reads cross: A = 4e9, 1 + X / C =
  // (1 + sqrt(3)) / 2; the ring goes at their pace (the links test's
  // reasoning: only the first step waits for a flag).
  c.ring = {0, 2, 1, 3};
  CHECK(hh::simulate_ring(coherent(8e9), {c})[0].seconds ==
        Approx(L + 3 * S * (1 + std::sqrt(3.0)) / 2 / 2e9).epsilon(1e-9));
  // One chip's reads are not the coherence's: a ring of two on one chip is
  // as fast as without it.
  auto one = cell(hh::CopyPath::zero_copy, 1 << 20, 3, 1, 2);
  auto two_chips = coherent(8e9);
  two_chips.chips = 1;
  two_chips.nodes = 1;
  CHECK(hh::simulate_ring(two_chips, {one})[0].seconds ==
        Approx(hh::simulate_ring(smp(4, 1, 1, 0), {one})[0].seconds).epsilon(1e-12));
  // CMA's pull and both double-copy copies (the send copy claims lines the
  // right neighbour's chip holds) are cross-chip: all slow under it.
  for (auto path : {hh::CopyPath::cma, hh::CopyPath::double_copy}) {
    INFO(hh::path_name(path));
    auto d = cell(path, 1 << 20, 3, 1, 4);
    CHECK(hh::simulate_ring(coherent(1e9), {d})[0].seconds > 1.5 * hh::simulate_ring(coherent(0), {d})[0].seconds);
  }
  // The send copy's claim carries no data over the links: two processes on
  // two nodes with 1e8 B/s links take about S / 1e8 a step for the receive
  // copies (4e9 B/s otherwise); were the send copies on the links too, twice that.
  auto dc = cell(hh::CopyPath::double_copy, 1 << 20, 3, 1, 2);
  const double t = hh::simulate_ring(smp(4, 2, 2, 1e8), {dc})[0].seconds;
  CHECK(t > 3 * S / 1e8);
  CHECK(t < 1.2 * 3 * S / 1e8);
}

TEST_CASE("host model: a ring order must be a permutation of the ranks", "[host][model][topology]") {
  auto c = cell(hh::CopyPath::zero_copy, 4096, 2, 1, 4);
  c.ring = {0, 1, 1, 3};
  CHECK_THROWS_WITH(hh::simulate_ring(smp(4, 2, 2, 0), {c}), Catch::Contains("not a permutation of its ranks"));
  c.ring = {0, 1, 2};
  CHECK_THROWS_AS(hh::simulate_ring(smp(4, 2, 2, 0), {c}), hopsim::ConfigError);
}

TEST_CASE("profiles: a topology round-trips and one that does not divide evenly is rejected", "[host][profile]") {
  const auto p = smp(32, 16, 4, 20e9);
  auto j = p.to_json();
  j["system"] = "power6-32way";
  const auto q = hh::Profile::from_json(j, "t.json");
  CHECK(q.chip_count() == 16);
  CHECK(q.node_count() == 4);
  CHECK(q.node_link_bw == Approx(20e9));
  CHECK(q.system == "power6-32way");
  CHECK(q.to_json()["system"] == "power6-32way");
  CHECK_FALSE(flat().to_json().contains("system"));
  CHECK_FALSE(flat().to_json()["params"].contains("chips"));  // no topology: left out, read as 1
  auto bad = j;
  bad["params"]["chips"]["value"] = 5;
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"),
                    Catch::Contains("t.json.params.chips: 5 chips do not split 32 cores evenly"));
  bad = j;
  bad["params"]["nodes"]["value"] = 3;
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"),
                    Catch::Contains("t.json.params.nodes: 3 nodes do not split 16 chips evenly"));
  bad = j;
  bad["params"]["chips"]["value"] = 2.5;
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"), Catch::Contains("chips.value: 2.5 is not a whole number"));
  bad = j;
  bad["params"].erase("nodes");
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"),
                    Catch::Contains("node_link_bw: links between nodes, but the machine has one node"));
  // The coherence's load: kept, and refused on a machine of one chip.
  j["params"]["coherence_bw"] = {{"value", 97.8e9}, {"unit", "B/s"}, {"source", "test"}};
  CHECK(hh::Profile::from_json(j, "t.json").coherence_bw == Approx(97.8e9));
  CHECK(hh::Profile::from_json(j, "t.json").to_json()["params"]["coherence_bw"]["value"] == Approx(97.8e9));
  bad = j;
  bad["params"].erase("chips");
  bad["params"].erase("nodes");
  bad["params"].erase("node_link_bw");
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"),
                    Catch::Contains("t.json.params.coherence_bw: reads between chips, but the machine has one chip"));
  bad = j;
  bad["system"] = 7;
  CHECK_THROWS_AS(hh::Profile::from_json(bad, "t.json"), hopsim::ConfigError);
}

TEST_CASE("host model: a two-way ring sends each way every step and counts both", "[host][model]") {
  // Two processes on flat()'s two cores, zero copy: each direction's
  // message waits for its control message (L) and is read at 2e9 B/s, one
  // after the other, so a step takes twice the one-way step and the
  // bandwidth is the same.
  const double S = 1 << 20, L = 1e-6;
  auto c = cell(hh::CopyPath::zero_copy, 1 << 20, 3, 1);
  const auto one = hh::simulate_ring(flat(), {c});
  c.two_way = true;
  const auto two = hh::simulate_ring(flat(), {c});
  CHECK(two[0].seconds == Approx(3 * 2 * (L + S / 2e9)).epsilon(1e-9));
  CHECK(two[0].bandwidth == Approx(2 * S * 3 / two[0].seconds));
  CHECK(two[0].bandwidth == Approx(one[0].bandwidth).epsilon(1e-9));
  // Every path and ring size completes in both directions (a lost wake-up
  // would throw); the leftward reads cross nodes as the rightward ones do.
  for (auto path : {hh::CopyPath::double_copy, hh::CopyPath::cma, hh::CopyPath::zero_copy})
    for (int procs : {2, 3, 5}) {
      auto d = cell(path, 64 << 10, 4, 1, procs);
      d.two_way = true;
      d.cma_buffers = procs == 3 ? 0 : 4;
      INFO(hh::path_name(path) << ", " << procs << " processes");
      const auto r = hh::simulate_ring(sharing_profile(), {d});
      CHECK(r[0].bandwidth > 0);
    }
  // 4 processes on 2 nodes, natural order: every read crosses; two-way
  // puts two readers on each direction's links per half-step, as one-way does.
  auto e = cell(hh::CopyPath::zero_copy, 1 << 20, 3, 1, 4);
  e.two_way = true;
  const auto shared = hh::simulate_ring(smp(4, 2, 2, 1e9), {e});
  CHECK(shared[0].seconds == Approx(3 * 2 * (L + S / 0.5e9)).epsilon(1e-9));
}
