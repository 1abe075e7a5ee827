#include "hopsim/epiphany/device.hpp"

#include <fmt/format.h>

#include "hopsim/core/error.hpp"

namespace hopsim::epiphany {
namespace {
thread_local std::uint32_t t_core = 0;
Device* g_device = nullptr;
}  // namespace

const epiphany::model::AddressMap* g_native_map = nullptr;

Device::Device(const epiphany::model::Params& p, MemoryWindows& windows)
    : p_(p), windows_(windows), counters_(p.num_cores()) {
  link_raw_hooks();
}

Device* Device::current_or_null() { return g_device; }

std::uint32_t Device::current_core() { return t_core; }
void Device::set_current_core(std::uint32_t core) { t_core = core; }

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

DeviceScope::DeviceScope(Device& d) : prev_(g_device) {
  g_device = &d;
  g_native_map = d.mode() == Mode::native ? &d.map() : nullptr;
}
DeviceScope::~DeviceScope() {
  g_device = prev_;
  g_native_map = prev_ && prev_->mode() == Mode::native ? &prev_->map() : nullptr;
}

}  // namespace hopsim::epiphany
