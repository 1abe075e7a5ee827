#include "hopsim/epiphany/sim_device.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/log.hpp"
#include "hopsim/device_abi.h"
#include "hopsim/epiphany/sc_log.hpp"

namespace hopsim::epiphany {
namespace {
bool g_elaborated = false;
constexpr std::size_t kProgramHostStack =
    std::size_t{512} * 1024;  // host stack of a device program's fiber (libc calls)

std::int64_t host_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::uint64_t load_value(const volatile void* addr, unsigned size) {
  switch (size) {
    case 1:
      return *static_cast<const volatile std::uint8_t*>(addr);
    case 2:
      return *static_cast<const volatile std::uint16_t*>(addr);
    case 4:
      return *static_cast<const volatile std::uint32_t*>(addr);
    default:
      return *static_cast<const volatile std::uint64_t*>(addr);
  }
}
}  // namespace

SimDevice::SimDevice(const epiphany::model::Params& p, MemoryWindows& windows, ComputeModel compute,
                     double speed_factor)
    : Device(p, windows),
      compute_model_(compute),
      ns_to_cycles_(p.clock_hz * 1e-9 * speed_factor),
      pes_(p.num_cores()) {
  word_arrival_.assign(p.num_cores(), std::vector<double>(p.local_mem / 4, 0.0));
  emem_arrival_.assign(p.emem_size / 64 + 1, 0.0);
}

SimDevice::~SimDevice() = default;

void SimDevice::run(const std::function<void()>& host) {
  if (g_elaborated) {
    throw Error("SystemC elaborates once per process: run one simulated scenario per hopsim process");
  }
  g_elaborated = true;
  route_sc_reports_to_spdlog();
  host_ = host;
  chip_ = std::make_unique<epiphany::model::Chip>("epiphany", p_, *this);
  if (trace_) chip_->mesh().set_trace(trace_);
  sc_core::sc_start();
  if (error_) std::rethrow_exception(error_);
  if (trace_ && compute_model_ == ComputeModel::counted) {
    // Counted: each PE's instructions, by PE id (`hopsim trace stats`).
    nlohmann::json per_pe = nlohmann::json::object();
    for (std::size_t core = 0; core < counters_.size(); ++core)
      if (counters_[core].instructions > 0) per_pe[std::to_string(core)] = counters_[core].instructions;
    trace_->set_meta("instructions", per_pe.dump());
  }
  if (!host_done_) throw DeadlockError("deadlock in simulation: every core is blocked\n" + describe_blocked());
}

std::string SimDevice::describe_blocked() const {
  std::string s;
  for (std::uint32_t i = 0; i < pes_.size(); ++i) {
    const auto& pe = pes_[i];
    if (!pe.blocked) continue;
    s += fmt::format("  {} at cycle {:.0f}: waiting for the {}-byte value at 0x{:08x} to {} {}\n",
                     map().describe_core(i), pe.local, pe.watch_hi - pe.watch_lo, pe.watch_lo,
                     pe.watch_equal ? "become" : "change from", pe.watch_value);
  }
  return s;
}

void SimDevice::run_host() {
  try {
    host_();
    host_done_ = true;
  } catch (...) {
    if (!error_) error_ = std::current_exception();
    sc_core::sc_stop();
  }
}

void SimDevice::run_core(std::uint32_t core) {
  auto& pe = pes_[core];
  for (;;) {
    while (!pe.launched) sc_core::wait(chip_->launch_event());
    pe.launched = false;
    const bool host_stack = pe.program || kernel_host_stacks_;
    if (!pe.ctx || pe.host_stack != host_stack) {
      // Device programs and pass-built kernels keep their data and stack
      // in core memory; the fiber's own (host) stack is outside it.
      // Built-in kernels run in the window.
      pe.ctx.reset();
      pe.host_stack = host_stack;
      if (host_stack) {
        pe.stack.resize(kProgramHostStack);
        pe.ctx = std::make_unique<interpose::PeContext>(pe.stack.data(), pe.stack.size());
      } else {
        pe.ctx = std::make_unique<interpose::PeContext>(stack_lo(core), p_.stack_size);
      }
    }
    pe.local = chip_->now();
    // Counted: nothing left from an earlier program (or a native run) in the core's words.
    std::memset(windows().core(core) + HOPSIM_DEV_COUNT_INSNS_SLOT, 0, 16);
    // Nothing can be sent before now: the links forget the time since the
    // last core ran (a host that slept a second would otherwise leave each
    // calendar a second of ticks to hold).
    chip_->mesh().set_horizon(chip_->now());
    pe.ctx->start(pe.program ? pe.program : kernel_);
    try {
      for (;;) {
        set_current_core(core);
        now_ = chip_->now();  // global time stands still while a fiber runs
        if (compute_model_ == ComputeModel::measured) pe.resumed_ns = host_ns();
        // The host's job may be waiting in the simulation (a sleep) while
        // this core runs: the core's code is not the host's.
        const bool host_job = in_host_;
        in_host_ = false;
        const bool finished = pe.ctx->resume();
        crash::name_thread(nullptr);  // the simulator's own code again
        in_host_ = host_job;
        if (finished) {
          take_counted(pe);  // the instructions after the program's last runtime call
          flush_compute_span(pe, core);
          break;
        }
        const Req r = pe.req;
        pe.req = Req::none;
        chip_->wait_until(pe.local);
        if (r == Req::wait_write) {
          // A write wakes the core, and so does an interrupt latched for a
          // later time once that time comes.
          if (const double at = next_irq_after(core, chip_->now()); at > 0) {
            sc_core::wait(chip_->to_time(std::max(1.0, at - chip_->now())), chip_->written(core));
          } else {
            sc_core::wait(chip_->written(core));
          }
          pe.local = std::max(pe.local, chip_->now());
        }
        if (interrupted()) throw Error(interrupted_by());
        chip_->mesh().set_horizon(chip_->now());
      }
    } catch (const CoreReset&) {
      flush_compute_span(pe, core);
      pe.local = std::max(pe.local, chip_->now());
    } catch (...) {
      if (!error_) error_ = std::current_exception();
      sc_core::sc_stop();
      return;
    }
    chip_->wait_until(pe.local);
    counters_[core].finish = pe.local;
    pe.busy = false;
    pe.program = nullptr;
    if (--running_ == 0) chip_->done_event().notify(sc_core::SC_ZERO_TIME);
  }
}

void SimDevice::start_core(std::uint32_t core, std::function<void()> program) {
  // The host starts a core with a 4-byte write over the eLink, so the cores
  // of a group start one after another in the order the host started them
  // (a program's core 0 clears its barrier flags before the others set them).
  chip_->wait_until(chip_->now() + p_.elink_latency + std::ceil(4.0 / p_.elink_width));
  auto& pe = pes_[core];
  pe.program = std::move(program);
  pe.reset = false;
  pe.busy = true;
  pe.launched = true;
  ++running_;
  chip_->launch_event().notify(sc_core::SC_ZERO_TIME);
}

void SimDevice::idle(std::uint32_t wake_mask) {
  Pe& pe = me();
  enter(pe);
  const std::uint32_t core = current_core();
  const double t0 = pe.local;
  while ((ilat_[core].load() & wake_mask) == 0) {
    request(pe, Req::sync);
    if ((ilat_[core].load() & wake_mask) != 0) break;
    pe.blocked = true;
    pe.watch_lo = pe.watch_hi = 0;
    request(pe, Req::wait_write);
    pe.blocked = false;
  }
  // No earlier than the first interrupt that wakes it was raised (a DMA's or
  // a timer's may be latched for a later cycle).
  const std::uint32_t woke = ilat_[core].load() & wake_mask;
  double at = std::numeric_limits<double>::infinity();
  for (unsigned i = 0; i < 10; ++i)
    if (woke & (1u << i)) at = std::min(at, irq_time_[core][i]);
  if (woke != 0) pe.local = std::max(pe.local, at);
  counters_[core].waiting += pe.local - t0;
  if (trace_ && pe.local > t0) trace_->add_pe_state(core, traces::PeState::polling, t0, pe.local);
  leave(pe);
}

void SimDevice::reset_core(std::uint32_t core) {
  auto& pe = pes_[core];
  if (pe.busy) {
    pe.reset = true;
    chip_->written(core).notify(sc_core::SC_ZERO_TIME);
    // The program unwinds at its next wait or synchronisation.
    while (pe.busy) chip_->wait_until(chip_->now() + 1);
  }
  pe.reset = false;
  ilat_[core] = 0;
}

void SimDevice::raise_interrupt(std::uint32_t core, unsigned irq) {
  // Raised by a core at its own clock, or by the host at global time.
  const auto* dev = Device::current_or_null();
  const bool from_core = dev == this && !in_host_;
  latch(core, irq, from_core ? pes_[current_core()].local : (chip_ ? chip_->now() : 0.0));
}

void SimDevice::raise_own_interrupt_at(unsigned irq, double at) { latch(current_core(), irq, at); }

void SimDevice::latch(std::uint32_t core, unsigned irq, double at) {
  irq_time_.at(core).at(irq) = at;
  ilat_[core].fetch_or(1u << irq);
  if (chip_) chip_->written(core).notify(sc_core::SC_ZERO_TIME);
}

void SimDevice::arm_own_interrupt(unsigned irq, double at) {
  const std::uint32_t core = current_core();
  if (at > 0) {
    raise_own_interrupt_at(irq, at);
  } else if ((ilat_[core].load() & (1u << irq)) && irq_time_.at(core).at(irq) > pes_[core].local) {
    ilat_[core].fetch_and(~(1u << irq));  // disarmed before it was due
  }
}

std::uint32_t SimDevice::latched(std::uint32_t core) {
  const std::uint32_t all = ilat(core, false);
  const auto* dev = Device::current_or_null();
  if (all == 0 || dev != this || in_host_ || core != current_core()) return all;
  const double t = pes_[core].local;
  std::uint32_t seen = 0;
  for (unsigned i = 0; i < 10; ++i)
    if ((all & (1u << i)) && irq_time_[core][i] <= t) seen |= 1u << i;
  return seen;
}

double SimDevice::next_irq_after(std::uint32_t core, double t) const {
  const std::uint32_t all = ilat_[core].load();
  double next = 0;
  for (unsigned i = 0; i < 10; ++i)
    if ((all & (1u << i)) && irq_time_[core][i] > t && (next == 0 || irq_time_[core][i] < next))
      next = irq_time_[core][i];
  return next;
}

void SimDevice::host_read(void* dst, std::uint64_t src, std::size_t n) {
  // A read crosses the eLink twice (request, data); no mesh contention.
  const double cycles = 2 * p_.elink_latency + std::ceil(static_cast<double>(n) / p_.elink_width);
  chip_->wait_until(chip_->now() + cycles);
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
}

void SimDevice::host_write(std::uint64_t dst, const void* src, std::size_t n) {
  const double cycles = p_.elink_latency + std::ceil(static_cast<double>(n) / p_.elink_width);
  chip_->wait_until(chip_->now() + cycles);
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  const auto loc = map().locate(dst, n);
  if (loc.kind == epiphany::model::Location::Kind::none) return;
  note_arrival(loc, n, chip_->now());
  if (loc.kind == epiphany::model::Location::Kind::core) {
    wake_watchers(loc.core, dst, dst + n);
  }
}

void SimDevice::host_sleep(double seconds) {
  chip_->wait_until(chip_->now() + seconds * p_.clock_hz);
  chip_->mesh().set_horizon(chip_->now());
}

void SimDevice::launch(const std::function<void()>& kernel) {
  kernel_ = kernel;
  const double start = chip_->now();
  running_ = p_.num_cores();
  for (auto& pe : pes_) pe.launched = true;
  chip_->launch_event().notify(sc_core::SC_ZERO_TIME);
  while (running_ > 0) sc_core::wait(chip_->done_event());
  last_launch_.cycles = chip_->now() - start;
  last_launch_.start = start;
  last_launch_.seconds = last_launch_.cycles / p_.clock_hz;
  SPDLOG_LOGGER_DEBUG(log::get("sim"), "launch done at cycle {:.0f}: {:.0f} cycles", chip_->now(), last_launch_.cycles);
}

double SimDevice::host_seconds() { return chip_ ? chip_->now() / p_.clock_hz : 0.0; }

void SimDevice::enter(Pe& pe) { charge(pe, p_.api_call); }

void SimDevice::charge_code(Pe& pe, double annotated) {
  if (compute_model_ == ComputeModel::counted) {
    take_counted(pe);
  } else {
    charge(pe, annotated);
  }
}

void SimDevice::take_counted(Pe& pe) {
  if (compute_model_ != ComputeModel::counted) return;
  const auto core = static_cast<std::uint32_t>(&pe - pes_.data());
  std::uint8_t* w = windows().core(core);
  std::uint64_t cycles = 0, insns = 0;
  std::memcpy(&cycles, w + HOPSIM_DEV_COUNT_CYCLES_SLOT, 8);
  std::memcpy(&insns, w + HOPSIM_DEV_COUNT_INSNS_SLOT, 8);
  if (cycles == 0 && insns == 0) return;
  std::memset(w + HOPSIM_DEV_COUNT_INSNS_SLOT, 0, 16);
  if (trace_ && cycles > 0) {
    // The PE timeline's compute spans, one per stretch of back-to-back charges.
    auto& open = pe.compute_span;
    if (open.second != pe.local) flush_compute_span(pe, core);
    if (open.second <= open.first) open.first = pe.local;
    open.second = pe.local + static_cast<double>(cycles);
  }
  pe.local += static_cast<double>(cycles);
  counters_[core].compute += static_cast<double>(cycles);
  counters_[core].instructions += insns;
}

void SimDevice::flush_compute_span(Pe& pe, std::uint32_t core) {
  auto& open = pe.compute_span;
  if (trace_ && open.second > open.first) trace_->add_pe_state(core, traces::PeState::compute, open.first, open.second);
  open = {0, 0};
}

void SimDevice::charge(Pe& pe, double annotated) {
  if (compute_model_ == ComputeModel::counted) take_counted(pe);
  double c = annotated;
  if (compute_model_ == ComputeModel::measured) c = static_cast<double>(host_ns() - pe.resumed_ns) * ns_to_cycles_;
  if (c == 0) return;
  pe.local += c;
  counters_[current_core()].compute += c;
}

void SimDevice::leave(Pe& pe) {
  if (compute_model_ == ComputeModel::measured) pe.resumed_ns = host_ns();
}

void SimDevice::request(Pe& pe, Req r) {
  pe.req = r;
  pe.ctx->yield();
  const auto core = static_cast<std::uint32_t>(&pe - pes_.data());
  if (halt_[core].load(std::memory_order_relaxed)) [[unlikely]]
    park(pe, core);
  if (pe.reset) [[unlikely]]
    throw CoreReset{};
}

void SimDevice::park(Pe& pe, std::uint32_t core) {
  // e_halt: stopped here until e_resume (or a reset) wakes it.
  parked_[core] = true;
  const double t0 = pe.local;
  while (halt_[core] && !pe.reset) {
    pe.blocked = true;
    pe.watch_lo = pe.watch_hi = 0;
    pe.req = Req::wait_write;
    pe.ctx->yield();
    pe.blocked = false;
  }
  parked_[core] = false;
  counters_[core].waiting += pe.local - t0;
}

void SimDevice::halt_core(std::uint32_t core) {
  halt_[core] = true;
  chip_->written(core).notify(sc_core::SC_ZERO_TIME);  // a waiting core looks again and stops
  while (pes_[core].busy && !parked_[core]) chip_->wait_until(chip_->now() + 1);
}

void SimDevice::resume_core(std::uint32_t core) {
  halt_[core] = false;
  chip_->written(core).notify(sc_core::SC_ZERO_TIME);
}

void SimDevice::note_arrival(const epiphany::model::Location& loc, std::size_t n, double arrival) {
  if (loc.kind == epiphany::model::Location::Kind::core) {
    auto& w = word_arrival_[loc.core];
    for (std::size_t i = loc.offset / 4; i <= (loc.offset + n - 1) / 4; ++i) w[i] = std::max(w[i], arrival);
  } else {
    for (std::size_t i = loc.offset / 64; i <= (loc.offset + n - 1) / 64; ++i)
      emem_arrival_[i] = std::max(emem_arrival_[i], arrival);
  }
}

double SimDevice::arrival_of(const epiphany::model::Location& loc, std::size_t n) const {
  double a = 0;
  if (loc.kind == epiphany::model::Location::Kind::core) {
    const auto& w = word_arrival_[loc.core];
    for (std::size_t i = loc.offset / 4; i <= (loc.offset + n - 1) / 4; ++i) a = std::max(a, w[i]);
  } else {
    for (std::size_t i = loc.offset / 64; i <= (loc.offset + n - 1) / 64; ++i) a = std::max(a, emem_arrival_[i]);
  }
  return a;
}

void SimDevice::wake_watchers(std::uint32_t core, std::uint64_t lo, std::uint64_t hi) {
  const auto& pe = pes_[core];
  if (pe.blocked && lo < pe.watch_hi && pe.watch_lo < hi) chip_->written(core).notify(sc_core::SC_ZERO_TIME);
}

[[gnu::always_inline]] inline void SimDevice::post_write(Pe& pe, const epiphany::model::Location& loc,
                                                         std::uint64_t dst, std::size_t n, unsigned chunk,
                                                         bool via_router) {
  const std::uint32_t self = current_core();
  auto& c = counters_[self];
  c.writes += 1;
  c.write_bytes += n;
  const auto bytes = static_cast<std::uint32_t>(n);
  if (loc.kind == epiphany::model::Location::Kind::core && loc.core == self && !via_router) {
    pe.local += p_.store_issue * std::ceil(static_cast<double>(n) / chunk);
  } else {
    const auto w = loc.kind == epiphany::model::Location::Kind::core
                       ? chip_->mesh().write(self, loc.core, bytes, pe.local, chunk)
                       : chip_->mesh().write_emem(self, bytes, pe.local, chunk);
    note_arrival(loc, n, w.arrival);
    c.stall += w.stall;
    pe.local = w.writer_free;
    if (loc.kind == epiphany::model::Location::Kind::core) wake_watchers(loc.core, dst, dst + n);
  }
}

void SimDevice::write(std::uint64_t dst, const void* src, std::size_t n, unsigned chunk) {
  if (n == 0) return;
  Pe& pe = me();
  enter(pe);
  const auto loc = locate_or_throw(dst, n, "wrote");
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  post_write(pe, loc, dst, n, chunk);
  leave(pe);
  if (pe.local - now_ > p_.sync_quantum) request(pe, Req::sync);
}

void SimDevice::timed_read(Pe& pe, const epiphany::model::Location& loc, std::size_t n, bool via_router) {
  const std::uint32_t self = current_core();
  // Let every core catch up to this one so writes issued earlier are in memory.
  request(pe, Req::sync);
  const double ready = arrival_of(loc, n);
  if (loc.kind == epiphany::model::Location::Kind::core && loc.core == self && !via_router) {
    pe.local = std::max(pe.local, ready) + std::ceil(static_cast<double>(n) / 8.0);
  } else if (loc.kind == epiphany::model::Location::Kind::core) {
    pe.local = chip_->mesh().read(self, loc.core, static_cast<std::uint32_t>(n), pe.local, ready);
  } else {
    pe.local = std::max(chip_->mesh().read_emem(self, static_cast<std::uint32_t>(n), pe.local), ready);
  }
  auto& c = counters_[self];
  c.reads += 1;
  c.read_bytes += n;
}

void SimDevice::read(void* dst, std::uint64_t src, std::size_t n) {
  if (n == 0) return;
  Pe& pe = me();
  enter(pe);
  const auto loc = locate_or_throw(src, n, "read");
  timed_read(pe, loc, n);
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
  leave(pe);
}

bool SimDevice::wait_arrival(Pe& pe, double ready) {
  if (ready <= pe.local) return true;
  if (interrupt_ready()) return false;  // latched already: taken before the wait
  const std::uint32_t core = current_core();
  // Interrupts raised before `ready` by cores running ahead, in time order.
  for (double at = next_irq_after(core, pe.local); at > 0 && at <= ready; at = next_irq_after(core, at)) {
    pe.local = at;
    if (interrupt_ready()) return false;
  }
  pe.local = ready;
  return true;
}

bool SimDevice::raw_access(std::uint64_t addr, unsigned size, RawKind kind, bool global) {
  Pe& pe = me();
  const bool write = kind == RawKind::store || kind == RawKind::volatile_store;
  const auto loc = locate_or_throw(addr, size, write ? "stored" : "loaded");
  if (loc.kind == epiphany::model::Location::Kind::core && loc.core == current_core() && !global) {
    // Local: one cycle, and a load waits for a write still in flight to it.
    charge_code(pe, p_.local_access);
    if (!write && !wait_arrival(pe, arrival_of(loc, size))) {
      leave(pe);
      return false;
    }
    if (kind == RawKind::volatile_load && size <= 8) {
      // A second volatile load of an unchanged word, nothing in between: a
      // polling loop. Sleep until another core changes the word instead of
      // spinning through simulated time.
      const auto* p = reinterpret_cast<const volatile void*>(addr);
      const std::uint64_t v = load_value(p, size);
      if (pe.poll_addr == addr && pe.poll_value == v) {
        // The program's own loop: an interrupt it would take ends the
        // sleep too (its handler runs, then the loop polls again).
        block_until(pe, loc, addr, size, v, false, WaitKind::poll, true);
        pe.poll_addr = 0;
      } else {
        pe.poll_addr = addr;
        pe.poll_value = v;
      }
    } else {
      pe.poll_addr = 0;
    }
  } else {
    pe.poll_addr = 0;
    charge_code(pe, p_.raw_access);
    if (write) {
      post_write(pe, loc, addr, size, 8, global);
    } else {
      timed_read(pe, loc, size, global);
    }
  }
  leave(pe);
  if (pe.local - now_ > p_.sync_quantum) request(pe, Req::sync);
  return true;
}

void SimDevice::loop_tick(unsigned iterations) {
  Pe& pe = me();
  charge_code(pe, iterations * p_.poll_cycles);
  leave(pe);
  if (pe.local - now_ > p_.sync_quantum) request(pe, Req::sync);
}

void SimDevice::poll_enter() {
  Pe& pe = me();
  pe.poll_cur.clear();
  pe.poll_prev.clear();
}

void SimDevice::poll_load(std::uint64_t addr, unsigned size) {
  Pe& pe = me();
  if (pe.poll_cur.size() < 64)
    pe.poll_cur.push_back({addr, load_value(reinterpret_cast<const volatile void*>(addr), size), size});
}

void SimDevice::poll_next() {
  Pe& pe = me();
  charge_code(pe, p_.poll_cycles);
  const std::uint32_t self = current_core();
  bool own = !pe.poll_cur.empty() && pe.poll_cur.size() < 64 && pe.poll_cur == pe.poll_prev;
  std::uint64_t lo = ~0ull, hi = 0;
  for (const auto& r : pe.poll_cur) {
    const auto loc = map().locate(r.addr, r.size);
    own = own && loc.kind == epiphany::model::Location::Kind::core && loc.core == self;
    lo = std::min(lo, r.addr);
    hi = std::max(hi, r.addr + r.size);
  }
  if (own) {
    // The iteration read what the last one read: it would repeat until
    // another core or the host writes one of those words.
    auto unchanged = [&] {
      for (const auto& r : pe.poll_cur)
        if (load_value(reinterpret_cast<const volatile void*>(r.addr), r.size) != r.value) return false;
      return true;
    };
    const double t0 = pe.local;
    // An interrupt the core takes also ends the wait (its handler may
    // change what the loop reads; the loop then goes on as before).
    while (unchanged() && !interrupt_ready()) {
      request(pe, Req::sync);
      if (!unchanged() || interrupt_ready()) break;
      pe.blocked = true;
      pe.watch_lo = lo;
      pe.watch_hi = hi;
      request(pe, Req::wait_write);
      pe.blocked = false;
    }
    // The change is seen once the write arrived, unless an interrupt the
    // core takes comes first (its handler runs at the next access).
    double ready = pe.local;
    for (const auto& r : pe.poll_cur) ready = std::max(ready, arrival_of(map().locate(r.addr, r.size), r.size));
    if (wait_arrival(pe, ready)) pe.local += p_.poll_cycles;
    counters_[self].waiting += pe.local - t0;
    if (trace_ && pe.local > t0) trace_->add_pe_state(self, traces::PeState::polling, t0, pe.local);
  }
  pe.poll_prev.swap(pe.poll_cur);
  pe.poll_cur.clear();
  leave(pe);
  if (pe.local - now_ > p_.sync_quantum) request(pe, Req::sync);
}

void SimDevice::raw_atomic(std::uint64_t addr, unsigned size, bool global) {
  Pe& pe = me();
  charge_code(pe, p_.raw_access);
  const auto loc = locate_or_throw(addr, size, "atomically accessed");
  const std::uint32_t self = current_core();
  request(pe, Req::sync);
  if (loc.kind == epiphany::model::Location::Kind::core && (loc.core != self || global)) {
    // Travels as a write and answers with the old value, like TESTSET.
    const auto there = chip_->mesh().write(self, loc.core, size, pe.local);
    const double at = std::max(there.arrival, arrival_of(loc, size));
    note_arrival(loc, size, at);
    pe.local = chip_->mesh().write(loc.core, self, size, at).arrival;
    wake_watchers(loc.core, addr, addr + size);
  } else {
    pe.local = std::max(pe.local, arrival_of(loc, size)) + 1;
  }
  leave(pe);
}

void SimDevice::block_until(Pe& pe, const epiphany::model::Location& loc, std::uint64_t a, unsigned size,
                            std::uint64_t value, bool equal, WaitKind kind, bool interruptible) {
  const auto* addr = reinterpret_cast<const volatile void*>(a);
  const double t0 = pe.local;
  auto holds = [&] { return (load_value(addr, size) == value) == equal || (interruptible && interrupt_ready()); };
  while (!holds()) {
    request(pe, Req::sync);
    if (holds()) break;
    pe.blocked = true;
    pe.watch_lo = a;
    pe.watch_hi = a + size;
    pe.watch_value = value;
    pe.watch_equal = equal;
    request(pe, Req::wait_write);
    pe.blocked = false;
  }
  // The value is visible: the loop exits one poll after the write that set it arrived.
  pe.local = std::max(pe.local, arrival_of(loc, size)) + p_.poll_cycles;
  auto& c = counters_[current_core()];
  c.waiting += pe.local - t0;
  if (kind == WaitKind::barrier) c.barrier += pe.local - t0;
  if (trace_ && pe.local > t0)
    trace_->add_pe_state(current_core(),
                         kind == WaitKind::barrier ? traces::PeState::barrier : traces::PeState::polling, t0, pe.local);
}

void SimDevice::wait_value(const volatile void* addr, unsigned size, std::uint32_t value, bool equal, WaitKind kind) {
  Pe& pe = me();
  enter(pe);
  const auto a = reinterpret_cast<std::uint64_t>(addr);
  block_until(pe, locate_or_throw(a, size, "polled"), a, size, value, equal, kind);
  leave(pe);
}

std::uint32_t SimDevice::testset(std::uint64_t addr, std::uint32_t value) {
  Pe& pe = me();
  enter(pe);
  const std::uint32_t self = current_core();
  const auto loc = locate_or_throw(addr, 4, "test-and-set");
  request(pe, Req::sync);
  auto* p = reinterpret_cast<std::uint32_t*>(addr);
  const std::uint32_t old = *p;
  if (old == 0) *p = value;
  if (loc.kind == epiphany::model::Location::Kind::core) {
    // A TESTSET (by a global address, the own core's included) travels as
    // a write through the routers and answers with the old value.
    const auto there = chip_->mesh().write(self, loc.core, 4, pe.local);
    const double at = std::max(there.arrival, arrival_of(loc, 4));
    if (old == 0) note_arrival(loc, 4, at);
    pe.local = chip_->mesh().write(loc.core, self, 4, at).arrival;
    if (old == 0) wake_watchers(loc.core, addr, addr + 4);
  } else {
    pe.local += 1;
  }
  leave(pe);
  return old;
}

// A waited-for DMA in pieces of 32 transactions: `piece(len, issue)` sends
// `len` bytes from `issue` on and returns {when the engine may issue the
// next one, when its last data arrived}. After each piece the core's clock
// stands where the engine got to and the other cores catch up, so flows that
// share links take their slots in turn (the routers' round-robin arbiters)
// instead of the first one reserving its whole transfer. Returns the last arrival.
double SimDevice::dma_in_pieces(Pe& pe, std::uint32_t bytes, unsigned elem, double t, const DmaPiece& piece) {
  constexpr std::uint32_t kDmaPiece = 32;
  double issue = t, arrival = t;
  for (std::uint32_t off = 0; off < bytes;) {
    const std::uint32_t len = std::min<std::uint32_t>(bytes - off, kDmaPiece * elem);
    const auto [next, arrived] = piece(len, issue);
    issue = next;
    arrival = std::max(arrival, arrived);
    off += len;
    if (off < bytes) {
      pe.local = std::max(pe.local, issue);
      request(pe, Req::sync);
    }
  }
  return arrival;
}

double SimDevice::dma_copy(std::uint64_t dst, std::uint64_t src, std::size_t n, unsigned elem, double start,
                           bool blocking) {
  Pe& pe = me();
  enter(pe);
  const std::uint32_t self = current_core();
  const auto sloc = locate_or_throw(src, n, "DMA-read");
  const auto dloc = locate_or_throw(dst, n, "DMA-wrote");
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
  const auto bytes = static_cast<std::uint32_t>(n);
  double t = std::max(start, pe.local);
  // The engine issues one transaction of `elem` bytes per cycle. Data from
  // another core or external memory is fetched first: one read request per
  // transaction (rMesh, one per rmesh_interval per link), the data coming
  // back as writes into this core's memory.
  const bool from_core = sloc.kind == epiphany::model::Location::Kind::core && sloc.core != self;
  const bool fetched = from_core || sloc.kind == epiphany::model::Location::Kind::emem;
  if (from_core) {
    const double ready = arrival_of(sloc, n);
    const double per_request = std::max(p_.store_issue, p_.rmesh_interval);  // the rMesh paces the requests
    t = blocking ? dma_in_pieces(pe, bytes, elem, t,
                                 [&](std::uint32_t len, double issue) {
                                   return std::pair{issue + per_request * std::ceil(static_cast<double>(len) / elem),
                                                    chip_->mesh().read(self, sloc.core, len, issue, ready, elem)};
                                 })
                 : chip_->mesh().read(self, sloc.core, bytes, t, ready, elem);
  } else if (fetched) {
    t = chip_->mesh().read_emem(self, bytes, t, elem);
  }
  // Local to local: one transaction per cycle; fetched into local memory: done when the last data arrived.
  double done = fetched ? t : t + std::ceil(static_cast<double>(n) / elem);
  if (dloc.kind == epiphany::model::Location::Kind::core && dloc.core != self) {
    done = blocking ? dma_in_pieces(pe, bytes, elem, t,
                                    [&](std::uint32_t len, double issue) {
                                      const auto w = chip_->mesh().write(self, dloc.core, len, issue, elem);
                                      return std::pair{w.writer_free, w.arrival};
                                    })
                    : chip_->mesh().write(self, dloc.core, bytes, t, elem).arrival;
    wake_watchers(dloc.core, dst, dst + n);
  } else if (dloc.kind == epiphany::model::Location::Kind::emem) {
    done = chip_->mesh().write_emem(self, bytes, t, elem).arrival;
  }
  note_arrival(dloc, n, done);
  auto& c = counters_[self];
  c.writes += 1;
  c.write_bytes += n;
  leave(pe);
  return done;
}

void SimDevice::compute(double cycles) {
  Pe& pe = me();
  pe.local += cycles;
  counters_[current_core()].compute += cycles;
}

double SimDevice::now_cycles() {
  Pe& pe = me();
  take_counted(pe);
  return pe.local;
}

void SimDevice::log_mesh_events(epiphany::model::MeshEventLog* log) { chip_->mesh().set_events(log); }

std::uint64_t SimDevice::mesh_event_horizon() { return epiphany::model::MeshTiming::ticks(now_cycles()) + 1; }

void SimDevice::wait_until(double cycle) {
  Pe& pe = me();
  if (cycle > pe.local) {
    counters_[current_core()].waiting += cycle - pe.local;
    pe.local = cycle;
  }
}

}  // namespace hopsim::epiphany
