#include "hopsim/host/cma.hpp"

#include <fmt/format.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <vector>

namespace hopsim::host {
namespace {

thread_local int g_last_calls = 0;

#ifndef IOV_MAX
constexpr std::size_t kIovMax = 1024;
#else
constexpr std::size_t kIovMax = IOV_MAX;
#endif

// A cursor over an iovec list that can be advanced by a byte count.
struct Cursor {
  std::span<const iovec> list;
  std::size_t index = 0;
  std::size_t offset = 0;  // into list[index]

  [[nodiscard]] bool done() const { return index >= list.size(); }
  void skip_empty() {
    while (index < list.size() && offset >= list[index].iov_len) {
      ++index;
      offset = 0;
    }
  }
  // Up to kIovMax iovecs from the current position.
  std::vector<iovec> batch() const {
    std::vector<iovec> out;
    for (std::size_t i = index; i < list.size() && out.size() < kIovMax; ++i) {
      const std::size_t off = i == index ? offset : 0;
      if (list[i].iov_len == off) continue;
      out.push_back(iovec{static_cast<char*>(list[i].iov_base) + off, list[i].iov_len - off});
    }
    return out;
  }
  void advance(std::size_t n) {
    while (n > 0 && index < list.size()) {
      const std::size_t left = list[index].iov_len - offset;
      if (n < left) {
        offset += n;
        return;
      }
      n -= left;
      ++index;
      offset = 0;
    }
    skip_empty();
  }
};

std::size_t total(std::span<const iovec> l) {
  std::size_t t = 0;
  for (const auto& v : l) t += v.iov_len;
  return t;
}

std::size_t transfer(bool write, pid_t pid, std::span<const iovec> local, std::span<const iovec> remote) {
  const char* what = write ? "process_vm_writev" : "process_vm_readv";
  const std::size_t want = std::min(total(local), total(remote));
  Cursor l{local}, r{remote};
  l.skip_empty();
  r.skip_empty();
  std::size_t moved = 0;
  g_last_calls = 0;
  while (moved < want && !l.done() && !r.done()) {
    const auto lb = l.batch();
    const auto rb = r.batch();
    ++g_last_calls;
    const ssize_t n = write ? ::process_vm_writev(pid, lb.data(), lb.size(), rb.data(), rb.size(), 0)
                            : ::process_vm_readv(pid, lb.data(), lb.size(), rb.data(), rb.size(), 0);
    if (n < 0) {
      const int e = errno;
      if (e == EINTR) continue;
      if (e == EPERM) {
        const int scope = yama_ptrace_scope();
        throw CmaRefused(fmt::format(
            "CMA refused: {} to pid {} failed with EPERM (Operation not permitted): the kernel's ptrace access "
            "check (PTRACE_MODE_ATTACH_REALCREDS) denied it; {}",
            what, pid, yama_rule(scope)));
      }
      if (e == ESRCH)
        throw KernelError(
            fmt::format("CMA: {} to pid {} failed with ESRCH: no such process (it has exited)", what, pid));
      throw KernelError(fmt::format("CMA: {} to pid {} failed with {} ({}) after {} of {} bytes", what, pid,
                                    e == EFAULT   ? "EFAULT"
                                    : e == EINVAL ? "EINVAL"
                                    : e == ENOMEM ? "ENOMEM"
                                                  : "errno",
                                    std::strerror(e), moved, want));
    }
    if (n == 0)
      throw KernelError(fmt::format("CMA: {} to pid {} made no progress after {} of {} bytes", what, pid, moved, want));
    // A partial transfer stops at an iovec boundary of either list; resume there.
    moved += static_cast<std::size_t>(n);
    l.advance(static_cast<std::size_t>(n));
    r.advance(static_cast<std::size_t>(n));
  }
  return moved;
}

}  // namespace

int yama_ptrace_scope() {
  std::ifstream f("/proc/sys/kernel/yama/ptrace_scope");
  int v = -1;
  if (!(f >> v)) return -1;
  return v;
}

std::string yama_rule(int scope) {
  switch (scope) {
    case -1:
      return "Yama is not active in this kernel (plain ptrace rules: same uid and dumpable, or CAP_SYS_PTRACE)";
    case 0:
      return "Yama ptrace_scope=0 (any same-uid process may attach; the target may be non-dumpable or of another uid)";
    case 1:
      return "Yama ptrace_scope=1 (only descendants, unless the target names its peer with prctl(PR_SET_PTRACER))";
    case 2:
      return "Yama ptrace_scope=2 (admin only: CMA needs CAP_SYS_PTRACE)";
    case 3:
      return "Yama ptrace_scope=3 (no attach at all: CMA is impossible until reboot)";
    default:
      return fmt::format("Yama ptrace_scope={} (unknown value)", scope);
  }
}

bool allow_ptracer(pid_t ancestor) {
  if (yama_ptrace_scope() != 1) return true;
  return ::prctl(PR_SET_PTRACER, static_cast<unsigned long>(ancestor), 0, 0, 0) == 0;
}

void make_cma_inaccessible() {
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  std::array<__user_cap_data_struct, 2> data{};
  if (::syscall(SYS_capget, &hdr, data.data()) == 0) {
    data[CAP_SYS_PTRACE / 32].effective &= ~(1u << (CAP_SYS_PTRACE % 32));
    ::syscall(SYS_capset, &hdr, data.data());
  }
}

std::size_t cma_write(pid_t pid, std::span<const iovec> local, std::span<const iovec> remote) {
  return transfer(true, pid, local, remote);
}
std::size_t cma_read(pid_t pid, std::span<const iovec> local, std::span<const iovec> remote) {
  return transfer(false, pid, local, remote);
}
std::size_t cma_write(pid_t pid, const void* local, void* remote, std::size_t bytes) {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): iov_base is void* both ways; the kernel only reads local
  const iovec l{const_cast<void*>(local), bytes}, r{remote, bytes};
  return transfer(true, pid, {&l, 1}, {&r, 1});
}
std::size_t cma_read(pid_t pid, void* local, const void* remote, std::size_t bytes) {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): iov_base is void* both ways; the kernel only reads remote
  const iovec l{local, bytes}, r{const_cast<void*>(remote), bytes};
  return transfer(false, pid, {&l, 1}, {&r, 1});
}
int cma_last_calls() { return g_last_calls; }

}  // namespace hopsim::host
