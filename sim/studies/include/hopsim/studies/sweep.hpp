#pragma once
// `hopsim sweep`: the cartesian product of swept scenario keys over a base
// scenario (a traffic scenario run in process, or `hopsim run` scenarios as
// child processes), one result table, resumable, split across MPI ranks
// when launched by mpirun (docs/traffic.md, "Sweeps").
#include <span>
#include <string>
#include <vector>

#include "hopsim/core/scenario.hpp"

namespace hopsim::studies {

struct SweepOptions {
  std::string file, scenario, kind, out;
  std::vector<std::string> sweeps;
  bool fresh = false;
  // Traffic sweeps: each point runs with seeds traffic.seed, +1, ...; its
  // row holds each column's mean over the seeds and, beside it,
  // COLUMN_ci95 (the half-width of the mean's 95% interval); `saturated`
  // becomes the number of seeds that saturated.
  int seeds = 1;
};

// Every key of a sweep file with its type, default and meaning (hopsim list keys).
std::span<const ScenarioKey> sweep_file_keys();

// Runs (or resumes) the sweep; returns the exit code. Throws ConfigError on
// a bad sweep file, key or point before any point runs.
int run_sweep(const SweepOptions& o);

}  // namespace hopsim::studies
