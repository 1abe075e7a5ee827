#pragma once
// Simulated mode: the Epiphany chip model under SystemC. Each core's kernel
// runs as a fiber switched to from the core's SystemC thread; a core runs
// ahead of global time (up to a quantum) and only yields to SystemC to
// wait: for global time, for a write to a watched word, for a launch. A
// posted write costs the writer its issue time; its arrival is computed
// by the mesh timing model and recorded per word, so a poll that sees the
// value proceeds no earlier than the write's simulated arrival.
// Deterministic: same scenario, same results.
#include <array>
#include <exception>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "hopsim/core/scenario.hpp"
#include "hopsim/epiphany/device.hpp"
#include "hopsim/epiphany/model/chip.hpp"
#include "hopsim/interpose/pe_context.hpp"
#include "hopsim/traces/writer.hpp"

namespace hopsim::epiphany {

class SimDevice final : public Device, public epiphany::model::CoreProgram {
 public:
  SimDevice(const epiphany::model::Params& p, MemoryWindows& windows, ComputeModel compute, double speed_factor);
  ~SimDevice() override;
  SimDevice(const SimDevice&) = delete;
  SimDevice& operator=(const SimDevice&) = delete;

  // Elaborates the model and runs `host` as the host program until it
  // returns. SystemC elaborates once per process: a second call throws.
  // Rethrows kernel errors; throws DeadlockError if every core blocks.
  void run(const std::function<void()>& host);

  void write(std::uint64_t dst, const void* src, std::size_t n, unsigned chunk) override;
  void read(void* dst, std::uint64_t src, std::size_t n) override;
  void wait_value(const volatile void* addr, unsigned size, std::uint32_t value, bool equal, WaitKind kind) override;
  std::uint32_t testset(std::uint64_t addr, std::uint32_t value) override;
  double dma_copy(std::uint64_t dst, std::uint64_t src, std::size_t n, unsigned elem, double start,
                  bool blocking) override;
  void compute(double cycles) override;
  double now_cycles() override;
  void wait_until(double cycle) override;
  bool raw_access(std::uint64_t addr, unsigned size, RawKind kind, bool global) override;
  void raw_atomic(std::uint64_t addr, unsigned size, bool global) override;
  void loop_tick(unsigned iterations) override;
  void poll_enter() override;
  void poll_next() override;
  void poll_load(std::uint64_t addr, unsigned size) override;
  void launch(const std::function<void()>& kernel) override;
  void start_core(std::uint32_t core, std::function<void()> program) override;
  bool core_busy(std::uint32_t core) const override { return pes_[core].busy; }
  void idle(std::uint32_t wake_mask) override;
  void reset_core(std::uint32_t core) override;
  void halt_core(std::uint32_t core) override;
  void resume_core(std::uint32_t core) override;
  void raise_interrupt(std::uint32_t core, unsigned irq) override;
  void raise_own_interrupt_at(unsigned irq, double at) override;
  void arm_own_interrupt(unsigned irq, double at) override;
  std::uint32_t latched(std::uint32_t core) override;
  void host_read(void* dst, std::uint64_t src, std::size_t n) override;
  void host_write(std::uint64_t dst, const void* src, std::size_t n) override;
  void host_sleep(double seconds) override;
  double host_seconds() override;
  // Marks the calling SystemC process as the host program's (host accesses).
  void set_in_host(bool in) { in_host_ = in; }
  Mode mode() const override { return Mode::sim; }

 protected:
  void log_mesh_events(epiphany::model::MeshEventLog* log) override;
  std::uint64_t mesh_event_horizon() override;

 public:
  epiphany::model::Chip& chip() { return *chip_; }
  // Records the run into `w` (set before run()): mesh packets and PE waits.
  void set_trace(traces::TraceWriter* w) { trace_ = w; }

 private:
  enum class Req { none, sync, wait_write };
  struct Pe {
    std::vector<char> stack;  // the host stack of ctx when host_stack (declared first: outlives ctx)
    std::unique_ptr<interpose::PeContext> ctx;
    double local = 0;  // this core's clock, cycles (>= global time)
    Req req = Req::none;
    bool launched = false;
    bool blocked = false;  // waiting for a write to [watch_lo, watch_hi)
    std::uint64_t watch_lo = 0, watch_hi = 0;
    std::uint64_t watch_value = 0;
    bool watch_equal = true;
    std::int64_t resumed_ns = 0;  // measured compute: host time at last return to kernel code
    struct PollRead {
      std::uint64_t addr, value;
      unsigned size;
      bool operator==(const PollRead&) const = default;
    };
    std::vector<PollRead> poll_cur, poll_prev;  // a polling loop's reads, this and the last iteration
    std::uint64_t poll_addr = 0;                // last raw volatile local load, to recognise polling loops
    std::uint64_t poll_value = 0;
    std::function<void()> program;  // a device program started with start_core (else the launch's kernel)
    bool busy = false;              // a program or kernel is running
    bool reset = false;             // the host reset the core: the program unwinds at its next wait
    bool host_stack = false;        // ctx runs on stack (device programs, pass-built kernels), not in the window
    std::pair<double, double> compute_span{0, 0};  // counted, traced: charges not yet recorded [start, end)
  };

  void run_core(std::uint32_t core) override;
  void run_host() override;
  Pe& me() { return pes_[current_core()]; }
  void enter(Pe& pe);                     // charge compute up to this transport call
  void charge(Pe& pe, double annotated);  // like enter() with a given annotated cost
  // The cost of the program's own instructions at a runtime entry: the
  // annotated cost, or (counted) what the pass counted since the last entry.
  void charge_code(Pe& pe, double annotated);
  // Counted: moves the cycles and instructions the pass added to the
  // core's words (device_abi.h) onto its clock and counters.
  void take_counted(Pe& pe);
  // Counted, traced: records the core's open compute span (if any) as a PE state.
  void flush_compute_span(Pe& pe, std::uint32_t core);
  // Times a posted write of n bytes to `loc` (data already in memory or about to be).
  // `via_router`: an access of the own core by its global address (router and back).
  void post_write(Pe& pe, const epiphany::model::Location& loc, std::uint64_t dst, std::size_t n, unsigned chunk,
                  bool via_router = false);
  // Times a blocking read of n bytes from `loc`; syncs to global time first.
  void timed_read(Pe& pe, const epiphany::model::Location& loc, std::size_t n, bool via_router = false);
  // Blocks until the `size`-byte value at `a` equals (or differs from) `value`.
  void block_until(Pe& pe, const epiphany::model::Location& loc, std::uint64_t a, unsigned size, std::uint64_t value,
                   bool equal, WaitKind kind, bool interruptible = false);
  // Lets a load's clock reach `ready` (a write to its words still in
  // flight); false if an interrupt the core takes was raised on the way:
  // the clock stops at its raise time.
  bool wait_arrival(Pe& pe, double ready);
  void leave(Pe& pe);
  // Latches `irq` for `core`, seen from its cycle `at` on, and wakes the core.
  void latch(std::uint32_t core, unsigned irq, double at);
  void request(Pe& pe, Req r);
  [[gnu::cold, gnu::noinline]] void park(Pe& pe, std::uint32_t core);  // halted (e_halt) until resumed
  // One piece of a DMA: (bytes, issue) -> {next issue, last arrival}.
  using DmaPiece = std::function<std::pair<double, double>(std::uint32_t, double)>;
  double dma_in_pieces(Pe& pe, std::uint32_t bytes, unsigned elem, double t, const DmaPiece& piece);
  void note_arrival(const epiphany::model::Location& loc, std::size_t n, double arrival);
  double arrival_of(const epiphany::model::Location& loc, std::size_t n) const;
  void wake_watchers(std::uint32_t core, std::uint64_t lo, std::uint64_t hi);
  std::string describe_blocked() const;

  ComputeModel compute_model_;
  double ns_to_cycles_;  // measured compute: device cycles per host ns
  std::unique_ptr<epiphany::model::Chip> chip_;
  std::vector<Pe> pes_;
  std::vector<std::vector<double>> word_arrival_;  // per core, per 4-byte word
  std::vector<double> emem_arrival_;               // per 64-byte line of external memory
  std::function<void()> host_;
  std::function<void()> kernel_;
  std::uint32_t running_ = 0;
  bool host_done_ = false;
  std::exception_ptr error_;
  double now_ = 0;  // global time (cycles) cached while a fiber runs
  // When each interrupt of each core was raised (cycles): a core sees it
  // latched from then on, not earlier on its own clock.
  std::vector<std::array<double, 10>> irq_time_ = std::vector<std::array<double, 10>>(p_.num_cores());
  // The earliest raise time after `t` of an interrupt latched for `core`, or 0.
  double next_irq_after(std::uint32_t core, double t) const;
  bool in_host_ = false;  // the host process is making a host access (not a core)
  traces::TraceWriter* trace_ = nullptr;
};

}  // namespace hopsim::epiphany
