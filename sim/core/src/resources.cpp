#include "hopsim/core/resources.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/units.hpp"

namespace hopsim {
namespace {

std::uint64_t meminfo_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

// What the cgroup (v2) of this process may still allocate; 0 if unlimited or unknown.
std::uint64_t cgroup_left() {
  std::ifstream max_in("/sys/fs/cgroup/memory.max"), cur_in("/sys/fs/cgroup/memory.current");
  std::string max_s;
  std::uint64_t cur = 0;
  if (!(max_in >> max_s) || max_s == "max" || !(cur_in >> cur)) return 0;
  const std::uint64_t max = std::strtoull(max_s.c_str(), nullptr, 10);
  return max > cur ? max - cur : 1;
}

std::string gib(double bytes) { return fmt::format("{:.3g} GiB", bytes / double(std::uint64_t{1} << 30)); }

}  // namespace

std::uint64_t memory_available() {
  if (const char* lim = std::getenv("HOPSIM_MEMORY_LIMIT"); lim && *lim) {
    const double v = parse_quantity(std::string_view(lim), Dim::bytes, "HOPSIM_MEMORY_LIMIT");
    if (v < 1) throw ConfigError(fmt::format("HOPSIM_MEMORY_LIMIT: expected a positive size, got \"{}\"", lim));
    return static_cast<std::uint64_t>(v);
  }
  const std::uint64_t mem = meminfo_available(), cg = cgroup_left();
  if (mem == 0) return cg;
  return cg == 0 ? mem : std::min(mem, cg);
}

void require_memory(const std::string& key, const std::string& what, double bytes, const std::string& how) {
  const std::uint64_t avail = memory_available();
  if (avail == 0 || bytes <= static_cast<double>(avail)) return;
  throw ConfigError(fmt::format(
      "{}: {} needs about {} ({}), more than the {} {}", key, what, gib(bytes), how, gib(static_cast<double>(avail)),
      std::getenv("HOPSIM_MEMORY_LIMIT") && *std::getenv("HOPSIM_MEMORY_LIMIT")
          ? std::string("HOPSIM_MEMORY_LIMIT allows")
          : std::string("this machine has available (HOPSIM_MEMORY_LIMIT sets another limit)")));
}

}  // namespace hopsim
