#include "hopsim/core/interrupt.hpp"

#include <csignal>

namespace hopsim {
namespace {
// The signal that interrupted the run (SIGINT or SIGTERM), 0 before one came.
volatile std::sig_atomic_t g_interrupted = 0;
}  // namespace

bool interrupted() { return g_interrupted != 0; }

int interrupt_signal() { return g_interrupted; }

std::string interrupted_by() {
  switch (g_interrupted) {
    case 0:
      return "interrupted";
    case SIGINT:
      return "interrupted (Ctrl-C)";
    case SIGTERM:
      return "interrupted (SIGTERM)";
    default:
      return "interrupted (signal " + std::to_string(g_interrupted) + ")";
  }
}

void catch_interrupts() {
  std::signal(SIGINT, [](int sig) { g_interrupted = sig; });
  std::signal(SIGTERM, [](int sig) { g_interrupted = sig; });
}

}  // namespace hopsim
