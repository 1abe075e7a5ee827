#pragma once
// The A2 node's compute model for a streaming loop (the halo's reduction:
// one 8-byte load and one floating-point add per element) on 1..64 threads.
//
// `threads` OpenMP threads spread round-robin over the 16 cores, so the
// busiest core runs k = ceil(threads / 16) of them. One thread alone does
// an element every `element_cycles` (calibrated: its dependent chain of
// loads and adds). The A2 is in-order and issues per cycle at most one
// instruction to its XU (integer, load/store, branch) and one to its FPU,
// each from one of its 4 threads, a thread at most one per cycle (Haring,
// "The Blue Gene/Q Compute Chip", Hot Chips 23, 2011, slide 5; BG/Q driver
// BGPM documentation, "CPU Core Pipeline"): k threads on a core sum their
// chains until the XU's one load per cycle bounds them
// (`core_element_rate`). The node's memory streams 8 bytes per element at
// `memory_bandwidth` (42.7 GB/s DDR3-1333 peak, Haring slide 10), and a
// parallel region of more than one thread pays `omp_overhead` for its fork
// and join. So time falls linearly from 1 to 16 threads, and from 16 to 64
// only as far as the shared pipelines and the memory allow.
#include <cstdint>

#include "hopsim/bgq/model/params.hpp"

namespace hopsim::bgq::model {

// Cycles of the loop over `elements` on `threads` (KernelError outside 1..cores*threads_per_core).
double compute_cycles(const Params& p, std::uint64_t elements, int threads);

// What the program's own instructions cost one thread (compute.model =
// counted: the hopsim-bgq-poll pass counts them and prices them by the
// A2's cost table, sim/bgq/pass/a2_costs.hpp).
struct CountedWork {
  double cycles = 0;        // one thread's schedule
  double instructions = 0;  // all of them
  double fpu = 0;           // of which issued to the FPU
};

// Counted: the same loop's cycles when one thread counted `w` for all of
// it and `threads` threads share it in static chunks of ceil(elements /
// threads). The busiest core runs k = ceil(threads / 16) of them; each
// thread needs its share of w.cycles, and the core issues at most one XU
// and one FPU instruction per cycle (Haring, Hot Chips 23, slide 5), so k
// threads take at least k shares of the XU's and of the FPU's
// instructions. The memory bound and the fork-and-join cost are as in
// compute_cycles. One thread: w.cycles (or the memory bound).
double counted_compute_cycles(const Params& p, const CountedWork& w, std::uint64_t elements, int threads);

}  // namespace hopsim::bgq::model
