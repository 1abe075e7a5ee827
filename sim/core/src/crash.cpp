#include "hopsim/core/crash.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>

#include <fmt/format.h>

namespace hopsim::crash {
namespace {

constexpr std::size_t kAltStack = std::size_t{64} << 10;
constexpr std::array kSignals = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

// Everything the handler reads is plain data set before the crash.
std::atomic<pid_t> g_pid{0};
std::array<std::atomic<char*>, 64> g_partials{};
thread_local const char* t_label = nullptr;
thread_local std::uintptr_t t_stack_lo = 0, t_stack_hi = 0;

struct Names {
  const char* name;
  const char* what;
};
Names names(int sig) {
  switch (sig) {
    case SIGSEGV:
      return {"SIGSEGV", "an invalid memory access"};
    case SIGBUS:
      return {"SIGBUS", "a misaligned or unmapped access"};
    case SIGFPE:
      return {"SIGFPE", "an arithmetic error such as an integer division by zero"};
    case SIGILL:
      return {"SIGILL", "an illegal instruction"};
    case SIGABRT:
      return {"SIGABRT", "abort(), a failed assert or an uncaught exception"};
    case SIGKILL:
      return {"SIGKILL", "killed"};
    case SIGTERM:
      return {"SIGTERM", "terminated"};
    case SIGINT:
      return {"SIGINT", "interrupted"};
    default:
      return {nullptr, nullptr};
  }
}

// A fixed buffer the handler formats into (no allocation).
struct Line {
  std::array<char, 768> buf{};
  std::size_t n = 0;
  void add(const char* s) {
    while (s && *s && n + 1 < buf.size()) buf[n++] = *s++;
  }
  void num(std::uintmax_t v, unsigned base = 10) {
    std::array<char, 24> d{};
    std::size_t k = 0;
    do {
      d[k++] = "0123456789abcdef"[v % base];
      v /= base;
    } while (v && k < d.size());
    while (k && n + 1 < buf.size()) buf[n++] = d[--k];
  }
};

// Ends the process by `sig` with its default action (from inside its handler).
void die_of(int sig) {
  ::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
}

void on_crash(int sig, siginfo_t* info, void*) {
  const int saved = errno;
  const bool child = ::getpid() != g_pid.load(std::memory_order_relaxed);
  Line l;
  l.add("hopsim: ");
  if (t_label) {
    l.add(t_label);
    l.add(": the device program crashed: signal ");
  } else {
    l.add("crashed outside any device program (a bug in hopsim or in the host program): signal ");
  }
  l.num(static_cast<unsigned>(sig));
  const Names nm = names(sig);
  if (nm.name) {
    l.add(" (");
    l.add(nm.name);
    l.add(", ");
    l.add(nm.what);
    l.add(")");
  }
  if ((sig == SIGSEGV || sig == SIGBUS) && info) {
    const auto a = reinterpret_cast<std::uintptr_t>(info->si_addr);
    l.add(" at address 0x");
    l.num(a, 16);
    // A fault within a few pages below (or at the bottom of) the thread's
    // stack is the guard page: the stack overflowed.
    if (t_stack_lo && a < t_stack_lo + 4096 && a + (std::uintptr_t{1} << 20) >= t_stack_lo) l.add(": a stack overflow");
  }
  l.add(child ? "; its process ends\n" : "; the run is stopped (exit status ");
  if (!child) {
    l.num(static_cast<unsigned>(exit_status(sig)));
    l.add(")\n");
  }
  ssize_t w = ::write(STDERR_FILENO, l.buf.data(), l.n);
  (void)w;
  if (!child)
    for (auto& p : g_partials)
      if (char* s = p.load(std::memory_order_acquire)) ::unlink(s);
  if (child) {
    // The parent names the signal; no core file in its working directory.
    struct rlimit none {
      0, 0
    };
    ::setrlimit(RLIMIT_CORE, &none);
    die_of(sig);
  }
  errno = saved;
  ::_exit(exit_status(sig));
}

// SIGINT/SIGTERM/SIGHUP: the uncommitted outputs go, then the signal ends
// the process with its default action.
void on_termination(int sig) {
  if (::getpid() == g_pid.load(std::memory_order_relaxed))
    for (auto& p : g_partials)
      if (char* s = p.load(std::memory_order_acquire)) ::unlink(s);
  die_of(sig);
}

void record_stack_bounds() {
  pthread_attr_t attr;
  if (::pthread_getattr_np(::pthread_self(), &attr) != 0) return;
  void* addr = nullptr;
  std::size_t size = 0;
  if (::pthread_attr_getstack(&attr, &addr, &size) == 0) {
    t_stack_lo = reinterpret_cast<std::uintptr_t>(addr);
    t_stack_hi = t_stack_lo + size;
  }
  ::pthread_attr_destroy(&attr);
}

// Installs an alternate signal stack on the calling thread unless it has
// one; returns the stack it mapped (nullptr if none was needed or possible).
void* add_alt_stack() {
  stack_t cur{};
  if (::sigaltstack(nullptr, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) return nullptr;
  void* mem = ::mmap(nullptr, kAltStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return nullptr;
  stack_t ss{};
  ss.ss_sp = mem;
  ss.ss_size = kAltStack;
  if (::sigaltstack(&ss, nullptr) != 0) {
    ::munmap(mem, kAltStack);
    return nullptr;
  }
  return mem;
}

}  // namespace

void install() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_pid.store(::getpid());
    struct sigaction sa {};
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (const int s : kSignals) ::sigaction(s, &sa, nullptr);
    (void)add_alt_stack();  // the main thread's, kept for the process's life
    record_stack_bounds();
  });
}

bool installed() { return g_pid.load() != 0; }

void remove_partials_on_termination() {
  install();
  struct sigaction sa {};
  sa.sa_handler = on_termination;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &sa, nullptr);
}

const char* name_thread(const char* label) {
  const char* prev = t_label;
  t_label = label;
  return prev;
}

ThreadGuard::ThreadGuard(const char* label) : previous_(name_thread(label)) {
  if (!installed()) return;
  stack_ = add_alt_stack();
  record_stack_bounds();
}

ThreadGuard::~ThreadGuard() {
  name_thread(previous_);
  if (stack_) {
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    ::sigaltstack(&off, nullptr);
    ::munmap(stack_, kAltStack);
  }
}

StackBounds stack_bounds() { return {t_stack_lo, t_stack_hi}; }
void set_stack_bounds(StackBounds b) {
  t_stack_lo = b.lo;
  t_stack_hi = b.hi;
}

void remove_on_crash(const std::string& path) {
  // Plain C strings: the signal handler reads them and may not allocate.
  char* copy = ::strdup(path.c_str());
  if (!copy) return;
  for (auto& p : g_partials) {
    char* expected = nullptr;
    if (p.compare_exchange_strong(expected, copy)) return;
  }
  std::free(copy);  // NOLINT(cppcoreguidelines-no-malloc): strdup's, see above
}

void forget(const std::string& path) {
  for (auto& p : g_partials) {
    char* s = p.load(std::memory_order_acquire);
    if (s && path == s && p.compare_exchange_strong(s, nullptr)) {
      std::free(s);  // NOLINT(cppcoreguidelines-no-malloc): strdup's
      return;
    }
  }
}

std::string describe_signal(int sig) {
  const Names nm = names(sig);
  if (!nm.name) return fmt::format("signal {}", sig);
  return fmt::format("signal {} ({}, {})", sig, nm.name, nm.what);
}

}  // namespace hopsim::crash
