#include "hopsim/epiphany/memory_windows.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/resources.hpp"

namespace hopsim::epiphany {
namespace {
std::atomic<bool> g_mapped{false};

std::size_t round_to_page(std::size_t n) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}

void map_fixed(std::uintptr_t addr, std::size_t bytes, const std::string& what) {
  void* p = mmap(reinterpret_cast<void*>(addr), bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED || reinterpret_cast<std::uintptr_t>(p) != addr) {
    const int err = errno;
    if (p != MAP_FAILED) munmap(p, bytes);
    throw Error(fmt::format("cannot map {} at its device address 0x{:08x} ({} bytes): {}", what, addr, bytes,
                            std::strerror(err)));
  }
}
}  // namespace

MemoryWindows::MemoryWindows(const epiphany::model::AddressMap& map)
    : map_(map), core_bytes_(round_to_page(map.local_size())) {
  // Every byte of the chip's memory may be touched by a run: refused before
  // anything is mapped when it cannot fit.
  require_memory("machine.rows, cols, local_mem, emem_size", fmt::format("a chip of {} cores", map_.num_cores()),
                 static_cast<double>(map_.num_cores()) * static_cast<double>(core_bytes_) +
                     static_cast<double>(round_to_page(map_.emem_size())),
                 fmt::format("{} KiB of local memory per core and {} MiB of external memory", core_bytes_ / 1024,
                             map_.emem_size() >> 20));
  if (g_mapped.exchange(true)) throw Error("memory windows are already mapped in this process");
  std::uint32_t done = 0;
  try {
    for (; done < map_.num_cores(); ++done) map_fixed(map_.base_of(done), core_bytes_, map_.describe_core(done));
    if (map_.emem_size() > 0) map_fixed(map_.emem_base(), round_to_page(map_.emem_size()), "external memory");
  } catch (...) {
    for (std::uint32_t i = 0; i < done; ++i) munmap(core(i), core_bytes_);
    g_mapped = false;
    throw;
  }
}

MemoryWindows::~MemoryWindows() {
  for (std::uint32_t i = 0; i < map_.num_cores(); ++i) munmap(core(i), core_bytes_);
  if (map_.emem_size() > 0) munmap(emem(), round_to_page(map_.emem_size()));
  g_mapped = false;
}

void MemoryWindows::clear() {
  for (std::uint32_t i = 0; i < map_.num_cores(); ++i) std::memset(core(i), 0, core_bytes_);
  // External memory is large; drop its pages instead of writing zeros.
  if (map_.emem_size() > 0) madvise(emem(), round_to_page(map_.emem_size()), MADV_DONTNEED);
}

std::uint8_t* MemoryWindows::core(std::uint32_t index) const {
  return reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(map_.base_of(index)));
}

std::uint8_t* MemoryWindows::emem() const {
  return reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(map_.emem_base()));
}

}  // namespace hopsim::epiphany
