// Native BG/Q with a process per rank, as BG/Q nodes have private memory:
// hopsim::host::Node forks the ranks (and stops them all when one
// fails), and the MU's work moves data between the processes by a host copy
// transport.
//
// One MAP_SHARED arena, mapped before the fork, holds what must be shared:
// per rank a mirror of its base address table, its pid (via the Node), a
// reception ring (bytes, many producers under a spin lock, the owner
// consumes), the GI and MPI barriers, and the watchdog's view of who waits.
//
// A direct put is checked against the target's base address table (the
// mirror), then
//   cma:    the sender writes the payload into the target's buffer with
//           process_vm_writev (one copy, at injection), then puts a counter
//           update into the target's ring;
//   double: the sender copies the payload into the target's ring; the
//           target copies it into its buffer (second copy) and store-adds its
//           counter when it polls.
// Either way the counter is changed by its owner, after the data is in
// place: the owner applies its ring whenever it polls (HOPSIM_SPIN_WAIT,
// MUSPI_RecFifoPoll, the barriers, MPI receives, and while it waits for
// room in a full ring). Memory-FIFO packets, remote-get payloads and MPI
// messages always go through the rings (a copy in, a copy out).
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/interrupt.hpp"
#include "hopsim/core/log.hpp"
#include "hopsim/host/cma.hpp"
#include "hopsim/host/node.hpp"
#include "machine.hpp"

namespace hopsim::bgq {

namespace {

constexpr std::size_t kRingBytes = std::size_t{1} << 20;  // per rank
constexpr std::uint32_t kMaxChunk = 64 * 1024;            // payload bytes per ring entry
std::size_t round8(std::size_t v) { return (v + 7) / 8 * 8; }

enum class EntryKind : std::uint32_t { pad, put, counter, fifo, get };

// One entry of a reception ring; `bytes` of payload follow it.
struct Entry {
  std::uint32_t size;  // of the whole entry, 8-byte multiple
  EntryKind kind;
  std::uint32_t src;
  std::uint32_t bytes;
  std::uint64_t a, b;       // put: payload and counter address; counter: counter address; fifo: message offset
  MUHWI_Descriptor_t desc;  // fifo, get
};

struct alignas(64) SharedBarrier {
  std::atomic<std::uint64_t> tickets{0};
  std::atomic<std::uint64_t> generation{0};
};

struct alignas(64) RankShared {
  model::BaseAddressTable bat;  // mirror of the rank's table (the owner writes it)
  alignas(64) std::atomic<std::uint32_t> lock{0};
  alignas(64) std::atomic<std::uint64_t> head{0};      // ring bytes written
  alignas(64) std::atomic<std::uint64_t> tail{0};      // ring bytes consumed
  alignas(64) std::atomic<std::int64_t> waited_ns{0};  // last iteration of a wait loop
  std::atomic<std::uint32_t> wait_kind{0};
  std::atomic<std::int32_t> wait_a{0}, wait_b{0};
  // The MPI call a spinning rank waits in (a string literal of the runtime: the same address in every
  // forked rank), with its peer and tag in wait_a and wait_b.
  std::atomic<const char*> mpi_call{nullptr};
};

struct Arena {
  alignas(64) std::atomic<std::uint64_t> progress{0};  // entries pushed and applied, barrier entries
  SharedBarrier gi, finish;
};

class ProcessMachine final : public Machine {
 public:
  ProcessMachine(const model::Params& p, const nlohmann::json& args, const NativeOptions& o)
      : Machine(p, args), opt_(o) {
    if (size() > host::Node::kMaxProcs)
      throw ConfigError(
          fmt::format("machine.transport: {} runs a process per rank, at most {}; this torus has {} nodes "
                      "(use machine.transport=threads)",
                      to_string(o.transport), host::Node::kMaxProcs, size()));
    const auto n = static_cast<std::size_t>(size());
    arena_bytes_ = round8(sizeof(Arena)) + n * sizeof(RankShared);
    arena_bytes_ = (arena_bytes_ + 4095) / 4096 * 4096;
    void* m = ::mmap(nullptr, arena_bytes_ + n * kRingBytes, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) throw Error(fmt::format("bgq: cannot map the shared arena: {}", std::strerror(errno)));
    base_ = static_cast<std::byte*>(m);
    arena_ = new (base_) Arena();
    shared_ = reinterpret_cast<RankShared*>(base_ + round8(sizeof(Arena)));
    for (std::size_t r = 0; r < n; ++r) new (&shared_[r]) RankShared();
    rings_ = base_ + arena_bytes_;
    for (std::size_t r = 0; r < n; ++r) {
      const int fd = ::memfd_create("hopsim-bgq-rank-results", MFD_CLOEXEC);
      if (fd < 0) throw Error(fmt::format("bgq: memfd_create: {}", std::strerror(errno)));
      results_.push_back(fd);
    }
  }
  ~ProcessMachine() override {
    for (int fd : results_) ::close(fd);
    if (base_) ::munmap(base_, arena_bytes_ + static_cast<std::size_t>(size()) * kRingBytes);
  }
  ProcessMachine(const ProcessMachine&) = delete;
  ProcessMachine& operator=(const ProcessMachine&) = delete;

  Mode mode() const override { return Mode::native; }
  TransportUse transport_use() const override { return use_; }

  void run(void (*entry)()) override {
    host::Options to;
    to.procs = size();
    to.kind = opt_.transport == NativeTransport::cma ? host::Kind::cma : host::Kind::double_copy;
    to.deny_cma = opt_.deny_cma;
    to.max_message = 8;  // the Node's own channels carry nothing here
    to.chunk = 64;
    to.slots = 1;
    to.monitor = [this] { watch(); };
    host::Node node(to);
    t0_ = std::chrono::steady_clock::now();
    const auto rep = node.run([this, entry](host::Rank& rk) { child(rk, entry); });
    end_cycles_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count() * params().clock_hz;
    use_.requested = to_string(opt_.transport);
    use_.used = rep.used == host::Kind::cma ? "cma" : "double";
    use_.fallback = rep.fallback;
    for (int r = 0; r < size(); ++r) collect(r);
  }

  double end_cycles() const override { return end_cycles_; }

  std::uint64_t timebase() override {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    return static_cast<std::uint64_t>(s * params().clock_hz);
  }

  bool collectives() const override { return false; }

  void inject(std::uint32_t, const MUHWI_Descriptor_t& d) override {
    if (model::is_collective(d))
      throw ConfigError(
          fmt::format("rank {}: collective descriptors run in simulation and natively on "
                      "machine.transport=threads, not with a process per rank ({})",
                      current_rank(), use_.used));
    execute(d);
  }

  void spin() override { wait_step(WaitKind::spin); }
  void idle_poll(WaitKind why, int a, int b) override { wait_step(why, a, b); }
  void rec_sync() override { service(); }
  void compute(std::uint64_t elements, int threads) override { (void)compute_cycles(elements, threads); }

  void delay(double cycles) override {
    const auto until = timebase() + static_cast<std::uint64_t>(cycles);
    while (timebase() < until) {
    }
  }

  void gi_enter() override { self().gi_target = enter(arena_->gi); }
  void gi_wait() override { wait_barrier(arena_->gi, self().gi_target, WaitKind::gi); }
  bool gi_poll() override {
    if (arena_->gi.generation.load(std::memory_order_acquire) >= self().gi_target) return true;
    wait_step(WaitKind::gi);
    return false;
  }
  void bat_updated(std::uint32_t g) override {
    const auto& mu = self().mu;
    auto& mirror = shared_[current_rank()].bat;
    mirror.bat[g] = mu.bat[g];
    mirror.bat_allocated[g] = mu.bat_allocated[g];
    std::atomic_ref<std::uint8_t>(mirror.bat_set[g]).store(mu.bat_set[g], std::memory_order_release);
  }

 private:
  // ---- in the rank's process ----
  void child(host::Rank& rk, void (*entry)()) {
    rank_ = &rk;
    me_ = rk.id();
    cma_ = rk.kind() == host::Kind::cma;
    set_current(this, me_);
    entry();
    save_results();
    // Stay until every rank is done: late remote gets and puts to this
    // rank are still served.
    wait_barrier(arena_->finish, enter(arena_->finish), WaitKind::finished);
    set_current(nullptr, -1);
  }

  RankShared& mine() { return shared_[me_]; }
  std::byte* ring(int r) { return rings_ + static_cast<std::size_t>(r) * kRingBytes; }

  // Carries out descriptor `d` of this node's MU at once.
  void execute(const MUHWI_Descriptor_t& d) {
    const std::lock_guard<std::recursive_mutex> lock(serve_);  // the rank's threads (MPI_THREAD_MULTIPLE)
    const std::uint32_t dst = take_descriptor(static_cast<std::uint32_t>(me_), d);
    const auto pk = model::packetise(d.Message_Length);
    const auto* src = reinterpret_cast<const std::uint8_t*>(d.Pa_Payload);
    const auto type = model::packet_type(d);
    if (type == MUHWI_PACKET_TYPE_PUT) {
      direct_put(dst, d, src);
      return;
    }
    for (std::uint64_t i = 0; i < pk.packets; ++i) {
      const std::uint32_t pay = model::packet_payload(d.Message_Length, i);
      const std::uint64_t off = i * MUHWI_PACKET_MAX_PAYLOAD;
      Entry e{};
      e.kind = type == MUHWI_PACKET_TYPE_FIFO ? EntryKind::fifo : EntryKind::get;
      e.a = off;
      e.desc = d;
      push(static_cast<int>(dst), e, src + off, pay);
    }
  }

  // The whole message at once: its bytes are contiguous at the target.
  void direct_put(std::uint32_t dst, const MUHWI_Descriptor_t& d, const std::uint8_t* src) {
    const auto len = d.Message_Length;
    const model::PutTarget t = direct_put_target(shared_[dst].bat, dst, static_cast<std::uint32_t>(me_), d, 0);
    if (static_cast<int>(dst) == me_) {
      std::memcpy(reinterpret_cast<void*>(t.payload), src, len);
      std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(t.counter))
          .fetch_sub(len, std::memory_order_release);
      return;
    }
    if (cma_) {
      host::cma_write(rank_->pid(static_cast<int>(dst)), src, reinterpret_cast<void*>(t.payload), len);
      Entry e{};
      e.kind = EntryKind::counter;
      e.a = t.counter;
      e.b = len;
      push(static_cast<int>(dst), e, nullptr, 0);
      return;
    }
    for (std::uint64_t off = 0; off < len; off += kMaxChunk) {
      const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(kMaxChunk, len - off));
      Entry e{};
      e.kind = EntryKind::put;
      e.a = t.payload + off;
      e.b = t.counter;
      push(static_cast<int>(dst), e, src + off, n);
    }
  }

  // Appends an entry to rank dst's ring, waiting (and serving this rank's
  // own ring) while it is full.
  // (By reference: Entry is 64-byte aligned, and g++ notes that passing
  // such a type by value changed ABI in GCC 4.6.)
  void push(int dst, const Entry& entry, const void* payload, std::uint32_t bytes) {
    Entry e = entry;
    auto& rs = shared_[dst];
    e.src = static_cast<std::uint32_t>(me_);
    e.bytes = bytes;
    e.size = static_cast<std::uint32_t>(round8(sizeof(Entry) + bytes));
    while (rs.lock.exchange(1, std::memory_order_acquire) != 0) wait_step(WaitKind::ring_full, dst, 0, true);
    struct Unlock {
      std::atomic<std::uint32_t>& l;
      explicit Unlock(std::atomic<std::uint32_t>& lock) : l(lock) {}
      Unlock(const Unlock&) = delete;
      Unlock& operator=(const Unlock&) = delete;
      ~Unlock() { l.store(0, std::memory_order_release); }
    } unlock{rs.lock};
    std::uint64_t h = rs.head.load(std::memory_order_relaxed);
    for (;;) {
      const std::size_t contiguous = kRingBytes - h % kRingBytes;
      const std::size_t need = e.size + (contiguous < e.size ? contiguous : 0);
      if (kRingBytes - (h - rs.tail.load(std::memory_order_acquire)) >= need) break;
      wait_step(WaitKind::ring_full, dst, 0, true);
    }
    const std::size_t contiguous = kRingBytes - h % kRingBytes;
    if (contiguous < e.size) {
      Entry pad{};
      pad.size = static_cast<std::uint32_t>(contiguous);
      pad.kind = EntryKind::pad;
      std::memcpy(ring(dst) + h % kRingBytes, &pad, std::min(contiguous, sizeof pad));
      h += contiguous;
    }
    std::byte* at = ring(dst) + h % kRingBytes;
    std::memcpy(at, &e, sizeof e);
    if (bytes) std::memcpy(at + sizeof e, payload, bytes);
    rs.head.store(h + e.size, std::memory_order_release);
    arena_->progress.fetch_add(1, std::memory_order_relaxed);
  }

  // Applies every entry in this rank's ring; then (unless nested in a
  // push) the remote gets it received.
  void service(bool nested = false) {
    const std::lock_guard<std::recursive_mutex> lock(serve_);  // the rank's threads poll at once
    auto& rs = mine();
    std::uint64_t t = rs.tail.load(std::memory_order_relaxed);
    const std::uint64_t h = rs.head.load(std::memory_order_acquire);
    if (t != h) {
      while (t < h) {
        const std::byte* at = ring(me_) + t % kRingBytes;
        Entry e{};
        std::memcpy(&e, at, sizeof e);
        if (e.kind != EntryKind::pad) apply(e, reinterpret_cast<const std::uint8_t*>(at + sizeof e));
        t += e.size;
      }
      rs.tail.store(t, std::memory_order_release);
      arena_->progress.fetch_add(1, std::memory_order_relaxed);
    }
    if (nested || in_gets_) return;
    in_gets_ = true;
    struct Reset {
      bool& b;
      explicit Reset(bool& flag) : b(flag) {}
      Reset(const Reset&) = delete;
      Reset& operator=(const Reset&) = delete;
      ~Reset() { b = false; }
    } reset{in_gets_};
    while (!gets_.empty()) {
      auto g = std::move(gets_.front());
      gets_.pop_front();
      remote_get_fifo(self().mu, static_cast<std::uint32_t>(me_), g.src, g.desc);
      for (std::size_t k = 0; k + sizeof(MUHWI_Descriptor_t) <= g.payload.size(); k += sizeof(MUHWI_Descriptor_t)) {
        MUHWI_Descriptor_t inner;
        std::memcpy(&inner, g.payload.data() + k, sizeof inner);
        execute(inner);
      }
    }
  }

  void apply(const Entry& e, const std::uint8_t* data) {
    switch (e.kind) {
      case EntryKind::put:
        std::memcpy(reinterpret_cast<void*>(e.a), data, e.bytes);
        std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(e.b))
            .fetch_sub(e.bytes, std::memory_order_release);
        break;
      case EntryKind::counter:
        std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(e.a))
            .fetch_sub(e.b, std::memory_order_release);
        break;
      case EntryKind::fifo:
        receive_memory_fifo(self().mu, static_cast<std::uint32_t>(me_), e.src, e.desc, e.a, data, e.bytes);
        break;
      case EntryKind::get:
        gets_.push_back({e.src, e.desc, std::vector<std::uint8_t>(data, data + e.bytes)});
        break;
      case EntryKind::pad:
        break;
    }
  }

  // One iteration of a wait loop: serve the ring, notice a failed rank,
  // tell the watchdog, give the core away.
  void wait_step(WaitKind k, int a = 0, int b = 0, bool nested = false) {
    service(nested);
    rank_->check_abort();
    auto& rs = mine();
    const char* call = k == WaitKind::spin ? self().mpi_call.load(std::memory_order_relaxed) : nullptr;
    if (call) {
      a = self().mpi_peer.load(std::memory_order_relaxed);
      b = self().mpi_tag.load(std::memory_order_relaxed);
    }
    rs.mpi_call.store(call, std::memory_order_relaxed);
    rs.wait_kind.store(static_cast<std::uint32_t>(k), std::memory_order_relaxed);
    rs.wait_a.store(a, std::memory_order_relaxed);
    rs.wait_b.store(b, std::memory_order_relaxed);
    rs.waited_ns.store(now_ns(), std::memory_order_relaxed);
    ::sched_yield();
  }

  std::uint64_t enter(SharedBarrier& b) {
    const std::uint64_t ticket = b.tickets.fetch_add(1, std::memory_order_acq_rel);
    const auto n = static_cast<std::uint64_t>(size());
    arena_->progress.fetch_add(1, std::memory_order_relaxed);
    if (ticket % n == n - 1) b.generation.store(ticket / n + 1, std::memory_order_release);
    return ticket / n + 1;
  }
  void wait_barrier(SharedBarrier& b, std::uint64_t target, WaitKind k) {
    while (b.generation.load(std::memory_order_acquire) < target) wait_step(k);
  }

  void save_results() {
    const auto& st = self();
    nlohmann::json j;
    j["digest"] = st.digest;
    j["descriptors"] = st.descriptors;
    j["packets"] = st.packets;
    j["bytes"] = st.bytes;
    j["timings"] = nlohmann::json::array();
    for (const auto& t : st.timings) j["timings"].push_back({t.what, t.iter, t.cycles});
    j["checks"] = nlohmann::json::array();
    for (const auto& c : st.checks) j["checks"].push_back({c.what, c.checked, c.wrong, c.example});
    const std::string text = j.dump();
    const int fd = results_[static_cast<std::size_t>(me_)];
    for (std::size_t off = 0; off < text.size();) {
      const ssize_t w = ::pwrite(fd, text.data() + off, text.size() - off, static_cast<off_t>(off));
      if (w <= 0) throw Error(fmt::format("rank {}: cannot write its results: {}", me_, std::strerror(errno)));
      off += static_cast<std::size_t>(w);
    }
  }

  // ---- in the launcher ----
  void collect(int r) {
    const int fd = results_[static_cast<std::size_t>(r)];
    std::string text;
    std::array<char, 65536> buf{};
    for (off_t off = 0;;) {
      const ssize_t n = ::pread(fd, buf.data(), buf.size(), off);
      if (n < 0) throw Error(fmt::format("bgq: cannot read rank {}'s results: {}", r, std::strerror(errno)));
      if (n == 0) break;
      text.append(buf.data(), static_cast<std::size_t>(n));
      off += n;
    }
    const auto j = nlohmann::json::parse(text);
    auto& st = rank(r);
    st.digest = j["digest"].get<std::uint64_t>();
    st.descriptors = j["descriptors"].get<std::uint64_t>();
    st.packets = j["packets"].get<std::uint64_t>();
    st.bytes = j["bytes"].get<std::uint64_t>();
    for (const auto& t : j["timings"])
      st.timings.push_back({t[0].get<std::string>(), t[1].get<int>(), t[2].get<double>()});
    for (const auto& c : j["checks"])
      st.checks.push_back(
          {c[0].get<std::string>(), c[1].get<std::uint64_t>(), c[2].get<std::uint64_t>(), c[3].get<std::string>()});
  }

  // Node's monitor: stops the run on Ctrl-C (the ranks inherit hopsim's
  // handler, which only sets a flag), and is the deadlock watchdog: every
  // rank has been in a wait loop within the last half second and nothing
  // was pushed, applied or entered for kDeadlockSeconds. Nothing can change then: each waiting rank keeps
  // applying its ring, and every ring is empty.
  void watch() {
    if (interrupted()) throw Error(interrupted_by() + ": every rank was stopped");
    const std::uint64_t p = arena_->progress.load(std::memory_order_relaxed);
    const std::int64_t now = now_ns();
    if (progress_watch_.moved(p, now)) return;
    std::map<std::string, std::vector<int>> by_state;
    for (int r = 0; r < size(); ++r) {
      const auto& rs = shared_[r];
      if (now - rs.waited_ns.load(std::memory_order_relaxed) > kWaitingFreshNs) {
        progress_watch_.restart(now);  // someone is computing: not a deadlock
        return;
      }
      const char* call = rs.mpi_call.load(std::memory_order_relaxed);
      by_state[call ? mpi_wait_text(call, rs.wait_a.load(), rs.wait_b.load())
                    : wait_text(static_cast<WaitKind>(rs.wait_kind.load()), rs.wait_a.load(), rs.wait_b.load())]
          .push_back(r);
    }
    if (!progress_watch_.stuck(now)) return;
    const std::string who = waits_text(by_state);
    throw DeadlockError(
        fmt::format("native run (a process per rank, transport {}): deadlock: no data moved for {:g} s "
                    "while every rank waits: {}",
                    to_string(opt_.transport), kDeadlockSeconds, who));
  }

  struct Get {
    std::uint32_t src;
    MUHWI_Descriptor_t desc;
    std::vector<std::uint8_t> payload;
  };

  NativeOptions opt_;
  std::chrono::steady_clock::time_point t0_;
  double end_cycles_ = 0;
  std::byte* base_ = nullptr;
  std::size_t arena_bytes_ = 0;
  Arena* arena_ = nullptr;
  RankShared* shared_ = nullptr;
  std::byte* rings_ = nullptr;
  std::vector<int> results_;  // memfd per rank: its results, written at the end of its run
  TransportUse use_;
  // Launcher: watchdog state.
  ProgressWatch progress_watch_;  // the watchdog's (the launching thread's)
  // Rank process.
  host::Rank* rank_ = nullptr;
  int me_ = -1;
  bool cma_ = false;
  std::deque<Get> gets_;
  std::recursive_mutex serve_;  // one of the process's threads at a time moves its data
  bool in_gets_ = false;
};

}  // namespace

std::unique_ptr<Machine> make_process_machine(const model::Params& p, const nlohmann::json& args,
                                              const NativeOptions& o) {
  return std::make_unique<ProcessMachine>(p, args, o);
}

}  // namespace hopsim::bgq
