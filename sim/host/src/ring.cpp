#include "hopsim/host/ring.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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
    std::uint64_t w;
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

void ring_neighbours(int procs, bool random, std::uint64_t seed, std::vector<int>& left, std::vector<int>& right) {
  std::vector<int> order(procs);
  std::iota(order.begin(), order.end(), 0);
  if (random) {
    std::mt19937_64 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);
  }
  left.assign(procs, 0);
  right.assign(procs, 0);
  for (int p = 0; p < procs; ++p) {
    right[order[p]] = order[(p + 1) % procs];
    left[order[p]] = order[(p + procs - 1) % procs];
  }
}

std::vector<RingCell> run_ring(const RingOptions& o) {
  if (o.procs < 2)
    throw ConfigError(fmt::format("ring: a ring of {} process{} has no neighbour to send to (at least 2 processes)",
                                  o.procs, o.procs == 1 ? "" : "es"));
  if (o.procs > host::Node::kMaxProcs)
    throw ConfigError(fmt::format("ring: {} processes (at most {})", o.procs, host::Node::kMaxProcs));
  if (o.sizes.empty()) throw ConfigError("ring: no message sizes given");
  for (auto s : o.sizes)
    if (s < 8) throw ConfigError(fmt::format("ring: message size {} bytes is below the minimum of 8", s));
  if (o.reps < 1) throw ConfigError("ring: at least one repetition");
  // Each rank's results (a time per size and repetition, a count per size,
  // its huge-page KiB, a hand-over per size and repetition) fill its 4 KiB
  // scratch.
  if (o.sizes.size() * (2 * static_cast<std::size_t>(o.reps) + 1) + 1 > 4096 / sizeof(double))
    throw ConfigError(
        fmt::format("ring: {} sizes x {} repetitions is too many for one launch (sizes x (2 x repetitions + "
                    "1) at most 511)",
                    o.sizes.size(), o.reps));

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
  const std::uint64_t seed = o.seed;
  const std::size_t nsizes = o.sizes.size();

  const auto rep = node.run([&](host::Rank& r) {
    const int me = r.id(), L = left[me], R = right[me];
    const std::size_t maxs = to.max_message;
    auto* results = reinterpret_cast<double*>(r.scratch().data());
    double* handovers = results + nsizes * (o.reps + 1) + 1;  // rank 0's count
    const bool zc = r.kind() == host::Kind::zero_copy;
    // CMA with the transport's send buffers (RingOptions::cma_buffers).
    const bool cma_own = r.kind() == host::Kind::cma && o.cma_buffers > 0;
    // Message buffers start on a page, as MPI benchmarks allocate them: a
    // CMA transfer is copied page by page, and a buffer that starts 16 bytes
    // into a page (where malloc puts a large block) splits every page's copy
    // in two on both sides (measured: 2x slower CMA at 1 MiB here). By
    // default they ask for huge pages (host::MessageBuffer).
    const host::MessageBuffer sendbuf(zc || cma_own ? 0 : maxs, o.huge_pages), recvbuf(zc ? 0 : maxs, o.huge_pages);
    const int nbuf = cma_own ? r.send_buffers() : 0;
    for (int b = 0; b < nbuf; ++b) (void)r.acquire(maxs);  // the transport makes them at the first call
    {
      const long a = cma_own ? r.send_buffers_huge_kib() : sendbuf.huge_kib(), b = recvbuf.huge_kib();
      results[nsizes * (o.reps + 1)] = a < 0 || b < 0 ? -1.0 : static_cast<double>(a + b);
    }
    std::vector<std::byte> expect(maxs);
    std::uint64_t checked = 0;
    for (std::size_t si = 0; si < nsizes; ++si) {
      const std::size_t size = o.sizes[si];
      // The checksum of L's pattern without word 0, which carries the stamp.
      fill_pattern({expect.data(), size}, L, seed);
      std::uint64_t w0;
      std::memcpy(&w0, expect.data(), 8);
      const std::uint64_t base = checksum({expect.data(), size}) - w0;
      if (!zc && !cma_own) fill_pattern({sendbuf.data(), size}, me, seed);
      // CMA: each transport buffer gets the pattern once per size (all are
      // free here: the last size's pulls ended before the barrier).
      for (int b = 0; b < nbuf; ++b) fill_pattern(r.acquire(size), me, seed);
      int filled = 0;  // zero copy: the two pool buffers get the pattern once per size
      const int iters = ring_iters(o, size);
      std::uint64_t seq = 0;
      auto one = [&] {
        const std::uint64_t st = stamp_of(me, seq);
        const std::uint64_t expected = base + stamp_of(L, seq);
        std::span<const std::byte> got;
        if (zc) {
          auto buf = r.acquire(size);
          if (filled < 2) {
            fill_pattern(buf, me, seed);
            ++filled;
          }
          std::memcpy(buf.data(), &st, 8);
          got = r.sendrecv_view(R, buf, L, size);
        } else if (cma_own) {
          auto buf = r.acquire(size);
          std::memcpy(buf.data(), &st, 8);
          r.sendrecv(R, buf, L, {recvbuf.data(), size});
          got = {recvbuf.data(), size};
        } else {
          std::memcpy(sendbuf.data(), &st, 8);
          r.sendrecv(R, {sendbuf.data(), size}, L, {recvbuf.data(), size});
          got = {recvbuf.data(), size};
        }
        const std::uint64_t c = checksum(got);
        if (c != expected)
          throw DataMismatchError(
              fmt::format("checksum mismatch: rank {} received message {} of {} bytes from rank {} over {}: checksum "
                          "{:#018x}, expected {:#018x}",
                          me, seq, size, L, host::kind_name(r.kind()), c, expected));
        ++checked;
        ++seq;
      };
      // Untimed warm-up: first touch of buffers and channels. Two steps, so
      // that zero copy's sender fills both its pool buffers with the
      // pattern here (one step would leave the second fill, about 1 ms at
      // 1 MiB, in the first repetition: 438 us a step there against 44 us
      // in the third, making fastest-of-3 fastest-of-2).
      for (int w = 0; w < kWarmupSteps; ++w) one();
      for (int rp = 0; rp < o.reps; ++rp) {
        const double before = probe_handover && me < 2 ? r.handover(1 - me) : 0.0;
        r.barrier();
        const double t0 = now();
        for (int k = 0; k < iters; ++k) one();
        results[si * o.reps + rp] = now() - t0;
        if (probe_handover && me < 2) {
          const double after = r.handover(1 - me);
          handovers[si * o.reps + rp] = std::max(before, after);
        }
      }
      r.barrier();
      results[nsizes * o.reps + si] = static_cast<double>(checked);
      checked = 0;
    }
  });

  std::vector<RingCell> cells;
  for (std::size_t si = 0; si < nsizes; ++si) {
    RingCell c;
    c.procs = o.procs;
    c.size = o.sizes[si];
    c.order = o.random_order ? "random" : "natural";
    c.requested = rep.requested;
    c.used = rep.used;
    c.fallback = rep.fallback;
    c.bind = o.bind;
    c.cpu_of_rank = rep.cpu_of_rank;
    c.iters = ring_iters(o, c.size);
    double best = 1e300;
    int fastest = 0;
    for (int rp = 0; rp < o.reps; ++rp) {
      double slowest = 0;
      for (int rk = 0; rk < o.procs; ++rk) {
        double t;
        std::memcpy(&t, node.scratch(rk).data() + (si * o.reps + rp) * sizeof(double), sizeof t);
        slowest = std::max(slowest, t);
      }
      if (slowest < best) {
        best = slowest;
        fastest = rp;
      }
    }
    c.seconds = best;
    if (probe_handover)
      std::memcpy(&c.handover,
                  node.scratch(0).data() + (nsizes * (o.reps + 1) + 1 + si * o.reps + fastest) * sizeof(double),
                  sizeof c.handover);
    c.bandwidth = static_cast<double>(c.size) * c.iters / best;
    c.huge_kib = -1;
    for (int rk = 0; rk < o.procs; ++rk) {
      double n, h;
      std::memcpy(&n, node.scratch(rk).data() + (nsizes * o.reps + si) * sizeof(double), sizeof n);
      c.messages_checked += static_cast<std::uint64_t>(n);
      std::memcpy(&h, node.scratch(rk).data() + nsizes * (o.reps + 1) * sizeof(double), sizeof h);
      if (h >= 0) c.huge_kib = rk == 0 ? static_cast<long>(h) : std::min(c.huge_kib, static_cast<long>(h));
    }
    c.huge_pages = o.huge_pages;
    cells.push_back(c);
  }
  return cells;
}

}  // namespace hopsim::host
