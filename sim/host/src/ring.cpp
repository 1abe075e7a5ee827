#include "hopsim/host/ring.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <numeric>
#include <random>

#include "hopsim/core/error.hpp"
#include "hopsim/host/buffer.hpp"

namespace hopsim::host {
namespace {
constexpr std::uint64_t kMix = 0x9E3779B97F4A7C15ull;

double now() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::uint64_t splitmix(std::uint64_t x) {
  x += kMix;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Word 0 of every message carries its sender and sequence number.
std::uint64_t stamp_of(int src, std::uint64_t seq) {
  return splitmix(seq * 1315423911ull + static_cast<std::uint64_t>(src));
}
}  // namespace

// Never inlined: the ring, the calibration's tables and its CPU probes all
// run this one copy of the loop, aligned to 32 bytes (-falign-loops=32,
// sim/host/CMakeLists.txt). The loop is six instructions; on this
// AMD EPYC (Zen 3) it runs 2x slower when its copy straddles a 32-byte
// boundary, and an inlined copy lies wherever the rest of its function
// puts it: an unrelated change to the ring can move the ring's copy from
// offset 0 to 16 of its 32-byte window, dropping the zero-copy ring from
// 10-13 to 5-6 GB/s while the calibration's copies stay put
// (docs/host-copy.md).
[[gnu::noinline]] std::uint64_t checksum(std::span<const std::byte> data) {
  const std::size_t words = data.size() / 8;
  const auto* p = data.data();
  std::uint64_t s = 0;
  for (std::size_t i = 0; i < words; ++i) {
    std::uint64_t w = 0;
    std::memcpy(&w, p + i * 8, 8);
    s += w ^ (i * kMix);
  }
  std::uint64_t tail = 0;
  if (const std::size_t t = data.size() % 8) std::memcpy(&tail, p + words * 8, t);
  return s + (tail ^ (words * kMix));
}

void fill_pattern(std::span<std::byte> data, int src, std::uint64_t seed) {
  std::uint64_t x = seed * 7919 + static_cast<std::uint64_t>(src);
  for (std::size_t i = 0; i + 8 <= data.size(); i += 8) {
    x = splitmix(x);
    std::memcpy(data.data() + i, &x, 8);
  }
  for (std::size_t i = data.size() / 8 * 8; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 31 + src);
}

int ring_iters(const RingOptions& o, std::size_t size) {
  const auto it = static_cast<long long>(o.bytes_per_rep / std::max<std::size_t>(size, 1));
  return static_cast<int>(std::clamp<long long>(it, o.min_iters, std::max(o.min_iters, o.max_iters)));
}

std::vector<int> ring_order(int procs, bool random, std::uint64_t seed) {
  std::vector<int> order(static_cast<std::size_t>(std::max(0, procs)));
  std::iota(order.begin(), order.end(), 0);
  if (random) {
    std::mt19937_64 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);
  }
  return order;
}

void ring_neighbours(int procs, bool random, std::uint64_t seed, std::vector<int>& left, std::vector<int>& right) {
  const std::vector<int> order = ring_order(procs, random, seed);
  left.assign(procs, 0);
  right.assign(procs, 0);
  for (int p = 0; p < procs; ++p) {
    right[order[p]] = order[(p + 1) % procs];
    left[order[p]] = order[(p + procs - 1) % procs];
  }
}

namespace {

void check_ring_options(const RingOptions& o) {
  if (o.procs < 2)
    throw ConfigError(fmt::format("ring: a ring of {} process{} has no neighbour to send to (at least 2 processes)",
                                  o.procs, o.procs == 1 ? "" : "es"));
  if (o.procs > host::Node::kMaxProcs)
    throw ConfigError(fmt::format("ring: {} processes (at most {})", o.procs, host::Node::kMaxProcs));
  if (o.sizes.empty()) throw ConfigError("ring: no message sizes given");
  for (auto s : o.sizes)
    if (s < 8) throw ConfigError(fmt::format("ring: message size {} bytes is below the minimum of 8", s));
  if (o.reps < 1) throw ConfigError("ring: at least one repetition");
  if (o.sizes.size() * (2 * static_cast<std::size_t>(o.reps) + 1) + 1 > kRingResultDoubles)
    throw ConfigError(
        fmt::format("ring: {} sizes x {} repetitions is too many for one launch (sizes x (2 x repetitions + "
                    "1) at most 511)",
                    o.sizes.size(), o.reps));
}

host::Options transport_options(const RingOptions& o) {
  host::Options to;
  to.procs = o.procs;
  to.kind = o.kind;
  to.max_message = *std::max_element(o.sizes.begin(), o.sizes.end());
  to.chunk = o.chunk;
  to.slots = o.slots;
  to.cma_buffers = std::max(1, o.cma_buffers);
  to.huge_pages = o.huge_pages;
  to.remap = o.remap;
  to.deny_cma = o.deny_cma;
  to.bind = o.bind;
  to.corrupt_rank = o.corrupt_rank;
  to.corrupt_message = o.corrupt_message;
  return to;
}

// Where a rank's results lie in its scratch, in doubles: the time of size
// si's repetition rp at time(si, rp), the messages checked at size si at
// checked(si), the huge-page KiB at huge_kib(), rank 0's hand-over around
// each repetition at handover(si, rp).
struct ScratchLayout {
  std::size_t nsizes, reps;
  [[nodiscard]] std::size_t time(std::size_t si, std::size_t rp) const { return si * reps + rp; }
  [[nodiscard]] std::size_t checked(std::size_t si) const { return nsizes * reps + si; }
  [[nodiscard]] std::size_t huge_kib() const { return nsizes * (reps + 1); }
  [[nodiscard]] std::size_t handover(std::size_t si, std::size_t rp) const {
    return nsizes * (reps + 1) + 1 + si * reps + rp;
  }
};

// One rank's part of the ring: each message size's warm-up and timed
// repetitions, every message received checksummed; the results go to the
// rank's scratch (ScratchLayout).
class RingRank {
 public:
  RingRank(host::Rank& r, const RingOptions& o, std::size_t maxs, int left, int right, bool probe_handover)
      : r_(r),
        o_(o),
        at_{o.sizes.size(), static_cast<std::size_t>(o.reps)},
        me_(r.id()),
        L_(left),
        R_(right),
        probe_(probe_handover && me_ < 2),
        zc_(r.kind() == host::Kind::zero_copy),
        // CMA with the transport's send buffers (RingOptions::cma_buffers).
        cma_own_(r.kind() == host::Kind::cma && o.cma_buffers > 0),
        results_(reinterpret_cast<double*>(r.scratch().data())),
        // Message buffers start on a page, as MPI benchmarks allocate them: a
        // CMA transfer is copied page by page, and a buffer that starts 16 bytes
        // into a page (where malloc puts a large block) splits every page's copy
        // in two on both sides (measured: 2x slower CMA at 1 MiB here). By
        // default they ask for huge pages (host::MessageBuffer).
        sendbuf_(zc_ || cma_own_ ? 0 : maxs, o.huge_pages),
        recvbuf_(zc_ ? 0 : maxs, o.huge_pages),
        nbuf_(cma_own_ ? r.send_buffers() : 0) {
    for (int b = 0; b < nbuf_; ++b) (void)r.acquire(maxs);  // the transport makes them at the first call
    const long a = cma_own_ ? r.send_buffers_huge_kib() : sendbuf_.huge_kib(), b = recvbuf_.huge_kib();
    results_[at_.huge_kib()] = a < 0 || b < 0 ? -1.0 : static_cast<double>(a + b);
    expect_.resize(maxs);
    if (o.two_way) expect_right_.resize(maxs);
  }

  void run() {
    for (std::size_t si = 0; si < at_.nsizes; ++si) run_size(si);
  }

 private:
  void run_size(std::size_t si) {
    const std::size_t size = o_.sizes[si];
    // The checksum of L's pattern without word 0, which carries the stamp.
    fill_pattern({expect_.data(), size}, L_, o_.seed);
    std::uint64_t w0 = 0;
    std::memcpy(&w0, expect_.data(), 8);
    const std::uint64_t base = checksum({expect_.data(), size}) - w0;
    if (o_.two_way) {
      fill_pattern({expect_right_.data(), size}, R_, o_.seed);
      std::memcpy(&w0, expect_right_.data(), 8);
      base_right_ = checksum({expect_right_.data(), size}) - w0;
    }
    if (!zc_ && !cma_own_) fill_pattern({sendbuf_.data(), size}, me_, o_.seed);
    // CMA: each transport buffer gets the pattern once per size (all are
    // free here: the last size's pulls ended before the barrier).
    for (int b = 0; b < nbuf_; ++b) fill_pattern(r_.acquire(size), me_, o_.seed);
    filled_ = 0;
    const int iters = ring_iters(o_, size);
    std::uint64_t seq = 0;
    // Untimed warm-up: first touch of buffers and channels. Two steps, so
    // that zero copy's sender fills both its pool buffers with the
    // pattern here (one step would leave the second fill, about 1 ms at
    // 1 MiB, in the first repetition: 438 us a step there against 44 us
    // in the third, making fastest-of-3 fastest-of-2).
    for (int w = 0; w < kWarmupSteps; ++w) step(size, base, seq++);
    for (int rp = 0; rp < o_.reps; ++rp) {
      const double before = probe_ ? r_.handover(1 - me_) : 0.0;
      r_.barrier();
      const double t0 = now();
      for (int k = 0; k < iters; ++k) step(size, base, seq++);
      results_[at_.time(si, static_cast<std::size_t>(rp))] = now() - t0;
      if (probe_) {
        const double after = r_.handover(1 - me_);
        results_[at_.handover(si, static_cast<std::size_t>(rp))] = std::max(before, after);
      }
    }
    r_.barrier();
    results_[at_.checked(si)] = static_cast<double>(checked_);
    checked_ = 0;
  }

  // Message `seq` of `size` bytes to R while L's arrives, then in a two-way
  // ring to L while R's arrives; checks each one's checksum.
  void step(std::size_t size, std::uint64_t base, std::uint64_t seq) {
    exchange(size, base, seq, R_, L_);
    if (o_.two_way) exchange(size, base_right_, seq, L_, R_);
  }

  // Message `seq` to `to` while `from`'s arrives (its pattern's checksum
  // without word 0: `base`).
  void exchange(std::size_t size, std::uint64_t base, std::uint64_t seq, int to, int from) {
    const std::uint64_t st = stamp_of(me_, seq);
    const std::uint64_t expected = base + stamp_of(from, seq);
    std::span<const std::byte> got;
    if (zc_) {
      auto buf = r_.acquire(size);
      if (filled_ < 2) {
        fill_pattern(buf, me_, o_.seed);
        ++filled_;
      }
      std::memcpy(buf.data(), &st, 8);
      got = r_.sendrecv_view(to, buf, from, size);
    } else if (cma_own_) {
      auto buf = r_.acquire(size);
      std::memcpy(buf.data(), &st, 8);
      r_.sendrecv(to, buf, from, {recvbuf_.data(), size});
      got = {recvbuf_.data(), size};
    } else {
      std::memcpy(sendbuf_.data(), &st, 8);
      r_.sendrecv(to, {sendbuf_.data(), size}, from, {recvbuf_.data(), size});
      got = {recvbuf_.data(), size};
    }
    const std::uint64_t c = checksum(got);
    if (c != expected)
      throw DataMismatchError(
          fmt::format("checksum mismatch: rank {} received message {} of {} bytes from rank {} over {}: checksum "
                      "{:#018x}, expected {:#018x}",
                      me_, seq, size, from, host::kind_name(r_.kind()), c, expected));
    ++checked_;
    // Zero copy, two-way: a rank's two pool buffers alternate, one going
    // right and one left each step, so the view goes back once checked
    // (kept until the next message from the same neighbour, each buffer
    // would wait for a step its sender has not begun).
    if (zc_ && o_.two_way) r_.release_views();
  }

  host::Rank& r_;
  const RingOptions& o_;
  ScratchLayout at_;
  int me_, L_, R_;
  bool probe_, zc_, cma_own_;
  double* results_;
  const host::MessageBuffer sendbuf_, recvbuf_;
  int nbuf_;
  std::vector<std::byte> expect_;
  std::vector<std::byte> expect_right_;  // two-way: R's pattern
  std::uint64_t base_right_ = 0;
  int filled_ = 0;  // zero copy: the two pool buffers get the pattern once per size
  std::uint64_t checked_ = 0;
};

double scratch_value(const host::Node& node, int rank, std::size_t index) {
  double v = 0;
  std::memcpy(&v, node.scratch(rank).data() + index * sizeof(double), sizeof v);
  return v;
}

// Size si's cell from every rank's scratch: the fastest repetition by its
// slowest rank, and the messages checked over all ranks.
RingCell cell_of(const RingOptions& o, const host::Node& node, const host::NodeReport& rep, std::size_t si,
                 bool probe_handover) {
  const ScratchLayout at{o.sizes.size(), static_cast<std::size_t>(o.reps)};
  RingCell c;
  c.procs = o.procs;
  c.size = o.sizes[si];
  c.order = o.random_order ? "random" : "natural";
  c.two_way = o.two_way;
  c.requested = rep.requested;
  c.used = rep.used;
  c.fallback = rep.fallback;
  c.bind = o.bind;
  c.cpu_of_rank = rep.cpu_of_rank;
  c.iters = ring_iters(o, c.size);
  double best = 1e300;
  std::size_t fastest = 0;
  for (std::size_t rp = 0; rp < at.reps; ++rp) {
    double slowest = 0;
    for (int rk = 0; rk < o.procs; ++rk) slowest = std::max(slowest, scratch_value(node, rk, at.time(si, rp)));
    if (slowest < best) {
      best = slowest;
      fastest = rp;
    }
  }
  c.seconds = best;
  if (probe_handover) c.handover = scratch_value(node, 0, at.handover(si, fastest));
  c.bandwidth = static_cast<double>(c.size) * c.iters * (o.two_way ? 2 : 1) / best;
  c.huge_kib = -1;
  for (int rk = 0; rk < o.procs; ++rk) {
    c.messages_checked += static_cast<std::uint64_t>(scratch_value(node, rk, at.checked(si)));
    const double h = scratch_value(node, rk, at.huge_kib());
    if (h >= 0) c.huge_kib = rk == 0 ? static_cast<long>(h) : std::min(c.huge_kib, static_cast<long>(h));
  }
  c.huge_pages = o.huge_pages;
  return c;
}

}  // namespace

std::vector<RingCell> run_ring(const RingOptions& o) {
  check_ring_options(o);
  const host::Options to = transport_options(o);
  host::Node node(to);
  // Ranks 0 and 1 on two CPUs (spread over at least two) probe their
  // cache-line hand-over around every timed repetition.
  bool probe_handover = false;
  if (o.bind == host::Bind::spread) {
    cpu_set_t set;
    CPU_ZERO(&set);
    probe_handover = ::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2;
  }
  std::vector<int> left, right;
  ring_neighbours(o.procs, o.random_order, o.seed, left, right);
  const auto rep = node.run([&](host::Rank& r) {
    RingRank rank(r, o, to.max_message, left[r.id()], right[r.id()], probe_handover);
    rank.run();
  });
  std::vector<RingCell> cells;
  cells.reserve(o.sizes.size());
  for (std::size_t si = 0; si < o.sizes.size(); ++si) cells.push_back(cell_of(o, node, rep, si, probe_handover));
  return cells;
}

}  // namespace hopsim::host
