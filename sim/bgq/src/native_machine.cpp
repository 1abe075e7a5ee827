// Native BG/Q: every rank is a host thread; a descriptor is carried out at
// once by the injecting thread (real copies into the target's memory and an
// atomic store-add on its counter, or real queue appends for memory-FIFO
// packets). Time is the host's steady clock scaled to the A2 clock.
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/interrupt.hpp"
#include "machine.hpp"

namespace hopsim::bgq {

namespace {

// Thrown in ranks blocked on others once one rank failed.
struct Aborted {};

class NativeMachine final : public Machine {
 public:
  NativeMachine(const model::Params& p, const nlohmann::json& args) : Machine(p, args) {}
  Mode mode() const override { return Mode::native; }
  TransportUse transport_use() const override { return {"threads", "threads", ""}; }
  double end_cycles() const override { return end_cycles_; }

  void run(void (*entry)()) override {
    t0_ = std::chrono::steady_clock::now();
    waits_ = std::vector<RankWait>(static_cast<std::size_t>(size()));
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(size()));
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(size()));
    std::atomic<int> running{size()};
    for (int r = 0; r < size(); ++r) {
      threads.emplace_back([this, r, entry, &errors, &running] {
        const crash::ThreadGuard guard(rank(r).label.c_str());
        set_current(this, r);
        try {
          entry();
        } catch (const Aborted&) {
        } catch (...) {
          errors[static_cast<std::size_t>(r)] = std::current_exception();
          stop_all();
        }
        waits_[static_cast<std::size_t>(r)].kind.store(static_cast<std::uint32_t>(WaitKind::finished));
        progress_.fetch_add(1, std::memory_order_relaxed);
        set_current(nullptr, -1);
        running.fetch_sub(1, std::memory_order_acq_rel);
      });
    }
    std::exception_ptr stopped;  // the watchdog's or Ctrl-C's
    while (running.load(std::memory_order_acquire) > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (stopped || abort_.load()) continue;
      try {
        watch();
      } catch (...) {
        stopped = std::current_exception();
        stop_all();
      }
    }
    for (auto& t : threads) t.join();
    end_cycles_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count() * params().clock_hz;
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
    if (stopped) std::rethrow_exception(stopped);
  }

  std::uint64_t timebase() override {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    return static_cast<std::uint64_t>(s * params().clock_hz);
  }

  void inject(std::uint32_t fifo, const MUHWI_Descriptor_t& d) override {
    const auto r = static_cast<std::uint32_t>(current_rank());
    if (!model::is_collective(d)) {
      execute(r, d);
      return;
    }
    // A collective: the thread whose contribution completes it delivers the result everywhere.
    progress_.fetch_add(1, std::memory_order_relaxed);
    const auto done = collective_contribute(take_collective(r, fifo, 0, d, 0));
    if (!done) return;
    for (std::size_t k = 0; k < done->receivers.size(); ++k) collective_deliver(*done, k, true);
  }

  // Carries out descriptor `d` of node r's MU at once.
  void execute(std::uint32_t r, const MUHWI_Descriptor_t& d) {
    progress_.fetch_add(1, std::memory_order_relaxed);
    const std::uint32_t dst = take_descriptor(r, d);
    const auto pk = model::packetise(d.Message_Length);
    auto& mu = rank(static_cast<int>(dst)).mu;
    const auto* src = reinterpret_cast<const std::uint8_t*>(d.Pa_Payload);
    const auto type = model::packet_type(d);
    for (std::uint64_t i = 0; i < pk.packets; ++i) {
      const std::uint32_t pay = model::packet_payload(d.Message_Length, i);
      const std::uint64_t off = i * MUHWI_PACKET_MAX_PAYLOAD;
      if (type == MUHWI_PACKET_TYPE_PUT)
        receive_direct_put(mu, dst, r, d, off, src + off, pay, true);
      else if (type == MUHWI_PACKET_TYPE_FIFO)
        receive_memory_fifo(mu, dst, r, d, off, src + off, pay);
      else
        remote_get(mu, dst, r, d, off, src + off, pay);
    }
  }

  // The destination's MU runs the descriptors in the payload, now.
  void remote_get(model::NodeMu& mu, std::uint32_t dst, std::uint32_t src, const MUHWI_Descriptor_t& d, std::uint64_t,
                  const std::uint8_t* data, std::uint32_t bytes) {
    remote_get_fifo(mu, dst, src, d);
    for (std::uint32_t k = 0; k + sizeof(MUHWI_Descriptor_t) <= bytes; k += sizeof(MUHWI_Descriptor_t)) {
      MUHWI_Descriptor_t inner;
      std::memcpy(&inner, data + k, sizeof inner);
      execute(dst, inner);
    }
  }

  void spin() override { wait_step(WaitKind::spin); }
  void idle_poll(WaitKind why, int a, int b) override { wait_step(why, a, b); }
  void rec_sync() override {}
  void compute(std::uint64_t elements, int threads) override { (void)compute_cycles(elements, threads); }

  void delay(double cycles) override {
    const auto until = timebase() + static_cast<std::uint64_t>(cycles);
    while (timebase() < until) {
    }
  }

  void gi_enter() override { enter(gi_, self().gi_target); }
  void gi_wait() override { wait(gi_, self().gi_target, WaitKind::gi); }
  bool gi_poll() override {
    if (gi_.generation.load(std::memory_order_acquire) >= self().gi_target) return true;
    wait_step(WaitKind::gi);
    return false;
  }

 private:
  struct Barrier {
    std::mutex m;
    int entered = 0;
    std::atomic<std::uint64_t> generation{0};
  };
  void enter(Barrier& b, std::uint64_t& target) {
    progress_.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(b.m);
    target = b.generation.load() + 1;
    if (++b.entered == size()) {
      b.entered = 0;
      b.generation.fetch_add(1, std::memory_order_acq_rel);
    }
  }
  void wait(Barrier& b, std::uint64_t target, WaitKind k) {
    while (b.generation.load(std::memory_order_acquire) < target) wait_step(k);
  }

  // What a rank waits for, as the watchdog sees it.
  struct RankWait {
    std::atomic<std::uint32_t> kind{0};
    std::atomic<std::int32_t> a{0}, b{0};
    std::atomic<std::int64_t> at_ns{0};
  };
  void note_wait(WaitKind k, int a = 0, int b = 0) {
    auto& w = waits_[static_cast<std::size_t>(current_rank())];
    w.kind.store(static_cast<std::uint32_t>(k), std::memory_order_relaxed);
    w.a.store(a, std::memory_order_relaxed);
    w.b.store(b, std::memory_order_relaxed);
    w.at_ns.store(now_ns(), std::memory_order_relaxed);
  }
  // One iteration of a wait loop: stop if the run stopped, tell the watchdog, yield.
  void wait_step(WaitKind k, int a = 0, int b = 0) {
    if (abort_.load(std::memory_order_relaxed)) throw Aborted{};
    note_wait(k, a, b);
    std::this_thread::yield();
  }
  void stop_all() { abort_.store(true); }

  // Ctrl-C stops every rank; so does a deadlock: every rank that has not
  // finished was in a wait loop within kWaitingFreshNs, and no descriptor,
  // MPI message, barrier entry or finished rank for kDeadlockSeconds.
  // Nothing can change then (descriptors are carried out by the injecting
  // thread, so there is nothing in flight).
  void watch() {
    if (interrupted()) throw Error(interrupted_by() + ": every rank was stopped");
    const std::uint64_t p = progress_.load(std::memory_order_relaxed);
    const std::int64_t now = now_ns();
    if (progress_watch_.moved(p, now)) return;
    std::map<std::string, std::vector<int>> by_state;
    int finished = 0;
    for (int r = 0; r < size(); ++r) {
      const auto& w = waits_[static_cast<std::size_t>(r)];
      const auto k = static_cast<WaitKind>(w.kind.load(std::memory_order_relaxed));
      if (k == WaitKind::finished) {
        ++finished;
        continue;
      }
      if (k == WaitKind::none || now - w.at_ns.load(std::memory_order_relaxed) > kWaitingFreshNs) {
        progress_watch_.restart(now);  // someone is computing: not a deadlock
        return;
      }
      const std::string mpi = k == WaitKind::spin ? mpi_wait_text(rank(r)) : std::string();
      by_state[mpi.empty() ? wait_text(k, w.a.load(), w.b.load()) : mpi].push_back(r);
    }
    if (!progress_watch_.stuck(now)) return;
    const std::string who = waits_text(by_state);
    throw DeadlockError(
        fmt::format("native run (host threads): deadlock: nothing moved for {:g} s while every rank waits: {}{}",
                    kDeadlockSeconds, who, finished > 0 ? fmt::format(" ({} finished)", finished) : std::string()));
  }

  std::chrono::steady_clock::time_point t0_;
  double end_cycles_ = 0;
  std::atomic<bool> abort_{false};
  Barrier gi_;
  std::vector<RankWait> waits_;
  std::atomic<std::uint64_t> progress_{0};  // descriptors, MPI messages, barrier entries, finished ranks
  ProgressWatch progress_watch_;            // the watchdog's (the launching thread's)
};

}  // namespace

std::unique_ptr<Machine> make_native_machine(const model::Params& p, const nlohmann::json& args) {
  return std::make_unique<NativeMachine>(p, args);
}

}  // namespace hopsim::bgq
