#pragma once
// The Epiphany device as the device APIs (e-lib, stdcl) see it. Two
// implementations: NativeDevice (host threads, real stores, host clock) and
// SimDevice (fibers under SystemC, eMesh timing model, device cycles).
// Transport calls are made by the current PE from kernel code; launch and
// host_seconds by the host program.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hopsim/core/interrupt.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/epiphany/memory_windows.hpp"
#include "hopsim/epiphany/model/address_map.hpp"
#include "hopsim/epiphany/model/mesh_events.hpp"
#include "hopsim/epiphany/model/params.hpp"

namespace hopsim::epiphany {

using hopsim::catch_interrupts;
using hopsim::interrupted;
using hopsim::interrupted_by;

enum class WaitKind { barrier, poll, mutex };
enum class RawKind { load, store, volatile_load, volatile_store };

struct CoreCounters {
  double compute = 0;  // cycles charged as computation
  double waiting = 0;  // cycles spent in polling loops (barrier included)
  double barrier = 0;  // of which in barriers
  double stall = 0;    // cycles the mesh interface held stores back
  std::uint64_t writes = 0, write_bytes = 0;
  std::uint64_t reads = 0, read_bytes = 0;
  double finish = 0;               // cycle of the last launch's end for this core
  std::uint64_t instructions = 0;  // counted compute: the program's instructions (simulated)
};

struct LaunchTiming {
  double seconds = 0;  // host-visible duration (simulated or wall)
  double cycles = 0;   // device cycles (simulated; wall time x clock natively)
  double start = 0;    // cycle it began (simulated; natively wall time since the device opened x clock)
};

// A core error reported by a device program's thread: the message is
// printed and the process stops with KernelError's exit code.
[[noreturn]] void stop_process(const std::string& message, int code);

// Offsets inside each core's local memory reserved by the runtime.
inline constexpr std::uint32_t kRuntimeAreaOffset = 0x100;  // stdcl barrier flags (one byte per core)
inline constexpr std::uint32_t kRuntimeAreaSize = 0x100;

// Thrown inside a core's program when the host resets the core: unwinds
// the program quietly.
struct CoreReset {};

class Device {
 public:
  Device(const epiphany::model::Params& p, MemoryWindows& windows);
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // ---- transport, called by the current PE ----
  // Posted write of n bytes to global address dst (a core's local memory or
  // external memory), in transactions of at most `chunk` bytes. Throws
  // KernelError naming the core and address if dst is outside every memory.
  virtual void write(std::uint64_t dst, const void* src, std::size_t n, unsigned chunk = 8) = 0;
  // Blocking read of n bytes from global address src into dst.
  virtual void read(void* dst, std::uint64_t src, std::size_t n) = 0;
  // Returns once the 1- or 4-byte value at own-memory address `addr` equals
  // `value` (equal) or differs from it (!equal).
  virtual void wait_value(const volatile void* addr, unsigned size, std::uint32_t value, bool equal, WaitKind kind) = 0;
  // Atomic test-and-set of the 32-bit word at global address addr: stores
  // `value` if the word is zero; returns the old value.
  virtual std::uint32_t testset(std::uint64_t addr, std::uint32_t value) = 0;
  // DMA of n contiguous bytes in elements of `elem` bytes starting no
  // earlier than cycle `start` (setup already included by the caller); data
  // is copied at once; returns the completion cycle.
  // `blocking`: the core waits for this transfer (e_dma_copy); simulated,
  // its writes then go in pieces, other cores' traffic interleaving with them.
  virtual double dma_copy(std::uint64_t dst, std::uint64_t src, std::size_t n, unsigned elem, double start,
                          bool blocking) = 0;
  // Charges annotated computation to the current PE (simulated only).
  virtual void compute(double cycles) = 0;
  // The current PE's clock in device cycles.
  virtual double now_cycles() = 0;
  // Lets the current PE's clock reach `cycle` (e.g. waiting for a DMA).
  virtual void wait_until(double cycle) = 0;

  // ---- raw accesses of code built through the device pass (device_abi.h) ----
  // A plain load or store of `size` bytes at device address `addr` (< 4 GiB)
  // that is about to happen. Throws KernelError if it is outside every
  // memory; simulated, times it (remote store: cMesh write; remote load:
  // blocking round trip; local load: waits for in-flight writes).
  // A second volatile load of an unchanged local word is taken as a polling
  // loop: the core sleeps until another core changes the word. `global`:
  // the program used a global address; one of its own core's memory then
  // goes out to the core's router and back, as on the chip (Adapteva's
  // emesh_read_latency expects 18 cycles for such a load). Returns false
  // when the core stopped before the access at the raise time of an
  // interrupt it takes (simulated: a load that waits for a write still in
  // flight passes that time): the caller services interrupts and calls
  // again.
  virtual bool raw_access(std::uint64_t addr, unsigned size, RawKind kind, bool global = false) = 0;
  // An atomic read-modify-write at `addr` about to happen (a TESTSET-like
  // round trip when remote or by a global address).
  virtual void raw_atomic(std::uint64_t addr, unsigned size, bool global = false) = 0;
  // `iterations` loop iterations of a device program built by e-gcc ran on
  // the current core since its last tick: simulated, charged at poll_cycles
  // each (annotated compute) and a chance for time and other cores to go
  // on; native, a point where a reset of the core is noticed.
  virtual void loop_tick(unsigned iterations) = 0;
  // A polling loop of a device program (device_abi.h): entered, one more
  // iteration begins, one of its loads. Simulated, an iteration that read
  // the same words and values as the one before puts the core to sleep
  // until one of them is written; native, the core yields its CPU.
  virtual void poll_enter() = 0;
  virtual void poll_next() = 0;
  virtual void poll_load(std::uint64_t addr, unsigned size) = 0;

  // ---- device programs (e-hal): each core runs its own program ----
  // Starts `program` on `core`, which must be idle (core_busy false). The
  // program runs on a host stack; its device stack is in core memory.
  // Native: a host thread; simulated: the core's fiber, started once the
  // host's 4-byte eLink write arrives (call from the simulation's host
  // process; the host's clock moves on by that write). A core error stops
  // the process with the message (exit code 5), as a trapped core stops
  // the board's program.
  virtual void start_core(std::uint32_t core, std::function<void()> program) = 0;
  virtual bool core_busy(std::uint32_t core) const = 0;
  // The core's `idle` instruction: sleeps until an interrupt in
  // `wake_mask` is latched (raise_interrupt) or the core is reset.
  virtual void idle(std::uint32_t wake_mask) = 0;
  // Stops `core`'s program (e_reset_group): a core that is idle or waiting
  // stops at once; natively, a core that computes is waited for (up to a
  // few seconds, then KernelError). Its memory is kept.
  virtual void reset_core(std::uint32_t core) = 0;
  // e_halt: asks `core` to stop at its next halt point (a wait, poll, idle,
  // loop tick or, simulated, synchronisation; not between two arbitrary
  // instructions) and returns once it has stopped there or is not running
  // (natively KernelError after a few seconds of neither).
  virtual void halt_core(std::uint32_t core) = 0;
  // e_resume: a halted core goes on.
  virtual void resume_core(std::uint32_t core) { halt_[core] = false; }
  // DEBUGSTATUS bit 0: the core is halted (stopped at a halt point, or asked to and not running).
  bool core_halted(std::uint32_t core) const { return halt_[core] && (parked_[core] || !core_busy(core)); }
  // Latches interrupt `irq` (0..9) in `core`'s ILAT and wakes it if idle.
  virtual void raise_interrupt(std::uint32_t core, unsigned irq) = 0;
  // Latches `irq` in the calling core's own ILAT as of its cycle `at` (an
  // engine of the core, e.g. a DMA channel, finishing then): simulated, the
  // core sees it from `at` on; natively now (the engine's work is done).
  // Arms (at > 0) or disarms (at <= 0) interrupt `irq` of the calling core,
  // which one of its timers raises when it expires at the core's cycle
  // `at`: simulated, latched from `at` on; natively, raised once the core's
  // clock has passed `at` when the core next idles, polls or ticks
  // (fire_timers).
  virtual void arm_own_interrupt(unsigned irq, double at) = 0;
  // Natively: raises the calling core's armed timer interrupts that are due.
  virtual void fire_timers() {}
  virtual void raise_own_interrupt_at(unsigned irq, double at) {
    (void)at;
    raise_interrupt(current_core(), irq);
  }
  // Host access to device memory (e_read/e_write): native, a copy; simulated,
  // the eLink's latency and width, and pollers of the written words wake.
  virtual void host_read(void* dst, std::uint64_t src, std::size_t n) = 0;
  virtual void host_write(std::uint64_t dst, const void* src, std::size_t n) = 0;
  // The host program sleeping (usleep): simulated time passes.
  virtual void host_sleep(double seconds) = 0;
  // Whether the current core would take a latched interrupt now (its e-lib
  // state: enabled, unmasked, above the running handlers); the e-lib sets
  // it. A simulated polling loop that sleeps wakes for such an interrupt.
  using InterruptProbe = bool (*)();
  static void set_interrupt_probe(InterruptProbe probe);
  static bool interrupt_ready();
  // Interrupts latched for `core` that it sees now: simulated, on the
  // core's own clock (one raised later in simulated time by a core running
  // ahead is not seen yet); natively, all of ILAT.
  virtual std::uint32_t latched(std::uint32_t core) { return ilat(core, false); }
  // Interrupts latched for `core` (ILAT); clears them if `clear`.
  std::uint32_t ilat(std::uint32_t core, bool clear);
  void clear_interrupt(std::uint32_t core, unsigned irq) { ilat_[core].fetch_and(~(1u << irq)); }

  // ---- the routers' event counters (a ctimer in a mesh mode) ----
  // Counting runs while any counter is on (calls nest); the last off
  // forgets what was counted. Simulated, the mesh model logs every cMesh
  // packet's accesses and waits; natively, each remote access, read answer
  // and DMA is counted along its route, and nothing waits.
  void count_mesh_events(bool on);
  // Events of MESHCFG code `code` (mesh_events.hpp) at router `node` up to
  // the current PE's present (natively: so far).
  std::uint64_t mesh_events(std::uint32_t node, unsigned code);

  // ---- host side ----
  // Runs `kernel` on every core and returns when all have finished.
  virtual void launch(const std::function<void()>& kernel) = 0;
  // Where launched kernels run: built-in kernels on a stack at the top of
  // each core's window (their stack objects are core memory); kernels
  // built through the device pass (hopsim-cc) keep their stack in core
  // memory themselves and run on host stacks.
  void set_kernel_host_stacks(bool on) { kernel_host_stacks_ = on; }
  // Host clock in seconds (simulated time, or wall time natively).
  virtual double host_seconds() = 0;
  virtual Mode mode() const = 0;

  const LaunchTiming& last_launch() const { return last_launch_; }
  const std::vector<CoreCounters>& counters() const { return counters_; }
  const epiphany::model::Params& params() const { return p_; }
  const epiphany::model::AddressMap& map() const { return windows_.map(); }
  MemoryWindows& windows() { return windows_; }

  // Index of the PE running on this host thread/fiber (set by the device).
  static std::uint32_t current_core();
  // The device of the run in progress; throws if none.
  static Device& current();
  static Device* current_or_null();

 protected:
  static void set_current_core(std::uint32_t core);
  // Validates [addr, addr+n) and throws KernelError naming the current core.
  epiphany::model::Location locate_or_throw(std::uint64_t addr, std::size_t n, const char* what) const {
    const auto loc = map().locate(addr, n);
    if (loc.kind == epiphany::model::Location::Kind::none) [[unlikely]]
      throw_outside(addr, n, what);
    return loc;
  }
  [[noreturn]] void throw_outside(std::uint64_t addr, std::size_t n, const char* what) const;
  // Native runs: `n` packets from core `from` to core `to` while counting.
  void note_packets(std::uint32_t from, std::uint32_t to, std::uint64_t n) {
    if (mesh_counting_.load(std::memory_order_relaxed)) [[unlikely]]
      note_route(from, to, n);
  }
  // The simulated device hands the log to its mesh model (null: stop).
  virtual void log_mesh_events(epiphany::model::MeshEventLog* /*log*/) {}
  // The tick up to which mesh_events counts (natively: everything).
  virtual std::uint64_t mesh_event_horizon() { return ~std::uint64_t{0}; }
  // Allocates the kernel stack of every core at the top of its window.
  void* stack_lo(std::uint32_t core) const;

  epiphany::model::Params p_;
  MemoryWindows& windows_;
  std::vector<CoreCounters> counters_;
  LaunchTiming last_launch_;
  bool kernel_host_stacks_ = false;
  // Per core: its name in a crash report (hopsim/core/crash.hpp).
  std::vector<std::string> core_labels_;
  // Per core: latched interrupts (atomics, which a vector cannot hold).
  std::unique_ptr<std::atomic<std::uint32_t>[]> ilat_;  // NOLINT(modernize-avoid-c-arrays)

 private:
  void note_route(std::uint32_t from, std::uint32_t to, std::uint64_t n);
  topo::Topology mesh_topology_;
  std::unique_ptr<epiphany::model::MeshEventLog> mesh_log_;
  std::mutex mesh_log_mutex_;
  int mesh_counters_ = 0;
  std::atomic<bool> mesh_counting_{false};

 protected:
  // Per core: asked to halt (e_halt), and stopped at a halt point.
  std::unique_ptr<std::atomic<bool>[]> halt_;    // NOLINT(modernize-avoid-c-arrays)
  std::unique_ptr<std::atomic<bool>[]> parked_;  // NOLINT(modernize-avoid-c-arrays)

 private:
  friend class DeviceScope;
};

// Makes `d` the current device for its lifetime.
class DeviceScope {
 public:
  explicit DeviceScope(Device& d);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  Device* prev_;
};

}  // namespace hopsim::epiphany
