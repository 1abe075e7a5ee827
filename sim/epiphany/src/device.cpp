#include "hopsim/epiphany/device.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"

extern "C" {
// The running core's window (hopsim/device_abi.h).
// NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): the device pass's ABI name
__attribute__((visibility("default"))) thread_local std::uint8_t* __hopsim_core_base = nullptr;
// NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): the device pass's ABI name
__attribute__((visibility("default"))) thread_local std::uint64_t __hopsim_volatile_limit = 0;
}

namespace hopsim::epiphany {
namespace {
thread_local std::uint32_t t_core = 0;
Device* g_device = nullptr;
}  // namespace

Device::Device(const epiphany::model::Params& p, MemoryWindows& windows)
    : p_(p),
      windows_(windows),
      counters_(p.num_cores()),
      ilat_(new std::atomic<std::uint32_t>[p.num_cores()]),
      mesh_topology_(topo::make_mesh2d(p.rows, p.cols)),
      halt_(new std::atomic<bool>[p.num_cores()]),
      parked_(new std::atomic<bool>[p.num_cores()]) {
  for (std::uint32_t i = 0; i < p.num_cores(); ++i) {
    ilat_[i] = 0;
    halt_[i] = false;
    parked_[i] = false;
    core_labels_.push_back(map().describe_core(i));
  }
}

void Device::count_mesh_events(bool on) {
  std::lock_guard lock(mesh_log_mutex_);
  if (on) {
    if (mesh_counters_++ > 0) return;
    if (!mesh_log_) mesh_log_ = std::make_unique<epiphany::model::MeshEventLog>(mesh_topology_);
    log_mesh_events(mesh_log_.get());
    mesh_counting_.store(true, std::memory_order_release);
  } else {
    if (mesh_counters_ == 0 || --mesh_counters_ > 0) return;
    mesh_counting_.store(false, std::memory_order_release);
    log_mesh_events(nullptr);
    mesh_log_->clear();
  }
}

std::uint64_t Device::mesh_events(std::uint32_t node, unsigned code) {
  const std::uint64_t before = mesh_event_horizon();
  std::lock_guard lock(mesh_log_mutex_);
  return mesh_log_ ? mesh_log_->count(node, code, before) : 0;
}

void Device::note_route(std::uint32_t from, std::uint32_t to, std::uint64_t n) {
  std::lock_guard lock(mesh_log_mutex_);
  if (mesh_counters_ > 0) mesh_log_->route(from, to, 0, n);
}

std::uint32_t Device::ilat(std::uint32_t core, bool clear) {
  return clear ? ilat_[core].exchange(0) : ilat_[core].load();
}

void stop_process(const std::string& message, int code) {
  std::fflush(stdout);
  std::fprintf(stderr, "hopsim: %s\n", message.c_str());
  std::fflush(stderr);
  std::_Exit(code);
}

Device* Device::current_or_null() { return g_device; }

namespace {
std::atomic<Device::InterruptProbe> g_interrupt_probe{nullptr};
}  // namespace
void Device::set_interrupt_probe(InterruptProbe probe) { g_interrupt_probe = probe; }
bool Device::interrupt_ready() {
  const InterruptProbe p = g_interrupt_probe.load(std::memory_order_relaxed);
  return p && p();
}

std::uint32_t Device::current_core() { return t_core; }
void Device::set_current_core(std::uint32_t core) {
  t_core = core;
  crash::name_thread(g_device && core < g_device->core_labels_.size() ? g_device->core_labels_[core].c_str() : nullptr);
  // The device pass's inline path reaches the core's own memory through this.
  __hopsim_core_base = g_device ? g_device->windows_.core(core) : nullptr;
  // Natively a volatile access to the core's own memory is made inline;
  // simulated, the runtime sees every one (polling, causal timing).
  __hopsim_volatile_limit = g_device && g_device->mode() == Mode::native ? g_device->p_.local_mem : 0;
}

Device& Device::current() {
  if (!g_device) throw Error("no Epiphany device is running (device API called outside a hopsim run)");
  return *g_device;
}

void Device::throw_outside(std::uint64_t addr, std::size_t n, const char* what) const {
  {
    throw KernelError(
        fmt::format("{} {} {} bytes at 0x{:08x}, outside every core's local memory ({} B at coreid<<20) and external "
                    "memory (0x{:08x}..0x{:08x})",
                    map().describe_core(current_core()), what, n, addr, map().local_size(), map().emem_base(),
                    std::uint64_t{map().emem_base()} + map().emem_size()));
  }
}

void* Device::stack_lo(std::uint32_t core) const { return windows_.core(core) + (p_.local_mem - p_.stack_size); }

DeviceScope::DeviceScope(Device& d) : prev_(g_device) { g_device = &d; }
DeviceScope::~DeviceScope() { g_device = prev_; }

}  // namespace hopsim::epiphany
