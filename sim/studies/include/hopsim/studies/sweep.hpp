#pragma once
// `hopsim sweep`: the cartesian product of swept scenario keys over a base
// scenario (a traffic scenario run in process, or `hopsim run` scenarios as
// child processes), one result table, resumable, split across MPI ranks
// when launched by mpirun (docs/traffic.md, "Sweeps").
#include <string>
#include <vector>

namespace hopsim::studies {

struct SweepOptions {
  std::string file, scenario, kind, out;
  std::vector<std::string> sweeps;
  bool fresh = false;
  std::string progress = "auto";
};

// Runs (or resumes) the sweep; returns the exit code. Throws ConfigError on
// a bad sweep file, key or point before any point runs.
int run_sweep(const SweepOptions& o);

}  // namespace hopsim::studies
