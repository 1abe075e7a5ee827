#pragma once
// A BG/Q program as hopsim runs it: the entry every rank runs, its name,
// description and arguments, and the published-style figures derived from
// its timings. A program registers itself with register_kernel.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hopsim/core/program.hpp"

namespace hopsim::bgq {

struct Timing {
  std::string what;
  int iter;
  double cycles;
};
struct Check {
  std::string what;
  std::uint64_t checked, wrong;
  std::string example;
};

struct BgqKernel {
  ProgramInfo package;        // name, family "bgq", description, args
  void (*entry)() = nullptr;  // every rank runs it
  // Published-style figures from the simulated run's timings (rank-mean per timing).
  std::function<std::vector<Metric>(const std::vector<Timing>& mean, const nlohmann::json& args)> metrics;
  // Built through the hopsim-bgq-poll pass, which counts its instructions
  // (compute.model = counted needs it).
  bool counted_code = false;
};

// Registers a BG/Q kernel (also in hopsim's program list, for `hopsim list kernels`).
void register_kernel(BgqKernel k);
const BgqKernel* find_kernel(const std::string& name);

}  // namespace hopsim::bgq
