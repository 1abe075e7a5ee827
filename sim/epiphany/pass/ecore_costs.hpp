// The eCore's cost table for counted compute (sim/core/pass/counting.hpp):
// per kind of instruction, the issue slot it takes, how many cycles it holds it, and
// how many cycles after its issue a dependent instruction may issue.
//
// Source, unless an entry says otherwise: Epiphany Architecture Reference
// (Adapteva, REV 14.03.11), "eCore CPU": "Pipeline" (stages FE IM DE RA
// E1-E4: loads complete at E2, FPU results at E4 when rounding, all other
// instructions at E1; in-order, interlocked), "Instruction Issue Grouping"
// and "Issue scheduling rules" (dual issue: an IALU or a load/store
// instruction beside an FPU instruction; nothing pairs with a branch),
// "Pipeline Hazards" (cycles a dependent instruction waits), "Branch
// Penalties" (taken branch or jump: 3 cycles; not taken: 0). The eCore has
// no divide instruction and no double precision: those are software
// routines, whose cycles no source gives (entries marked "estimate").
#pragma once

#include <array>

#include "counting.hpp"

namespace hopsim_pass::ecore {

// Software routines (estimates: no source gives their cycles). Integer
// divide: libgcc's Epiphany divsi3 is about 20 instructions of set-up and
// up to 30 steps of 3, plus the call and return. Single-precision divide
// and square root, double-precision arithmetic: libgcc's soft-float.
inline constexpr unsigned kDivideCycles = 100;
inline constexpr unsigned kFloatDivideCycles = 60;
inline constexpr unsigned kDoubleCycles = 80;
inline constexpr unsigned kDoubleDivideCycles = 200;

struct Costs {
  // A taken branch or a jump (call, return) costs 3 more cycles.
  static constexpr unsigned kTakenBranchPenalty = 3;
  // An IALU or load/store instruction beside an FPU one (IMUL runs in the FPU pipeline).
  static constexpr bool kDualIssue = true;
  static constexpr bool kCompilerScheduled = false;
  static constexpr bool kCountFpu = false;

  static constexpr std::array<KindCost, kKinds> kCosts = {{
      {Unit::integer, 1},                     // ialu
      {Unit::fpu, 1},                         // imul (IMUL, in the FPU pipeline)
      {Unit::both, kDivideCycles},            // idiv, irem: software
      {Unit::integer, 1},                     // load (LDR of a word or doubleword)
      {Unit::integer, 1},                     // load_narrow (LDRB, LDRH)
      {Unit::integer, 1},                     // store
      {Unit::fpu, 1},                         // fpu: FADD FSUB FMUL FMADD FMSUB FIX FLOAT FABS
      {Unit::both, kFloatDivideCycles},       // fdiv, sqrt: software
      {Unit::both, kDoubleCycles},            // double arithmetic and conversions: software
      {Unit::both, kDoubleDivideCycles},      // double divide and square root: software
      {Unit::both, 1},                        // branch (a taken one adds the penalty on its edge)
      {Unit::both, 1 + kTakenBranchPenalty},  // call or return: BL / JR / RTS, always taken
  }};

  // Cycles from the issue of a `producer` until a dependent `consumer` may
  // issue ("Pipeline Hazards": the separation it lists, plus the issue
  // cycle; the FPU's results in the default round-to-nearest mode come at
  // E4, one stage after truncation's E3).
  static constexpr unsigned latency(Kind producer, Kind consumer) {
    const bool to_fpu = consumer == Kind::fpu || consumer == Kind::imul;
    switch (producer) {
      case Kind::ialu:
        return to_fpu ? 2 : 1;  // IALU -> FPU: 1
      case Kind::load:
        return to_fpu ? 3 : 2;  // LDR -> IALU/STR/LDR: 1, LDR -> FPU: 2
      case Kind::load_narrow:
        return 3;  // LDRB/LDRH: 2
      case Kind::fpu:
      case Kind::imul:
        return consumer == Kind::store ? 4 : 5;  // FPU -> STORE: 2 + rounding, FPU -> FPU/IALU: 3 + rounding
      default:
        return 1;  // routines and calls: their occupancy covers it
    }
  }
};

}  // namespace hopsim_pass::ecore
