#include "hopsim/core/interrupt.hpp"

#include <csignal>

namespace hopsim {
namespace {
volatile std::sig_atomic_t g_interrupted = 0;
}  // namespace

bool interrupted() { return g_interrupted != 0; }

void catch_interrupts() {
  std::signal(SIGINT, [](int) { g_interrupted = 1; });
  std::signal(SIGTERM, [](int) { g_interrupted = 1; });
}

}  // namespace hopsim
