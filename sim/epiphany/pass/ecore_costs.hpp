// The eCore's cost table for counted compute (counting.hpp): per class of
// instruction, the issue slot it takes, how many cycles it holds it, and
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
#include <cstddef>

namespace hopsim_pass::ecore {

enum class Class { ialu, imul, idiv, load, load_narrow, store, fpu, fdiv, fp64, fp64div, branch, call, count_ };
constexpr std::size_t kClasses = static_cast<std::size_t>(Class::count_);
inline constexpr std::array<const char*, kClasses> kClassNames = {
    "ialu", "imul", "idiv", "load", "load_narrow", "store", "fpu", "fdiv", "fp64", "fp64div", "branch", "call"};

// The two issue slots: integer (IALU or load/store, not both) and FPU
// (FPU instructions; IMUL runs in the FPU pipeline). `both`: the
// instruction takes the whole cycle (branches, calls, software routines).
enum class Unit { integer, fpu, both };

struct ClassCost {
  Unit unit;
  unsigned occupancy;  // cycles it holds issue (1, or a software routine's length)
};

struct Op {
  Class cls;
  unsigned count;  // eCore instructions (0: none of its own)
};

// A taken branch or a jump (call, return) costs 3 more cycles.
inline constexpr unsigned kTakenBranchPenalty = 3;

// Software routines (estimates: no source gives their cycles). Integer
// divide: libgcc's Epiphany divsi3 is about 20 instructions of set-up and
// up to 30 steps of 3, plus the call and return. Single-precision divide
// and square root, double-precision arithmetic: libgcc's soft-float.
inline constexpr unsigned kDivideCycles = 100;
inline constexpr unsigned kFloatDivideCycles = 60;
inline constexpr unsigned kDoubleCycles = 80;
inline constexpr unsigned kDoubleDivideCycles = 200;

inline constexpr std::array<ClassCost, kClasses> kCosts = {{
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
// issue ("Pipeline Hazards": the separation it lists, plus the issue cycle;
// the FPU's results in the default round-to-nearest mode come at E4, one
// stage after truncation's E3).
constexpr unsigned latency(Class producer, Class consumer) {
  const bool to_fpu = consumer == Class::fpu || consumer == Class::imul;
  switch (producer) {
    case Class::ialu:
      return to_fpu ? 2 : 1;  // IALU -> FPU: 1
    case Class::load:
      return to_fpu ? 3 : 2;  // LDR -> IALU/STR/LDR: 1, LDR -> FPU: 2
    case Class::load_narrow:
      return 3;  // LDRB/LDRH: 2
    case Class::fpu:
    case Class::imul:
      return consumer == Class::store ? 4 : 5;  // FPU -> STORE: 2 + rounding, FPU -> FPU/IALU: 3 + rounding
    default:
      return 1;  // routines and calls: their occupancy covers it
  }
}

}  // namespace hopsim_pass::ecore
