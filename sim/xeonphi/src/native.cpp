// Native transport: each target is a process (fork) sharing one anonymous
// mapping with the host, used the way HAM's SCIF backend uses mapped memory
// (one-sided):
//   * per target a ring of request buffers in its receive area: the host
//     copies header + message into buffer i, then releases flag i (the store
//     fence is the release ordering); the target spins on flag i, runs the
//     handler, writes the result into the host's result slot and releases
//     its flag, then clears flag i so the host may reuse the buffer;
//   * the host's result slots are one pool for all targets (the header names
//     the slot);
//   * each target's heap is a window of the same mapping, so put/get are
//     real copies by the host CPU into and out of target memory (RMA).
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "backends.hpp"
#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"

namespace ham::offload::detail {
namespace {

constexpr std::size_t kLine = 64;

struct alignas(kLine) Flag {
  std::atomic<std::uint32_t> v;
};
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// Result flag values.
constexpr std::uint32_t kEmpty = 0, kResult = 1, kFailed = 2;

class NativeRuntime final : public Runtime {
 public:
  explicit NativeRuntime(Options o)
      : o_(std::move(o)),
        targets_(std::max(1, o_.targets)),
        slot_bytes_(kLine + round_up(o_.message_size, kLine)),
        results_bytes_(round_up(o_.buffers * slot_bytes_, 4096)),
        arena_offset_(round_up(o_.buffers * slot_bytes_, 4096)),
        arena_size_(round_up(o_.card_memory, 4096)),
        target_bytes_(arena_offset_ + arena_size_),
        map_bytes_(results_bytes_ + static_cast<std::size_t>(targets_) * target_bytes_) {
    void* p = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      throw hopsim::Error(fmt::format("HAM native transport: cannot map {} bytes of shared memory for {} target(s): {}",
                                      map_bytes_, targets_, std::strerror(errno)));
    base_ = static_cast<char*>(p);
    for (std::size_t i = 0; i < o_.buffers; ++i) {
      new (res_flag(i)) Flag{};
      for (node_t t = 1; t <= targets_; ++t) new (req_flag(t, i)) Flag{};
    }
    host_pid_ = getpid();
    if (o_.host_core >= 0) pin(o_.host_core, "--ham-cpu-affinity");
    if (o_.target_core >= 0) check_core(o_.target_core, "--ham-target-cpu-affinity");
    free_slots_.reserve(o_.buffers);
    for (std::size_t i = o_.buffers; i-- > 0;) free_slots_.push_back(static_cast<std::uint32_t>(i));
    slot_target_.assign(o_.buffers, 0);
    peers_.resize(static_cast<std::size_t>(targets_) + 1);
    for (node_t t = 1; t <= targets_; ++t) {
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      const pid_t child = fork();
      if (child < 0) {
        const int err = errno;
        stop_targets();
        throw hopsim::Error(fmt::format("HAM native transport: fork of target {} failed: {}", t, std::strerror(err)));
      }
      if (child == 0) {
        node_ = t;
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != host_pid_) _exit(1);
        label_ = fmt::format("HAM target node {}", t);
        hopsim::crash::name_thread(label_.c_str());
        arena_free_[0] = arena_size_;
        return;
      }
      peer(t).pid = child;
    }
  }

  // A target process: serve messages until told to finish; the exit status.
  int serve_target() override {
    int rc = 0;
    try {
      if (o_.target_core >= 0) pin(o_.target_core, "--ham-target-cpu-affinity");
      serve();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "HAM target node %d: %s\n", node_, e.what());
      rc = 1;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    return rc;
  }

  ~NativeRuntime() override {
    if (node_ == 0) stop_targets();
    if (base_) munmap(base_, map_bytes_);
  }
  NativeRuntime(const NativeRuntime&) = delete;
  NativeRuntime& operator=(const NativeRuntime&) = delete;

  node_t this_node() const override { return node_; }
  node_t num_nodes() const override { return targets_ + 1; }
  std::string node_name(node_t node) const override { return node == 0 ? host_name() : fmt::format("target {}", node); }
  const Options& options() const override { return o_; }

  std::uint64_t send(node_t node, std::uint32_t key, const void* body, std::size_t body_size,
                     std::size_t result_size) override {
    check_host("send a message");
    check_node(node);
    check_message_fits(o_, body_size, result_size);
    const std::uint32_t slot = take_slot();
    Peer& pe = peer(node);
    const std::size_t i = pe.sent % o_.buffers;
    Flag* f = req_flag(node, i);
    spin([&] { return f->v.load(std::memory_order_acquire) == 0; }, node, "a free message buffer");
    char* buf = req_data(node, i);
    const MsgHeader h{key, static_cast<std::uint32_t>(body_size), slot, static_cast<std::uint32_t>(result_size)};
    std::memcpy(buf, &h, sizeof h);
    std::memcpy(buf + sizeof h, body, body_size);
    f->v.store(1, std::memory_order_release);  // the store fence + flag write of SCIF
    ++pe.sent;
    slot_target_[slot] = node;
    return slot;
  }

  bool test(std::uint64_t ticket) override {
    check_host("test a future");
    const auto slot = static_cast<std::uint32_t>(ticket);
    if (res_flag(slot)->v.load(std::memory_order_acquire) != kEmpty) return true;
    check_child(slot_target_.at(slot), "a result");
    return false;
  }

  void wait(std::uint64_t ticket, void* result, std::size_t result_size) override {
    check_host("wait for a result");
    const auto slot = static_cast<std::uint32_t>(ticket);
    const node_t node = slot_target_.at(slot);
    Flag* f = res_flag(slot);
    spin([&] { return f->v.load(std::memory_order_acquire) != kEmpty; }, node, "a result");
    const std::uint32_t status = f->v.load(std::memory_order_acquire);
    std::string error;
    if (status == kFailed)
      error.assign(res_data(slot), strnlen(res_data(slot), o_.message_size));
    else if (result_size)
      std::memcpy(result, res_data(slot), result_size);
    release_slot(slot);
    if (status == kFailed)
      throw hopsim::KernelError(fmt::format("offloaded function failed on node {}: {}", node, error));
  }

  std::uint64_t put(const void* src, node_t node, void* dst, std::size_t bytes) override {
    check_host("put");
    check_node(node);
    check_window(node, dst, bytes, "put: the destination");
    std::memcpy(dst, src, bytes);
    return kDone;
  }

  std::uint64_t get(node_t node, const void* src, void* dst, std::size_t bytes) override {
    check_host("get");
    check_node(node);
    check_window(node, src, bytes, "get: the source");
    std::memcpy(dst, src, bytes);
    return kDone;
  }

  void* target_alloc(std::size_t bytes) override {
    if (node_ == 0) throw hopsim::Error("target_alloc runs on a target");
    const std::size_t need = round_up(bytes == 0 ? 1 : bytes, kLine);
    for (auto it = arena_free_.begin(); it != arena_free_.end(); ++it) {
      if (it->second < need) continue;
      const std::size_t off = it->first, size = it->second;
      arena_free_.erase(it);
      if (size > need) arena_free_[off + need] = size - need;
      arena_used_[off] = need;
      return arena(node_) + off;
    }
    throw hopsim::Error(
        fmt::format("target heap exhausted: no free block of {} B in {} B (--ham-card-memory)", need, arena_size_));
  }

  void target_free(void* p) override {
    if (node_ == 0) throw hopsim::Error("target_free runs on a target");
    const auto off = static_cast<std::size_t>(static_cast<char*>(p) - arena(node_));
    const auto used = arena_used_.find(off);
    if (used == arena_used_.end()) throw hopsim::Error("free: pointer was not allocated on this target");
    std::size_t start = off, size = used->second;
    arena_used_.erase(used);
    auto next = arena_free_.lower_bound(start);
    if (next != arena_free_.end() && next->first == start + size) {
      size += next->second;
      next = arena_free_.erase(next);
    }
    if (next != arena_free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == start) {
        start = prev->first;
        size += prev->second;
        arena_free_.erase(prev);
      }
    }
    arena_free_[start] = size;
  }

  std::int64_t now_ps() override {
    return 1000 * static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                std::chrono::steady_clock::now().time_since_epoch())
                                                .count());
  }
  void charge_cycles(double) override {}  // natively the compute is real

  void shutdown() override {
    if (node_ != 0) return;
    for (node_t t = 1; t <= targets_; ++t) {
      if (peer(t).gone) continue;
      const std::size_t i = peer(t).sent % o_.buffers;
      Flag* f = req_flag(t, i);
      spin([&] { return f->v.load(std::memory_order_acquire) == 0; }, t, "a free message buffer to send termination");
      const MsgHeader h{kTerminateKey, 0, 0, 0};
      std::memcpy(req_data(t, i), &h, sizeof h);
      f->v.store(1, std::memory_order_release);
      ++peer(t).sent;
    }
    for (node_t t = 1; t <= targets_; ++t) await_exit(t);
  }

  std::string describe() const override {
    std::string pids;
    for (node_t t = 1; t <= targets_; ++t) pids += fmt::format("{}{}", t > 1 ? ", " : "", peers_[t].pid);
    return fmt::format(
        "# HOPSIM_HAM_MODE              native ({} target(s): process {}, shared-memory message buffers, "
        "one-sided)\n"
        "# HOPSIM_HAM_BUFFERS           {}\n"
        "# HOPSIM_HAM_HOST_CORE         {}\n"
        "# HOPSIM_HAM_TARGET_CORE       {}",
        targets_, pids, o_.buffers, o_.host_core < 0 ? std::string("not pinned") : std::to_string(o_.host_core),
        o_.target_core < 0 ? std::string("not pinned") : std::to_string(o_.target_core));
  }

 private:
  struct Peer {
    pid_t pid = -1;
    bool gone = false;
    std::uint64_t sent = 0;
  };

  Peer& peer(node_t t) { return peers_[static_cast<std::size_t>(t)]; }
  char* target_base(node_t t) const { return base_ + results_bytes_ + static_cast<std::size_t>(t - 1) * target_bytes_; }
  Flag* req_flag(node_t t, std::size_t i) const { return reinterpret_cast<Flag*>(target_base(t) + i * slot_bytes_); }
  char* req_data(node_t t, std::size_t i) const { return target_base(t) + i * slot_bytes_ + kLine; }
  char* arena(node_t t) const { return target_base(t) + arena_offset_; }
  Flag* res_flag(std::size_t i) const { return reinterpret_cast<Flag*>(base_ + i * slot_bytes_); }
  char* res_data(std::size_t i) const { return base_ + i * slot_bytes_ + kLine; }

  static std::string host_name() {
    std::array<char, 256> h{};
    if (gethostname(h.data(), h.size() - 1) != 0) return "host";
    return h.data();
  }
  static void check_core(int core, const char* what) {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (core >= n)
      throw hopsim::ConfigError(fmt::format("{}: core {} does not exist (this machine has {})", what, core, n));
  }
  static void pin(int core, const char* what) {
    check_core(core, what);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
      throw hopsim::ConfigError(fmt::format("{}: cannot pin to core {}: {}", what, core, std::strerror(errno)));
  }

  void check_node(node_t node) const {
    if (node < 1 || node > targets_)
      throw hopsim::Error(
          fmt::format("HAM node {} does not exist: the targets are 1..{} (node 0 is the host)", node, targets_));
  }
  void check_host(const char* what) const {
    if (node_ != 0) throw hopsim::Error(fmt::format("HAM: only the host may {} in this transport", what));
  }
  void check_window(node_t node, const void* p, std::size_t bytes, const char* what) const {
    const char* c = static_cast<const char*>(p);
    const char* lo = arena(node);
    if (c < lo || c + bytes > lo + arena_size_ || c + bytes < c)
      throw hopsim::Error(fmt::format("{} ({} B) is not inside the memory of target {}", what, bytes, node));
  }

  // A target killed by a signal is a crash (exit 128 + signal); else an error.
  [[noreturn]] static void fail(const std::string& message, int status) {
    if (WIFSIGNALED(status)) throw hopsim::CrashError(message, WTERMSIG(status));
    throw hopsim::Error(message);
  }
  static std::string how(int status) {
    if (WIFSIGNALED(status))
      return fmt::format("was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
    return "stopped";
  }

  // Throws if target t's process has gone.
  void check_child(node_t t, const char* waiting_for) {
    Peer& pe = peer(t);
    if (pe.gone)
      throw hopsim::Error(
          fmt::format("HAM target node {} (pid {}) is gone; cannot wait for {}", t, pe.pid, waiting_for));
    int status = 0;
    if (waitpid(pe.pid, &status, WNOHANG) == pe.pid) {
      pe.gone = true;
      fail(fmt::format("HAM target node {} (pid {}) {} while the host waited for {}", t, pe.pid, how(status),
                       waiting_for),
           status);
    }
  }

  // Host: waits up to 10 s for target t to exit after its termination message.
  void await_exit(node_t t) {
    Peer& pe = peer(t);
    if (pe.gone) return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
      int status = 0;
      if (waitpid(pe.pid, &status, WNOHANG) == pe.pid) {
        pe.gone = true;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
          fail(fmt::format("HAM target node {} (pid {}) {} at termination", t, pe.pid, how(status)), status);
        return;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pe.pid, SIGKILL);
        waitpid(pe.pid, &status, 0);
        pe.gone = true;
        throw hopsim::Error(
            fmt::format("HAM target node {} did not finish within 10 s of the termination message; killed", t));
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }

  // Host: kills the targets still running (an error ended the run).
  void stop_targets() noexcept {
    for (Peer& pe : peers_) {
      if (pe.pid <= 0 || pe.gone) continue;
      kill(pe.pid, SIGKILL);
      int status = 0;
      waitpid(pe.pid, &status, 0);
      pe.gone = true;
    }
  }

  // Spins until ready(); the host checks that target t still runs, a target
  // that its host still runs.
  template <class Ready>
  void spin(Ready ready, node_t t, const char* waiting_for) {
    if (node_ == 0 && peer(t).gone) check_child(t, waiting_for);
    for (std::uint64_t n = 1;; ++n) {
      if (ready()) return;
      if ((n & 1023) == 0) {
        if (node_ == 0)
          check_child(t, waiting_for);
        else if (getppid() != host_pid_)
          _exit(1);
        if (n > (1u << 16)) sched_yield();  // a long wait: leave the core to others
      }
      cpu_relax();
    }
  }

  std::uint32_t take_slot() {
    if (free_slots_.empty())
      throw hopsim::Error(fmt::format(
          "HAM: all {} result slots belong to futures not yet collected with get(); call get() on earlier futures "
          "(or raise --ham-buffers)",
          o_.buffers));
    const std::uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }

  void release_slot(std::uint32_t s) {
    res_flag(s)->v.store(kEmpty, std::memory_order_relaxed);
    free_slots_.push_back(s);
  }

  // A target's loop: serve messages in ring order until told to finish.
  void serve() {
    for (std::uint64_t n = 0;; ++n) {
      const std::size_t i = n % o_.buffers;
      Flag* f = req_flag(node_, i);
      spin([&] { return f->v.load(std::memory_order_acquire) != 0; }, node_, "a message");
      MsgHeader h{};
      std::memcpy(&h, req_data(node_, i), sizeof h);
      if (h.key == kTerminateKey) {
        f->v.store(0, std::memory_order_release);
        return;
      }
      char* out = res_data(h.slot);
      std::uint32_t status = kResult;
      try {
        Registry::handler(h.key)(req_data(node_, i) + sizeof h, out);
      } catch (const std::exception& e) {
        std::snprintf(out, o_.message_size, "%s", e.what());
        status = kFailed;
      }
      res_flag(h.slot)->v.store(status, std::memory_order_release);
      f->v.store(0, std::memory_order_release);
    }
  }

  Options o_;
  int targets_ = 1;
  char* base_ = nullptr;
  std::size_t slot_bytes_ = 0, results_bytes_ = 0, arena_offset_ = 0, arena_size_ = 0, target_bytes_ = 0,
              map_bytes_ = 0;
  node_t node_ = 0;
  std::string label_;  // a target: what the crash report calls it
  pid_t host_pid_ = 0;
  std::vector<Peer> peers_;  // by node; [0] unused
  std::vector<std::uint32_t> free_slots_;
  std::vector<node_t> slot_target_;                             // host: the target each result slot waits on
  std::map<std::size_t, std::size_t> arena_free_, arena_used_;  // target side: offset -> size
};

}  // namespace

std::unique_ptr<Runtime> make_native_runtime(const Options& o) { return std::make_unique<NativeRuntime>(o); }

}  // namespace ham::offload::detail
