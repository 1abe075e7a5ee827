// Counted compute (compute.model = counted): the instructions of a
// program's code, counted by kind in each basic block and priced in cycles
// of the device's core by a schedule of the block under the core's cost
// table (each family's pass instantiates the counter with its own; see
// docs/architecture.md).
//
// Contract: every execution of a block adds its cycles and instructions
// (and, where the table counts the FPU apart, its FPU instructions) to
// per-call accumulators (registers once optimised); a conditional branch
// adds the taken-branch penalty on the side that is not the fall-through;
// before every call and every return the pass that uses the counter pays
// the accumulators to the runtime (`instrument`'s `pay`) and they restart
// at zero. Calls into the runtime (device APIs, hopsim's own functions,
// libc) are not counted: the runtime times them. Only the program's own
// instructions are counted, not the code the passes add.
//
// A cost table is a struct with:
//   kCosts[kind]      the issue unit and occupancy of each Kind;
//   latency(p, c)     cycles from the issue of a p until a dependent c may issue;
//   kTakenBranchPenalty  cycles a taken branch adds;
//   kDualIssue        an integer and an FPU instruction may share a cycle;
//   kCompilerScheduled   instructions of a block issue in dependence order
//                     (a compiler's list schedule for an in-order core), not
//                     in the IR's order;
//   kCountFpu         a third accumulator counts FPU-unit instructions.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

namespace hopsim_pass {

// What the IR says an instruction is; each cost table prices the kinds.
enum class Kind { ialu, imul, idiv, load, load_narrow, store, fpu, fdiv, fp64, fp64div, branch, call, count_ };
constexpr std::size_t kKinds = static_cast<std::size_t>(Kind::count_);
inline constexpr std::array<const char*, kKinds> kKindNames = {
    "ialu", "imul", "idiv", "load", "load_narrow", "store", "fpu", "fdiv", "fp64", "fp64div", "branch", "call"};

// Issue slots: integer (integer, load/store, branch) or FPU; `both`: the
// instruction takes the whole cycle (a software routine, or any
// instruction on a core that issues one per cycle).
enum class Unit { integer, fpu, both };

struct KindCost {
  Unit unit;
  unsigned occupancy;  // cycles it holds issue (1, or a routine's length)
};

struct Op {
  Kind cls;
  unsigned count;  // instructions of the core (0: none of its own)
};

// The per-call accumulators `instrument` hands to `pay`.
struct Accumulators {
  llvm::AllocaInst* cycles;
  llvm::AllocaInst* instructions;
  llvm::AllocaInst* fpu;  // null unless the table counts the FPU apart
};

// What one block of the original program costs.
struct BlockCost {
  std::uint64_t cycles = 0;        // issue schedule, at least the longest recurrence of a one-block loop
  std::uint64_t instructions = 0;  // eCore instructions (vector lanes counted one by one)
  std::array<std::uint64_t, kKinds> by_class{};
  std::uint64_t fpu = 0;  // instructions issued to the FPU
};

template <class Costs>
class InstructionCounter {
 public:
  explicit InstructionCounter(const llvm::DataLayout& dl) : dl_(dl) {}

  // Prices every block of f as written (call before the pass rewrites it).
  void price(llvm::Function& f) {
    blocks_.clear();
    branches_.clear();
    llvm::BasicBlock* prev = nullptr;
    for (llvm::BasicBlock& bb : f) {
      blocks_.emplace_back(&bb, schedule(bb));
      if (prev) layout_next_[prev] = &bb;
      prev = &bb;
    }
    for (llvm::BasicBlock& bb : f) {
      auto* br = llvm::dyn_cast<llvm::BranchInst>(bb.getTerminator());
      if (!br || !br->isConditional()) continue;
      const llvm::BasicBlock* next = layout_next_[&bb];
      branches_.push_back({br, br->getSuccessor(0) == next ? 0u : Costs::kTakenBranchPenalty,
                           br->getSuccessor(1) == next ? 0u : Costs::kTakenBranchPenalty});
    }
  }

  const std::vector<std::pair<llvm::BasicBlock*, BlockCost>>& blocks() const { return blocks_; }

  // Adds the counting code to f (after a pass's rewriting): the original
  // blocks still start where they started, and the original branches are
  // still the instructions that end them. Before each call and return,
  // `pay(builder, accumulators)` hands the sums to the runtime; they are
  // then zeroed.
  void instrument(llvm::Function& f, const std::function<void(llvm::IRBuilder<>&, const Accumulators&)>& pay) {
    if (blocks_.empty()) return;
    llvm::LLVMContext& c = f.getContext();
    auto* i64 = llvm::Type::getInt64Ty(c);
    llvm::IRBuilder<> eb(&*f.getEntryBlock().getFirstInsertionPt());
    Accumulators acc{eb.CreateAlloca(i64, nullptr, "hopsim.cycles"), eb.CreateAlloca(i64, nullptr, "hopsim.insns"),
                     Costs::kCountFpu ? eb.CreateAlloca(i64, nullptr, "hopsim.fpu") : nullptr};
    llvm::Instruction* init = nullptr;
    for (llvm::AllocaInst* a : {acc.cycles, acc.instructions, acc.fpu})
      if (a) init = eb.CreateStore(llvm::ConstantInt::get(i64, 0), a);
    auto add = [&](llvm::IRBuilder<>& b, llvm::AllocaInst* to, llvm::Value* v) {
      b.CreateStore(b.CreateAdd(b.CreateLoad(i64, to), v), to);
    };
    for (auto& [bb, cost] : blocks_) {
      if (cost.cycles == 0 && cost.instructions == 0) continue;
      llvm::IRBuilder<> b(&*bb->getFirstInsertionPt());
      if (bb == &f.getEntryBlock()) b.SetInsertPoint(init->getParent(), std::next(init->getIterator()));
      add(b, acc.cycles, llvm::ConstantInt::get(i64, cost.cycles));
      add(b, acc.instructions, llvm::ConstantInt::get(i64, cost.instructions));
      if (acc.fpu && cost.fpu) add(b, acc.fpu, llvm::ConstantInt::get(i64, cost.fpu));
    }
    for (const Branch& br : branches_) {
      if (br.taken_then == br.taken_else) {
        if (br.taken_then == 0) continue;
        llvm::IRBuilder<> b(br.inst);
        add(b, acc.cycles, llvm::ConstantInt::get(i64, br.taken_then));
        continue;
      }
      llvm::IRBuilder<> b(br.inst);
      add(b, acc.cycles,
          b.CreateSelect(br.inst->getCondition(), llvm::ConstantInt::get(i64, br.taken_then),
                         llvm::ConstantInt::get(i64, br.taken_else)));
    }
    std::vector<llvm::Instruction*> points;
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb) {
        if (llvm::isa<llvm::ReturnInst>(i)) {
          points.push_back(&i);
        } else if (auto* cb = llvm::dyn_cast<llvm::CallBase>(&i)) {
          const llvm::Function* callee = cb->getCalledFunction();
          if (callee && callee->isIntrinsic()) continue;
          if (cb->isInlineAsm()) continue;
          points.push_back(&i);
        }
      }
    for (llvm::Instruction* p : points) {
      llvm::IRBuilder<> b(p);
      pay(b, acc);
      for (llvm::AllocaInst* a : {acc.cycles, acc.instructions, acc.fpu})
        if (a) b.CreateStore(llvm::ConstantInt::get(i64, 0), a);
    }
  }

  // HOPSIM_COUNT_REPORT=FILE: one line per block (function, block, cycles,
  // instructions, then the count of each class), for tests and users.
  void report(const llvm::Function& f, std::FILE* out) const {
    int n = 0;
    for (const auto& [bb, cost] : blocks_) {
      std::fprintf(out, "%s\t%d\t%s\t%llu\t%llu", f.getName().str().c_str(), n++,
                   bb->hasName() ? bb->getName().str().c_str() : "-", static_cast<unsigned long long>(cost.cycles),
                   static_cast<unsigned long long>(cost.instructions));
      for (std::size_t k = 0; k < kKinds; ++k)
        std::fprintf(out, "\t%s=%llu", kKindNames[k], static_cast<unsigned long long>(cost.by_class[k]));
      std::fprintf(out, "\n");
    }
  }

 private:
  struct Branch {
    llvm::BranchInst* inst;
    unsigned taken_then, taken_else;
  };

  struct Issued {
    std::uint64_t cycle;
    Kind cls;
  };

  // The schedule of one block: each instruction issues once its operands
  // from this block are ready and its issue slot is free; in the IR's
  // order (no earlier than the instruction before it), or, where the
  // table says the compiler schedules, at the first free cycle. An
  // integer/load-store and a floating-point instruction may share a cycle
  // where the core dual-issues. A block that is a loop by itself lasts at
  // least as long as the longest chain an iteration hands to the next (its
  // phis).
  BlockCost schedule(llvm::BasicBlock& bb) {
    BlockCost cost;
    // Each value of this block: the cycle its producer issued and the
    // producer's class (values with no instruction: their operands').
    std::map<const llvm::Value*, Issued> issued;
    Slots slots;
    for (llvm::Instruction& i : bb) {
      const Op op = classify(i);
      if (op.count == 0) {
        if (!llvm::isa<llvm::PHINode>(i)) {
          if (const auto src = latest_operand(i, issued)) issued[&i] = *src;
        }
        continue;
      }
      cost.instructions += op.count;
      cost.by_class[static_cast<std::size_t>(op.cls)] += op.count;
      const KindCost& cc = Costs::kCosts[static_cast<std::size_t>(op.cls)];
      if (cc.unit == Unit::fpu) cost.fpu += op.count;
      std::uint64_t ready = operands_ready(i, op.cls, issued);
      // The block's branch issues after everything else in it.
      if (i.isTerminator()) ready = std::max(ready, slots.end);
      issued[&i] = {Costs::kCompilerScheduled ? slots.place(ready, cc, op.count) : slots.next(ready, cc, op.count),
                    op.cls};
    }
    cost.cycles = slots.end;
    recurrence(bb, issued, cost);
    return cost;
  }

  // The issue slots of one block's schedule.
  struct Slots {
    std::uint64_t cycle = 0, end = 0;  // in order: the current cycle; the first cycle after the last issue
    bool int_used = false, fpu_used = false;
    std::map<std::uint64_t, unsigned> used;  // compiler-scheduled: bits 1 integer, 2 FPU per cycle

    static unsigned mask(const KindCost& cc) {
      if (!Costs::kDualIssue || cc.unit == Unit::both) return 3;
      return cc.unit == Unit::fpu ? 2 : 1;
    }
    // In order: after the previous instruction. Returns the cycle a
    // dependent counts from.
    std::uint64_t next(std::uint64_t ready, const KindCost& cc, unsigned count) {
      if (ready > cycle) {
        cycle = ready;
        int_used = fpu_used = false;
      }
      const unsigned m = mask(cc);
      std::uint64_t first = cycle;
      for (unsigned k = 0; k < count; ++k) {
        const bool busy = ((m & 1) && int_used) || ((m & 2) && fpu_used);
        if (busy) {
          ++cycle;
          int_used = fpu_used = false;
        }
        int_used = int_used || (m & 1);
        fpu_used = fpu_used || (m & 2);
        if (k == 0) first = cycle;
        end = std::max(end, cycle + cc.occupancy);
        if (cc.occupancy > 1) {
          cycle += cc.occupancy - 1;
          int_used = fpu_used = true;
        }
      }
      return cc.occupancy > 1 ? cycle : first;
    }
    // Compiler-scheduled: each instruction at the first cycle from `ready`
    // whose slot is free (for `occupancy` cycles in a row).
    std::uint64_t place(std::uint64_t ready, const KindCost& cc, unsigned count) {
      const unsigned m = mask(cc);
      std::uint64_t last = ready;
      for (unsigned k = 0; k < count; ++k) {
        std::uint64_t c = ready;
        for (;;) {
          unsigned j = 0;
          while (j < cc.occupancy && (used[c + j] & m) == 0) ++j;
          if (j == cc.occupancy) break;
          c += j + 1;
        }
        for (unsigned j = 0; j < cc.occupancy; ++j) used[c + j] |= cc.occupancy > 1 ? 3u : m;
        end = std::max(end, c + cc.occupancy);
        last = std::max(last, c + cc.occupancy - 1);
      }
      return last;
    }
  };

  // A block that branches to itself: the next iteration's phis wait for
  // the values this one hands over. An iteration lasts at least as long as
  // each such chain, from the producer's issue to the cycle its consumer
  // issues at in the next iteration. The refetch after the taken branch
  // back (charged on the edge) overlaps that wait.
  void recurrence(llvm::BasicBlock& bb, const std::map<const llvm::Value*, Issued>& issued, BlockCost& cost) const {
    const auto* br = llvm::dyn_cast<llvm::BranchInst>(bb.getTerminator());
    const unsigned refetch = br && br->getParent()->getNextNode() != &bb ? Costs::kTakenBranchPenalty : 0;
    for (llvm::BasicBlock* s : llvm::successors(&bb)) {
      if (s != &bb) continue;
      for (llvm::PHINode& phi : bb.phis()) {
        const auto it = issued.find(phi.getIncomingValueForBlock(&bb));
        if (it == issued.end()) continue;
        for (const llvm::User* u : phi.users()) {
          const auto* ui = llvm::dyn_cast<llvm::Instruction>(u);
          if (!ui || ui->getParent() != &bb) continue;
          const auto at = issued.find(ui);
          if (at == issued.end() || classify(*ui).count == 0) continue;
          const std::uint64_t chain = it->second.cycle + Costs::latency(it->second.cls, at->second.cls);
          const std::uint64_t need = chain > at->second.cycle + refetch ? chain - at->second.cycle - refetch : 0;
          cost.cycles = std::max(cost.cycles, need);
        }
      }
    }
  }

  static std::uint64_t operands_ready(const llvm::Instruction& i, Kind consumer,
                                      const std::map<const llvm::Value*, Issued>& issued) {
    std::uint64_t t = 0;
    for (const llvm::Use& u : i.operands())
      if (auto it = issued.find(u.get()); it != issued.end())
        t = std::max(t, it->second.cycle + Costs::latency(it->second.cls, consumer));
    return t;
  }

  // A value with no instruction of its own (a cast, a folded address) is
  // ready when its latest operand is.
  static std::optional<Issued> latest_operand(const llvm::Instruction& i,
                                              const std::map<const llvm::Value*, Issued>& issued) {
    std::optional<Issued> out;
    for (const llvm::Use& u : i.operands())
      if (auto it = issued.find(u.get()); it != issued.end())
        if (!out || it->second.cycle > out->cycle) out = it->second;
    return out;
  }

  unsigned lanes(const llvm::Type* t) const {
    if (const auto* v = llvm::dyn_cast<llvm::FixedVectorType>(t)) return v->getNumElements();
    return 1;
  }

  // Memory instructions: one per doubleword (the eCore's widest access, the A2's
  // widest scalar one).
  unsigned accesses(llvm::Type* t) const {
    const auto bytes = dl_.getTypeStoreSize(t).getFixedValue();
    return static_cast<unsigned>(std::max<std::uint64_t>(1, (bytes + 7) / 8));
  }

  static bool is_double(const llvm::Type* t) { return t->getScalarType()->isDoubleTy(); }

  Op classify(const llvm::Instruction& i) const {
    using llvm::Instruction;
    switch (i.getOpcode()) {
      case Instruction::Load:
        if (dl_.getTypeStoreSize(i.getType()).getFixedValue() < 4) return {Kind::load_narrow, 1};
        return {Kind::load, accesses(i.getType())};
      case Instruction::Store:
        return {Kind::store, accesses(llvm::cast<llvm::StoreInst>(i).getValueOperand()->getType())};
      case Instruction::AtomicRMW:
      case Instruction::AtomicCmpXchg:
        return {Kind::load, 1};
      case Instruction::GetElementPtr: {
        // Register-offset addressing takes one index into a load or store.
        auto& g = llvm::cast<llvm::GetElementPtrInst>(i);
        unsigned variable = 0;
        for (const llvm::Use& u : g.indices()) variable += llvm::isa<llvm::Constant>(u.get()) ? 0 : 1;
        bool feeds_memory = !g.user_empty();
        for (const llvm::User* u : g.users())
          feeds_memory = feeds_memory && (llvm::isa<llvm::LoadInst>(u) || llvm::isa<llvm::StoreInst>(u));
        if (feeds_memory && variable <= 1) return {Kind::ialu, 0};
        return {Kind::ialu, variable};
      }
      case Instruction::Br: {
        // An unconditional jump to the next block is not there at all.
        auto& br = llvm::cast<llvm::BranchInst>(i);
        if (!br.isConditional() && br.getSuccessor(0) == i.getParent()->getNextNode()) return {Kind::branch, 0};
        return {Kind::branch, 1};
      }
      case Instruction::Switch:
        return {Kind::branch, 2 * static_cast<unsigned>(llvm::cast<llvm::SwitchInst>(i).getNumCases())};
      case Instruction::Ret:
      case Instruction::Call:
      case Instruction::Invoke:
        return call_op(i);
      default:
        return value_op(i);
    }
  }

  // Arithmetic, comparisons and conversions.
  Op value_op(const llvm::Instruction& i) const {
    using llvm::Instruction;
    switch (i.getOpcode()) {
      case Instruction::Add:
      case Instruction::Sub:
      case Instruction::And:
      case Instruction::Or:
      case Instruction::Xor:
      case Instruction::Shl:
      case Instruction::LShr:
      case Instruction::AShr:
      case Instruction::ICmp:
      case Instruction::Select:
        return {Kind::ialu, lanes(i.getType())};
      case Instruction::Mul:
        return {Kind::imul, lanes(i.getType())};
      case Instruction::UDiv:
      case Instruction::SDiv:
      case Instruction::URem:
      case Instruction::SRem:
        return {Kind::idiv, lanes(i.getType())};
      case Instruction::FAdd:
      case Instruction::FSub:
      case Instruction::FMul:
      case Instruction::FNeg:
      case Instruction::FCmp:
      case Instruction::FPToSI:
      case Instruction::FPToUI:
      case Instruction::SIToFP:
      case Instruction::UIToFP: {
        const llvm::Type* t = i.getOpcode() == Instruction::FCmp || i.getOpcode() == Instruction::FPToSI ||
                                      i.getOpcode() == Instruction::FPToUI
                                  ? i.getOperand(0)->getType()
                                  : i.getType();
        return {is_double(t) ? Kind::fp64 : Kind::fpu, lanes(i.getType())};
      }
      case Instruction::FDiv:
      case Instruction::FRem:
        return {is_double(i.getType()) ? Kind::fp64div : Kind::fdiv, lanes(i.getType())};
      case Instruction::FPExt:
      case Instruction::FPTrunc:
        return {Kind::fp64, lanes(i.getType())};
      case Instruction::ZExt:
      case Instruction::SExt:
        // Folded into the load that produced the narrow value.
        if (llvm::isa<llvm::LoadInst>(i.getOperand(0))) return {Kind::ialu, 0};
        return {Kind::ialu, lanes(i.getType())};
      default:
        // phi, casts between pointers and integers, bitcasts, trunc, vector
        // element moves, unreachable: no instruction of their own.
        return {Kind::ialu, 0};
    }
  }

  Op call_op(const llvm::Instruction& i) const {
    if (llvm::isa<llvm::ReturnInst>(i)) return {Kind::call, 1};
    auto& cb = llvm::cast<llvm::CallBase>(i);
    if (cb.isInlineAsm()) return {Kind::ialu, 1};
    const llvm::Function* f = cb.getCalledFunction();
    if (!f) return {Kind::call, 1};
    if (f->isIntrinsic()) {
      switch (f->getIntrinsicID()) {
        case llvm::Intrinsic::fma:
        case llvm::Intrinsic::fmuladd:
        case llvm::Intrinsic::fabs:
        case llvm::Intrinsic::minnum:
        case llvm::Intrinsic::maxnum:
          return {is_double(cb.getType()) ? Kind::fp64 : Kind::fpu, lanes(cb.getType())};
        case llvm::Intrinsic::sqrt:
          return {is_double(cb.getType()) ? Kind::fp64div : Kind::fdiv, lanes(cb.getType())};
        case llvm::Intrinsic::smax:
        case llvm::Intrinsic::smin:
        case llvm::Intrinsic::umax:
        case llvm::Intrinsic::umin:
        case llvm::Intrinsic::abs:
          return {Kind::ialu, 2 * lanes(cb.getType())};
        case llvm::Intrinsic::vector_reduce_add:
        case llvm::Intrinsic::vector_reduce_or:
        case llvm::Intrinsic::vector_reduce_and:
        case llvm::Intrinsic::vector_reduce_xor:
          return {Kind::ialu, lanes(cb.getArgOperand(0)->getType()) - 1};
        case llvm::Intrinsic::vector_reduce_fadd:
          return {Kind::fpu, lanes(cb.getArgOperand(cb.arg_size() - 1)->getType())};
        default:
          return {Kind::ialu, 0};
      }
    }
    // Calls of the program's own functions are a branch and link; the
    // runtime's (e-lib, libc, hopsim) are timed by the runtime.
    if (f->isDeclaration()) return {Kind::ialu, 0};
    return {Kind::call, 1};
  }

  const llvm::DataLayout& dl_;
  std::vector<std::pair<llvm::BasicBlock*, BlockCost>> blocks_;
  std::vector<Branch> branches_;
  std::map<const llvm::BasicBlock*, const llvm::BasicBlock*> layout_next_;
};

}  // namespace hopsim_pass
