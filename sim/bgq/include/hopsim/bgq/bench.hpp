#pragma once
// BG/Q studies: the package-size sweep of the halo exchange and the scale
// benchmark of the timing core.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace hopsim::bgq {

// Runs the halo scenario (simulated) once per package size; prints one row
// each (and writes CSV if `csv` is not empty). Returns the exit code.
int package_sweep(const std::string& scenario, const std::vector<long>& packages, const std::vector<std::string>& sets,
                  const std::string& csv, std::ostream& out);

// Nearest-neighbour exchange on each torus ("AxBxCxDxE") with the timing
// core alone: every node sends `msg` bytes to each of its neighbours (8: the
// halo kernel's grid {A*B,C,D,E}; 10: +-1 in every torus dimension) in
// descriptors of `package` bytes, `iterations` times, a GI barrier between
// exchanges. No payload bytes move. Prints host seconds, simulated packets
// and packet-hops per host second, and peak memory.
int scale_benchmark(const std::string& machine, const std::vector<std::string>& tori, int iterations, std::uint64_t msg,
                    std::uint64_t package, int neighbours, const std::string& csv, std::ostream& out);

}  // namespace hopsim::bgq
