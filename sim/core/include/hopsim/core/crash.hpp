#pragma once
// A device program that crashes (a null dereference, abort(), a stack
// overflow, a division by zero) on one core or rank ends the whole run with
// one line naming that core or rank and the signal, and an exit status of
// 128 + the signal (139 for SIGSEGV, 134 for SIGABRT), as a shell reports a
// signal. No core dump is written; uncommitted outputs (AtomicFile's
// .partial files) are removed; committed results are untouched; a trace
// being written stays PATH.partial and opens marked incomplete, as after
// SIGKILL.
//
// Runs that put cores or ranks on host threads name each thread
// (name_thread, ThreadGuard); runs that put a rank or a HAM target in a
// process of its own see the child die of the signal and throw CrashError
// naming it. In such a child (any process forked after install()) the
// handler prints its line, turns core dumps off and lets the signal end the
// process, so that its parent can name it.
#include <cstdint>
#include <string>

#include "hopsim/core/error.hpp"

namespace hopsim::crash {

// The exit status of a run whose device program was ended by signal `sig`.
constexpr int exit_status(int sig) { return 128 + sig; }

// Installs the report for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT in
// this process, and an alternate signal stack for the calling thread.
// Idempotent; called by every entry point that runs device programs (the
// hopsim CLI, e_init, a BG/Q program's main, the HAM runtime).
void install();
bool installed();

// Names what the calling thread runs, for the report ("core (1, 2) (coreid
// 0x846)", "rank 5"); nullptr: nothing (the report then says the crash is
// outside any device program). `label` must outlive the naming: families
// keep one string per core or rank. Returns the previous name. Cheap (one
// thread-local store): simulators call it at every switch between cores.
const char* name_thread(const char* label);

// Gives a host thread that runs a device program an alternate signal stack
// (so that a stack overflow is reported, not a silent death) and records
// its stack's bounds (so that the report says "stack overflow"); names it
// for its lifetime. Construct on the thread itself.
class ThreadGuard {
 public:
  explicit ThreadGuard(const char* label);
  ~ThreadGuard();
  ThreadGuard(const ThreadGuard&) = delete;
  ThreadGuard& operator=(const ThreadGuard&) = delete;

 private:
  const char* previous_;
  void* stack_ = nullptr;  // the alternate stack this guard installed, if any
};

// The stack the calling thread runs on, for the report's "a stack overflow"
// (a fault in the page below it). Threads record their own (install,
// ThreadGuard); a simulator that switches to a fiber with a guard page sets
// the fiber's at the switch and restores the previous bounds after it.
struct StackBounds {
  std::uintptr_t lo = 0, hi = 0;  // lo: the lowest usable byte or the guard page's start
};
StackBounds stack_bounds();
void set_stack_bounds(StackBounds b);

// Files removed if the process crashes (uncommitted outputs). At most 64 at a
// time; more are not removed on a crash.
void remove_on_crash(const std::string& path);
void forget(const std::string& path);

// SIGINT, SIGTERM and SIGHUP also remove those files before the signal ends
// the process as it would have (same status, as a shell reports it). For
// the CLI's commands that do not stop gracefully (catch_interrupts replaces
// the SIGINT and SIGTERM handlers of those that do). Forked children only
// end. Idempotent.
void remove_partials_on_termination();

// "signal 11 (SIGSEGV, an invalid memory access)".
std::string describe_signal(int sig);

}  // namespace hopsim::crash

namespace hopsim {

// A device program's process (a rank's, a HAM target's) was ended by a
// signal. The CLI and the program entry points exit with
// crash::exit_status(signal()).
class CrashError : public Error {
 public:
  CrashError(const std::string& message, int sig) : Error(message), signal_(sig) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

}  // namespace hopsim
