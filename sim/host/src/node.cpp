#include "hopsim/host/node.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/host/buffer.hpp"
#include "hopsim/host/cma.hpp"

namespace hopsim::host {

namespace {
constexpr std::size_t kScratch = 4096;
constexpr std::size_t kErrLen = 480;
// Exit codes of a rank process.
constexpr int kExitOk = 0, kExitConfig = 2, kExitData = 3, kExitKernel = 5, kExitDeadlock = 6, kExitOther = 1,
              kExitAborted = 99;

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }
std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

struct alignas(64) Counter {
  std::atomic<std::uint64_t> v{0};
};

// One direction between two ranks.
struct Channel {
  Counter head;  // double copy: chunks published; cma: send buffers posted; zero copy: messages posted
  Counter tail;  // double copy: chunks consumed; cma: messages read
  alignas(64) std::uint64_t addr = 0;  // zero copy: pool offset
  std::uint64_t len = 0;
  std::array<std::uint64_t, kMaxSlots> slot_len{};  // double copy: bytes in the chunk; cma: the message's address
  std::array<std::uint64_t, kMaxSlots> slot_msg{};  // total length of the message the chunk (cma: message) belongs to
  std::array<std::int32_t, kMaxSlots> slot_buf{};   // cma: the sender's acquire() buffer the message is in, -1 if none
};

struct alignas(64) RankSlot {
  pid_t pid = 0;
  std::array<char, kErrLen> error{};
  int error_code = 0;
  std::uint64_t fail_order = 0;  // 1 + the failures reported in the node before this rank's (0: none)
  // Zero copy (two) and CMA (cma_buffers): buffer handed over, not yet
  // released by its receiver.
  std::array<std::atomic<std::uint32_t>, kMaxSlots> pool_busy{};
  alignas(64) std::array<std::byte, kScratch> scratch{};
};
}  // namespace

struct Node::Shared {
  Counter abort;
  Counter failures;  // failures reported so far (RankSlot::fail_order)
  Counter barrier_count;
  Counter barrier_sense;
  Counter cma_refused;
  std::uint64_t probe_word = 0x686f7073696d;  // read by the CMA probe
  std::array<char, 1024> reason{};
  std::array<RankSlot, Node::kMaxProcs> rank{};
  std::array<std::array<Channel, Node::kMaxProcs>, Node::kMaxProcs> chan{};  // [src][dst]
  Counter handover;  // Rank::handover: odd values from the leader, even from the other
};

struct Node::Local {
  int id = 0;
  Kind kind = Kind::double_copy;
  std::uint32_t sense = 0;
  std::vector<std::uint64_t> sent, received;  // message counts per peer
  std::uint64_t recv_total = 0;               // all messages received (fault injection)
  std::uint64_t acquired = 0;
  std::vector<std::unique_ptr<MessageBuffer>> cma_bufs;  // CMA: acquire()'s buffers, made at the first call
  struct View {
    int buf = -1;
    void* map = nullptr;
    std::size_t map_len = 0;
  };
  std::vector<View> views;  // per source
};

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::double_copy:
      return "double-copy";
    case Kind::cma:
      return "cma";
    case Kind::zero_copy:
      return "zero-copy";
  }
  return "?";
}

Kind parse_kind(std::string_view name, std::string_view key) {
  if (name == "double-copy" || name == "double") return Kind::double_copy;
  if (name == "cma") return Kind::cma;
  if (name == "zero-copy" || name == "zero") return Kind::zero_copy;
  throw ConfigError(fmt::format("{}: unknown transport '{}' (expected double-copy, cma or zero-copy)", key, name));
}

std::string_view bind_name(Bind b) { return b == Bind::spread ? "spread" : "none"; }

Bind parse_bind(std::string_view name, std::string_view key) {
  if (name == "none") return Bind::none;
  if (name == "spread") return Bind::spread;
  throw ConfigError(fmt::format("{}: unknown binding '{}' (expected spread or none)", key, name));
}

namespace {
// The CPUs this process may run on, in increasing order.
std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0)
    throw KernelError(fmt::format("transport: sched_getaffinity failed: {}", std::strerror(errno)));
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// Spins briefly, then yields: with more processes than cores the peer we
// wait for may need this core.
template <class Pred>
void wait_until(const Counter& abort, Pred pred) {
  for (int i = 0; i < kSpinPauses; ++i) {
    if (pred()) return;
    __builtin_ia32_pause();
  }
  while (!pred()) {
    if (abort.v.load(std::memory_order_relaxed) != 0) throw Aborted{};
    ::sched_yield();
  }
}

// Blocks the launcher until a rank may have exited or the timeout passed.
// It must not wake up often: its wake-ups take the CPU from a rank, and a
// launcher sleeping 200 us between waitpid polls takes 10-35% off the ring
// bandwidth of 2 processes on this 2-CPU machine (docs/host-copy.md). Uses
// a pidfd per rank (Linux 5.3); without pidfds it sleeps 1 ms per poll.
class ExitWaiter {
 public:
  explicit ExitWaiter(const std::vector<pid_t>& pids) {
    for (pid_t p : pids) fds_.push_back(static_cast<int>(::syscall(SYS_pidfd_open, p, 0)));
  }
  ExitWaiter(const ExitWaiter&) = delete;
  ExitWaiter& operator=(const ExitWaiter&) = delete;
  ExitWaiter(ExitWaiter&&) = delete;
  ExitWaiter& operator=(ExitWaiter&&) = delete;
  ~ExitWaiter() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  // status[r] == -1: rank r has not been reaped yet.
  void wait(const std::vector<int>& status, std::chrono::milliseconds timeout) const {
    std::vector<pollfd> set;
    for (std::size_t r = 0; r < fds_.size(); ++r) {
      if (status[r] != -1) continue;
      if (fds_[r] < 0) {
        std::this_thread::sleep_for(std::min(timeout, std::chrono::milliseconds(1)));
        return;
      }
      set.push_back(pollfd{fds_[r], POLLIN, 0});
    }
    if (set.empty()) return;
    ::poll(set.data(), set.size(),
           static_cast<int>(std::max<long long>(timeout.count(), 1)));  // EINTR: caller looks again
  }

 private:
  std::vector<int> fds_;
};

void flip_bit(std::byte* p, std::size_t len) {
  if (len == 0) return;
  p[len / 2] ^= std::byte{0x10};
}
}  // namespace

Node::Node(const Options& o) : opt_(o) {
  if (o.procs < 1 || o.procs > kMaxProcs)
    throw ConfigError(fmt::format("transport: {} processes requested (allowed 1 to {})", o.procs, kMaxProcs));
  if (o.slots < 1 || o.slots > kMaxSlots)
    throw ConfigError(fmt::format("transport: {} slots per channel (allowed 1 to {})", o.slots, kMaxSlots));
  if (o.cma_buffers < 1 || o.cma_buffers > kMaxSlots)
    throw ConfigError(
        fmt::format("transport: {} CMA send buffers per rank (allowed 1 to {})", o.cma_buffers, kMaxSlots));
  if (o.chunk < 64) throw ConfigError(fmt::format("transport: chunk of {} bytes is too small (at least 64)", o.chunk));
  sh_bytes_ = round_up(sizeof(Shared), page_size());
  void* m = ::mmap(nullptr, sh_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    throw Error(fmt::format("transport: cannot map {} bytes of shared memory: {}", sh_bytes_, std::strerror(errno)));
  sh_ = new (m) Shared();
  // Bounce buffers for the pairs actually used are touched lazily; the rest
  // stays virtual. Needed for double copy and as CMA's fallback.
  if (o.kind != Kind::zero_copy) {
    bounce_bytes_ = static_cast<std::size_t>(o.procs) * o.procs * o.slots * o.chunk;
    m = ::mmap(nullptr, bounce_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
      throw Error(
          fmt::format("transport: cannot map {} bytes of bounce buffers: {}", bounce_bytes_, std::strerror(errno)));
    bounce_ = static_cast<std::byte*>(m);
  } else {
    pool_buf_ = round_up(std::max<std::size_t>(o.max_message, 1), page_size());
    pool_bytes_ = pool_buf_ * 2 * static_cast<std::size_t>(o.procs);
    pool_fd_ = ::memfd_create("hopsim-zero-copy-pool", MFD_CLOEXEC);
    if (pool_fd_ < 0 || ::ftruncate(pool_fd_, static_cast<off_t>(pool_bytes_)) != 0)
      throw Error(
          fmt::format("transport: cannot create the {}-byte zero-copy pool: {}", pool_bytes_, std::strerror(errno)));
    m = ::mmap(nullptr, pool_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, pool_fd_, 0);
    if (m == MAP_FAILED) throw Error(fmt::format("transport: cannot map the zero-copy pool: {}", std::strerror(errno)));
    pool_ = static_cast<std::byte*>(m);
  }
}

Node::~Node() {
  if (pool_) ::munmap(pool_, pool_bytes_);
  if (pool_fd_ >= 0) ::close(pool_fd_);
  if (bounce_) ::munmap(bounce_, bounce_bytes_);
  if (sh_) {
    sh_->~Shared();
    ::munmap(sh_, sh_bytes_);
  }
}

std::span<const std::byte> Node::scratch(int r) const { return {sh_->rank[r].scratch.data(), kScratch}; }

namespace {
// The launcher's watch over the ranks of a run: reaps each as it exits
// and stops the others once one failed. The rank that failed first is the
// one reported: ranks number their failures as they report them, and the
// launcher numbers a death it sees (a signal) when it sees it. In rank
// order, a rank whose CMA pull met a rank that had just failed and exited
// (ESRCH) would be named instead.
class RankWatch {
 public:
  RankWatch(Node::Shared& sh, const Options& opt, const std::vector<pid_t>& pids)
      : sh_(sh),
        opt_(opt),
        pids_(pids),
        n_(static_cast<int>(pids.size())),
        status_(n_, -1),
        killed_(n_, false),
        left_(n_) {}

  // Waits for every rank; a rank that dies without reporting stops the others.
  void wait_all() {
    const ExitWaiter waiter(pids_);
    while (left_ > 0) {
      const bool progressed = reap();
      if (left_ == 0) break;
      const auto now = clock::now();
      if (monitoring() && now >= next_monitor_) call_monitor(now);
      if (stopping() && now >= stop_at_) kill_the_rest();
      if (!progressed) {
        // Wake for the next monitor call or the end of the stop grace, else
        // only when a rank exits (100 ms at most).
        auto until = now + std::chrono::milliseconds(100);
        if (monitoring()) until = std::min(until, next_monitor_);
        if (stopping()) until = std::min(until, stop_at_);
        waiter.wait(status_, std::chrono::ceil<std::chrono::milliseconds>(until - now));
      }
    }
  }

  // Rethrows the first failure with its type, else the monitor's error;
  // throws Error for a rank that stopped without reporting.
  void throw_failure() const {
    if (first_failed_ >= 0) {
      const int r = first_failed_;
      const std::string err = sh_.rank[r].error.data();
      const std::string prefix = fmt::format("rank {}:", r);
      const std::string msg = err.rfind(prefix, 0) == 0 ? err : fmt::format("rank {}: {}", r, err);
      switch (status_[r]) {
        case kExitConfig:
          throw ConfigError(msg);
        case kExitData:
          throw DataMismatchError(msg);
        case kExitKernel:
          throw KernelError(msg);
        case kExitDeadlock:
          throw DeadlockError(msg);
        default:
          if (signal_[r] > 0) throw CrashError(msg, signal_[r]);
          throw Error(msg);
      }
    }
    if (monitor_error_) std::rethrow_exception(monitor_error_);
    for (int r = 0; r < n_; ++r)
      if (status_[r] != kExitOk) throw Error(fmt::format("rank {} stopped without a reported error", r));
  }

 private:
  using clock = std::chrono::steady_clock;

  [[nodiscard]] bool stopping() const { return stop_at_ != clock::time_point{}; }
  [[nodiscard]] bool monitoring() const { return opt_.monitor && !monitor_error_ && !stopping(); }

  void stop_all() {
    if (!stopping())
      stop_at_ =
          clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(opt_.stop_grace));
    sh_.abort.v.store(1);
  }

  // Reaps the ranks that exited; whether any did.
  bool reap() {
    bool progressed = false;
    for (int r = 0; r < n_; ++r) {
      if (status_[r] != -1) continue;
      int st = 0;
      const pid_t w = ::waitpid(pids_[r], &st, WNOHANG);
      if (w != pids_[r]) continue;
      progressed = true;
      --left_;
      exited(r, st);
    }
    return progressed;
  }

  // Rank r exited with wait status `st`.
  void exited(int r, int st) {
    if (WIFEXITED(st)) {
      status_[r] = WEXITSTATUS(st);
    } else if (killed_[r]) {
      status_[r] = kExitAborted;
    } else {
      status_[r] = 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
      signal_[r] = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
      std::snprintf(sh_.rank[r].error.data(), kErrLen, "killed by signal %d (%s)", WIFSIGNALED(st) ? WTERMSIG(st) : 0,
                    WIFSIGNALED(st) ? ::strsignal(WTERMSIG(st)) : "?");
    }
    if (status_[r] != kExitOk && status_[r] != kExitAborted) {
      auto& order = sh_.rank[r].fail_order;
      if (order == 0) order = sh_.failures.v.fetch_add(1) + 1;
      if (first_failed_ < 0 || order < sh_.rank[first_failed_].fail_order) first_failed_ = r;
    }
    if (status_[r] != kExitOk) stop_all();
  }

  void call_monitor(clock::time_point now) {
    next_monitor_ = now + std::chrono::milliseconds(10);
    try {
      opt_.monitor();
    } catch (...) {
      monitor_error_ = std::current_exception();
      stop_all();
    }
  }

  void kill_the_rest() {
    for (int r = 0; r < n_; ++r)
      if (status_[r] == -1 && !killed_[r]) {
        ::kill(pids_[r], SIGKILL);
        killed_[r] = true;
      }
  }

  Node::Shared& sh_;
  const Options& opt_;
  const std::vector<pid_t>& pids_;
  int n_;
  std::vector<int> status_;
  std::vector<bool> killed_;
  std::vector<int> signal_ = std::vector<int>(static_cast<std::size_t>(n_), 0);  // the signal that ended a rank
  int left_;
  int first_failed_ = -1;
  std::exception_ptr monitor_error_;
  clock::time_point stop_at_{}, next_monitor_ = clock::now();
};
}  // namespace

NodeReport Node::run(const std::function<void(Rank&)>& body) {
  const int n = opt_.procs;
  // Fresh control state for this run (counters, errors); bounce data may stay.
  sh_->~Shared();
  new (sh_) Shared();
  launcher_ = ::getpid();
  cpu_of_rank_.clear();
  if (opt_.bind == Bind::spread) {
    const auto cpus = allowed_cpus();
    if (cpus.empty()) throw KernelError("transport: the launcher's CPU affinity mask is empty");
    for (int r = 0; r < n; ++r) cpu_of_rank_.push_back(cpus[static_cast<std::size_t>(r) % cpus.size()]);
  }
  std::fflush(nullptr);
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r) {
    const pid_t p = ::fork();
    if (p < 0) {
      sh_->abort.v.store(1);
      for (pid_t q : pids) ::waitpid(q, nullptr, 0);
      throw Error(fmt::format("transport: fork of rank {} failed: {}", r, std::strerror(errno)));
    }
    if (p == 0) child(r, body);  // never returns
    pids.push_back(p);
  }
  RankWatch watch(*sh_, opt_, pids);
  watch.wait_all();
  watch.throw_failure();
  NodeReport rep;
  rep.requested = opt_.kind;
  rep.used = opt_.kind;
  rep.cpu_of_rank = cpu_of_rank_;
  if (opt_.kind == Kind::cma && sh_->cma_refused.v.load() != 0) {
    rep.used = Kind::double_copy;
    rep.fallback = sh_->reason.data();
  }
  return rep;
}

void Node::child(int id, const std::function<void(Rank&)>& body) {
  int code = kExitOk;
  auto& me = sh_->rank[id];
  auto report = [&](int c, const char* what) {
    code = c;
    std::snprintf(me.error.data(), kErrLen, "%s", what);
    me.error_code = c;
    me.fail_order = sh_->failures.v.fetch_add(1) + 1;
    sh_->abort.v.store(1);
  };
  try {
    local_ = std::make_unique<Local>();
    local_->id = id;
    local_->sent.assign(opt_.procs, 0);
    local_->received.assign(opt_.procs, 0);
    local_->views.assign(opt_.procs, {});
    me.pid = ::getpid();
    if (!cpu_of_rank_.empty()) {
      // Before anything is touched, so the rank's pages come from its CPU's node.
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu_of_rank_[static_cast<std::size_t>(id)], &set);
      if (::sched_setaffinity(0, sizeof set, &set) != 0)
        throw KernelError(fmt::format("transport: pinning rank {} to CPU {} failed: {}", id,
                                      cpu_of_rank_[static_cast<std::size_t>(id)], std::strerror(errno)));
    }
    // Yama scope 1: let every process of this launch (descendants of the
    // launcher) attach to this one, the least privilege CMA needs.
    allow_ptracer(launcher_);
    if (opt_.deny_cma) make_cma_inaccessible();
    Rank rank(*this, id);
    rank.barrier();  // every pid is published
    Kind kind = opt_.kind;
    if (kind == Kind::cma) {
      for (int j = 0; j < opt_.procs; ++j) {
        if (j == id) continue;
        std::uint64_t w = 0;
        try {
          cma_read(sh_->rank[j].pid, &w, &sh_->probe_word, sizeof w);
        } catch (const CmaRefused& e) {
          std::uint64_t expected = 0;
          if (sh_->cma_refused.v.compare_exchange_strong(expected, 1))
            std::snprintf(sh_->reason.data(), sh_->reason.size(), "rank %d -> rank %d: %s; falling back to double copy",
                          id, j, e.what());
        }
      }
      rank.barrier();
      if (sh_->cma_refused.v.load() != 0) kind = Kind::double_copy;
    }
    local_->kind = kind;
    body(rank);
    rank.release_views();
    // CMA: messages still in flight are read from this process's memory,
    // so it stays until its receivers pulled them.
    for (std::size_t b = 0; b < local_->cma_bufs.size(); ++b)
      wait_until(sh_->abort, [&] { return sh_->rank[id].pool_busy[b].load(std::memory_order_acquire) == 0; });
  } catch (const Aborted&) {
    code = kExitAborted;
  } catch (const ConfigError& e) {
    report(kExitConfig, e.what());
  } catch (const DataMismatchError& e) {
    report(kExitData, e.what());
  } catch (const KernelError& e) {
    report(kExitKernel, e.what());
  } catch (const DeadlockError& e) {
    report(kExitDeadlock, e.what());
  } catch (const std::exception& e) {
    report(kExitOther, e.what());
  } catch (...) {
    report(kExitOther, "unknown exception");
  }
  std::fflush(nullptr);
  ::_exit(code);
}

int Rank::size() const { return node_.opt_.procs; }
Kind Rank::kind() const { return node_.local_->kind; }
pid_t Rank::pid(int rank) const { return node_.sh_->rank[rank].pid; }
bool Rank::aborted() const { return node_.sh_->abort.v.load(std::memory_order_relaxed) != 0; }
std::span<std::byte> Rank::scratch() { return {node_.sh_->rank[id_].scratch.data(), kScratch}; }

void Rank::barrier() {
  auto* sh = node_.sh_;
  auto& L = *node_.local_;
  const std::uint32_t next = L.sense ^ 1u;
  if (sh->barrier_count.v.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<std::uint64_t>(size())) {
    sh->barrier_count.v.store(0, std::memory_order_relaxed);
    sh->barrier_sense.v.store(next, std::memory_order_release);
  } else {
    wait_until(sh->abort, [&] { return sh->barrier_sense.v.load(std::memory_order_acquire) == next; });
  }
  L.sense = next;
}

double Rank::handover(int peer, int round_trips) {
  auto* sh = node_.sh_;
  if (peer == id_ || peer < 0 || peer >= size())
    throw ConfigError(
        fmt::format("transport: rank {} asked for a hand-over with rank {} of a {}-process node", id_, peer, size()));
  if (round_trips < 1) throw ConfigError(fmt::format("transport: {} hand-over round trips (at least 1)", round_trips));
  // The side with the larger id answers (the leader writes odd values
  // only after seeing ours).
  return line_pingpong(sh->handover.v, id_ < peer, round_trips, [&](const auto& pred) { wait_until(sh->abort, pred); });
}

void Rank::sendrecv(int dst, std::span<const std::byte> out, int src, std::span<std::byte> in) {
  auto& N = node_;
  auto& L = *N.local_;
  const int n = size();
  if ((dst < -1 || dst >= n) || (src < -1 || src >= n))
    throw ConfigError(fmt::format("transport: rank {} addressed peer {} of a {}-process node", id_,
                                  dst < -1 || dst >= n ? dst : src, n));
  if (L.kind == Kind::zero_copy)
    throw ConfigError("transport: sendrecv copies; zero copy uses acquire() and sendrecv_view()");
  if (dst >= 0 && out.size() > N.opt_.max_message)
    throw ConfigError(
        fmt::format("transport: message of {} bytes exceeds max_message {}", out.size(), N.opt_.max_message));

  if (L.kind == Kind::cma)
    sendrecv_cma(dst, out, src, in);
  else
    sendrecv_double(dst, out, src, in);
}

void Rank::sendrecv_cma(int dst, std::span<const std::byte> out, int src, std::span<std::byte> in) {
  auto& N = node_;
  auto* sh = N.sh_;
  auto& L = *N.local_;
  // The receiver pulls, as MPI libraries' single-copy paths do: post my
  // send buffer, read my source's posted buffer with process_vm_readv
  // into mine and tell it I am done, then wait until my destination has
  // read mine (the send buffer is the caller's again once we return).
  // Pulling copies into the receiver's own buffer on its own CPU, so the
  // data it reads next is in its caches. Measured on this project's
  // machine against the sender pushing with process_vm_writev: with the
  // ring's huge-page buffers 1.3-1.9x faster for 2-4 processes from 64 KiB
  // to 4 MiB; on 4 KiB pages 1.3-1.5x at 64 KiB-1 MiB with 2 processes but
  // 0.8-1.0x at 4 MiB (docs/host-copy.md).
  // A send buffer from acquire() is released by the receiver after its
  // pull, so the sender need not wait here: with two or more processes
  // per core, waiting for each pull makes every rank run once per step in
  // lockstep (64 KiB, 4 processes: 1600-2100 MB/s against 2100-2970 with
  // four buffers).
  const std::uint64_t seq = dst >= 0 ? ++L.sent[dst] : 0;
  int buf = -1;
  if (dst >= 0) {
    for (std::size_t b = 0; b < L.cma_bufs.size(); ++b) {
      const std::byte* base = L.cma_bufs[b]->data();
      if (out.data() >= base && out.data() + out.size() <= base + L.cma_bufs[b]->size()) buf = static_cast<int>(b);
    }
    Channel& c = sh->chan[id_][dst];
    // A slot per message in flight (each holds a buffer; at most kMaxSlots).
    wait_until(sh->abort, [&] { return c.tail.v.load(std::memory_order_acquire) + kMaxSlots >= seq; });
    const auto k = static_cast<std::size_t>(seq % kMaxSlots);
    c.slot_len[k] = reinterpret_cast<std::uint64_t>(out.data());
    c.slot_msg[k] = out.size();
    c.slot_buf[k] = buf;
    if (buf >= 0) sh->rank[id_].pool_busy[buf].store(1, std::memory_order_relaxed);
    c.head.v.store(seq, std::memory_order_release);
  }
  if (src >= 0) {
    Channel& c = sh->chan[src][id_];
    const std::uint64_t rseq = ++L.received[src];
    wait_until(sh->abort, [&] { return c.head.v.load(std::memory_order_acquire) >= rseq; });
    const auto k = static_cast<std::size_t>(rseq % kMaxSlots);
    const std::uint64_t len = c.slot_msg[k], addr = c.slot_len[k];
    const int from = c.slot_buf[k];
    if (len != in.size())
      throw KernelError(
          fmt::format("transport: rank {} expects {} bytes but rank {} sends {}", id_, in.size(), src, len));
    if (!in.empty()) cma_read(sh->rank[src].pid, in.data(), reinterpret_cast<const void*>(addr), in.size());
    if (from >= 0) sh->rank[src].pool_busy[from].store(0, std::memory_order_release);
    c.tail.v.store(rseq, std::memory_order_release);
    if (static_cast<int>(L.recv_total++) == N.opt_.corrupt_message && N.opt_.corrupt_rank == id_)
      flip_bit(in.data(), in.size());
  }
  if (dst >= 0 && buf < 0) {
    Channel& c = sh->chan[id_][dst];
    wait_until(sh->abort, [&] { return c.tail.v.load(std::memory_order_acquire) >= seq; });
  }
}

void Rank::sendrecv_double(int dst, std::span<const std::byte> out, int src, std::span<std::byte> in) {
  auto& N = node_;
  auto* sh = N.sh_;
  auto& L = *N.local_;
  const int n = size();
  // Double copy: chunks through a ring of slots per channel, sending and
  // receiving interleaved so a ring of blocking exchanges cannot deadlock.
  const std::size_t C = N.opt_.chunk;
  const auto S = static_cast<std::uint64_t>(N.opt_.slots);
  auto slot_data = [&](int s, int d, std::uint64_t k) {
    return N.bounce_ + ((static_cast<std::size_t>(s) * n + d) * S + k % S) * C;
  };
  auto nchunks = [&](std::size_t bytes) { return std::max<std::size_t>(1, (bytes + C - 1) / C); };
  const std::size_t out_chunks = dst >= 0 ? nchunks(out.size()) : 0;
  const std::size_t in_chunks = src >= 0 ? nchunks(in.size()) : 0;
  std::size_t sent = 0, got = 0;
  while (sent < out_chunks || got < in_chunks) {
    bool progress = false;
    if (sent < out_chunks) {
      Channel& c = sh->chan[id_][dst];
      const std::uint64_t h = c.head.v.load(std::memory_order_relaxed);
      if (h - c.tail.v.load(std::memory_order_acquire) < S) {
        const std::size_t off = sent * C;
        const std::size_t len = std::min(C, out.size() - std::min(off, out.size()));
        if (len) std::memcpy(slot_data(id_, dst, h), out.data() + off, len);
        c.slot_len[h % S] = len;
        c.slot_msg[h % S] = out.size();
        c.head.v.store(h + 1, std::memory_order_release);
        ++sent;
        progress = true;
      }
    }
    if (got < in_chunks) {
      Channel& c = sh->chan[src][id_];
      const std::uint64_t t = c.tail.v.load(std::memory_order_relaxed);
      if (c.head.v.load(std::memory_order_acquire) > t) {
        if (c.slot_msg[t % S] != in.size())
          throw KernelError(fmt::format("transport: rank {} expects {} bytes but rank {} sends {}", id_, in.size(), src,
                                        c.slot_msg[t % S]));
        const std::size_t off = got * C;
        const std::size_t len = c.slot_len[t % S];
        if (len) std::memcpy(in.data() + off, slot_data(src, id_, t), len);
        c.tail.v.store(t + 1, std::memory_order_release);
        ++got;
        progress = true;
      }
    }
    if (!progress) {
      wait_until(sh->abort, [&] {
        const bool can_send = sent < out_chunks && sh->chan[id_][dst].head.v.load(std::memory_order_relaxed) -
                                                           sh->chan[id_][dst].tail.v.load(std::memory_order_acquire) <
                                                       S;
        const bool can_recv = got < in_chunks && sh->chan[src][id_].head.v.load(std::memory_order_acquire) >
                                                     sh->chan[src][id_].tail.v.load(std::memory_order_relaxed);
        return can_send || can_recv;
      });
    }
  }
  if (src >= 0) {
    ++L.received[src];
    if (static_cast<int>(L.recv_total++) == N.opt_.corrupt_message && N.opt_.corrupt_rank == id_)
      flip_bit(in.data(), in.size());
  }
  if (dst >= 0) ++L.sent[dst];
}

int Rank::send_buffers() const {
  switch (node_.local_->kind) {
    case Kind::zero_copy:
      return 2;
    case Kind::cma:
      return node_.opt_.cma_buffers;
    case Kind::double_copy:
      break;
  }
  return 0;
}

long Rank::send_buffers_huge_kib() const {
  long kib = 0;
  for (const auto& b : node_.local_->cma_bufs) {
    const long k = b->huge_kib();
    if (k < 0) return -1;
    kib += k;
  }
  return kib;
}

std::span<std::byte> Rank::acquire(std::size_t bytes) {
  auto& N = node_;
  auto& L = *N.local_;
  if (L.kind == Kind::double_copy)
    throw ConfigError("transport: acquire() needs the zero-copy or the CMA transport (double copy sends any buffer)");
  if (bytes > N.opt_.max_message)
    throw ConfigError(fmt::format("transport: buffer of {} bytes exceeds max_message {}", bytes, N.opt_.max_message));
  if (L.kind == Kind::cma) {
    if (L.cma_bufs.empty())
      for (int b = 0; b < N.opt_.cma_buffers; ++b)
        L.cma_bufs.push_back(std::make_unique<MessageBuffer>(N.opt_.max_message, N.opt_.huge_pages));
    const auto b = static_cast<std::size_t>(L.acquired++ % L.cma_bufs.size());
    auto& busy = N.sh_->rank[id_].pool_busy[b];
    wait_until(N.sh_->abort, [&] { return busy.load(std::memory_order_acquire) == 0; });
    return {L.cma_bufs[b]->data(), bytes};
  }
  const int b = static_cast<int>(L.acquired++ % 2);
  auto& busy = N.sh_->rank[id_].pool_busy[b];
  wait_until(N.sh_->abort, [&] { return busy.load(std::memory_order_acquire) == 0; });
  return {N.pool_ + (static_cast<std::size_t>(id_) * 2 + b) * N.pool_buf_, bytes};
}

std::span<const std::byte> Rank::sendrecv_view(int dst, std::span<const std::byte> out, int src, std::size_t expect) {
  auto& N = node_;
  auto* sh = N.sh_;
  auto& L = *N.local_;
  const int n = size();
  if (L.kind != Kind::zero_copy) throw ConfigError("transport: sendrecv_view() needs the zero-copy transport");
  if ((dst < -1 || dst >= n) || (src < -1 || src >= n))
    throw ConfigError(fmt::format("transport: rank {} addressed a peer outside its {}-process node", id_, n));
  if (dst >= 0) {
    const auto* base = N.pool_ + static_cast<std::size_t>(id_) * 2 * N.pool_buf_;
    if (out.data() < base || out.data() + out.size() > base + 2 * N.pool_buf_)
      throw ConfigError("transport: zero copy sends only buffers from acquire()");
    const auto off = static_cast<std::size_t>(out.data() - N.pool_);
    const int b = static_cast<int>((off / N.pool_buf_) % 2);
    Channel& c = sh->chan[id_][dst];
    const std::uint64_t seq = ++L.sent[dst];
    // One message in flight per channel: wait until the receiver took the last.
    wait_until(sh->abort, [&] { return c.tail.v.load(std::memory_order_acquire) >= seq - 1; });
    sh->rank[id_].pool_busy[b].store(1, std::memory_order_relaxed);
    c.addr = off;
    c.len = out.size();
    c.head.v.store(seq, std::memory_order_release);
  }
  if (src < 0) return {};
  // The previous view from src goes back to its owner.
  auto& v = L.views[src];
  if (v.buf >= 0) {
    if (v.map) ::munmap(v.map, v.map_len);
    sh->rank[src].pool_busy[v.buf].store(0, std::memory_order_release);
    v = {};
  }
  Channel& c = sh->chan[src][id_];
  const std::uint64_t seq = ++L.received[src];
  wait_until(sh->abort, [&] { return c.head.v.load(std::memory_order_acquire) >= seq; });
  const std::uint64_t off = c.addr, len = c.len;
  c.tail.v.store(seq, std::memory_order_release);
  if (len != expect)
    throw KernelError(fmt::format("transport: rank {} expects {} bytes but rank {} sends {}", id_, expect, src, len));
  v.buf = static_cast<int>((off / N.pool_buf_) % 2);
  std::byte* data = N.pool_ + off;
  if (static_cast<int>(L.recv_total++) == N.opt_.corrupt_message && N.opt_.corrupt_rank == id_) flip_bit(data, len);
  if (N.opt_.remap && len > 0) {
    // Page flipping installs the sender's pages in the receiver's page
    // table; mapping them afresh (populated) and unmapping after use pays
    // the same page-table and TLB work.
    const std::size_t ml = round_up(len, page_size());
    void* m = ::mmap(nullptr, ml, PROT_READ, MAP_SHARED | MAP_POPULATE, N.pool_fd_, static_cast<off_t>(off));
    if (m == MAP_FAILED)
      throw KernelError(fmt::format("transport: remapping {} pool bytes failed: {}", ml, std::strerror(errno)));
    v.map = m;
    v.map_len = ml;
    data = static_cast<std::byte*>(m);
  }
  return {data, len};
}

void Rank::release_views() {
  auto& N = node_;
  auto& L = *N.local_;
  for (std::size_t s = 0; s < L.views.size(); ++s) {
    auto& v = L.views[s];
    if (v.buf < 0) continue;
    if (v.map) ::munmap(v.map, v.map_len);
    N.sh_->rank[s].pool_busy[v.buf].store(0, std::memory_order_release);
    v = {};
  }
}

}  // namespace hopsim::host
