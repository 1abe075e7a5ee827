// hopsim-bgq-poll: the LLVM pass hopsim-mpicc runs on a BG/Q program's
// code. Every volatile or atomic load of 1, 2, 4 or 8 bytes becomes a call
// of __hopsim_bgq_load<N>(address, ordering) (sim/bgq/src/machine.cpp),
// which loads the value and, when a rank reads memory the MU writes and
// finds it unchanged, counts one iteration of a polling loop: a bare
// `while (counter > 0);` then makes progress in a simulated run, where
// every rank is a fiber that must yield for the MU's deliveries to happen.
// Other loads and stores are untouched (ranks' memory is host memory).
#include <string>

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
    const DataLayout& dl = m.getDataLayout();
    LLVMContext& c = m.getContext();
    auto* ptr = PointerType::getUnqual(c);
    auto* i32 = Type::getInt32Ty(c);
    SmallVector<LoadInst*, 64> loads;
    for (Function& f : m)
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
    return loads.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
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
