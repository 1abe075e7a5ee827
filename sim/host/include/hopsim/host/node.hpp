#pragma once
// Intra-node message passing between forked processes over one of three
// copy paths:
//   double_copy  sender copies into a shared-memory bounce buffer, receiver
//                copies out (two copies, pipelined in chunks);
//   cma          sender posts its buffer's address, receiver reads it with
//                process_vm_readv into its own buffer (one copy, by the
//                kernel, on the receiver's CPU);
//   zero_copy    sender fills a buffer of a shared pool and sends a small
//                control message; receiver reads in place (no copy), with
//                an optional remap of the pages into its address space, the
//                cost real page flipping pays.
// CMA is probed between every pair when the node starts; if the kernel
// refuses it, the node falls back to double copy and says why (NodeReport).
#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hopsim::host {

enum class Kind { double_copy, cma, zero_copy };

// Where the ranks run. `none`: the kernel places and migrates them.
// `spread`: rank r is pinned to CPU number r mod n of the n CPUs in the
// launcher's affinity mask (as `mpirun --bind-to core --map-by core` cycles
// ranks over cores), so the placement is known and the same in every run.
enum class Bind { none, spread };
[[nodiscard]] std::string_view bind_name(Bind b);  // "none", "spread"
// Parses a binding name; throws ConfigError naming `key` and the valid names.
[[nodiscard]] Bind parse_bind(std::string_view name, std::string_view key);

// A rank that waits (for a flag, a slot, a barrier) first spins this many
// pause instructions, then calls sched_yield until its condition holds.
// (hopsim host calibrate measures the same spin for the host model.)
inline constexpr int kSpinPauses = 200;

// Double copy: at most this many bounce-buffer slots per channel; CMA: at
// most this many send buffers per rank (messages in flight per channel).
inline constexpr int kMaxSlots = 16;

[[nodiscard]] std::string_view kind_name(Kind k);  // "double-copy", "cma", "zero-copy"
// Parses a kind name; throws ConfigError naming `key` and the valid names.
[[nodiscard]] Kind parse_kind(std::string_view name, std::string_view key);

struct Options {
  int procs = 2;
  Kind kind = Kind::double_copy;
  std::size_t max_message = 1 << 20;           // largest message any rank sends
  std::size_t chunk = std::size_t{64} * 1024;  // bounce-buffer slot (double copy)
  int slots = 4;                               // slots per channel (double copy)
  // CMA: the send buffers acquire() rotates through (1 to kMaxSlots), each
  // max_message bytes of the rank's own memory. A message sent from one is
  // pulled by its receiver while the sender goes on, so a sender may be
  // this many messages ahead of its receivers, as double copy is by its
  // slots.
  int cma_buffers = 4;
  bool huge_pages = true;  // CMA send buffers ask for transparent huge pages (MessageBuffer)
  bool remap = false;      // zero copy: map the pages per message
  Bind bind = Bind::none;  // rank placement (see Bind)
  // Test aid: every rank makes itself inaccessible to CMA (non-dumpable,
  // CAP_SYS_PTRACE dropped) so the kernel really refuses and the fallback runs.
  bool deny_cma = false;
  // Test aid: flip one bit in the `corrupt_message`-th message (0-based)
  // received by rank `corrupt_rank`, after it landed; -1 disables.
  int corrupt_rank = -1;
  int corrupt_message = 0;
  // Called by the launcher about every 10 ms while ranks run (e.g. a
  // deadlock watchdog reading state the ranks keep in shared memory). An
  // exception it throws stops every rank and is rethrown by run().
  std::function<void()> monitor;
  // Seconds the launcher gives ranks to stop by themselves once one failed
  // (they notice at their next wait); then it kills the rest (SIGKILL).
  double stop_grace = 2.0;
};

// Two hand-overs of the same two CPUs (Rank::handover, s) were met in
// different placements, one near and one apart, when one is more than
// kApartRatio times the other (measured here: 30-60 ns near, 190-240 ns
// apart). False when either is unknown (<= 0).
inline constexpr double kApartRatio = 2.5;
[[nodiscard]] inline bool placement_differs(double a, double b) {
  return a > 0 && b > 0 && (a > kApartRatio * b || b > kApartRatio * a);
}
// Hand-over `h` was met with the CPUs apart from where `near` was: the
// slower side of placement_differs.
[[nodiscard]] inline bool apart_from(double h, double near) { return h > near && placement_differs(h, near); }

// The placement probe's ping-pong on one cache line shared by two parties
// (Rank::handover; calibrate's exchange between its blocks of rounds):
// the leader writes odd values and waits for the next even one, the other
// answers each odd value with the next even one; `wait(pred)` returns once
// pred() holds. The leader gets the one-way time of its fastest batch of
// kHandoverBatch round trips (s), the other 0.
inline constexpr int kHandoverBatch = 25;
template <class Wait>
[[nodiscard]] double line_pingpong(std::atomic<std::uint64_t>& line, bool leader, int round_trips, Wait wait) {
  if (!leader) {
    for (int i = 0; i < round_trips; ++i) {
      std::uint64_t v = 0;
      wait([&] { return ((v = line.load(std::memory_order_acquire)) & 1u) != 0; });
      line.store(v + 1, std::memory_order_release);
    }
    return 0.0;
  }
  using clock = std::chrono::steady_clock;
  double best = 1e300;
  auto t0 = clock::now();
  for (int i = 0; i < round_trips; ++i) {
    const std::uint64_t v = line.load(std::memory_order_acquire);  // even: the last answer (or 0)
    line.store(v + 1, std::memory_order_release);
    wait([&] { return line.load(std::memory_order_acquire) == v + 2; });
    if ((i + 1) % kHandoverBatch == 0 || i + 1 == round_trips) {
      const auto t1 = clock::now();
      const int n = (i + 1) % kHandoverBatch == 0 ? kHandoverBatch : (i + 1) % kHandoverBatch;
      best = std::min(best, std::chrono::duration<double>(t1 - t0).count() / (2.0 * n));
      t0 = t1;
    }
  }
  return best;
}

// Thrown inside a rank by Rank::check_abort() once another rank failed;
// run() counts a rank that ends with it as stopped, not as failed.
struct Aborted {};

struct NodeReport {
  Kind requested = Kind::double_copy;
  Kind used = Kind::double_copy;
  std::string fallback;  // why `used` differs from `requested`; empty if it does not
  // Bind::spread: the CPU each rank was pinned to (by rank); empty for none.
  std::vector<int> cpu_of_rank;
};

class Node;

// A process's handle on the node, valid inside Node::run's body.
class Rank {
 public:
  [[nodiscard]] int id() const { return id_; }
  [[nodiscard]] int size() const;
  [[nodiscard]] Kind kind() const;          // the transport in use (after any fallback)
  [[nodiscard]] pid_t pid(int rank) const;  // a rank's process (for CMA)

  // Sends `out` to `dst` while receiving `in` from `src` (either may be -1
  // for none); returns when both are complete. Message sizes must match on
  // both ends. Copying transports only (double copy, CMA). CMA: `out` from
  // acquire() is the transport's until acquire() hands that buffer out
  // again, so the call returns once `in` arrived and does not wait for the
  // receiver's pull; any other `out` is waited for (a rendezvous).
  void sendrecv(int dst, std::span<const std::byte> out, int src, std::span<std::byte> in);
  void send(int dst, std::span<const std::byte> out) { sendrecv(dst, out, -1, {}); }
  void recv(int src, std::span<std::byte> in) { sendrecv(-1, {}, src, in); }

  // Zero copy: a buffer of this rank's slice of the shared pool (waits until
  // the receiver released the last message sent from it). Buffers
  // alternate, two per rank. CMA: one of Options::cma_buffers private
  // buffers in turn (waits until the last message sent from it was pulled).
  // At most Options::max_message bytes. Double copy: ConfigError.
  std::span<std::byte> acquire(std::size_t bytes);
  // How many buffers acquire() rotates through (0: double copy).
  [[nodiscard]] int send_buffers() const;
  // CMA: KiB of acquire()'s buffers on huge pages (MessageBuffer::huge_kib;
  // -1 unknown); 0 before the first acquire() and for the other transports.
  [[nodiscard]] long send_buffers_huge_kib() const;
  // Zero copy: hands `out` (from acquire) to `dst` and returns a view of the
  // message from `src` (`expect` bytes), in place in src's pool slice. The
  // view stays valid until the next sendrecv_view from the same `src` or release_views().
  std::span<const std::byte> sendrecv_view(int dst, std::span<const std::byte> out, int src, std::size_t expect);
  void release_views();

  void barrier();
  // One-way hand-over of a cache line between this process and `peer` (s):
  // half the round trip of the fastest batch of 25 among `round_trips`
  // ping-pongs on one shared line. A two-rank collective: both call it with
  // the same `round_trips` at the same point, the lower id leading; only one
  // pair at a time. Pinned to two CPUs it tells how far apart the hypervisor
  // runs them: on a virtual machine the same two CPUs hand over in 30-60 ns
  // (one cache) or 190-240 ns (apart), changing within seconds
  // (docs/host-copy.md), and data crossing between them goes about 3x slower
  // apart. ConfigError for peer == id() or out of range.
  [[nodiscard]] double handover(int peer, int round_trips = 200);
  // Whether another rank failed (or the monitor stopped the run); a rank
  // waiting on something of its own calls check_abort() in its loop.
  [[nodiscard]] bool aborted() const;
  void check_abort() const {
    if (aborted()) throw Aborted{};
  }
  // 4 KiB of this rank's memory that the launcher can read after the run.
  [[nodiscard]] std::span<std::byte> scratch();

 private:
  friend class Node;
  Rank(Node& n, int id) : node_(n), id_(id) {}
  // sendrecv over CMA (the receiver pulls the sender's posted buffer) and
  // over double copy (chunks through the channels' bounce-buffer slots).
  void sendrecv_cma(int dst, std::span<const std::byte> out, int src, std::span<std::byte> in);
  void sendrecv_double(int dst, std::span<const std::byte> out, int src, std::span<std::byte> in);
  Node& node_;
  int id_;
};

class Node {
 public:
  // Maps the shared segments (before any fork). Throws ConfigError for
  // impossible options (fewer than 1 or more than kMaxProcs processes, ...).
  explicit Node(const Options& o);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  Node(Node&&) = delete;
  Node& operator=(Node&&) = delete;

  static constexpr int kMaxProcs = 64;

  // Forks Options::procs processes; each runs body(rank) and exits. Waits
  // for all. If a rank throws, the others are stopped and the first error is
  // rethrown here with its type (KernelError, DataMismatchError, ...) and
  // message prefixed by the rank (unless it starts with "rank N:" already);
  // a rank that died (signal) is an Error naming the signal. Ranks that do
  // not stop within Options::stop_grace seconds are killed. Can be called
  // more than once.
  NodeReport run(const std::function<void(Rank&)>& body);

  [[nodiscard]] const Options& options() const { return opt_; }
  // Rank r's scratch area as left by the last run.
  [[nodiscard]] std::span<const std::byte> scratch(int r) const;

  struct Shared;  // implementation detail (shared-memory layout)

 private:
  friend class Rank;
  void child(int id, const std::function<void(Rank&)>& body);
  Options opt_;
  Shared* sh_ = nullptr;
  std::size_t sh_bytes_ = 0;
  std::byte* bounce_ = nullptr;
  std::size_t bounce_bytes_ = 0;
  int pool_fd_ = -1;
  std::byte* pool_ = nullptr;
  std::size_t pool_bytes_ = 0;
  std::size_t pool_buf_ = 0;  // bytes per pool buffer (page multiple)
  pid_t launcher_ = 0;
  std::vector<int> cpu_of_rank_;  // Bind::spread: each rank's CPU (set before the forks)
  // Per-process state of the running rank (valid in the child only).
  struct Local;
  std::unique_ptr<Local> local_;
};

}  // namespace hopsim::host
