// hopsim-bgq-poll: the LLVM pass hopsim-mpicc runs on a BG/Q program's
// code. Every volatile or atomic load of 1, 2, 4 or 8 bytes becomes a call
// of __hopsim_bgq_load<N>(address, ordering) (sim/bgq/src/machine.cpp),
// which loads the value and, when a rank reads memory the MU writes and
// finds it unchanged, counts one iteration of a polling loop: a bare
// `while (counter > 0);` then makes progress in a simulated run, where
// every rank is a fiber that must yield for the MU's deliveries to happen.
// Other loads and stores are untouched (ranks' memory is host memory).
//
// It also counts the program's instructions for compute.model = counted
// (sim/core/pass/counting.hpp, priced by the A2's table in a2_costs.hpp):
// before every call and return a function pays its per-call sums with
// __hopsim_bgq_count(cycles, instructions, fpu_instructions). With
// HOPSIM_COUNT_REPORT=FILE it appends each block's count to FILE.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "a2_costs.hpp"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

namespace {

struct PollPass : PassInfoMixin<PollPass> {
  PreservedAnalyses run(Module& m, ModuleAnalysisManager&) {
    hopsim_pass::InstructionCounter<hopsim_pass::a2::Costs> counter(m.getDataLayout());
    const char* path = std::getenv("HOPSIM_COUNT_REPORT");
    std::FILE* report = path && *path ? std::fopen(path, "a") : nullptr;
    auto* i64 = Type::getInt64Ty(m.getContext());
    const FunctionCallee pay =
        m.getOrInsertFunction("__hopsim_bgq_count", Type::getVoidTy(m.getContext()), i64, i64, i64);
    for (Function& f : m) {
      if (f.isDeclaration()) continue;
      // Priced as the program wrote it (a polled load counts as a load),
      // then rewritten, then instrumented: the load hooks are runtime
      // calls, so a polling loop pays each iteration's count before it polls.
      counter.price(f);
      if (report) counter.report(f, report);
      rewrite_loads(f);
      counter.instrument(f, [&](IRBuilder<>& b, const hopsim_pass::Accumulators& acc) {
        b.CreateCall(pay,
                     {b.CreateLoad(i64, acc.cycles), b.CreateLoad(i64, acc.instructions), b.CreateLoad(i64, acc.fpu)});
      });
    }
    if (report) std::fclose(report);
    return PreservedAnalyses::none();
  }

  static void rewrite_loads(Function& f) {
    Module& m = *f.getParent();
    const DataLayout& dl = m.getDataLayout();
    LLVMContext& c = m.getContext();
    auto* ptr = PointerType::getUnqual(c);
    auto* i32 = Type::getInt32Ty(c);
    SmallVector<LoadInst*, 64> loads;
    for (BasicBlock& bb : f)
      for (Instruction& i : bb)
        if (auto* l = dyn_cast<LoadInst>(&i); l && (l->isVolatile() || l->isAtomic())) {
          Type* t = l->getType();
          const auto bits = dl.getTypeSizeInBits(t).getFixedValue();
          if ((t->isIntegerTy() || t->isPointerTy() || t->isFloatingPointTy()) &&
              (bits == 8 || bits == 16 || bits == 32 || bits == 64))
            loads.push_back(l);
        }
    for (LoadInst* l : loads) {
      Type* t = l->getType();
      const auto bits = static_cast<unsigned>(dl.getTypeSizeInBits(t).getFixedValue());
      auto* it = IntegerType::get(c, bits);
      const FunctionCallee hook = m.getOrInsertFunction("__hopsim_bgq_load" + std::to_string(bits / 8), it, ptr, i32);
      IRBuilder<> b(l);
      // The C ABI's __ATOMIC_* numbers: relaxed 0, acquire 2, seq_cst 5 (volatile: relaxed).
      int order = 0;
      if (l->isAtomic()) order = l->getOrdering() == AtomicOrdering::SequentiallyConsistent ? 5 : 2;
      Value* v = b.CreateCall(hook, {l->getPointerOperand(), b.getInt32(order)});
      if (t->isPointerTy())
        v = b.CreateIntToPtr(v, t);
      else if (t->isFloatingPointTy())
        v = b.CreateBitCast(v, t);
      l->replaceAllUsesWith(v);
      l->eraseFromParent();
    }
  }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "hopsim-bgq-poll", "1", [](PassBuilder& pb) {
            pb.registerPipelineParsingCallback(
                [](StringRef name, ModulePassManager& mpm, ArrayRef<PassBuilder::PipelineElement>) {
                  if (name != "hopsim-bgq-poll") return false;
                  mpm.addPass(PollPass());
                  return true;
                });
          }};
}
