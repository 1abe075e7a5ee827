#include "hopsim/host/calibrate.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <ctime>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

#include "hopsim/core/error.hpp"
#include "hopsim/host/buffer.hpp"
#include "hopsim/host/cma.hpp"
#include "hopsim/host/node.hpp"
#include "hopsim/host/ring.hpp"

namespace hopsim::host {
namespace {

double now() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Which batch of per_call counts.
enum class Batch {
  fastest,  // time slices lost to other processes on a shared machine do not count (the model adds them itself)
  mean,     // all batches together (total time / total calls), as the all-busy probe (checksum_rates)
            // measures the CPUs' speeds relative to these rates. Not the median batch: this VM's CPUs run
            // the checksum in speed spells (100 us batches at either about 6 or 12-24 GB/s, slow 33-97% of
            // the time), so a median falls on either level by chance and the speeds relative to it come
            // out 0.34-1.72 between calibrations; over 12 alternating rounds each the mean gives 256 of 432
            // predicted cells within 25%, the median 150 of 432
};

// Seconds per call of f over many short batches (about budget/30 seconds
// each) within `budget` seconds: the fastest batch or their mean.
double per_call(double budget, const std::function<void()>& f, Batch pick = Batch::fastest) {
  f();
  // Calls per batch: enough for about budget/30 seconds.
  long per = 1;
  for (;;) {
    const double t0 = now();
    for (long i = 0; i < per; ++i) f();
    if (now() - t0 >= budget / 30 || per > (1L << 24)) break;
    per *= 2;
  }
  std::vector<double> t;
  const double start = now();
  while (t.size() < 5 || now() - start < budget) {
    const double t0 = now();
    for (long i = 0; i < per; ++i) f();
    t.push_back((now() - t0) / static_cast<double>(per));
    if (t.size() > 1000) break;
  }
  if (pick == Batch::fastest) return *std::min_element(t.begin(), t.end());
  return std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size());
}

template <class T>
T* shared_map(std::size_t n = 1) {
  void* m = ::mmap(nullptr, sizeof(T) * n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) throw Error(fmt::format("calibrate: cannot map shared memory: {}", std::strerror(errno)));
  return static_cast<T*>(m);
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ::sched_setaffinity(0, sizeof set, &set);
}

// Runs f(i) in `n` forked processes; each returns a double through shared memory.
std::vector<double> in_processes(int n, const std::function<double(int)>& f) {
  auto* out = shared_map<double>(static_cast<std::size_t>(n));
  std::fflush(nullptr);
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    const pid_t p = ::fork();
    if (p < 0) throw Error(fmt::format("calibrate: fork failed: {}", std::strerror(errno)));
    if (p == 0) {
      int code = 0;
      try {
        out[i] = f(i);
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    pids.push_back(p);
  }
  bool ok = true;
  for (pid_t p : pids) {
    int st = 0;
    ::waitpid(p, &st, 0);
    ok = ok && WIFEXITED(st) && WEXITSTATUS(st) == 0;
  }
  std::vector<double> v(out, out + n);
  ::munmap(out, sizeof(double) * n);
  if (!ok) throw Error("calibrate: a measuring process failed");
  return v;
}

// Least-squares line t = a + b x.
std::pair<double, double> fit(const std::vector<double>& x, const std::vector<double>& t) {
  const auto n = static_cast<double>(x.size());
  double sx = 0, st = 0, sxx = 0, sxt = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    st += t[i];
    sxx += x[i] * x[i];
    sxt += x[i] * t[i];
  }
  const double b = (n * sxt - sx * st) / (n * sxx - sx * sx);
  return {(st - b * sx) / n, b};
}

struct alignas(64) Line {
  std::atomic<std::uint64_t> v{0};
};

constexpr int kPhases = 4, kMaxRounds = 400, kBlocks = kPlacementBlocks;

// The flags the exchange's two processes share.
struct alignas(64) ExchangeFlags {
  std::array<std::atomic<std::uint64_t>, 2> arrive{};
  alignas(64) std::array<std::atomic<std::uint64_t>, 2> pid{};
  std::array<std::atomic<std::uint64_t>, 2> send_addr{};
  std::atomic<int> cma_failed{0};
  alignas(64) std::atomic<std::uint64_t> ping{0};
};

// The exchange's shared memory, mapped before the fork and unmapped with
// this: the flags; per size each process's time per phase and round; rank
// 0's probes before and after each round's block, per pair of phases; the
// two slots (slot[i]: what i reads).
struct ExchangeMemory {
  std::size_t nsz, maxs, per_size;
  ExchangeFlags* sh;
  double* times;
  double* probe_at;  // [before/after][size][pair][round]
  std::byte* slot;

  ExchangeMemory(std::size_t sizes, std::size_t max_size)
      : nsz(sizes),
        maxs(max_size),
        per_size(static_cast<std::size_t>(kPhases) * kMaxRounds),
        sh(shared_map<ExchangeFlags>()),
        times(shared_map<double>(2 * nsz * per_size)),
        probe_at(shared_map<double>(2 * nsz * 2 * kMaxRounds)),
        slot(static_cast<std::byte*>(
            ::mmap(nullptr, 2 * maxs, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0))) {
    new (sh) ExchangeFlags();
    if (slot == MAP_FAILED) throw Error(fmt::format("calibrate: cannot map shared memory: {}", std::strerror(errno)));
  }
  ExchangeMemory(const ExchangeMemory&) = delete;
  ExchangeMemory& operator=(const ExchangeMemory&) = delete;
  ExchangeMemory(ExchangeMemory&&) = delete;
  ExchangeMemory& operator=(ExchangeMemory&&) = delete;
  ~ExchangeMemory() {
    ::munmap(probe_at, sizeof(double) * 2 * nsz * 2 * kMaxRounds);
    ::munmap(times, sizeof(double) * 2 * nsz * per_size);
    if (slot != MAP_FAILED) ::munmap(slot, 2 * maxs);
    ::munmap(sh, sizeof(ExchangeFlags));
  }

  [[nodiscard]] double& at(int side, std::size_t i, int pair, int k) const {
    return probe_at[((static_cast<std::size_t>(side) * nsz + i) * 2 + static_cast<std::size_t>(pair)) * kMaxRounds +
                    static_cast<std::size_t>(k)];
  }
  // Process `me`'s times at size i: [phase * kMaxRounds + round].
  [[nodiscard]] double* times_of(int me, std::size_t i) const {
    return times + (static_cast<std::size_t>(me) * nsz + i) * per_size;
  }
};

// One process's side of the exchange (`me`, 0 or 1), made once it is
// pinned: fresh private mappings, as a ring rank's buffers are (a vector
// here could reuse heap pages the parent's earlier measurements left
// behind), with the ring's page size (host::MessageBuffer).
class ExchangeSide {
 public:
  ExchangeSide(const ExchangeMemory& m, const Calibration& c, const std::vector<int>& rounds, int me, bool huge,
               bool try_cma)
      : m_(m),
        c_(c),
        rounds_(rounds),
        me_(me),
        other_(1 - me),
        try_cma_(try_cma),
        priv_buf_(m.maxs, huge),
        out_buf_(m.maxs, huge),
        recv_buf_(m.maxs, huge) {
    fill_pattern({priv_buf_.data(), m_.maxs}, me_, 1);
    m_.sh->send_addr[me_].store(reinterpret_cast<std::uint64_t>(priv_buf_.data()));
    m_.sh->pid[me_].store(static_cast<std::uint64_t>(::getpid()));
  }

  void run() {
    barrier();
    peer_ = static_cast<pid_t>(m_.sh->pid[other_].load());
    peer_send_ = reinterpret_cast<const void*>(m_.sh->send_addr[other_].load());
    for (std::size_t i = 0; i < m_.nsz; ++i) {
      // Double copy's pair of phases, then CMA's pair, each in rounds of
      // its own (round -1 warms up), so that one pattern's buffers do not
      // push the other's out of the caches.
      for (int pair = 0; pair < 2; ++pair) {
        if (pair == 1 && !try_cma_) break;
        rounds_of(i, pair);
      }
      barrier();
    }
  }

 private:
  void barrier() {
    ++gen_;
    m_.sh->arrive[me_].store(gen_, std::memory_order_release);
    while (m_.sh->arrive[other_].load(std::memory_order_acquire) < gen_) __builtin_ia32_pause();
  }
  // The placement probe (host::line_pingpong, as Rank::handover): rank 0
  // gets the fastest batch's one-way time, rank 1 answers and gets 0.
  double probe() {
    return host::line_pingpong(m_.sh->ping, me_ == 0, kPlacementRounds, [](const auto& pred) {
      while (!pred()) __builtin_ia32_pause();
    });
  }

  // One round of a pair of phases of `s` bytes: this side's time of each.
  std::array<double, 2> round(std::size_t s, int pair) {
    std::array<double, 2> t{};
    double t0 = now();
    if (pair == 0) {
      std::memcpy(m_.slot + static_cast<std::size_t>(other_) * m_.maxs, priv_buf_.data(), s);
      // Until the stores are visible to the other CPU: the ring's
      // receiver waits for that, but the store buffer would end the
      // timing first (a 4 KiB copy "took" 50 ns at 82 GB/s here).
      std::atomic_thread_fence(std::memory_order_seq_cst);
    } else if (m_.sh->cma_failed.load() == 0) {
      try {
        host::cma_read(peer_, recv_buf_.data(), peer_send_, s);
      } catch (const Error&) {
        m_.sh->cma_failed.store(1);
      }
    }
    t[0] = now() - t0;
    barrier();
    t0 = now();
    if (pair == 0)
      std::memcpy(out_buf_.data(), m_.slot + static_cast<std::size_t>(me_) * m_.maxs, s);
    else
      sink_ = sink_ + checksum({recv_buf_.data(), s});
    t[1] = now() - t0;
    barrier();
    return t;
  }

  // The rounds of size i and one pair of phases, in blocks with a probe
  // before the first and after each (rank 0 records them per round).
  void rounds_of(std::size_t i, int pair) {
    const std::size_t s = c_.sizes[i];
    const int rounds = rounds_[i];
    const int block = std::max(1, (rounds + kBlocks - 1) / kBlocks);
    double* my_times = m_.times_of(me_, i);
    double before = 0;
    for (int k = -1; k < rounds; ++k) {
      const auto t = round(s, pair);
      if (k < 0) {
        before = probe();
        continue;
      }
      my_times[static_cast<std::size_t>(2 * pair) * kMaxRounds + static_cast<std::size_t>(k)] = t[0];
      my_times[static_cast<std::size_t>(2 * pair + 1) * kMaxRounds + static_cast<std::size_t>(k)] = t[1];
      if ((k + 1) % block == 0 || k + 1 == rounds) {
        const double after = probe();
        if (me_ == 0)
          for (int j = k - (k % block); j <= k; ++j) {
            m_.at(0, i, pair, j) = before;
            m_.at(1, i, pair, j) = after;
          }
        before = after;
        barrier();
      }
    }
  }

  const ExchangeMemory& m_;
  const Calibration& c_;
  const std::vector<int>& rounds_;
  int me_, other_;
  bool try_cma_;
  const host::MessageBuffer priv_buf_, out_buf_, recv_buf_;
  pid_t peer_ = 0;
  const void* peer_send_ = nullptr;
  std::uint64_t gen_ = 0;
  volatile std::uint64_t sink_ = 0;
};

// The rounds both processes measured: per round and phase the slower
// one's time, each scaled by its CPU's speed.
ExchangeRounds collect_rounds(const ExchangeMemory& m, const Calibration& c, const std::vector<int>& rounds,
                              const std::vector<double>& speed, bool cma_used) {
  const std::size_t nsz = m.nsz;
  ExchangeRounds x;
  x.sizes = c.sizes;
  x.time.resize(nsz);
  x.before.resize(nsz);
  x.after.resize(nsz);
  for (std::size_t i = 0; i < nsz; ++i)
    for (int ph = 0; ph < kPhases; ++ph) {
      const int pair = ph / 2;
      if (pair == 1 && !cma_used) continue;
      const auto t = static_cast<std::size_t>(ph);
      for (int k = 0; k < rounds[i]; ++k) {
        const std::size_t off = static_cast<std::size_t>(ph) * kMaxRounds + static_cast<std::size_t>(k);
        x.time[i][t].push_back(
            std::max(m.times[i * m.per_size + off] * speed[0], m.times[(nsz + i) * m.per_size + off] * speed[1]));
        x.before[i][t].push_back(m.at(0, i, pair, k));
        x.after[i][t].push_back(m.at(1, i, pair, k));
      }
    }
  return x;
}

// Two processes pinned to the first two CPUs exchange data at once, as two
// neighbours of a ring on different cores do; every phase ends with a
// barrier, so both run each phase at the same time:
//   1. memcpy of a private buffer into the shared slot the other reads next
//   2. memcpy out of my shared slot (which the other just wrote) into a private buffer
// (rounds of 1 and 2, as double copy moves a chunk), then rounds of
//   3. process_vm_readv of the other's send buffer into my receive buffer
//      (the CMA transport's pull)
//   4. checksum of my receive buffer (which my own CMA call just wrote)
// Per round and phase the slower process's time (a ring steps at its
// slower neighbour's pace), each process's time first scaled by its CPU's
// speed during the exchange (`speed`, relative to the tables), so that the
// rates are those of CPUs as fast as the tables' (the model slows each core
// by its own speed; a CPU that happened to be slow during calibration would
// otherwise count twice). The lines cross between the CPUs' caches in both
// directions at once, which single-process rates do not show.
// The rounds of each size and pair of phases run in up to kBlocks blocks
// with a cache-line ping-pong between the two processes before the first
// and after each: the hypervisor moves this VM's two CPUs between near and
// apart (about 3x slower for data crossing) within 0.1-2 s, so one probe
// around a whole exchange (~1 s) names the wrong placement for 4 of 8
// calibrations (split_exchange sorts the rounds).
// Needs two CPUs. Sets cma_failed when CMA was refused midway.
ExchangeRounds exchange(const Calibration& c, const std::vector<int>& cpus, std::size_t maxs, double budget,
                        const std::vector<double>& speed, bool huge, bool& cma_failed) {
  const std::size_t nsz = c.sizes.size();
  const ExchangeMemory m(nsz, maxs);
  const bool try_cma = c.cma_ok;
  const pid_t launcher = ::getpid();
  std::vector<int> rounds(nsz);
  for (std::size_t i = 0; i < nsz; ++i)
    rounds[i] = static_cast<int>(
        std::clamp<double>(budget * 4e9 / static_cast<double>(c.sizes[i]), 8, static_cast<double>(kMaxRounds)));
  // Rank 0 runs in a child as well, so that the launcher's CPU set stays as it is.
  in_processes(2, [&](int me) {
    pin(cpus[static_cast<std::size_t>(me)]);
    host::allow_ptracer(launcher);
    ExchangeSide side(m, c, rounds, me, huge, try_cma);
    side.run();
    return 0.0;
  });
  cma_failed = m.sh->cma_failed.load() != 0;
  return collect_rounds(m, c, rounds, speed, try_cma && !cma_failed);
}

// Seconds per step of two processes exchanging 8-byte messages over one
// transport (the ring's protocol with no data to speak of): each rank pinned
// to its own CPU where there are two; median over batches of 256 steps.
double transport_step(host::Kind kind, const std::vector<int>& cpus, double budget) {
  constexpr int kBatch = 256, kMaxBatches = 400;
  host::Options to;
  to.procs = 2;
  to.kind = kind;
  to.max_message = 8;
  host::Node node(to);
  const auto rep = node.run([&](host::Rank& r) {
    if (!cpus.empty()) pin(cpus[static_cast<std::size_t>(r.id()) % cpus.size()]);
    const int peer = 1 - r.id();
    std::uint64_t out = 0, in = 0;
    auto step = [&] {
      if (r.kind() == host::Kind::zero_copy) {
        auto buf = r.acquire(8);
        std::memcpy(buf.data(), &out, 8);
        const auto got = r.sendrecv_view(peer, buf, peer, 8);
        std::memcpy(&in, got.data(), 8);
      } else if (r.kind() == host::Kind::cma) {
        // From a transport buffer, as the ring sends (RingOptions::cma_buffers).
        auto buf = r.acquire(8);
        std::memcpy(buf.data(), &out, 8);
        r.sendrecv(peer, buf, peer, {reinterpret_cast<std::byte*>(&in), 8});
      } else {
        r.sendrecv(peer, {reinterpret_cast<const std::byte*>(&out), 8}, peer, {reinterpret_cast<std::byte*>(&in), 8});
      }
      ++out;
    };
    for (int i = 0; i < kBatch; ++i) step();
    std::vector<double> per;
    // Both ranks run the same number of batches (about `budget` seconds at a few us per step).
    const int batches = std::clamp(static_cast<int>(budget * 800), 5, kMaxBatches);
    for (int b = 0; b < batches; ++b) {
      r.barrier();
      const double t0 = now();
      for (int i = 0; i < kBatch; ++i) step();
      per.push_back((now() - t0) / kBatch);
    }
    std::nth_element(per.begin(), per.begin() + static_cast<std::ptrdiff_t>(per.size() / 2), per.end());
    const double med = per[per.size() / 2];
    std::memcpy(r.scratch().data(), &med, sizeof med);
  });
  if (rep.used != kind) return 0.0;
  double a = 0, b = 0;
  std::memcpy(&a, node.scratch(0).data(), sizeof a);
  std::memcpy(&b, node.scratch(1).data(), sizeof b);
  return std::max(a, b);
}

}  // namespace

double memcpy_bandwidth(std::size_t size, double seconds) {
  // Page-aligned buffers, as the ring's and the calibration's: two heap
  // vectors of 64 KiB sit 16 bytes off a 64-byte line, and memcpy to such a
  // destination runs at 3.0 GB/s here against 45-50 aligned (glibc's
  // `rep movsb` on this AMD EPYC), and against it the ring's /memcpy column
  // reads 1.8-2.0 at 64 KiB.
  const host::MessageBuffer abuf(size, true), bbuf(size, true);
  const std::span<std::byte> a{abuf.data(), size}, b{bbuf.data(), size};
  fill_pattern(a, 0, 1);
  volatile std::uint64_t sink = 0;
  return static_cast<double>(size) / per_call(seconds, [&] {
           std::memcpy(b.data(), a.data(), size);
           sink = sink + static_cast<std::uint64_t>(b[size / 2]);
         });
}

namespace {
constexpr std::size_t kProbeBytes = std::size_t{256} * 1024;  // cached on every CPU this project ran on (L2 >= 512 KiB)
}  // namespace

std::vector<double> checksum_rates(double seconds, std::vector<std::vector<double>>* batches, double batch) {
  const auto cpus = allowed_cpus();
  const int n = std::max<int>(1, static_cast<int>(cpus.size()));
  auto* go = shared_map<Line>();
  // Each process's batch rates (at most kMax), then their count.
  constexpr std::size_t kMax = 1 << 14;
  const bool record = batches != nullptr && batch > 0;
  const std::size_t per = kMax + 1;
  double* series = record ? shared_map<double>(per * static_cast<std::size_t>(n)) : nullptr;
  struct Unmap {
    void* p;
    std::size_t bytes;
    Unmap(void* map, std::size_t len) : p(map), bytes(len) {}
    Unmap(const Unmap&) = delete;
    Unmap& operator=(const Unmap&) = delete;
    Unmap(Unmap&&) = delete;
    Unmap& operator=(Unmap&&) = delete;
    ~Unmap() {
      if (p) ::munmap(p, bytes);
    }
  } unmap_series{series, sizeof(double) * per * static_cast<std::size_t>(n)};
  auto rates = in_processes(n, [&](int i) {
    if (!cpus.empty()) pin(cpus[static_cast<std::size_t>(i)]);
    std::vector<std::byte> a(kProbeBytes);
    fill_pattern(a, i, 1);
    volatile std::uint64_t sink = 0;
    sink = sink + checksum(a);  // first touch
    go->v.fetch_add(1);
    while (go->v.load() < static_cast<std::uint64_t>(n)) ::sched_yield();
    const double t0 = now();
    double t = t0, tb = t0;
    long k = 0, kb = 0;
    std::size_t m = 0;
    double* mine = record ? series + per * static_cast<std::size_t>(i) : nullptr;
    while (k < 4 || t - t0 < seconds) {
      sink = sink + checksum(a);
      ++k;
      t = now();
      if (mine && t - tb >= batch) {
        if (m < kMax) mine[m++] = static_cast<double>(k - kb) * static_cast<double>(a.size()) / (t - tb);
        tb = t;
        kb = k;
      }
    }
    if (mine) mine[kMax] = static_cast<double>(m);
    return static_cast<double>(k) * static_cast<double>(a.size()) / (t - t0);
  });
  ::munmap(go, sizeof(Line));
  if (record) {
    batches->assign(static_cast<std::size_t>(n), {});
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
      const double* mine = series + per * i;
      (*batches)[i].assign(mine, mine + static_cast<std::size_t>(mine[kMax]));
    }
  }
  return rates;
}

SpeedSpells fit_speed_spells(const std::vector<std::vector<double>>& series, double batch) {
  std::vector<double> all;
  for (const auto& s : series) all.insert(all.end(), s.begin(), s.end());
  SpeedSpells f;
  if (all.size() < 20 || batch <= 0) return f;
  std::vector<double> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  // The fast level: the 90th percentile; a batch below 3/4 of it is slow.
  const double fast = sorted[sorted.size() * 9 / 10];
  const double cut = 0.75 * fast;
  double sum_slow = 0, sum_fast = 0;
  std::size_t n_slow = 0, spells = 0;
  for (const auto& s : series)
    for (std::size_t i = 0; i < s.size(); ++i) {
      const bool slow = s[i] < cut;
      if (slow) {
        sum_slow += s[i];
        ++n_slow;
        if (i == 0 || s[i - 1] >= cut) ++spells;
      } else {
        sum_fast += s[i];
      }
    }
  const std::size_t n_fast = all.size() - n_slow;
  // Slow spells in under 5% of the batches, or none fast: no spells (a
  // core slow throughout has that as its mean speed).
  if (n_slow * 20 < all.size() || n_fast == 0 || spells == 0) return f;
  f.slow_speed = (sum_slow / static_cast<double>(n_slow)) / (sum_fast / static_cast<double>(n_fast));
  f.slow_share = static_cast<double>(n_slow) / static_cast<double>(all.size());
  f.slow_dwell = static_cast<double>(n_slow) * batch / static_cast<double>(spells);
  f.batches = all.size();
  return f;
}

namespace {
using Tables = std::vector<double> Calibration::*;
constexpr std::array<Tables, 4> kExchangeTables{&Calibration::xwrite_bw, &Calibration::xcopy_bw, &Calibration::xcma_bw,
                                                &Calibration::xread_bw};
constexpr std::array<Tables, 4> kApartTables{&Calibration::xwrite_bw_apart, &Calibration::xcopy_bw_apart,
                                             &Calibration::xcma_bw_apart, &Calibration::xread_bw_apart};
// Per entry the faster of `into` (empty: taken as it is) and `from`.
void merge_faster(std::vector<double>& into, const std::vector<double>& from) {
  if (into.empty()) {
    into = from;
    return;
  }
  for (std::size_t i = 0; i < into.size() && i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}
}  // namespace

double placement_split(std::vector<double> handovers) {
  std::erase_if(handovers, [](double h) { return !(h > 0); });
  std::sort(handovers.begin(), handovers.end());
  double widest = 0, at = std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i < handovers.size(); ++i) {
    const double r = handovers[i] / handovers[i - 1];
    if (r > widest) {
      widest = r;
      if (r > host::kApartRatio) at = std::sqrt(handovers[i] * handovers[i - 1]);
    }
  }
  return widest > host::kApartRatio ? at : std::numeric_limits<double>::infinity();
}

std::vector<ExchangeRun> split_exchange(const ExchangeRounds& x, double split, int* mixed) {
  const std::size_t nsz = x.sizes.size();
  std::array<ExchangeRun, 2> run;
  std::array<std::vector<double>, 2> probes;
  run[1].apart = true;
  for (auto& r : run)
    for (auto t : kExchangeTables) (r.tables.*t).assign(nsz, 0.0);
  int n_mixed = 0;
  for (std::size_t i = 0; i < nsz; ++i)
    for (std::size_t t = 0; t < ExchangeRounds::kTables; ++t) {
      const auto& time = x.time[i][t];
      std::array<std::vector<double>, 2> v;
      for (std::size_t k = 0; k < time.size(); ++k) {
        const bool b = x.before[i][t][k] > split, a = x.after[i][t][k] > split;
        if (a != b) {
          // Tables 0-1 and 2-3 share their rounds: count each round once.
          if (t % 2 == 0) ++n_mixed;
          continue;
        }
        v[a ? 1 : 0].push_back(time[k]);
        if (t % 2 == 0) {
          probes[a ? 1 : 0].push_back(x.before[i][t][k]);
          probes[a ? 1 : 0].push_back(x.after[i][t][k]);
          if (t == 0) ++run[a ? 1 : 0].rounds;
        }
      }
      const std::size_t need = std::max<std::size_t>(3, time.size() / 8);
      for (std::size_t p = 0; p < 2; ++p) {
        if (v[p].size() < need) continue;
        const auto mid = v[p].begin() + static_cast<std::ptrdiff_t>(v[p].size() / 2);
        std::nth_element(v[p].begin(), mid, v[p].end());
        if (*mid > 0) (run[p].tables.*kExchangeTables[t])[i] = static_cast<double>(x.sizes[i]) / *mid;
      }
    }
  if (mixed != nullptr) *mixed += n_mixed;
  std::vector<ExchangeRun> out;
  for (std::size_t p = 0; p < 2; ++p) {
    if (probes[p].empty()) continue;
    const auto mid = probes[p].begin() + static_cast<std::ptrdiff_t>(probes[p].size() / 2);
    std::nth_element(probes[p].begin(), mid, probes[p].end());
    run[p].handover = *mid;
    out.push_back(std::move(run[p]));
  }
  return out;
}

namespace {
// Entries of `into` that are 0 while `other` has them: other's value times
// the median ratio into/other over the entries both have (1 if none).
int fill_missing(std::vector<double>& into, const std::vector<double>& other) {
  if (into.size() != other.size()) return 0;
  std::vector<double> ratio;
  for (std::size_t i = 0; i < into.size(); ++i)
    if (into[i] > 0 && other[i] > 0) ratio.push_back(into[i] / other[i]);
  double r = 1.0;
  if (!ratio.empty()) {
    std::sort(ratio.begin(), ratio.end());
    const std::size_t n = ratio.size();
    r = n % 2 == 1 ? ratio[n / 2] : 0.5 * (ratio[n / 2 - 1] + ratio[n / 2]);
  }
  int filled = 0;
  for (std::size_t i = 0; i < into.size(); ++i)
    if (into[i] <= 0 && other[i] > 0) {
      into[i] = other[i] * r;
      ++filled;
    }
  return filled;
}
}  // namespace

void sort_exchanges(Calibration& c, const std::vector<ExchangeRun>& runs) {
  const bool any_near = std::any_of(runs.begin(), runs.end(), [](const ExchangeRun& r) { return !r.apart; });
  for (auto t : kExchangeTables) (c.*t).clear();
  for (auto t : kApartTables) (c.*t).clear();
  c.exchange_handover = c.apart_handover = 0;
  c.exchange_handovers.clear();
  c.rounds_near = c.rounds_apart = c.entries_filled = 0;
  double nearest = 0;
  for (const auto& r : runs) {
    c.exchange_handovers.push_back(r.handover);
    // Apart runs go to the apart tables when a near one is there to keep.
    const bool to_apart = any_near && r.apart;
    for (std::size_t k = 0; k < std::size(kExchangeTables); ++k)
      merge_faster(c.*(to_apart ? kApartTables[k] : kExchangeTables[k]), r.tables.*kExchangeTables[k]);
    double& h = to_apart ? c.apart_handover : c.exchange_handover;
    h = std::max(h, r.handover);
    (r.apart ? c.rounds_apart : c.rounds_near) += r.rounds;
    if (!r.apart && r.handover > 0) nearest = nearest > 0 ? std::min(nearest, r.handover) : r.handover;
  }
  if (c.apart_handover > 0)
    for (std::size_t k = 0; k < std::size(kExchangeTables); ++k) {
      const auto near_measured = c.*kExchangeTables[k];  // each filled from the other as measured
      c.entries_filled += fill_missing(c.*kExchangeTables[k], c.*kApartTables[k]);
      c.entries_filled += fill_missing(c.*kApartTables[k], near_measured);
    }
  // The flags' latency is the near one (a ping-pong of the whole
  // calibration can have met only the apart placement).
  if (nearest > 0) c.c2c_latency = c.c2c_latency > 0 ? std::min(c.c2c_latency, nearest) : nearest;
}

namespace {

// The all-busy probes' rates in 100 us batches, for the speed spells.
constexpr double kSpellBatch = 1e-4;

// One calibration under way: the options, this process's CPUs, and what is
// measured so far; each step measures one part of the Calibration.
class Calibrator {
 public:
  explicit Calibrator(const CalibrateOptions& o)
      : o_(o),
        cpus_(allowed_cpus()),
        B_(o.seconds_per_point),
        maxs_(*std::max_element(o.sizes.begin(), o.sizes.end())) {
    c_.cores = std::max<int>(1, static_cast<int>(cpus_.size()));
    c_.sizes = o.sizes;
  }

  Calibration run();

 private:
  void restore_cpus() const;
  void single_process_tables();
  void all_cpu_copies();
  void background_load();
  [[nodiscard]] double pingpong(int cpu0, int cpu1, bool yield, int rounds) const;
  void pingpongs();
  [[nodiscard]] double switch_among_many() const;
  void yield_delay();
  void cma_costs();
  [[nodiscard]] std::vector<double> speeds_now() const;
  void measured_exchange(const std::vector<double>& speed);
  [[nodiscard]] std::array<double, 3> steps8(const std::vector<double>& speed) const;
  void remap_costs();
  void end_probe();

  const CalibrateOptions& o_;
  Calibration c_;
  std::vector<int> cpus_;
  double B_;          // seconds per point
  std::size_t maxs_;  // the largest size
  std::vector<std::vector<double>> spell_batches_;
  bool cma_failed_ = false;
};

void Calibrator::restore_cpus() const {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus_) CPU_SET(cpu, &set);
  ::sched_setaffinity(0, sizeof set, &set);
}

// The CPUs' speeds relative to the tables: the tables are measured on
// the first CPU alone (the mean over batches); a ring keeps every CPU busy for
// its whole run, so it goes at each CPU's mean rate with all of them busy
// (checksum_rates). A virtual machine's CPUs need not be equal, nor stay
// as they are (a host thread on the same physical core slows one).
// The reference and the single-process tables in passes: each pass
// measures every entry for a fifth of its time, so that every entry is
// the mean over the same moments spread across the tables' whole
// measurement. One entry after the other would put each in its own
// 30 ms, and this VM's CPUs change speed between two levels for
// milliseconds to seconds: measured so, a checksum table reads 12.0,
// 12.3, 5.5, 6.4, 5.6, 5.4 GB/s from 4 KiB to 4 MiB while the ring's
// checksum runs at 16 GB/s at 64 KiB.
// The all-busy probe runs in the same passes, after each pass's entries:
// a CPU's speed is its all-busy rate over the reference's, both means
// over the same moments. Probes of their own (one after the tables, one
// at the end of the calibration) come out at 0.69-1.93 of the reference
// on this VM (a CPU busy faster than alone: the probe meets the fast
// level of a speed spell that the tables met less), while the
// two-process zero-copy ring, a checksum of cached data, runs
// 11.1-12.3 GB/s in 17 of 19 rounds. Those 19 rounds simulated with both
// CPUs at speed 1 give 554 of 684 cells within 25%, against 518 with the
// two probes' mean and 472 with the mean of three probes.
void Calibrator::single_process_tables() {
  pin(cpus_.empty() ? 0 : cpus_.front());
  std::vector<std::byte> ref(kProbeBytes);
  fill_pattern(ref, 0, 1);
  const host::MessageBuffer abuf(maxs_, o_.huge_pages), bbuf(maxs_, o_.huge_pages);
  const std::span<std::byte> a{abuf.data(), maxs_}, b{bbuf.data(), maxs_};
  fill_pattern(a, 0, 1);
  fill_pattern(b, 1, 1);
  volatile std::uint64_t sink = 0;
  constexpr int kPasses = 5;
  const std::size_t nsz = o_.sizes.size();
  double t_ref = 0;
  std::vector<double> t_mem(nsz, 0.0), t_read(nsz, 0.0), busy;
  for (int pass = 0; pass < kPasses; ++pass) {
    if (pass > 0) pin(cpus_.empty() ? 0 : cpus_.front());
    t_ref += per_call(
        B_ / kPasses, [&] { sink = sink + checksum(ref); }, Batch::mean);
    for (std::size_t i = 0; i < nsz; ++i) {
      const std::size_t sz = o_.sizes[i];
      t_mem[i] += per_call(
          B_ / kPasses,
          [&] {
            std::memcpy(b.data(), a.data(), sz);
            sink = sink + static_cast<std::uint64_t>(b[sz / 2]);
          },
          Batch::mean);
      t_read[i] += per_call(
          B_ / kPasses,
          [&] {
            sink = sink + checksum({a.data(), sz});
          },
          Batch::mean);
    }
    // Every pass ends with the all-busy probe, its time a fifth of the
    // single probe it replaces (see core_speed below).
    restore_cpus();
    std::vector<std::vector<double>> pass_batches;
    const auto r = checksum_rates(std::max(0.01, 3 * B_ / kPasses), &pass_batches, kSpellBatch);
    busy.resize(std::max(busy.size(), r.size()), 0.0);
    for (std::size_t i = 0; i < r.size(); ++i) busy[i] += r[i] / kPasses;
    ++c_.speed_probes;
    spell_batches_.insert(spell_batches_.end(), pass_batches.begin(), pass_batches.end());
  }
  c_.checksum_rate = kPasses * static_cast<double>(ref.size()) / t_ref;
  for (std::size_t i = 0; i < nsz; ++i) {
    c_.memcpy_bw.push_back(kPasses * static_cast<double>(o_.sizes[i]) / t_mem[i]);
    c_.read_bw.push_back(kPasses * static_cast<double>(o_.sizes[i]) / t_read[i]);
  }
  for (double r : busy) c_.core_speed.push_back(r / c_.checksum_rate);
  if (c_.core_speed.empty()) c_.core_speed.push_back(1.0);
}

// All cores copying at once: the memory system's shared limit.
void Calibrator::all_cpu_copies() {
  for (auto s : o_.sizes) {
    auto* go = shared_map<Line>();
    const auto each = in_processes(c_.cores, [&](int i) {
      if (cpus_.size() > 1) pin(cpus_[static_cast<std::size_t>(i) % cpus_.size()]);
      const host::MessageBuffer abuf(s, o_.huge_pages), bbuf(s, o_.huge_pages);
      const std::span<std::byte> a{abuf.data(), s}, b{bbuf.data(), s};
      fill_pattern(a, i, 1);
      go->v.fetch_add(1);
      while (go->v.load() < static_cast<std::uint64_t>(c_.cores)) ::sched_yield();
      return static_cast<double>(s) / per_call(
                                          B_, [&] { std::memcpy(b.data(), a.data(), s); }, Batch::mean);
    });
    ::munmap(go, sizeof(Line));
    double sum = 0;
    for (double v : each) sum += v;
    c_.memcpy_bw_all.push_back(sum);
  }
}

// Background load: one spinning process per core measures the share of
// its core it gets (CPU time over wall time); with L other runnable
// processes spread over C cores the share is C / (C + L). The spinner
// also records the gaps in its own timeline longer than kGap: the time
// another process held the core once it had it (preempt_slice).
void Calibrator::background_load() {
  constexpr double kGap = 50e-6;
  const double wall = std::max(0.2, 10 * B_);
  auto* gaps = shared_map<double>(2 * static_cast<std::size_t>(c_.cores));
  const auto shares = in_processes(c_.cores, [&](int i) {
    timespec a{}, b{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    const double t0 = now();
    double last = t0, sum = 0, n = 0;
    for (double t = t0; t - t0 < wall; t = now()) {
      if (t - last > kGap) {
        sum += t - last;
        n += 1;
      }
      last = t;
    }
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    gaps[2 * static_cast<std::size_t>(i)] = sum;
    gaps[2 * static_cast<std::size_t>(i) + 1] = n;
    const double cpu = static_cast<double>(b.tv_sec - a.tv_sec) + 1e-9 * static_cast<double>(b.tv_nsec - a.tv_nsec);
    return cpu / (now() - t0);
  });
  double share = 0, gap_sum = 0, gap_n = 0;
  for (double v : shares) share += v / static_cast<double>(shares.size());
  for (int i = 0; i < c_.cores; ++i) {
    gap_sum += gaps[2 * static_cast<std::size_t>(i)];
    gap_n += gaps[2 * static_cast<std::size_t>(i) + 1];
  }
  ::munmap(gaps, sizeof(double) * 2 * static_cast<std::size_t>(c_.cores));
  share = std::clamp(share, 0.02, 1.0);
  c_.background_load = c_.cores * (1.0 / share - 1.0);
  c_.preempt_slice = gap_n > 0 ? gap_sum / gap_n : 0.0;
  c_.preempt_count = static_cast<int>(gap_n);
}

// Ping-pong on one shared line: on two cores (latency), and on one core
// with yields (the cost of handing the core to another process).
double Calibrator::pingpong(int cpu0, int cpu1, bool yield, int rounds) const {
  auto* line = shared_map<Line>();
  auto* t = shared_map<double>();
  std::fflush(nullptr);
  const pid_t p = ::fork();
  if (p == 0) {
    if (cpu1 >= 0) pin(cpu1);
    for (int i = 0; i < rounds; ++i) {
      while (line->v.load(std::memory_order_acquire) != 2 * static_cast<std::uint64_t>(i) + 1)
        if (yield) ::sched_yield();
      line->v.store(2 * i + 2, std::memory_order_release);
    }
    ::_exit(0);
  }
  if (cpu0 >= 0) pin(cpu0);
  // The fastest batch of 50 round trips: preemption by other work is not the cost we want.
  double t0 = now(), best = 1e300;
  for (int i = 0; i < rounds; ++i) {
    line->v.store(2 * i + 1, std::memory_order_release);
    while (line->v.load(std::memory_order_acquire) != 2 * static_cast<std::uint64_t>(i) + 2)
      if (yield) ::sched_yield();
    if ((i + 1) % 50 == 0) {
      const double t1 = now();
      best = std::min(best, (t1 - t0) / 100.0);
      t0 = t1;
    }
  }
  *t = best;
  ::waitpid(p, nullptr, 0);
  const double r = *t;
  ::munmap(line, sizeof(Line));
  ::munmap(t, sizeof(double));
  // Restore this process's CPU set.
  restore_cpus();
  return r;
}

void Calibrator::pingpongs() {
  double best = 1e300;
  for (int k = 0; k < 3; ++k)
    best = std::min(best, cpus_.size() > 1 ? pingpong(cpus_[0], cpus_[1], false, o_.pingpong_rounds)
                                           : pingpong(-1, -1, true, o_.pingpong_rounds));
  c_.c2c_latency = best;
  best = 1e300;
  for (int k = 0; k < 3; ++k)
    best = std::min(best, pingpong(cpus_.empty() ? -1 : cpus_[0], cpus_.empty() ? -1 : cpus_[0], true,
                                   std::max(100, o_.pingpong_rounds / 4)));
  c_.switch_cost = best;
}

// Many processes on one CPU: kMany processes pinned to the first CPU,
// each calling sched_yield in a loop; wall time over the context switches
// they count (getrusage), the fastest of three trials. A switch among
// four or more costs more than between two (measured here: 5.2-5.5 us
// for 2, 7.7 for 3, 8.5-9.0 for 4 to 16), and a ring of 8 processes on
// 2 CPUs hands over that way (traced: a fixed cycle of the 4 on each).
// Measured near the start and again at the end of the calibration, the
// faster counts: one measurement can catch the first CPU in a slow spell
// for all three trials (17.1 us against 8.1-10.7 otherwise; the 8-process
// small-message cells then come out 26-44% slow).
double Calibrator::switch_among_many() const {
  constexpr int kMany = 4;
  const int n = std::max(200, o_.pingpong_rounds / 10);
  auto* sh = shared_map<double>(2 * kMany + 1);
  auto* go = shared_map<Line>();
  double best = 1e300;
  for (int trial = 0; trial < 3; ++trial) {
    go->v.store(0);
    in_processes(kMany, [&](int i) {
      if (!cpus_.empty()) pin(cpus_.front());
      go->v.fetch_add(1);
      while (go->v.load() < static_cast<std::uint64_t>(kMany)) ::sched_yield();
      rusage a{}, b{};
      ::getrusage(RUSAGE_SELF, &a);
      const double t0 = now();
      for (int j = 0; j < n; ++j) ::sched_yield();
      const double t = now() - t0;
      ::getrusage(RUSAGE_SELF, &b);
      sh[2 * static_cast<std::size_t>(i)] = t;
      sh[2 * static_cast<std::size_t>(i) + 1] =
          static_cast<double>((b.ru_nvcsw - a.ru_nvcsw) + (b.ru_nivcsw - a.ru_nivcsw));
      return 0.0;
    });
    double wall = 0, switches = 0;
    for (int i = 0; i < kMany; ++i) {
      wall = std::max(wall, sh[2 * static_cast<std::size_t>(i)]);
      switches += sh[2 * static_cast<std::size_t>(i) + 1];
    }
    if (switches > 0) best = std::min(best, wall / switches);
  }
  ::munmap(go, sizeof(Line));
  ::munmap(sh, sizeof(double) * (2 * kMany + 1));
  return best;
}

// Yield delay: how late a process that waits with the transports' wait
// (spin, then sched_yield) sees a flag once it has started yielding. The
// waiter (first CPU) announces it waits; the setter (second CPU) lets it
// spin out (4 spin times), then stamps the time and sets the flag; the
// waiter records when it saw it. Mean over the trials: on an idle machine
// a system call or two, under load the rest of another process's turn.
void Calibrator::yield_delay() {
  struct alignas(64) Shared {
    std::atomic<std::uint64_t> waiting{0}, flag{0};
    alignas(64) double stamp = 0;
    alignas(64) double sum = 0;
    int n = 0;
    std::array<double, 2000> delay{};
  };
  auto* sh = shared_map<Shared>();
  new (sh) Shared();
  const double hold = 4 * c_.spin_time + 2e-6;
  const double budget = std::max(0.1, 10 * B_);
  std::fflush(nullptr);
  const pid_t p = ::fork();
  if (p == 0) {
    if (cpus_.size() > 1) pin(cpus_[1]);
    for (std::uint64_t i = 1;; ++i) {
      while (sh->waiting.load(std::memory_order_acquire) < i) ::sched_yield();
      if (sh->waiting.load() == ~0ull) break;
      const double t0 = now();
      while (now() - t0 < hold) {
      }
      sh->stamp = now();
      sh->flag.store(i, std::memory_order_release);
    }
    ::_exit(0);
  }
  if (!cpus_.empty()) pin(cpus_[0]);
  const double start = now();
  for (std::uint64_t i = 1; i <= 2000 && (i <= 20 || now() - start < budget); ++i) {
    sh->waiting.store(i, std::memory_order_release);
    int spins = 0;
    while (sh->flag.load(std::memory_order_acquire) < i) {
      if (spins < host::kSpinPauses) {
        __builtin_ia32_pause();
        ++spins;
      } else {
        ::sched_yield();
      }
    }
    const double seen = now();
    sh->delay[sh->n] = std::max(0.0, seen - sh->stamp);
    sh->sum += sh->delay[sh->n];
    ++sh->n;
  }
  sh->waiting.store(~0ull, std::memory_order_release);
  ::waitpid(p, nullptr, 0);
  c_.yield_delay = sh->n > 0 ? sh->sum / sh->n : 0.0;
  if (sh->n > 0) {
    std::vector<double> d(sh->delay.begin(), sh->delay.begin() + sh->n);
    std::nth_element(d.begin(), d.begin() + sh->n / 2, d.end());
    c_.yield_delay_median = d[static_cast<std::size_t>(sh->n / 2)];
  }
  c_.yield_trials = sh->n;
  ::munmap(sh, sizeof(Shared));
  restore_cpus();
}

// CMA from a child that holds the message: process_vm_readv into a
// buffer of ours, as the transport's receiver pulls from its sender. The
// child maps its buffer itself (pages inherited over fork would be
// copied on write, and a huge page split into small ones).
void Calibrator::cma_costs() {
  struct Posted {
    std::atomic<std::uint64_t> state{0};
    std::atomic<std::uint64_t> addr{0};
  };
  auto* sh = shared_map<Posted>();
  new (sh) Posted();
  std::fflush(nullptr);
  const pid_t p = ::fork();
  if (p == 0) {
    int rc = 0;
    try {
      host::allow_ptracer(::getppid());
      const host::MessageBuffer buf(maxs_, o_.huge_pages);
      fill_pattern({buf.data(), maxs_}, 2, 1);
      sh->addr.store(reinterpret_cast<std::uint64_t>(buf.data()));
      sh->state.store(1);
      while (sh->state.load() == 1) ::usleep(1000);
    } catch (...) {
      rc = 1;
      sh->state.store(3);
    }
    ::_exit(rc);
  }
  while (sh->state.load() == 0) ::usleep(100);
  const auto* remote = reinterpret_cast<const void*>(sh->addr.load());
  const host::MessageBuffer local(maxs_, o_.huge_pages);
  try {
    if (sh->state.load() != 1) throw Error("the child holding the CMA buffer failed");
    c_.cma_call = per_call(B_, [&] { host::cma_read(p, local.data(), remote, 8); });
    std::vector<double> pages, times;
    for (auto s : o_.sizes) {
      const double t = per_call(B_, [&] { host::cma_read(p, local.data(), remote, s); });
      c_.cma_bw.push_back(static_cast<double>(s) / t);
      if (s >= 65536) {
        pages.push_back(static_cast<double>(s) / 4096.0);
        times.push_back(t);
      }
    }
    if (pages.size() >= 2) c_.cma_per_page = fit(pages, times).second;
    c_.cma_ok = true;
  } catch (const Error& e) {
    c_.cma_ok = false;
    c_.cma_note = e.what();
    c_.cma_bw.assign(o_.sizes.size(), 0.0);
  }
  sh->state.store(2);
  ::waitpid(p, nullptr, 0);
  ::munmap(sh, sizeof(Posted));
}

// The two CPUs' speeds now (they change while we measure), relative to
// the tables; the exchange and the 8-byte steps are scaled to tables'
// speed with them, as the model applies each core's speed itself.
std::vector<double> Calibrator::speeds_now() const {
  std::vector<double> v{1.0, 1.0};
  if (cpus_.size() >= 2) {
    const auto r = checksum_rates(std::max(0.03, B_));
    for (std::size_t i = 0; i < 2; ++i) v[i] = r[i] / c_.checksum_rate;
  }
  return v;
}

// The exchange's placement, per block of rounds (see exchange()). All
// exchanges' rounds are sorted again after each, against the split of
// all their probes (placement_split).
void Calibrator::measured_exchange(const std::vector<double>& speed) {
  auto& exchanges = c_.exchanges;
  if (cpus_.size() < 2) {
    // One CPU: nothing crosses; the single-process rates are used.
    c_.xwrite_bw = c_.memcpy_bw;
    c_.xcopy_bw = c_.memcpy_bw;
    c_.xcma_bw = c_.cma_bw;
    c_.xread_bw = c_.read_bw;
    return;
  }
  exchanges.push_back(exchange(c_, cpus_, maxs_, B_, speed, o_.huge_pages, cma_failed_));
  c_.exchange_rounds = static_cast<int>(exchanges.back().time.back()[0].size());
  std::vector<double> probes;
  for (const auto& x : exchanges)
    for (std::size_t i = 0; i < x.sizes.size(); ++i) {
      probes.insert(probes.end(), x.before[i][0].begin(), x.before[i][0].end());
      probes.insert(probes.end(), x.after[i][0].begin(), x.after[i][0].end());
      probes.insert(probes.end(), x.before[i][2].begin(), x.before[i][2].end());
      probes.insert(probes.end(), x.after[i][2].begin(), x.after[i][2].end());
    }
  const double split = placement_split(probes);
  c_.split_handover = split;
  std::vector<ExchangeRun> runs;
  c_.rounds_mixed = 0;
  for (const auto& x : exchanges)
    for (auto& r : split_exchange(x, split, &c_.rounds_mixed)) runs.push_back(std::move(r));
  sort_exchanges(c_, runs);
  if (cma_failed_) {
    c_.xcma_bw.assign(c_.sizes.size(), 0.0);
    c_.xcma_bw_apart.clear();
  }
}

// The protocol's CPU time of an 8-byte step (the part beyond the flags'
// latencies and, for CMA, the call; see host::step_overhead) ran at the
// slower CPU's pace. Measured after the exchange and again at the end of
// the calibration, each time scaled by the speeds probed just before; per
// transport the faster counts (one measurement can catch CMA's step at
// 8.7 us against 3.3 a minute earlier, and the model's 4 KiB CMA cell
// then comes out 57% slow).
std::array<double, 3> Calibrator::steps8(const std::vector<double>& speed) const {
  const double slow = std::min(speed[0], speed[1]);
  auto scaled = [&](double raw, double fixed) { return raw <= fixed ? raw : fixed + (raw - fixed) * slow; };
  return std::array<double, 3>{
      scaled(transport_step(host::Kind::double_copy, cpus_, B_), c_.c2c_latency),
      scaled(transport_step(host::Kind::zero_copy, cpus_, B_), c_.c2c_latency),
      c_.cma_ok ? scaled(transport_step(host::Kind::cma, cpus_, B_), c_.c2c_latency + c_.cma_call) : 0.0};
}

// Page remap: map a range of a shared memory file with its page-table
// entries filled, then unmap it.
void Calibrator::remap_costs() {
  const std::size_t pg = 4096, maxpages = 1024;
  const int fd = ::memfd_create("hopsim-calibrate", MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(maxpages * pg)) != 0)
    throw Error(fmt::format("calibrate: memfd failed: {}", std::strerror(errno)));
  void* warm = ::mmap(nullptr, maxpages * pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  std::memset(warm, 1, maxpages * pg);  // allocate the file's pages once
  std::vector<double> x, t;
  for (std::size_t n : {1, 16, 64, 256, 1024}) {
    x.push_back(static_cast<double>(n));
    t.push_back(per_call(B_, [&] {
      void* m = ::mmap(nullptr, n * pg, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
      if (m != MAP_FAILED) ::munmap(m, n * pg);
    }));
  }
  const auto [a, b] = fit(x, t);
  c_.remap_call = std::max(0.0, a);
  c_.remap_per_page = b;
  ::munmap(warm, maxpages * pg);
  ::close(fd);
}

// The all-busy probe once more at the end, printed beside the speeds and
// fitted for spells, but not in core_speed (see single_process_tables).
void Calibrator::end_probe() {
  std::vector<std::vector<double>> end_batches;
  for (double r : checksum_rates(std::max(0.05, 3 * B_), &end_batches, kSpellBatch))
    c_.speed_end.push_back(r / c_.checksum_rate);
  spell_batches_.insert(spell_batches_.end(), end_batches.begin(), end_batches.end());
  c_.spells = fit_speed_spells(spell_batches_, kSpellBatch);
}

Calibration Calibrator::run() {
  single_process_tables();
  all_cpu_copies();
  c_.syscall = per_call(B_, [] { ::syscall(SYS_getppid); });
  background_load();
  // The transports' spin before a yield.
  c_.spin_time = per_call(B_, [] {
    for (int i = 0; i < host::kSpinPauses; ++i) __builtin_ia32_pause();
  });
  pingpongs();
  const double many_first = switch_among_many();
  yield_delay();
  cma_costs();
  const std::vector<double> now_speed = speeds_now();
  c_.exchange_speed = now_speed;
  measured_exchange(now_speed);
  const auto steps_first = steps8(now_speed);
  remap_costs();
  const double many = std::min(many_first, switch_among_many());
  c_.switch_cost_many = many < 1e300 ? many : c_.switch_cost;
  const auto steps_end = steps8(speeds_now());
  c_.step8_double = std::min(steps_first[0], steps_end[0]);
  c_.step8_zero = std::min(steps_first[1], steps_end[1]);
  c_.step8_cma = std::min(steps_first[2], steps_end[2]);
  // The exchange again, after the 8-byte steps; within one placement, per
  // table entry the faster counts.
  // A single exchange catches slow spells: with one, 5 of 13 calibrations
  // minutes apart measure the 64 KiB copy into the peer's slot at
  // 4.0-7.3 GB/s (as slow at 1 MiB), the others at 11.6-29.2 (29-54 at
  // 1 MiB), and the rounds with the slow ones predict double copy 40-76%
  // slow.
  // Up to two more until both placements were met: the kept tables near
  // (the machine's own), and apart tables besides when the hypervisor also
  // ran the CPUs apart (predict --placement probed simulates the cells run
  // apart with them). A machine that never moves its CPUs pays two more
  // exchanges.
  for (int k = 0; k < 3 && cpus_.size() > 1; ++k) {
    if (k > 0 && c_.apart_handover > 0 && c_.entries_filled == 0) break;  // both placements met, every entry
    measured_exchange(speeds_now());
  }
  end_probe();
  return c_;
}

}  // namespace

Calibration calibrate(const CalibrateOptions& o) { return Calibrator(o).run(); }

}  // namespace hopsim::host
