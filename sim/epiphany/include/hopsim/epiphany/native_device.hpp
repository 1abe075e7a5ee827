#pragma once
// Native mode: every core is a host thread running its kernel on a fiber
// whose stack is in the core's window; writes are real stores, waits spin
// and yield (so 16 PEs finish on 2 host cores), time is host wall time.
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hopsim/epiphany/device.hpp"
#include "hopsim/traces/writer.hpp"

namespace hopsim::epiphany {

class NativeDevice final : public Device {
 public:
  NativeDevice(const epiphany::model::Params& p, MemoryWindows& windows);

  void write(std::uint64_t dst, const void* src, std::size_t n, unsigned chunk) override;
  void read(void* dst, std::uint64_t src, std::size_t n) override;
  void wait_value(const volatile void* addr, unsigned size, std::uint32_t value, bool equal, WaitKind kind) override;
  std::uint32_t testset(std::uint64_t addr, std::uint32_t value) override;
  double dma_copy(std::uint64_t dst, std::uint64_t src, std::size_t n, unsigned elem, double start,
                  bool blocking) override;
  void compute(double) override {}
  double now_cycles() override;
  void arm_own_interrupt(unsigned irq, double at) override;
  void fire_timers() override;
  void wait_until(double) override {}
  // Natively a raw access only has to be valid: one table look-up.
  bool raw_access(std::uint64_t addr, unsigned size, RawKind kind, bool /*global*/) override {
    const bool store = kind == RawKind::store || kind == RawKind::volatile_store;
    const auto loc = locate_or_throw(addr, size, store ? "stored" : "loaded");
    count_remote(loc, store ? 1 : 0, store ? 0 : 1);
    return true;
  }
  void raw_atomic(std::uint64_t addr, unsigned size, bool /*global*/) override {
    count_remote(locate_or_throw(addr, size, "atomically accessed"), 1, 1);
  }
  void loop_tick(unsigned /*iterations*/) override { check_reset(); }
  void poll_enter() override {}
  void poll_next() override;
  void poll_load(std::uint64_t /*addr*/, unsigned /*size*/) override {}
  void launch(const std::function<void()>& kernel) override;
  void start_core(std::uint32_t core, std::function<void()> program) override;
  bool core_busy(std::uint32_t core) const override { return busy_[core].load(); }
  void idle(std::uint32_t wake_mask) override;
  void reset_core(std::uint32_t core) override;
  void raise_interrupt(std::uint32_t core, unsigned irq) override;
  void host_read(void* dst, std::uint64_t src, std::size_t n) override;
  void host_write(std::uint64_t dst, const void* src, std::size_t n) override;
  void host_sleep(double seconds) override;
  // The current core was asked to stop (reset): throws CoreReset; asked to
  // halt (e_halt): waits here until resumed or reset.
  void check_reset() {
    const std::uint32_t core = current_core();
    if (halt_[core].load(std::memory_order_relaxed)) [[unlikely]]
      park(core);
    if (reset_[core].load(std::memory_order_relaxed)) [[unlikely]]
      throw CoreReset{};
  }
  void halt_core(std::uint32_t core) override;
  ~NativeDevice() override;
  NativeDevice(const NativeDevice&) = delete;
  NativeDevice& operator=(const NativeDevice&) = delete;
  double host_seconds() override;
  Mode mode() const override { return Mode::native; }

  // Seconds with every running core waiting and no write before a deadlock is declared.
  void set_deadlock_timeout(double seconds) { deadlock_timeout_ = seconds; }
  // Records what a native run can observe: each remote write as a
  // transaction (delivered when stored, so inject == arrive) and each wait
  // as a barrier or polling span of its core; times are wall-clock cycles
  // (host seconds since the device was made x clock). The nodes and links
  // are declared by the caller. Null stops recording.
  void set_trace(traces::TraceWriter* w) { trace_ = w && w->records_transactions() ? w : nullptr; }

 private:
  void park(std::uint32_t core);
  // Waits (up to 5 s, then KernelError naming `what`) until `done`.
  void wait_for_core(std::uint32_t core, const std::function<bool()>& done, const char* what);
  // Counts the cMesh packets of an access to another core (mesh counters):
  // `there` packets to it, `back` answers from it.
  void count_remote(const epiphany::model::Location& loc, std::uint64_t there, std::uint64_t back) {
    if (loc.kind != epiphany::model::Location::Kind::core || loc.core == current_core()) return;
    if (there) note_packets(current_core(), loc.core, there);
    if (back) note_packets(loc.core, current_core(), back);
  }
  std::chrono::steady_clock::time_point epoch_;
  std::atomic<std::uint64_t> progress_{0};  // writes so far (watchdog)
  std::atomic<int> waiting_{0};
  std::atomic<int> running_{0};
  std::atomic<bool> abort_{false};
  std::atomic<bool> failed_{false};  // a core threw: the others stop waiting
  std::string abort_reason_;
  std::mutex done_mutex_;
  std::condition_variable done_cv_;
  double deadlock_timeout_ = 3.0;
  traces::TraceWriter* trace_ = nullptr;
  // Device programs: one thread per started core.
  std::vector<std::thread> threads_;
  // Per core (atomics, which a vector cannot hold).
  std::unique_ptr<std::atomic<bool>[]> busy_;   // NOLINT(modernize-avoid-c-arrays)
  std::unique_ptr<std::atomic<bool>[]> reset_;  // NOLINT(modernize-avoid-c-arrays)
  // Per core and interrupt: the cycle an armed timer interrupt is due (0:
  // none); each core's own thread alone reads and writes its entries.
  std::vector<std::array<double, 10>> timer_due_;
};

}  // namespace hopsim::epiphany
