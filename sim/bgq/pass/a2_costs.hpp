// The BG/Q A2 core's cost table for counted compute
// (sim/core/pass/counting.hpp), for one hardware thread.
//
// Sources: the A2's scheduling model in LLVM (lib/Target/PowerPC/
// PPCScheduleA2.td, whose primary reference is IBM's "A2 Processor User's
// Manual", 2010): a thread dispatches one instruction per cycle
// (IssueWidth 1), to the XU (integer, load/store, branch) or the FU
// (floating point); result latencies: simple integer 1, compare, shift and
// rotate 2, multiply 5-6, divide word 39, load 6, floating-point load 7,
// floating-point add, multiply and fused multiply-add 6, divide 59
// (single) and 72 (double), square root 65 and 69; misprediction 13.
// Haring, "The Blue Gene/Q Compute Chip" (Hot Chips 23, 2011, slide 5): the
// core is in-order and issues per cycle at most one XU and one FU
// instruction, from different threads (the runtime applies that across the
// threads of a core; models/bgq compute.hpp). Double precision is in
// hardware (the QPX unit's scalar slot).
//
// Not modelled: branch mispredictions (13 cycles each; the counter does not
// know which branches the predictor misses) and cache misses (loads are
// priced as L1 hits; a streaming loop is bounded by the node's memory
// bandwidth in the runtime instead). A compiler schedules a block for the
// in-order pipeline: instructions issue in dependence order.
#pragma once

#include <array>

#include "counting.hpp"

namespace hopsim_pass::a2 {

struct Costs {
  static constexpr unsigned kTakenBranchPenalty = 0;  // a correctly predicted branch costs its issue cycle
  static constexpr bool kDualIssue = false;           // one instruction per cycle per thread
  static constexpr bool kCompilerScheduled = true;
  static constexpr bool kCountFpu = true;  // the core's XU/FU issue limit needs the split

  static constexpr std::array<KindCost, kKinds> kCosts = {{
      {Unit::integer, 1},  // ialu
      {Unit::integer, 1},  // imul (mullw, mulld in the XU)
      {Unit::integer, 1},  // idiv (divw; the dependent waits)
      {Unit::integer, 1},  // load
      {Unit::integer, 1},  // load_narrow
      {Unit::integer, 1},  // store
      {Unit::fpu, 1},      // fpu: single-precision arithmetic
      {Unit::fpu, 1},      // fdiv, single-precision divide and square root
      {Unit::fpu, 1},      // fp64: double-precision arithmetic
      {Unit::fpu, 1},      // fp64div
      {Unit::integer, 1},  // branch
      {Unit::integer, 1},  // call or return (bl, blr)
  }};

  static constexpr unsigned latency(Kind producer, Kind consumer) {
    const bool to_fpu =
        consumer == Kind::fpu || consumer == Kind::fp64 || consumer == Kind::fdiv || consumer == Kind::fp64div;
    switch (producer) {
      case Kind::ialu:
        return consumer == Kind::branch ? 2 : 1;  // a compare feeding its branch: 2
      case Kind::idiv:
        return 39;
      case Kind::load:
        return to_fpu ? 7 : 6;  // lfd 7, ld/lwz 6
      case Kind::imul:
      case Kind::load_narrow:
      case Kind::fpu:
      case Kind::fp64:
        return 6;
      case Kind::fdiv:
        return 59;
      case Kind::fp64div:
        return 72;
      default:
        return 1;
    }
  }
};

}  // namespace hopsim_pass::a2
