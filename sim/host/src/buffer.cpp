#include "hopsim/host/buffer.hpp"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "hopsim/core/error.hpp"

namespace hopsim::host {
namespace {
constexpr std::size_t kHuge = 2u << 20;
std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }
}  // namespace

std::string thp_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!f || !std::getline(f, line)) return "absent";
  const auto a = line.find('['), b = line.find(']');
  if (a == std::string::npos || b == std::string::npos || b < a) return "absent";
  return line.substr(a + 1, b - a - 1);
}

MessageBuffer::MessageBuffer(std::size_t bytes, bool huge) : n_(bytes) {
  if (n_ == 0) return;
  map_len_ = huge ? round_up(n_, kHuge) + kHuge : n_;
  map_ = ::mmap(nullptr, map_len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw Error(fmt::format("cannot map a {}-byte message buffer: {}", map_len_, std::strerror(errno)));
  }
  auto* base = static_cast<std::byte*>(map_);
  if (huge) {
    const auto a = reinterpret_cast<std::uintptr_t>(base);
    p_ = base + (round_up(a, kHuge) - a);
    // Advice only: a kernel without THP (EINVAL) keeps 4 KiB pages, which
    // huge_kib() then reports.
    (void)::madvise(p_, round_up(n_, kHuge), MADV_HUGEPAGE);
    std::memset(p_, 0, round_up(n_, kHuge));
  } else {
    p_ = base;
    std::memset(p_, 0, n_);
  }
}

MessageBuffer::~MessageBuffer() {
  if (map_) ::munmap(map_, map_len_);
}

long MessageBuffer::huge_kib() const {
  if (!map_) return 0;
  std::ifstream f("/proc/self/smaps");
  if (!f) return -1;
  const auto lo = reinterpret_cast<std::uintptr_t>(map_), hi = lo + map_len_;
  std::string line;
  long kib = 0;
  bool inside = false, seen = false;
  while (std::getline(f, line)) {
    unsigned long a = 0, b = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &a, &b) == 2) {
      // A mapping's header line; the kernel may have merged ours with a neighbour.
      inside = a < hi && b > lo;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      std::istringstream in(line.substr(14));
      long v = 0;
      in >> v;
      kib += v;
      seen = true;
    }
  }
  return seen ? kib : -1;
}

}  // namespace hopsim::host
