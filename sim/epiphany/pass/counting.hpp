// Counted compute (compute.model = counted): the instructions of device
// code, counted by class in each basic block and priced in eCore cycles by
// an in-order dual-issue schedule of the block (ecore_costs.hpp).
//
// Contract (device_abi.h): every execution of a block adds its cycles and
// instructions to two per-call accumulators (registers once optimised);
// a conditional branch adds the taken-branch penalty on the side that is
// not the fall-through; before every call and every return the
// accumulators are added to the core's 64-bit words at
// HOPSIM_DEV_COUNT_CYCLES_SLOT and HOPSIM_DEV_COUNT_INSNS_SLOT, which the
// simulated runtime drains at each of its entries. Calls into the runtime
// (e-lib, hopsim's own functions, libc) are not counted: the runtime times
// them. Only the program's own instructions are counted, not the code the
// pass adds.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ecore_costs.hpp"
#include "hopsim/device_abi.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

namespace hopsim_pass {

// What one block of the original program costs.
struct BlockCost {
  std::uint64_t cycles = 0;        // issue schedule, at least the longest recurrence of a one-block loop
  std::uint64_t instructions = 0;  // eCore instructions (vector lanes counted one by one)
  std::array<std::uint64_t, ecore::kClasses> by_class{};
};

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
      branches_.push_back({br, br->getSuccessor(0) == next ? 0u : ecore::kTakenBranchPenalty,
                           br->getSuccessor(1) == next ? 0u : ecore::kTakenBranchPenalty});
    }
  }

  const std::vector<std::pair<llvm::BasicBlock*, BlockCost>>& blocks() const { return blocks_; }

  // Adds the counting code to f (after the pass's rewriting): the original
  // blocks still start where they started, and the original branches are
  // still the instructions that end them.
  void instrument(llvm::Function& f, const std::function<llvm::Value*()>& core_base) {
    if (blocks_.empty()) return;
    llvm::LLVMContext& c = f.getContext();
    auto* i64 = llvm::Type::getInt64Ty(c);
    auto* i8 = llvm::Type::getInt8Ty(c);
    llvm::IRBuilder<> eb(&*f.getEntryBlock().getFirstInsertionPt());
    llvm::AllocaInst* cyc = eb.CreateAlloca(i64, nullptr, "hopsim.cycles");
    llvm::AllocaInst* ins = eb.CreateAlloca(i64, nullptr, "hopsim.insns");
    eb.CreateStore(llvm::ConstantInt::get(i64, 0), cyc);
    llvm::Instruction* init = eb.CreateStore(llvm::ConstantInt::get(i64, 0), ins);
    auto add = [&](llvm::IRBuilder<>& b, llvm::AllocaInst* acc, llvm::Value* v) {
      b.CreateStore(b.CreateAdd(b.CreateLoad(i64, acc), v), acc);
    };
    for (auto& [bb, cost] : blocks_) {
      if (cost.cycles == 0 && cost.instructions == 0) continue;
      llvm::IRBuilder<> b(&*bb->getFirstInsertionPt());
      if (bb == &f.getEntryBlock()) b.SetInsertPoint(init->getParent(), std::next(init->getIterator()));
      add(b, cyc, llvm::ConstantInt::get(i64, cost.cycles));
      add(b, ins, llvm::ConstantInt::get(i64, cost.instructions));
    }
    for (const Branch& br : branches_) {
      if (br.taken_then == br.taken_else) {
        if (br.taken_then == 0) continue;
        llvm::IRBuilder<> b(br.inst);
        add(b, cyc, llvm::ConstantInt::get(i64, br.taken_then));
        continue;
      }
      llvm::IRBuilder<> b(br.inst);
      add(b, cyc,
          b.CreateSelect(br.inst->getCondition(), llvm::ConstantInt::get(i64, br.taken_then),
                         llvm::ConstantInt::get(i64, br.taken_else)));
    }
    // Paid into the core's words before each call and return.
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
      llvm::Value* base = core_base();
      for (auto [acc, slot] :
           {std::pair{cyc, HOPSIM_DEV_COUNT_CYCLES_SLOT}, std::pair{ins, HOPSIM_DEV_COUNT_INSNS_SLOT}}) {
        llvm::Value* word = b.CreateGEP(i8, base, llvm::ConstantInt::get(i64, slot));
        b.CreateStore(b.CreateAdd(b.CreateLoad(i64, word), b.CreateLoad(i64, acc)), word);
        b.CreateStore(llvm::ConstantInt::get(i64, 0), acc);
      }
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
      for (std::size_t k = 0; k < ecore::kClasses; ++k)
        std::fprintf(out, "\t%s=%llu", ecore::kClassNames[k], static_cast<unsigned long long>(cost.by_class[k]));
      std::fprintf(out, "\n");
    }
  }

 private:
  struct Branch {
    llvm::BranchInst* inst;
    unsigned taken_then, taken_else;
  };

  // The in-order schedule of one block: each instruction issues no earlier
  // than the one before it and than its operands from this block are ready;
  // an integer/load-store and a floating-point instruction may share a cycle
  // (dual issue). A block that is a loop by itself lasts at least as long
  // as the longest chain an iteration hands to the next (its phis).
  BlockCost schedule(llvm::BasicBlock& bb) {
    BlockCost cost;
    // Each value of this block: the cycle its producer issued and the
    // producer's class (values with no instruction: their operands').
    std::map<const llvm::Value*, Issued> issued;
    std::uint64_t cycle = 0, end = 0;
    bool int_used = false, fpu_used = false;
    for (llvm::Instruction& i : bb) {
      const ecore::Op op = classify(i);
      if (op.count == 0) {
        if (!llvm::isa<llvm::PHINode>(i)) {
          if (const auto src = latest_operand(i, issued)) issued[&i] = *src;
        }
        continue;
      }
      cost.instructions += op.count;
      cost.by_class[static_cast<std::size_t>(op.cls)] += op.count;
      const ecore::ClassCost& cc = ecore::kCosts[static_cast<std::size_t>(op.cls)];
      const std::uint64_t at = std::max(cycle, operands_ready(i, op.cls, issued));
      if (at > cycle) {
        cycle = at;
        int_used = fpu_used = false;
      }
      // Each of the op's instructions takes its slot in turn; `both` takes
      // the cycle.
      std::uint64_t first = cycle;
      for (unsigned k = 0; k < op.count; ++k) {
        if (cc.unit == ecore::Unit::both) {
          if (int_used || fpu_used) ++cycle;
          int_used = fpu_used = true;
        } else {
          bool& used = cc.unit == ecore::Unit::fpu ? fpu_used : int_used;
          if (used) {
            ++cycle;
            int_used = fpu_used = false;
          }
          used = true;
        }
        if (k == 0) first = cycle;
        end = std::max(end, cycle + cc.occupancy);
        if (cc.occupancy > 1) {
          cycle += cc.occupancy - 1;
          int_used = fpu_used = true;
        }
      }
      issued[&i] = {cc.occupancy > 1 ? cycle : first, op.cls};
    }
    cost.cycles = end;
    // A block that branches to itself: the next iteration's phis wait for
    // the values this one hands over. The refetch after the taken branch
    // back (charged on the edge) overlaps that wait: an iteration lasts the
    // longer of the schedule plus the refetch and the longest such chain.
    const auto* br = llvm::dyn_cast<llvm::BranchInst>(bb.getTerminator());
    const unsigned refetch = br && br->getParent()->getNextNode() != &bb ? ecore::kTakenBranchPenalty : 0;
    for (llvm::BasicBlock* s : llvm::successors(&bb)) {
      if (s != &bb) continue;
      for (llvm::PHINode& phi : bb.phis()) {
        const llvm::Value* v = phi.getIncomingValueForBlock(&bb);
        const auto it = issued.find(v);
        if (it == issued.end()) continue;
        // The phi's users decide how soon they may take it; the class of the
        // first one stands for them.
        ecore::Class user = ecore::Class::ialu;
        for (const llvm::User* u : phi.users())
          if (const auto* ui = llvm::dyn_cast<llvm::Instruction>(u); ui && ui->getParent() == &bb) {
            user = classify(*ui).cls;
            break;
          }
        const std::uint64_t chain = it->second.cycle + ecore::latency(it->second.cls, user);
        cost.cycles = std::max(cost.cycles, chain > refetch ? chain - refetch : 0);
      }
    }
    return cost;
  }

  struct Issued {
    std::uint64_t cycle;
    ecore::Class cls;
  };

  static std::uint64_t operands_ready(const llvm::Instruction& i, ecore::Class consumer,
                                      const std::map<const llvm::Value*, Issued>& issued) {
    std::uint64_t t = 0;
    for (const llvm::Use& u : i.operands())
      if (auto it = issued.find(u.get()); it != issued.end())
        t = std::max(t, it->second.cycle + ecore::latency(it->second.cls, consumer));
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

  // Memory instructions: one per doubleword (the eCore's widest access).
  unsigned accesses(llvm::Type* t) const {
    const auto bytes = dl_.getTypeStoreSize(t).getFixedValue();
    return static_cast<unsigned>(std::max<std::uint64_t>(1, (bytes + 7) / 8));
  }

  static bool is_double(const llvm::Type* t) { return t->getScalarType()->isDoubleTy(); }

  ecore::Op classify(const llvm::Instruction& i) const {
    using ecore::Class;
    using llvm::Instruction;
    switch (i.getOpcode()) {
      case Instruction::Load:
        if (dl_.getTypeStoreSize(i.getType()).getFixedValue() < 4) return {Class::load_narrow, 1};
        return {Class::load, accesses(i.getType())};
      case Instruction::Store:
        return {Class::store, accesses(llvm::cast<llvm::StoreInst>(i).getValueOperand()->getType())};
      case Instruction::AtomicRMW:
      case Instruction::AtomicCmpXchg:
        return {Class::load, 1};
      case Instruction::GetElementPtr: {
        // Register-offset addressing takes one index into a load or store.
        auto& g = llvm::cast<llvm::GetElementPtrInst>(i);
        unsigned variable = 0;
        for (const llvm::Use& u : g.indices()) variable += llvm::isa<llvm::Constant>(u.get()) ? 0 : 1;
        bool feeds_memory = !g.user_empty();
        for (const llvm::User* u : g.users())
          feeds_memory = feeds_memory && (llvm::isa<llvm::LoadInst>(u) || llvm::isa<llvm::StoreInst>(u));
        if (feeds_memory && variable <= 1) return {Class::ialu, 0};
        return {Class::ialu, variable};
      }
      case Instruction::Br: {
        // An unconditional jump to the next block is not there at all.
        auto& br = llvm::cast<llvm::BranchInst>(i);
        if (!br.isConditional() && br.getSuccessor(0) == i.getParent()->getNextNode()) return {Class::branch, 0};
        return {Class::branch, 1};
      }
      case Instruction::Switch:
        return {Class::branch, 2 * static_cast<unsigned>(llvm::cast<llvm::SwitchInst>(i).getNumCases())};
      case Instruction::Ret:
      case Instruction::Call:
      case Instruction::Invoke:
        return call_op(i);
      default:
        return value_op(i);
    }
  }

  // Arithmetic, comparisons and conversions.
  ecore::Op value_op(const llvm::Instruction& i) const {
    using ecore::Class;
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
        return {Class::ialu, lanes(i.getType())};
      case Instruction::Mul:
        return {Class::imul, lanes(i.getType())};
      case Instruction::UDiv:
      case Instruction::SDiv:
      case Instruction::URem:
      case Instruction::SRem:
        return {Class::idiv, lanes(i.getType())};
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
        return {is_double(t) ? Class::fp64 : Class::fpu, lanes(i.getType())};
      }
      case Instruction::FDiv:
      case Instruction::FRem:
        return {is_double(i.getType()) ? Class::fp64div : Class::fdiv, lanes(i.getType())};
      case Instruction::FPExt:
      case Instruction::FPTrunc:
        return {Class::fp64, lanes(i.getType())};
      case Instruction::ZExt:
      case Instruction::SExt:
        // Folded into the load that produced the narrow value.
        if (llvm::isa<llvm::LoadInst>(i.getOperand(0))) return {Class::ialu, 0};
        return {Class::ialu, lanes(i.getType())};
      default:
        // phi, casts between pointers and integers, bitcasts, trunc, vector
        // element moves, unreachable: no instruction of their own.
        return {Class::ialu, 0};
    }
  }

  ecore::Op call_op(const llvm::Instruction& i) const {
    using ecore::Class;
    if (llvm::isa<llvm::ReturnInst>(i)) return {Class::call, 1};
    auto& cb = llvm::cast<llvm::CallBase>(i);
    if (cb.isInlineAsm()) return {Class::ialu, 1};
    const llvm::Function* f = cb.getCalledFunction();
    if (!f) return {Class::call, 1};
    if (f->isIntrinsic()) {
      switch (f->getIntrinsicID()) {
        case llvm::Intrinsic::fma:
        case llvm::Intrinsic::fmuladd:
        case llvm::Intrinsic::fabs:
        case llvm::Intrinsic::minnum:
        case llvm::Intrinsic::maxnum:
          return {is_double(cb.getType()) ? Class::fp64 : Class::fpu, lanes(cb.getType())};
        case llvm::Intrinsic::sqrt:
          return {is_double(cb.getType()) ? Class::fp64div : Class::fdiv, lanes(cb.getType())};
        case llvm::Intrinsic::smax:
        case llvm::Intrinsic::smin:
        case llvm::Intrinsic::umax:
        case llvm::Intrinsic::umin:
        case llvm::Intrinsic::abs:
          return {Class::ialu, 2 * lanes(cb.getType())};
        case llvm::Intrinsic::vector_reduce_add:
        case llvm::Intrinsic::vector_reduce_or:
        case llvm::Intrinsic::vector_reduce_and:
        case llvm::Intrinsic::vector_reduce_xor:
          return {Class::ialu, lanes(cb.getArgOperand(0)->getType()) - 1};
        case llvm::Intrinsic::vector_reduce_fadd:
          return {Class::fpu, lanes(cb.getArgOperand(cb.arg_size() - 1)->getType())};
        default:
          return {Class::ialu, 0};
      }
    }
    // Calls of the program's own functions are a branch and link; the
    // runtime's (e-lib, libc, hopsim) are timed by the runtime.
    if (f->isDeclaration()) return {Class::ialu, 0};
    return {Class::call, 1};
  }

  const llvm::DataLayout& dl_;
  std::vector<std::pair<llvm::BasicBlock*, BlockCost>> blocks_;
  std::vector<Branch> branches_;
  std::map<const llvm::BasicBlock*, const llvm::BasicBlock*> layout_next_;
};

}  // namespace hopsim_pass
