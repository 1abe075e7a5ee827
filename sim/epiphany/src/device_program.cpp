// Device programs (e-gcc output): the loader and the runtime side of the
// device pass's contract (hopsim/device_abi.h): the slow path of every
// access that is not to the core's own memory, bulk copies, the device
// stack's overflow and the single-instruction inline assembly.
#include "hopsim/epiphany/device_program.hpp"

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/epiphany/esdk.hpp"
#include "hopsim/epiphany/native_device.hpp"

extern "C" unsigned e_reg_read(unsigned reg_id);

namespace hopsim::epiphany {

namespace {
constexpr std::uint64_t kHostSpace = std::uint64_t{1} << 32;  // device addresses are 32-bit

// Why the file is not a device program hopsim can load, or "" if it may be
// one; checked before dlopen, which would run a foreign file's code.
std::string not_a_program(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < 20 || bytes.compare(0, 4,
                                         "\x7f"
                                         "ELF") != 0)
    return "not an ELF file; an SREC file must come from hopsim's e-objcopy";
  std::uint16_t type = 0, machine = 0;
  std::memcpy(&type, bytes.data() + 16, 2);
  std::memcpy(&machine, bytes.data() + 18, 2);
  if (machine == 0x1223) return "an Epiphany executable from the eSDK's e-gcc: rebuild it with hopsim's e-gcc";
  if (type != 3 || bytes.find("__hopsim_device_image") == std::string::npos) return "no device image";
  return "";
}
}  // namespace

std::shared_ptr<const DeviceProgram> DeviceProgram::open(const std::string& path) {
  static std::mutex m;
  static std::map<std::string, std::shared_ptr<const DeviceProgram>> cache;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(fmt::format("{}: no such device program", path));
  const std::string key = std::filesystem::canonical(path, ec).string();
  std::lock_guard lock(m);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  if (const std::string why = not_a_program(path); !why.empty())
    throw Error(fmt::format("{}: not a device program built by hopsim's e-gcc ({})", path, why));
  std::shared_ptr<DeviceProgram> p(new DeviceProgram);
  p->path_ = path;
  // Each program gets its own namespace of symbols; e-lib and libc come from the host process.
  p->handle_ = dlopen(key.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!p->handle_) throw Error(fmt::format("{}: cannot load device program: {}", path, dlerror()));
  p->image_ = static_cast<const hopsim_dev_image*>(dlsym(p->handle_, "__hopsim_device_image"));
  p->main_ = reinterpret_cast<int (*)()>(dlsym(p->handle_, "__hopsim_device_main"));
  if (!p->image_ || p->image_->magic != HOPSIM_DEV_IMAGE_MAGIC)
    throw Error(fmt::format("{}: not a device program built by hopsim's e-gcc (no device image)", path));
  if (p->image_->version != HOPSIM_DEV_IMAGE_VERSION)
    throw Error(fmt::format("{}: built by another hopsim (device image version {}, this one reads {}): rebuild it",
                            path, p->image_->version, HOPSIM_DEV_IMAGE_VERSION));
  if (!p->main_) throw Error(fmt::format("{}: the device program has no main()", path));
  cache[key] = p;
  return p;
}

DeviceProgram::~DeviceProgram() = default;  // the object stays mapped: its code may still be on a stack

void load_device_image(Device& d, std::uint32_t core, const hopsim_dev_image& image, const std::string& what) {
  const auto& p = d.params();
  if (image.local_end > p.local_mem)
    throw KernelError(fmt::format("{}: the program needs {} bytes of core memory, {} has {}", what, image.local_end,
                                  d.map().describe_core(core), p.local_mem));
  std::uint8_t* w = d.windows().core(core);
  for (std::uint32_t i = 0; i < image.nsegments; ++i) {
    const auto& s = image.segments[i];
    std::uint8_t* at = s.addr < HOPSIM_DEV_LOCAL_SPACE ? w + s.addr : reinterpret_cast<std::uint8_t*>(s.addr);
    if (s.init) {
      std::memcpy(at, s.init, s.size);
    } else {
      std::memset(at, 0, s.size);
    }
  }
  const std::uint32_t sp = p.local_mem, limit = image.local_end;
  std::memcpy(w + HOPSIM_DEV_SP_SLOT, &sp, 4);
  std::memcpy(w + HOPSIM_DEV_SP_LIMIT_SLOT, &limit, 4);
  const std::uint32_t ticks = HOPSIM_DEV_TICK_EVERY;
  std::memcpy(w + HOPSIM_DEV_TICK_SLOT, &ticks, 4);
}

void DeviceProgram::load(Device& d, std::uint32_t core) const { load_device_image(d, core, *image_, path_); }

}  // namespace hopsim::epiphany

using hopsim::KernelError;
using hopsim::epiphany::Device;
using hopsim::epiphany::RawKind;

namespace {

// A device address as a global address (local ones are the running core's).
std::uint64_t global(Device& d, std::uint64_t a) {
  return a < HOPSIM_DEV_LOCAL_SPACE ? a | d.map().base_of(Device::current_core()) : a;
}

// The memory-mapped registers of a core: offsets 0xF0000..0xF1000 of its window.
constexpr std::uint64_t kRegFirst = 0xF0000, kRegEnd = 0xF1000;
bool is_register(std::uint64_t g) {
  const std::uint64_t off = g & 0xFFFFF;
  return g < hopsim::epiphany::kHostSpace && off >= kRegFirst && off < kRegEnd;
}

// A load of one of the running core's registers through a pointer (as
// `ldr` of its CTIMER0 at 0xF0438 does) reads it as e_reg_read would; the
// load then takes the value from a word of the core's thread. Stores, and
// other cores' registers, are refused by name.
void* register_word(Device& d, std::uint64_t g, std::uint32_t size, std::uint32_t kind) {
  const std::uint32_t core = Device::current_core();
  const auto off = static_cast<unsigned>(g & 0xFFFFF);
  const bool own = (g & ~std::uint64_t{0xFFFFF}) == d.map().base_of(core);
  const bool load = kind != HOPSIM_DEV_STORE && kind != HOPSIM_DEV_VSTORE && kind != HOPSIM_DEV_ATOMIC;
  if (!own || !load || size != 4)
    throw KernelError(fmt::format("{} {} register 0x{:08x} through a pointer: hopsim models {}",
                                  d.map().describe_core(core), load ? "loaded" : "stored to", g,
                                  own ? "4-byte loads of the core's own registers only (stores: e_reg_write)"
                                      : "the core's own registers only (another core's: e_irq_set, e_write)"));
  thread_local std::uint32_t word = 0;
  word = e_reg_read(off);
  return &word;
}

bool own_or_host(Device& d, std::uint64_t g) {
  if (g >= hopsim::epiphany::kHostSpace) return true;
  const std::uint64_t base = d.map().base_of(Device::current_core());
  return g >= base && g < base + d.params().local_mem;
}

// Copies n bytes between device (or host) addresses the way a core would:
// own memory directly, another core or external memory through the device.
void copy(std::uint64_t dst, std::uint64_t src, std::size_t n, bool overlap) {
  if (n == 0) return;
  Device& d = Device::current();
  const std::uint64_t D = global(d, dst), S = global(d, src);
  const bool dl = own_or_host(d, D), sl = own_or_host(d, S);
  if (dl && sl) {
    if (overlap) {
      std::memmove(reinterpret_cast<void*>(D), reinterpret_cast<const void*>(S), n);
    } else {
      std::memcpy(reinterpret_cast<void*>(D), reinterpret_cast<const void*>(S), n);
    }
  } else if (sl) {
    d.write(D, reinterpret_cast<const void*>(S), n);
  } else if (dl) {
    d.read(reinterpret_cast<void*>(D), S, n);
  } else {
    std::vector<std::uint8_t> tmp(n);
    d.read(tmp.data(), S, n);
    d.write(D, tmp.data(), n);
  }
}

}  // namespace

// NOLINTBEGIN(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): the device pass's ABI names
extern "C" {

__attribute__((visibility("default"))) void* __hopsim_dev_ptr(std::uint64_t a, std::uint32_t size, std::uint32_t kind) {
  if (a >= hopsim::epiphany::kHostSpace) return reinterpret_cast<void*>(a);  // host memory (libc's data, va_list)
  Device& d = Device::current();
  const std::uint64_t g = global(d, a);
  if (is_register(g)) [[unlikely]]
    return register_word(d, g, size, kind);
  const bool global_addr = a >= HOPSIM_DEV_LOCAL_SPACE;
  // Volatile loads are timed as plain loads: polling loops are recognised
  // by the pass (HOPSIM_DEV_POLL), not guessed from repeated loads.
  switch (kind) {
    case HOPSIM_DEV_ATOMIC:
      d.raw_atomic(g, size, global_addr);
      break;
    case HOPSIM_DEV_POLL:
      while (!d.raw_access(g, size, RawKind::load, global_addr)) hopsim::epiphany::api::service_interrupts();
      d.poll_load(g, size);
      break;
    case HOPSIM_DEV_STORE:
    case HOPSIM_DEV_VSTORE:
      d.raw_access(g, size, kind == HOPSIM_DEV_STORE ? RawKind::store : RawKind::volatile_store, global_addr);
      break;
    default:
      while (!d.raw_access(g, size, RawKind::load, global_addr)) hopsim::epiphany::api::service_interrupts();
      break;
  }
  // mode() names the device's type; this is every slow access's path.
  if (d.mode() == hopsim::Mode::native) [[likely]]
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-static-cast-downcast)
    static_cast<hopsim::epiphany::NativeDevice&>(d).check_reset();
  // A latched interrupt is taken when the core next reaches the device.
  if (d.ilat(Device::current_core(), false) != 0) [[unlikely]]
    hopsim::epiphany::api::service_interrupts();
  return reinterpret_cast<void*>(g);
}

__attribute__((visibility("default"))) void __hopsim_dev_memcpy(void* dst, const void* src, std::uint64_t n) {
  copy(reinterpret_cast<std::uint64_t>(dst), reinterpret_cast<std::uint64_t>(src), n, false);
}

__attribute__((visibility("default"))) void __hopsim_dev_memmove(void* dst, const void* src, std::uint64_t n) {
  copy(reinterpret_cast<std::uint64_t>(dst), reinterpret_cast<std::uint64_t>(src), n, true);
}

__attribute__((visibility("default"))) void __hopsim_dev_memset(void* dst, int value, std::uint64_t n) {
  if (n == 0) return;
  Device& d = Device::current();
  const std::uint64_t D = global(d, reinterpret_cast<std::uint64_t>(dst));
  if (own_or_host(d, D)) {
    std::memset(reinterpret_cast<void*>(D), value, n);
    return;
  }
  const std::vector<std::uint8_t> tmp(n, static_cast<std::uint8_t>(value));
  d.write(D, tmp.data(), n);
}

__attribute__((visibility("default"))) void __hopsim_dev_tick() {
  Device& d = Device::current();
  const std::uint32_t core = Device::current_core();
  std::uint8_t* slot = d.windows().core(core) + HOPSIM_DEV_TICK_SLOT;
  std::int32_t left = 0;
  std::memcpy(&left, slot, 4);  // zero or below: the iterations paid since the last tick overshoot it
  const std::int32_t every = HOPSIM_DEV_TICK_EVERY;
  std::memcpy(slot, &every, 4);
  d.loop_tick(static_cast<unsigned>(every - std::min(left, 0)));
  d.fire_timers();
  if (d.ilat(core, false) != 0) [[unlikely]]
    hopsim::epiphany::api::service_interrupts();
}

__attribute__((visibility("default"))) void __hopsim_dev_poll_enter() { Device::current().poll_enter(); }

__attribute__((visibility("default"))) void __hopsim_dev_poll_next() {
  Device& d = Device::current();
  d.poll_next();
  d.fire_timers();
  if (d.ilat(Device::current_core(), false) != 0) [[unlikely]]
    hopsim::epiphany::api::service_interrupts();
}

[[noreturn]] __attribute__((visibility("default"))) void __hopsim_dev_stack_overflow(std::uint64_t frame,
                                                                                     std::uint64_t limit) {
  Device& d = Device::current();
  throw KernelError(fmt::format(
      "{}: device stack overflow: a frame would reach 0x{:x}, below the program's data "
      "ending at 0x{:x} (the stack grows down from 0x{:x})",
      d.map().describe_core(Device::current_core()), static_cast<std::int64_t>(frame), limit, d.params().local_mem));
}

// exit() in device code ends the core's program, not the host process.
[[noreturn]] __attribute__((visibility("default"))) void __hopsim_dev_exit(int) { throw hopsim::epiphany::CoreReset{}; }

__attribute__((visibility("default"))) void __hopsim_asm_idle() { hopsim::epiphany::api::idle(); }
__attribute__((visibility("default"))) void __hopsim_asm_gie() { hopsim::epiphany::api::set_global_interrupts(true); }
__attribute__((visibility("default"))) void __hopsim_asm_gid() { hopsim::epiphany::api::set_global_interrupts(false); }

__attribute__((visibility("default"))) void __hopsim_asm_trap(std::int32_t n) {
  if (n == 3) throw hopsim::epiphany::CoreReset{};  // TRAP 3: the program exits
  Device& d = Device::current();
  throw KernelError(fmt::format("{} executed trap {}", d.map().describe_core(Device::current_core()), n));
}
}
// NOLINTEND(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)

namespace hopsim::epiphany {
namespace {
std::mutex g_shm_mutex;
std::map<std::string, ShmSegment>& shm_table() {
  static std::map<std::string, ShmSegment> t;
  return t;
}
}  // namespace

bool shm_add(const ShmSegment& s) {
  std::lock_guard lock(g_shm_mutex);
  return shm_table().emplace(s.name, s).second;
}

std::optional<ShmSegment> shm_find(const std::string& name) {
  std::lock_guard lock(g_shm_mutex);
  const auto it = shm_table().find(name);
  if (it == shm_table().end()) return std::nullopt;
  return it->second;
}

bool shm_remove(const std::string& name) {
  std::lock_guard lock(g_shm_mutex);
  return shm_table().erase(name) > 0;
}

}  // namespace hopsim::epiphany
