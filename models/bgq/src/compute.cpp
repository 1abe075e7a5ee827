#include "hopsim/bgq/model/compute.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"

namespace hopsim::bgq::model {

namespace {
void check_threads(const Params& p, int threads) {
  const int max_threads = p.cores * p.threads_per_core;
  if (threads < 1 || threads > max_threads)
    throw KernelError(
        fmt::format("compute on {} threads: a BG/Q node has 1..{} hardware threads", threads, max_threads));
}
}  // namespace

double compute_cycles(const Params& p, std::uint64_t elements, int threads) {
  check_threads(p, threads);
  const int k = (threads + p.cores - 1) / p.cores;                               // threads on the busiest core
  const double core_rate = std::min(k / p.element_cycles, p.core_element_rate);  // elements per cycle per core
  const double per_thread = std::ceil(static_cast<double>(elements) / threads);
  const double core_time = per_thread * k / core_rate;
  const double mem_time = static_cast<double>(elements) * 8.0 / p.memory_bandwidth;
  return std::max(core_time, mem_time) + (threads > 1 ? p.omp_overhead : 0.0);
}

double counted_compute_cycles(const Params& p, const CountedWork& w, std::uint64_t elements, int threads) {
  check_threads(p, threads);
  const int k = (threads + p.cores - 1) / p.cores;  // threads on the busiest core
  const double share =
      elements > 0 ? std::ceil(static_cast<double>(elements) / threads) / static_cast<double>(elements) : 1.0 / threads;
  const double xu = w.instructions - w.fpu;
  const double core_time = std::max({w.cycles * share, k * share * xu, k * share * w.fpu});
  const double mem_time = static_cast<double>(elements) * 8.0 / p.memory_bandwidth;
  return std::max(core_time, mem_time) + (threads > 1 ? p.omp_overhead : 0.0);
}

}  // namespace hopsim::bgq::model
