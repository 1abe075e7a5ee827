#include "hopsim/epiphany/native_device.hpp"

#include <sched.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/interpose/pe_context.hpp"

namespace hopsim::epiphany {

NativeDevice::NativeDevice(const epiphany::model::Params& p, MemoryWindows& windows)
    : Device(p, windows),
      epoch_(std::chrono::steady_clock::now()),
      threads_(p.num_cores()),
      busy_(new std::atomic<bool>[p.num_cores()]),
      reset_(new std::atomic<bool>[p.num_cores()]),
      timer_due_(p.num_cores(), std::array<double, 10>{}) {
  for (std::uint32_t i = 0; i < p.num_cores(); ++i) {
    busy_[i] = false;
    reset_[i] = false;
  }
}

NativeDevice::~NativeDevice() {
  // Programs still running (an endless loop on a core) end with the process.
  for (auto& t : threads_)
    if (t.joinable()) t.detach();
}

void NativeDevice::start_core(std::uint32_t core, std::function<void()> program) {
  if (threads_[core].joinable()) threads_[core].join();
  reset_[core] = false;
  busy_[core] = true;
  // The board's host starts a group one core after another (a write over
  // the eLink each), so each core is running before the next one starts,
  // and programs rely on it (matmul-16's core 0 clears its barrier flags
  // before the others can set them): the thread is running before this
  // returns.
  auto running = std::make_shared<std::atomic<bool>>(false);
  threads_[core] = std::thread([this, core, running, program = std::move(program)] {
    running->store(true, std::memory_order_release);
    const crash::ThreadGuard guard(core_labels_[core].c_str());
    set_current_core(core);
    try {
      program();
    } catch (const CoreReset&) {
    } catch (const std::exception& e) {
      stop_process(e.what(), 5);
    }
    counters_[core].finish = now_cycles();
    busy_[core] = false;
  });
  while (!running->load(std::memory_order_acquire)) sched_yield();
}

void NativeDevice::idle(std::uint32_t wake_mask) {
  const std::uint32_t core = current_core();
  while ((ilat_[core].load(std::memory_order_acquire) & wake_mask) == 0) {
    check_reset();
    fire_timers();
    sched_yield();
  }
}

void NativeDevice::park(std::uint32_t core) {
  parked_[core] = true;
  while (halt_[core].load(std::memory_order_acquire) && !reset_[core].load(std::memory_order_relaxed))
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  parked_[core] = false;
}

void NativeDevice::wait_for_core(std::uint32_t core, const std::function<bool()>& done, const char* what) {
  const auto t0 = std::chrono::steady_clock::now();
  while (!done()) {
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(5))
      throw KernelError(
          fmt::format("{}: {} did not stop within 5 s; natively hopsim stops a core only when it "
                      "waits, polls, idles, runs a loop without a bound or accesses another core",
                      what, map().describe_core(core)));
    sched_yield();
  }
}

void NativeDevice::halt_core(std::uint32_t core) {
  halt_[core] = true;
  wait_for_core(
      core, [&] { return !busy_[core] || parked_[core]; }, "e_halt");
}

void NativeDevice::arm_own_interrupt(unsigned irq, double at) {
  timer_due_.at(current_core()).at(irq) = at > 0 ? at : 0;
}

void NativeDevice::fire_timers() {
  const std::uint32_t core = current_core();
  auto& due = timer_due_.at(core);
  double now = -1;
  for (unsigned irq = 0; irq < due.size(); ++irq) {
    if (due[irq] <= 0) continue;
    if (now < 0) now = now_cycles();
    if (now >= due[irq]) {
      due[irq] = 0;
      raise_interrupt(core, irq);
    }
  }
}

void NativeDevice::reset_core(std::uint32_t core) {
  if (busy_[core]) {
    reset_[core] = true;
    wait_for_core(
        core, [&] { return !busy_[core]; }, "e_reset");
    threads_[core].join();
  }
  ilat_[core] = 0;
  timer_due_.at(core).fill(0);  // no timer of the stopped program fires later
}

void NativeDevice::raise_interrupt(std::uint32_t core, unsigned irq) {
  ilat_[core].fetch_or(1u << irq, std::memory_order_release);
  progress_.fetch_add(1, std::memory_order_relaxed);
}

void NativeDevice::host_read(void* dst, std::uint64_t src, std::size_t n) {
  std::atomic_thread_fence(std::memory_order_acquire);
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
}

void NativeDevice::host_write(std::uint64_t dst, const void* src, std::size_t n) {
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  std::atomic_thread_fence(std::memory_order_release);
  progress_.fetch_add(1, std::memory_order_relaxed);
}

void NativeDevice::host_sleep(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

double NativeDevice::host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_).count();
}

double NativeDevice::now_cycles() { return host_seconds() * p_.clock_hz; }

void NativeDevice::write(std::uint64_t dst, const void* src, std::size_t n, unsigned chunk) {
  const auto loc = locate_or_throw(dst, n, "wrote");
  count_remote(loc, (n + chunk - 1) / std::max(1u, chunk), 0);
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  std::atomic_thread_fence(std::memory_order_release);
  if (trace_) [[unlikely]] {
    const double t = now_cycles();
    const std::int64_t to = loc.kind == epiphany::model::Location::Kind::core ? loc.core : p_.num_cores();
    trace_->add_transaction({0, current_core(), to, static_cast<std::int64_t>(n), t, t, "write"});
  }
  auto& c = counters_[current_core()];
  c.writes += 1;
  c.write_bytes += n;
  progress_.fetch_add(1, std::memory_order_relaxed);
}

void NativeDevice::read(void* dst, std::uint64_t src, std::size_t n) {
  count_remote(locate_or_throw(src, n, "read"), 0, (n + 7) / 8);
  std::atomic_thread_fence(std::memory_order_acquire);
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
  auto& c = counters_[current_core()];
  c.reads += 1;
  c.read_bytes += n;
}

namespace {
std::uint32_t load_value(const volatile void* addr, unsigned size) {
  if (size == 1) return __atomic_load_n(static_cast<const volatile std::uint8_t*>(addr), __ATOMIC_ACQUIRE);
  return __atomic_load_n(static_cast<const volatile std::uint32_t*>(addr), __ATOMIC_ACQUIRE);
}
}  // namespace

void NativeDevice::wait_value(const volatile void* addr, unsigned size, std::uint32_t value, bool equal,
                              WaitKind kind) {
  if ((load_value(addr, size) == value) == equal) return;
  const double t0 = now_cycles();
  waiting_.fetch_add(1);
  while ((load_value(addr, size) == value) != equal) {
    if (reset_[current_core()].load(std::memory_order_relaxed)) {
      waiting_.fetch_sub(1);
      throw CoreReset{};
    }
    if (abort_.load(std::memory_order_acquire)) {
      waiting_.fetch_sub(1);
      throw DeadlockError(failed_.load() ? std::string("stopped because another core failed") : abort_reason_);
    }
    sched_yield();
  }
  waiting_.fetch_sub(1);
  auto& c = counters_[current_core()];
  const double t1 = now_cycles();
  const double w = t1 - t0;
  c.waiting += w;
  if (kind == WaitKind::barrier) c.barrier += w;
  if (trace_) [[unlikely]]
    trace_->add_pe_state(current_core(),
                         kind == WaitKind::barrier ? traces::PeState::barrier : traces::PeState::polling, t0, t1);
}

std::uint32_t NativeDevice::testset(std::uint64_t addr, std::uint32_t value) {
  count_remote(locate_or_throw(addr, 4, "test-and-set"), 1, 1);
  auto* p = reinterpret_cast<std::uint32_t*>(addr);
  std::uint32_t expected = 0;
  if (__atomic_compare_exchange_n(p, &expected, value, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return 0;
  progress_.fetch_add(1, std::memory_order_relaxed);
  return expected;
}

double NativeDevice::dma_copy(std::uint64_t dst, std::uint64_t src, std::size_t n, unsigned elem, double, bool) {
  const std::uint64_t packets = (n + elem - 1) / std::max(1u, elem);
  count_remote(locate_or_throw(src, n, "DMA-read"), 0, packets);
  count_remote(locate_or_throw(dst, n, "DMA-wrote"), packets, 0);
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
  std::atomic_thread_fence(std::memory_order_release);
  progress_.fetch_add(1, std::memory_order_relaxed);
  return now_cycles();
}

void NativeDevice::launch(const std::function<void()>& kernel) {
  const std::uint32_t n = p_.num_cores();
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  abort_ = false;
  failed_ = false;
  running_ = static_cast<int>(n);
  const double t0 = host_seconds();
  for (std::uint32_t i = 0; i < n; ++i) {
    threads.emplace_back([this, i, &kernel, &errors] {
      const crash::ThreadGuard guard(core_labels_[i].c_str());
      set_current_core(i);
      try {
        if (kernel_host_stacks_) {
          kernel();  // the thread's own stack: the kernel's device stack is in core memory
        } else {
          interpose::PeContext ctx(stack_lo(i), p_.stack_size);
          ctx.start(kernel);
          ctx.resume();  // runs to completion: native waits never yield the fiber
        }
      } catch (const DeadlockError&) {
        errors[i] = std::current_exception();  // stopped by the watchdog or by another core's failure
      } catch (...) {
        errors[i] = std::current_exception();
        // A failed core can leave the others waiting for it forever.
        failed_ = true;
        abort_.store(true, std::memory_order_release);
      }
      counters_[i].finish = now_cycles();
      {
        std::lock_guard lock(done_mutex_);
        running_.fetch_sub(1);
      }
      done_cv_.notify_all();
    });
  }
  // Watchdog: every running core waiting and no write for a while is a deadlock.
  std::uint64_t last_progress = progress_.load();
  auto last_change = std::chrono::steady_clock::now();
  while (running_.load() > 0) {
    {
      std::unique_lock lock(done_mutex_);
      done_cv_.wait_for(lock, std::chrono::milliseconds(20), [this] { return running_.load() == 0; });
    }
    if (running_.load() == 0) break;
    if (interrupted() && !abort_.load()) {
      abort_reason_ = interrupted_by();
      abort_.store(true, std::memory_order_release);
    }
    const auto p = progress_.load();
    if (p != last_progress || waiting_.load() < running_.load()) {
      last_progress = p;
      last_change = std::chrono::steady_clock::now();
    } else if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last_change).count() >
                   deadlock_timeout_ &&
               !abort_.load()) {
      abort_reason_ = fmt::format("deadlock: all {} running cores have waited {:.1f} s with no write between them",
                                  running_.load(), deadlock_timeout_);
      abort_.store(true, std::memory_order_release);
    }
  }
  for (auto& t : threads) t.join();
  last_launch_.seconds = host_seconds() - t0;
  last_launch_.start = t0 * p_.clock_hz;
  last_launch_.cycles = last_launch_.seconds * p_.clock_hz;
  // Report the root cause: a kernel error beats the "another core failed"
  // stops it caused; otherwise the watchdog's diagnosis.
  bool stopped = false;
  for (auto& e : errors) {
    if (!e) continue;
    try {
      std::rethrow_exception(e);
    } catch (const DeadlockError&) {
      stopped = true;
    } catch (...) {
      std::rethrow_exception(e);
    }
  }
  if (stopped) throw DeadlockError(abort_reason_.empty() ? std::string("deadlock") : abort_reason_);
}

void NativeDevice::poll_next() {
  check_reset();
  sched_yield();  // a polling core lets the others run
}

}  // namespace hopsim::epiphany
