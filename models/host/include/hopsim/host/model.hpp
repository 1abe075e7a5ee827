#pragma once
// The host machine model: cores, a shared memory system with finite
// bandwidth, and the three intra-node copy paths as sequences of timed
// operations, driven by the ring benchmark's protocol. Parameters come from
// a Profile only.
//
// Timing: every operation has the duration it takes with the machine to
// itself (from the profile's tables) and a memory traffic. Running
// operations share the machine as a fluid: with R operations in progress on
// C cores each gets min(1, C/R) of a core, and when the memory traffic they
// then ask for exceeds the memory system's capacity (all cores copying at
// once, from the profile) every memory-bound operation is slowed by the
// same factor. Other work measured on the machine at calibration
// (background_load runnable processes) competes for the cores as well. Processes that wait for a flag consume nothing;
// a flag becomes visible to its reader one cache-line transfer (c2c_latency) after it was written, and a process that
// waited pays a process switch when there are more runnable processes (ours and the background) than cores.
#include <cstddef>
#include <string_view>
#include <vector>

#include "hopsim/host/profile.hpp"

namespace hopsim::host {

enum class CopyPath { double_copy, cma, zero_copy };
[[nodiscard]] std::string_view path_name(CopyPath p);

struct SimCell {
  int procs = 2;
  std::size_t size = 65536;
  CopyPath path = CopyPath::double_copy;
  bool remap = false;
  std::size_t chunk = 64 * 1024;  // bounce-buffer slot (double copy)
  int slots = 4;
  int iters = 16;  // timed ring steps
};

struct SimResult {
  double seconds = 0;    // simulated time of the timed steps
  double bandwidth = 0;  // bytes received per process per second
  double ops = 0;        // operations simulated
};

// Simulates every cell on its own instance of the machine, all in one
// SystemC elaboration (so call it once per process). Throws ConfigError for
// a cell the profile cannot run (CMA with cma_ok false, fewer than 2 processes).
[[nodiscard]] std::vector<SimResult> simulate_ring(const Profile& p, const std::vector<SimCell>& cells);

}  // namespace hopsim::host
