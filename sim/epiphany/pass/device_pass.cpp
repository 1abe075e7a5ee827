// hopsim-device: the LLVM pass that gives Epiphany device code the eCore's
// memory model on the host (contract: api/hopsim/device_abi.h).
//
// Run on the whole linked device program (every translation unit merged),
// after optimisation: globals are laid out once for the program, accesses
// the optimiser kept are the ones instrumented, and stack objects that were
// promoted to registers never reach the device stack.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ecore_costs.hpp"
#include "hopsim/device_abi.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/ConstantRange.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace {

constexpr std::uint64_t kLocal = HOPSIM_DEV_LOCAL_SIZE;

// The compiler driver that ran the pass, for messages: e-gcc, or the
// driver that says otherwise in HOPSIM_DEVICE_TOOL (hopsim-cc).
const char* tool_name() {
  const char* t = std::getenv("HOPSIM_DEVICE_TOOL");
  return t && *t ? t : "e-gcc";
}

std::string where(const Instruction& I) {
  if (const DILocation* loc = I.getDebugLoc()) {
    return (Twine(loc->getFilename()) + ":" + Twine(loc->getLine())).str();
  }
  return (Twine(I.getFunction()->getName()) + " (build with -g for a line)").str();
}

// ---- globals: the eSDK section layout ----------------------------------

struct Placed {
  GlobalVariable* g;
  std::uint64_t addr;
  std::uint64_t size;
};

// Sections a linker script places at a fixed address
// (`.section_core 0x7000 : {*.o(section_core)}`), by input section name.
using FixedSections = std::map<std::string, std::uint64_t>;

class Layout {
 public:
  Layout(Module& m, FixedSections fixed) : m_(m), dl_(m.getDataLayout()), fixed_(std::move(fixed)) {}

  // Places every global the program defines; false (and messages) if the
  // program does not fit, as the eSDK linker would refuse it.
  bool place(std::vector<std::string>& errors) {
    std::array<std::vector<GlobalVariable*>, 6> by_section;  // default, bank0..3, shared_dram
    std::map<std::string, std::vector<GlobalVariable*>> by_fixed;
    for (GlobalVariable& g : m_.globals()) {
      if (g.isDeclaration() || g.isThreadLocal() || g.getName().startswith("llvm.")) continue;
      if (auto f = fixed_.find(g.getSection().str()); f != fixed_.end()) {
        by_fixed[f->first].push_back(&g);
      } else {
        by_section[section_of(g)].push_back(&g);
      }
    }
    // Bank sections first (fixed origins), then the default data after bank 0.
    constexpr std::uint64_t kBank = HOPSIM_DEV_BANK_SIZE;
    std::array<std::uint64_t, 6> cursor = {0,         HOPSIM_DEV_DATA_START, kBank, 2 * kBank,
                                           3 * kBank, HOPSIM_DEV_SHARED_DRAM};
    for (int s = 1; s < 6; ++s) place_all(by_section[s], cursor[s]);
    cursor[0] = cursor[1];
    place_all(by_section[0], cursor[0]);
    // Checks: each bank section within its bank, the default data clear of
    // the bank sections above it, everything inside local memory.
    for (int b = 1; b <= 4; ++b) {
      const std::uint64_t lo = b == 1 ? HOPSIM_DEV_DATA_START : static_cast<std::uint64_t>(b - 1) * kBank;
      const std::uint64_t end = static_cast<std::uint64_t>(b) * kBank;
      if (cursor[b] > end) {
        errors.push_back(("section .data_bank" + Twine(b - 1) + " needs " + Twine(cursor[b] - lo) + " bytes, bank " +
                          Twine(b - 1) + " has " + Twine(end - lo))
                             .str());
      }
    }
    const std::uint64_t data_lo = cursor[1];
    for (int b = 2; b <= 4; ++b) {
      const std::uint64_t lo = static_cast<std::uint64_t>(b - 1) * kBank;
      if (!by_section[b].empty() && cursor[0] > lo && data_lo < cursor[b]) {
        errors.push_back(("the program's data (.data, .rodata, .bss: " + Twine(cursor[0] - data_lo) + " bytes from 0x" +
                          Twine::utohexstr(data_lo) + ") overlaps section .data_bank" + Twine(b - 1) + " at 0x" +
                          Twine::utohexstr(lo))
                             .str());
      }
    }
    local_end_ = cursor[0];
    for (int b = 2; b <= 4; ++b)
      if (!by_section[b].empty()) local_end_ = std::max(local_end_, cursor[b]);
    place_fixed(by_fixed, errors);
    for (const auto& p : placed_)
      if (p.addr < kLocal) local_bytes_ += p.size;
    if (local_end_ > kLocal) {
      errors.push_back(("the device program needs " + Twine(local_end_) + " bytes of core memory (" +
                        Twine(local_bytes_) + " bytes of data and statics, up to 0x" + Twine::utohexstr(local_end_) +
                        "); an eCore has " + Twine(kLocal) + " bytes")
                           .str());
    }
    return errors.empty();
  }

  // Replaces every use of a placed global by its device address and emits
  // __hopsim_device_image (the loader's description of the data).
  void rewrite() {
    LLVMContext& c = m_.getContext();
    auto* i64 = Type::getInt64Ty(c);
    auto* ptr = PointerType::get(c, 0);
    auto* seg_ty = StructType::get(c, {i64, i64, ptr, ptr});
    std::vector<Constant*> segs;
    for (auto& p : placed_) {
      GlobalVariable* g = p.g;
      const std::string name = g->getName().str();
      g->replaceAllUsesWith(ConstantExpr::getIntToPtr(ConstantInt::get(i64, p.addr), g->getType()));
      Constant* init = ConstantPointerNull::get(ptr);
      if (g->hasInitializer() && !g->getInitializer()->isNullValue()) {
        g->setName("__hopsim_init." + name);
        g->setLinkage(GlobalValue::PrivateLinkage);
        g->setConstant(true);
        g->setSection("");
        init = g;
      }
      Constant* str = IRBuilder<>(c).CreateGlobalStringPtr(name, "__hopsim_name", 0, &m_);
      segs.push_back(
          ConstantStruct::get(seg_ty, {ConstantInt::get(i64, p.addr), ConstantInt::get(i64, p.size), init, str}));
    }
    for (auto& p : placed_)
      if (p.g->use_empty() && !p.g->getName().startswith("__hopsim_init.")) p.g->eraseFromParent();
    auto* arr_ty = ArrayType::get(seg_ty, segs.size());
    auto* arr = new GlobalVariable(m_, arr_ty, true, GlobalValue::PrivateLinkage, ConstantArray::get(arr_ty, segs),
                                   "__hopsim_segments");
    auto* i32 = Type::getInt32Ty(c);
    auto* img_ty = StructType::get(c, {i32, i32, i32, i32, i32, i32, ptr});
    auto* img = ConstantStruct::get(
        img_ty, {ConstantInt::get(i32, HOPSIM_DEV_IMAGE_MAGIC), ConstantInt::get(i32, HOPSIM_DEV_IMAGE_VERSION),
                 ConstantInt::get(i32, segs.size()), ConstantInt::get(i32, local_end_),
                 ConstantInt::get(i32, local_bytes_), ConstantInt::get(i32, 0), arr});
    auto* g = new GlobalVariable(m_, img_ty, true, GlobalValue::ExternalLinkage, img, "__hopsim_device_image");
    g->setVisibility(GlobalValue::DefaultVisibility);
  }

 private:
  static int section_of(const GlobalVariable& g) {
    const StringRef s = g.getSection();
    for (int b = 0; b < 4; ++b)
      if (s == (".data_bank" + Twine(b)).str()) return b + 1;
    if (s == "shared_dram" || s == ".shared_dram") return 5;
    return 0;
  }

  // The linker script's absolute sections: each must stay clear of
  // everything placed so far and of the others.
  void place_fixed(std::map<std::string, std::vector<GlobalVariable*>>& by_fixed, std::vector<std::string>& errors) {
    for (auto& [name, gs] : by_fixed) {
      const std::uint64_t lo = fixed_.at(name);
      std::uint64_t cursor = lo;
      const std::size_t first = placed_.size();
      place_all(gs, cursor);
      for (std::size_t k = 0; k < first; ++k) {
        const Placed& o = placed_[k];
        if (o.addr < cursor && lo < o.addr + o.size) {
          errors.push_back(("section " + Twine(name) + " (" + Twine(cursor - lo) + " bytes at 0x" +
                            Twine::utohexstr(lo) + ") overlaps " + o.g->getName() + " at 0x" + Twine::utohexstr(o.addr))
                               .str());
          break;
        }
      }
      if (lo < kLocal) local_end_ = std::max(local_end_, cursor);
    }
  }

  void place_all(std::vector<GlobalVariable*>& gs, std::uint64_t& cursor) {
    for (GlobalVariable* g : gs) {
      const std::uint64_t size = std::max<std::uint64_t>(1, dl_.getTypeAllocSize(g->getValueType()));
      std::uint64_t align = g->getAlign() ? g->getAlign()->value() : dl_.getPreferredAlign(g).value();
      align = std::max<std::uint64_t>(align, 1);
      cursor = (cursor + align - 1) / align * align;
      placed_.push_back({g, cursor, size});
      cursor += size;
    }
  }

  Module& m_;
  const DataLayout& dl_;
  FixedSections fixed_;
  std::vector<Placed> placed_;
  std::uint64_t local_end_ = HOPSIM_DEV_DATA_START;
  std::uint64_t local_bytes_ = 0;
};

// ---- functions ---------------------------------------------------------

class FunctionRewriter {
 public:
  FunctionRewriter(Module& m, std::vector<std::string>& errors)
      : m_(m),
        dl_(m.getDataLayout()),
        c_(m.getContext()),
        errors_(errors),
        i8_(Type::getInt8Ty(c_)),
        i32_(Type::getInt32Ty(c_)),
        i64_(Type::getInt64Ty(c_)),
        ptr_(PointerType::get(c_, 0)),
        base_var_(m.getGlobalVariable("__hopsim_core_base")) {
    if (!base_var_) {
      base_var_ = new GlobalVariable(m, ptr_, false, GlobalValue::ExternalLinkage, nullptr, "__hopsim_core_base",
                                     nullptr, GlobalValue::GeneralDynamicTLSModel);
    }
    vlimit_var_ = m.getGlobalVariable("__hopsim_volatile_limit");
    if (!vlimit_var_) {
      vlimit_var_ = new GlobalVariable(m, i64_, false, GlobalValue::ExternalLinkage, nullptr, "__hopsim_volatile_limit",
                                       nullptr, GlobalValue::GeneralDynamicTLSModel);
    }
    auto* void_ty = Type::getVoidTy(c_);
    dev_ptr_ = m.getOrInsertFunction("__hopsim_dev_ptr", FunctionType::get(ptr_, {i64_, i32_, i32_}, false));
    overflow_ = m.getOrInsertFunction("__hopsim_dev_stack_overflow", FunctionType::get(void_ty, {i64_, i64_}, false));
    if (auto* f = dyn_cast<Function>(overflow_.getCallee())) {
      f->setDoesNotReturn();
      f->addFnAttr(Attribute::Cold);
    }
    memcpy_ = m.getOrInsertFunction("__hopsim_dev_memcpy", FunctionType::get(void_ty, {ptr_, ptr_, i64_}, false));
    memmove_ = m.getOrInsertFunction("__hopsim_dev_memmove", FunctionType::get(void_ty, {ptr_, ptr_, i64_}, false));
    memset_ = m.getOrInsertFunction("__hopsim_dev_memset", FunctionType::get(void_ty, {ptr_, i32_, i64_}, false));
    for (const char* n : {"idle", "gie", "gid"})
      asm_[n] = m.getOrInsertFunction(std::string("__hopsim_asm_") + n, FunctionType::get(void_ty, {}, false));
    trap_ = m.getOrInsertFunction("__hopsim_asm_trap", FunctionType::get(void_ty, {i32_}, false));
    exit_ = m.getOrInsertFunction("__hopsim_dev_exit", FunctionType::get(void_ty, {i32_}, false));
    tick_ = m.getOrInsertFunction("__hopsim_dev_tick", FunctionType::get(void_ty, {}, false));
    poll_enter_ = m.getOrInsertFunction("__hopsim_dev_poll_enter", FunctionType::get(void_ty, {}, false));
    poll_next_ = m.getOrInsertFunction("__hopsim_dev_poll_next", FunctionType::get(void_ty, {}, false));
    if (const char* r = std::getenv("HOPSIM_COUNT_REPORT"); r && *r) report_ = std::fopen(r, "a");
  }
  ~FunctionRewriter() {
    if (report_) std::fclose(report_);
  }
  FunctionRewriter(const FunctionRewriter&) = delete;
  FunctionRewriter& operator=(const FunctionRewriter&) = delete;

  void run(Function& f) {
    if (f.isDeclaration()) return;
    cur_fn_ = &f;
    counter_.price(f);
    if (report_) counter_.report(f, report_);
    inline_asm(f);
    base_ = nullptr;
    vlimit_ = nullptr;
    count_ = nullptr;
    prove_local(f);
    frame_alloc(f);
    loop_ticks(f);
    std::vector<Instruction*> work;
    for (auto& bb : f)
      for (auto& i : bb) work.push_back(&i);
    for (Instruction* i : work) {
      if (auto* mi = dyn_cast<MemIntrinsic>(i)) {
        mem_intrinsic(mi);
      } else if (auto* li = dyn_cast<LoadInst>(i)) {
        access(li, li->getPointerOperandIndex(), li->getType(), li->isVolatile() ? HOPSIM_DEV_VLOAD : HOPSIM_DEV_LOAD);
      } else if (auto* si = dyn_cast<StoreInst>(i)) {
        access(si, si->getPointerOperandIndex(), si->getValueOperand()->getType(),
               si->isVolatile() ? HOPSIM_DEV_VSTORE : HOPSIM_DEV_STORE);
      } else if (auto* rmw = dyn_cast<AtomicRMWInst>(i)) {
        access(rmw, rmw->getPointerOperandIndex(), rmw->getValOperand()->getType(), HOPSIM_DEV_ATOMIC);
      } else if (auto* cx = dyn_cast<AtomicCmpXchgInst>(i)) {
        access(cx, cx->getPointerOperandIndex(), cx->getCompareOperand()->getType(), HOPSIM_DEV_ATOMIC);
      } else if (auto* cb = dyn_cast<CallBase>(i)) {
        external_call(cb);
      }
    }
    // Paid into the core's words (device_abi.h).
    counter_.instrument(f, [this](IRBuilder<>& b, const hopsim_pass::Accumulators& acc) {
      Value* core = base();
      auto* i64 = b.getInt64Ty();
      for (auto [from, slot] : {std::pair{acc.cycles, HOPSIM_DEV_COUNT_CYCLES_SLOT},
                                std::pair{acc.instructions, HOPSIM_DEV_COUNT_INSNS_SLOT}}) {
        Value* word = b.CreateGEP(b.getInt8Ty(), core, b.getInt64(slot));
        b.CreateStore(b.CreateAdd(b.CreateLoad(i64, word), b.CreateLoad(i64, from)), word);
      }
    });
  }

 private:
  // The core's window, loaded once per call of the function (a function
  // always runs on one core).
  Value* base() {
    if (!base_) {
      IRBuilder<> b(&*cur_fn_->getEntryBlock().getFirstInsertionPt());
      base_ = b.CreateLoad(ptr_, base_var_, "hopsim.base");
    }
    return base_;
  }
  // One past the highest local address a volatile access may make inline
  // (device_abi.h: the core's memory size natively, 0 when simulated).
  Value* volatile_limit() {
    if (!vlimit_) {
      IRBuilder<> b(&*cur_fn_->getEntryBlock().getFirstInsertionPt());
      vlimit_ = b.CreateLoad(i64_, vlimit_var_, "hopsim.vlimit");
    }
    return vlimit_;
  }

  // Host memory the device code touches directly: the va_list objects kept
  // on the host stack, the host's globals (libc), and the core window itself
  // as addressed by the pass's own code.
  bool is_host_object(const Value* p) const {
    const Value* u = getUnderlyingObject(p, 12);
    if (isa<AllocaInst>(u)) return true;
    if (const auto* l = dyn_cast<LoadInst>(u); l && l->getPointerOperand() == base_var_) return true;
    if (const auto* g = dyn_cast<GlobalVariable>(u)) return g->isDeclaration() || g->isThreadLocal();
    return isa<Function>(u);
  }

  // ---- the device stack ----
  static bool is_va_list(const AllocaInst* a) {
    std::vector<const Value*> work{a};
    while (!work.empty()) {
      const Value* v = work.back();
      work.pop_back();
      for (const User* u : v->users()) {
        if (const auto* ii = dyn_cast<IntrinsicInst>(u)) {
          const auto id = ii->getIntrinsicID();
          if (id == Intrinsic::vastart || id == Intrinsic::vacopy || id == Intrinsic::vaend) return true;
        } else if (isa<GetElementPtrInst>(u) || isa<BitCastInst>(u)) {
          work.push_back(u);
        }
      }
    }
    return false;
  }

  Value* sp_slot(IRBuilder<>& b, unsigned slot) { return b.CreateConstGEP1_64(i8_, base(), slot); }

  // frame = (sp - size) & -align; stops with a clear error below the limit.
  Value* grow(IRBuilder<>& b, Value* size, std::uint64_t align) {
    Value* sp = b.CreateZExt(b.CreateLoad(i32_, sp_slot(b, HOPSIM_DEV_SP_SLOT)), i64_);
    Value* frame = b.CreateAnd(b.CreateSub(sp, size), ConstantInt::get(i64_, -static_cast<std::int64_t>(align)));
    Value* limit = b.CreateZExt(b.CreateLoad(i32_, sp_slot(b, HOPSIM_DEV_SP_LIMIT_SLOT)), i64_);
    Value* bad = b.CreateICmpSLT(frame, limit);
    Instruction* then =
        SplitBlockAndInsertIfThen(bad, &*b.GetInsertPoint(), true, MDBuilder(c_).createBranchWeights(1, 1000000));
    IRBuilder<> tb(then);
    tb.CreateCall(overflow_, {frame, limit});
    b.SetInsertPoint(&*b.GetInsertPoint());
    b.CreateStore(b.CreateTrunc(frame, i32_), sp_slot(b, HOPSIM_DEV_SP_SLOT));
    return frame;
  }

  void frame_alloc(Function& f) {
    cur_fn_ = &f;
    std::vector<AllocaInst*> fixed, dynamic;
    std::vector<IntrinsicInst*> stack_ops;
    for (auto& bb : f) {
      for (auto& i : bb) {
        if (auto* a = dyn_cast<AllocaInst>(&i)) {
          if (is_va_list(a)) continue;
          (a->isStaticAlloca() ? fixed : dynamic).push_back(a);
        } else if (auto* ii = dyn_cast<IntrinsicInst>(&i)) {
          const auto id = ii->getIntrinsicID();
          if (id == Intrinsic::stacksave || id == Intrinsic::stackrestore || id == Intrinsic::lifetime_start ||
              id == Intrinsic::lifetime_end || id == Intrinsic::dbg_declare)
            stack_ops.push_back(ii);
        }
      }
    }
    if (fixed.empty() && dynamic.empty()) return;
    for (IntrinsicInst* ii : stack_ops) {
      const auto id = ii->getIntrinsicID();
      if (id == Intrinsic::lifetime_start || id == Intrinsic::lifetime_end || id == Intrinsic::dbg_declare) {
        ii->eraseFromParent();
      } else if (id == Intrinsic::stacksave) {
        IRBuilder<> b(ii);
        ii->replaceAllUsesWith(
            b.CreateIntToPtr(b.CreateZExt(b.CreateLoad(i32_, sp_slot(b, HOPSIM_DEV_SP_SLOT)), i64_), ii->getType()));
        ii->eraseFromParent();
      } else {
        IRBuilder<> b(ii);
        b.CreateStore(b.CreateTrunc(b.CreatePtrToInt(ii->getArgOperand(0), i64_), i32_),
                      sp_slot(b, HOPSIM_DEV_SP_SLOT));
        ii->eraseFromParent();
      }
    }
    IRBuilder<> b(&*f.getEntryBlock().getFirstInsertionPt());
    base();  // the window first
    b.SetInsertPoint(cast<Instruction>(base_)->getNextNode());
    Value* sp0 = b.CreateLoad(i32_, sp_slot(b, HOPSIM_DEV_SP_SLOT), "hopsim.sp0");
    std::uint64_t size = 0, align = 8;
    std::vector<std::uint64_t> off;
    for (AllocaInst* a : fixed) {
      const std::uint64_t al = std::max<std::uint64_t>(a->getAlign().value(), 1);
      align = std::max(align, al);
      size = (size + al - 1) / al * al;
      off.push_back(size);
      const auto bits = a->getAllocationSizeInBits(dl_);
      size += std::max<std::uint64_t>(1, bits ? bits->getFixedValue() / 8 : 8);
    }
    size = (size + 7) / 8 * 8;
    if (!fixed.empty()) {
      Value* frame = grow(b, ConstantInt::get(i64_, size), align);
      // All addresses first: the builder's insertion point may be one of
      // the allocas being replaced.
      std::vector<Value*> addr;
      for (std::size_t k = 0; k < fixed.size(); ++k)
        addr.push_back(b.CreateIntToPtr(b.CreateAdd(frame, ConstantInt::get(i64_, off[k])), fixed[k]->getType(),
                                        fixed[k]->getName()));
      for (std::size_t k = 0; k < fixed.size(); ++k) {
        fixed[k]->replaceAllUsesWith(addr[k]);
        fixed[k]->eraseFromParent();
      }
    }
    for (AllocaInst* a : dynamic) {
      IRBuilder<> db(a);
      Value* n = db.CreateZExtOrTrunc(a->getArraySize(), i64_);
      Value* bytes = db.CreateMul(n, ConstantInt::get(i64_, dl_.getTypeAllocSize(a->getAllocatedType())));
      Value* frame = grow(db, bytes, std::max<std::uint64_t>(8, a->getAlign().value()));
      a->replaceAllUsesWith(db.CreateIntToPtr(frame, a->getType()));
      a->eraseFromParent();
    }
    for (auto& bb : f) {
      if (auto* r = dyn_cast<ReturnInst>(bb.getTerminator())) {
        IRBuilder<> rb(r);
        rb.CreateStore(sp0, sp_slot(rb, HOPSIM_DEV_SP_SLOT));
      }
    }
  }

  // ---- loop iterations ----
  // At the head of every loop: count down the core's tick word and call
  // __hopsim_dev_tick when it runs out (the contract in device_abi.h).
  void loop_ticks(Function& f) {
    DominatorTree dt(f);
    std::vector<BasicBlock*> headers;
    std::map<BasicBlock*, std::vector<BasicBlock*>> latches;
    for (BasicBlock& bb : f)
      for (BasicBlock* s : successors(&bb))
        if (dt.dominates(s, &bb)) {
          if (std::find(headers.begin(), headers.end(), s) == headers.end()) headers.push_back(s);
          latches[s].push_back(&bb);
        }
    poll_loads_.clear();
    for (BasicBlock* h : headers) {
      if (h->isEHPad()) continue;
      const std::vector<BasicBlock*> body = loop_body(h, latches[h]);
      if (polling_loop(h, body)) {
        poll(h, body);
        continue;
      }
      if (std::find(counted_.begin(), counted_.end(), h) != counted_.end()) continue;
      // A per-call counter (a register once optimised): every
      // HOPSIM_DEV_TICK_EVERY iterations it is paid into the core's tick word.
      if (!count_) {
        IRBuilder<> eb(&*f.getEntryBlock().getFirstInsertionPt());
        count_ = eb.CreateAlloca(i32_, nullptr, "hopsim.iterations");
        eb.CreateStore(ConstantInt::get(i32_, HOPSIM_DEV_TICK_EVERY), count_);
      }
      IRBuilder<> b(&*h->getFirstInsertionPt());
      Value* left = b.CreateSub(b.CreateLoad(i32_, count_), ConstantInt::get(i32_, 1));
      b.CreateStore(left, count_);
      Instruction* then =
          SplitBlockAndInsertIfThen(b.CreateICmpSLE(left, ConstantInt::get(i32_, 0)), &*b.GetInsertPoint(), false,
                                    MDBuilder(c_).createBranchWeights(1, HOPSIM_DEV_TICK_EVERY));
      IRBuilder<> tb(then);
      pay(tb, ConstantInt::get(i32_, HOPSIM_DEV_TICK_EVERY));
      tb.CreateStore(ConstantInt::get(i32_, HOPSIM_DEV_TICK_EVERY), count_);
    }
    if (!count_) return;
    // On the way out, the iterations not yet paid.
    std::vector<ReturnInst*> rets;
    for (BasicBlock& bb : f)
      if (auto* r = dyn_cast<ReturnInst>(bb.getTerminator())) rets.push_back(r);
    for (ReturnInst* r : rets) {
      IRBuilder<> rb(r);
      Value* used = rb.CreateSub(ConstantInt::get(i32_, HOPSIM_DEV_TICK_EVERY), rb.CreateLoad(i32_, count_));
      pay(rb, used);
    }
  }

  // tick word -= n; __hopsim_dev_tick() when it runs out.
  void pay(IRBuilder<>& b, Value* n) {
    Value* slot = sp_slot(b, HOPSIM_DEV_TICK_SLOT);
    Value* left = b.CreateSub(b.CreateLoad(i32_, slot, "hopsim.ticks"), n);
    b.CreateStore(left, slot);
    Instruction* then =
        SplitBlockAndInsertIfThen(b.CreateICmpSLE(left, ConstantInt::get(i32_, 0)), &*b.GetInsertPoint(), false,
                                  MDBuilder(c_).createBranchWeights(1, HOPSIM_DEV_TICK_EVERY));
    IRBuilder<>(then).CreateCall(tick_);
    b.SetInsertPoint(&*b.GetInsertPoint());
  }

  // The natural loop of header h: h and every block that reaches a latch
  // without passing through h.
  static std::vector<BasicBlock*> loop_body(BasicBlock* h, const std::vector<BasicBlock*>& latches) {
    std::vector<BasicBlock*> body{h}, work(latches.begin(), latches.end());
    while (!work.empty()) {
      BasicBlock* b = work.back();
      work.pop_back();
      if (std::find(body.begin(), body.end(), b) != body.end()) continue;
      body.push_back(b);
      for (BasicBlock* p : predecessors(b)) work.push_back(p);
    }
    return body;
  }

  // Only memory decides whether the loop goes on: no values carried in
  // registers (header phis), no stores, atomics or calls.
  static bool polling_loop(BasicBlock* h, const std::vector<BasicBlock*>& body) {
    if (isa<PHINode>(h->front())) return false;
    bool loads = false;
    for (BasicBlock* b : body)
      for (Instruction& i : *b) {
        if (isa<StoreInst>(i) || isa<AtomicRMWInst>(i) || isa<AtomicCmpXchgInst>(i) || isa<FenceInst>(i) ||
            isa<AllocaInst>(i))
          return false;
        if (auto* c = dyn_cast<CallBase>(&i); c && !isa<DbgInfoIntrinsic>(c)) return false;
        loads |= isa<LoadInst>(i);
      }
    return loads;
  }

  void poll(BasicBlock* h, const std::vector<BasicBlock*>& body) {
    std::vector<BasicBlock*> outside;
    for (BasicBlock* p : predecessors(h))
      if (std::find(body.begin(), body.end(), p) == body.end()) outside.push_back(p);
    for (BasicBlock* p : outside) {
      BasicBlock* pre = SplitEdge(p, h);
      IRBuilder<>(pre->getTerminator()).CreateCall(poll_enter_);
    }
    IRBuilder<>(&*h->getFirstInsertionPt()).CreateCall(poll_next_);
    for (BasicBlock* b : body)
      for (Instruction& i : *b)
        if (isa<LoadInst>(i)) poll_loads_.push_back(&i);
  }

  // ---- accesses that provably stay in the core's memory ----
  // A global's address is a constant, its index ranges come from scalar
  // evolution (loop bounds) and known bits (masks): when every address the
  // access can make is local, it needs no check.
  void prove_local(Function& f) {
    local_.clear();
    TargetLibraryInfoImpl tlii(Triple(m_.getTargetTriple()));
    TargetLibraryInfo tli(tlii);
    AssumptionCache ac(f);
    DominatorTree dt(f);
    LoopInfo li(dt);
    ScalarEvolution se(f, tli, ac, dt, li);
    // Loops with a bound end by themselves: they need no ticks.
    counted_.clear();
    for (Loop* l : li.getLoopsInPreorder())
      if (!isa<SCEVCouldNotCompute>(se.getSymbolicMaxBackedgeTakenCount(l))) counted_.push_back(l->getHeader());
    for (BasicBlock& bb : f)
      for (Instruction& i : bb) {
        Value* p = nullptr;
        Type* ty = nullptr;
        if (auto* l = dyn_cast<LoadInst>(&i); l && !l->isVolatile()) {
          p = l->getPointerOperand();
          ty = l->getType();
        } else if (auto* st = dyn_cast<StoreInst>(&i); st && !st->isVolatile()) {
          p = st->getPointerOperand();
          ty = st->getValueOperand()->getType();
        }
        if (!p) continue;
        const auto r = address_range(se, p, 0);
        const std::int64_t size = static_cast<std::int64_t>(dl_.getTypeStoreSize(ty).getFixedValue());
        if (r && !r->isFullSet() && !r->isEmptySet() && r->getSignedMin().getSExtValue() >= 0 &&
            r->getSignedMax().getSExtValue() + size <= static_cast<std::int64_t>(kLocal))
          local_.push_back(&i);
      }
  }

  std::optional<ConstantRange> address_range(ScalarEvolution& se, Value* p, int depth) {
    if (depth > 6) return std::nullopt;
    if (auto* ce = dyn_cast<ConstantExpr>(p); ce && ce->getOpcode() == Instruction::IntToPtr) {
      if (auto* k = dyn_cast<ConstantInt>(ce->getOperand(0))) return ConstantRange(k->getValue().sextOrTrunc(64));
      return std::nullopt;
    }
    auto* g = dyn_cast<GEPOperator>(p);
    if (!g) return std::nullopt;
    auto base = address_range(se, g->getPointerOperand(), depth + 1);
    if (!base) return std::nullopt;
    ConstantRange r = *base;
    for (auto gti = gep_type_begin(g), e = gep_type_end(g); gti != e; ++gti) {
      Value* idx = gti.getOperand();
      if (StructType* st = gti.getStructTypeOrNull()) {
        const auto field = cast<ConstantInt>(idx)->getZExtValue();
        r = r.add(ConstantRange(APInt(64, dl_.getStructLayout(st)->getElementOffset(field))));
        continue;
      }
      const auto stride = dl_.getTypeAllocSize(gti.getIndexedType()).getFixedValue();
      ConstantRange ir = isa<ConstantInt>(idx) ? ConstantRange(cast<ConstantInt>(idx)->getValue())
                                               : se.getSignedRange(se.getSCEV(idx));
      ir = ir.sextOrTrunc(64);
      r = r.add(ir.multiply(ConstantRange(APInt(64, stride))));
      if (r.isFullSet()) return std::nullopt;
    }
    return r;
  }

  // ---- loads, stores, atomics ----
  void access(Instruction* i, unsigned op, Type* ty, int kind) {
    Value* p = i->getOperand(op);
    if (is_host_object(p)) return;
    if (std::find(poll_loads_.begin(), poll_loads_.end(), i) != poll_loads_.end()) {
      kind = HOPSIM_DEV_POLL;
    } else if (std::find(local_.begin(), local_.end(), i) != local_.end()) {
      i->setOperand(op, IRBuilder<>(i).CreateGEP(i8_, base(), IRBuilder<>(i).CreatePtrToInt(p, i64_)));
      return;
    }
    const bool is_volatile = kind == HOPSIM_DEV_VLOAD || kind == HOPSIM_DEV_VSTORE || kind == HOPSIM_DEV_POLL;
    const auto size = static_cast<std::uint32_t>(dl_.getTypeStoreSize(ty).getFixedValue());
    IRBuilder<> b(i);
    Value* a = b.CreatePtrToInt(p, i64_);
    if (auto* k = dyn_cast<ConstantInt>(a); k && !is_volatile && k->getZExtValue() + size <= kLocal) {
      i->setOperand(op, b.CreateGEP(i8_, base(), a));  // a constant local address: no check
      return;
    }
    auto slow_call = [&](IRBuilder<>& sb) {
      return sb.CreateCall(dev_ptr_, {a, ConstantInt::get(i32_, size), ConstantInt::get(i32_, kind)});
    };
    // Volatile accesses are how device code polls and signals: a simulated
    // core's are all seen by the runtime (their limit is 0); natively one
    // to the core's own memory needs nothing from it.
    Value* fast_ok = is_volatile ? b.CreateICmpULE(b.CreateAdd(a, ConstantInt::get(i64_, size)), volatile_limit())
                                 : b.CreateICmpULE(a, ConstantInt::get(i64_, kLocal - size));
    Instruction *then_t = nullptr, *else_t = nullptr;
    SplitBlockAndInsertIfThenElse(fast_ok, i, &then_t, &else_t, MDBuilder(c_).createBranchWeights(1000000, 1));
    IRBuilder<> tb(then_t);
    Value* fast = tb.CreateGEP(i8_, base(), a, "hopsim.local");
    IRBuilder<> eb(else_t);
    Value* slow = slow_call(eb);
    IRBuilder<> jb(i);
    PHINode* phi = jb.CreatePHI(ptr_, 2, "hopsim.addr");
    phi->addIncoming(fast, then_t->getParent());
    phi->addIncoming(slow, else_t->getParent());
    i->setOperand(op, phi);
  }

  void mem_intrinsic(MemIntrinsic* mi) {
    IRBuilder<> b(mi);
    Value* n = b.CreateZExtOrTrunc(mi->getLength(), i64_);
    if (auto* ms = dyn_cast<MemSetInst>(mi)) {
      b.CreateCall(memset_, {ms->getDest(), b.CreateZExt(ms->getValue(), i32_), n});
    } else {
      auto* mt = cast<MemTransferInst>(mi);
      b.CreateCall(isa<MemMoveInst>(mt) ? memmove_ : memcpy_, {mt->getDest(), mt->getSource(), n});
    }
    mi->eraseFromParent();
  }

  // Pointers handed to host code (libc) become host pointers: a local
  // address is the core's window plus the address. e-lib and hopsim's own
  // functions take device addresses as the device's e-lib does.
  void external_call(CallBase* cb) {
    Function* callee = cb->getCalledFunction();
    if (!callee || !callee->isDeclaration() || callee->isIntrinsic()) return;
    const StringRef name = callee->getName();
    if (name == "exit" || name == "_exit" || name == "_Exit") {
      // Ends the core's program, not the host process.
      cb->setCalledFunction(exit_);
      return;
    }
    if (name.startswith("e_") || name.startswith("__hopsim") || name.startswith("hopsim_")) return;
    for (unsigned k = 0; k < cb->arg_size(); ++k) {
      Value* v = cb->getArgOperand(k);
      if (!v->getType()->isPointerTy() || is_host_object(v)) continue;
      IRBuilder<> b(cb);
      Value* a = b.CreatePtrToInt(v, i64_);
      Value* local = b.CreateICmpULT(a, ConstantInt::get(i64_, HOPSIM_DEV_LOCAL_SPACE));
      cb->setArgOperand(k, b.CreateSelect(local, b.CreateGEP(i8_, base(), a), v));
    }
  }

  // ---- inline assembly ----
  // The eCore's special registers by their assembly names (Epiphany
  // Architecture Reference, register map), for movfs/movts.
  static std::optional<std::uint32_t> special_register(StringRef name) {
    static const std::map<std::string, std::uint32_t> regs = {
        {"config", 0xF0400},      {"status", 0xF0404},      {"pc", 0xF0408},         {"debugstatus", 0xF040C},
        {"lc", 0xF0414},          {"ls", 0xF0418},          {"le", 0xF041C},         {"iret", 0xF0420},
        {"imask", 0xF0424},       {"ilat", 0xF0428},        {"ilatst", 0xF042C},     {"ilatcl", 0xF0430},
        {"ipend", 0xF0434},       {"ctimer0", 0xF0438},     {"ctimer1", 0xF043C},    {"fstatus", 0xF0440},
        {"debugcmd", 0xF0448},    {"dma0config", 0xF0500},  {"dma0stride", 0xF0504}, {"dma0count", 0xF0508},
        {"dma0srcaddr", 0xF050C}, {"dma0dstaddr", 0xF0510}, {"dma0auto0", 0xF0514},  {"dma0auto1", 0xF0518},
        {"dma0status", 0xF051C},  {"dma1config", 0xF0520},  {"dma1stride", 0xF0524}, {"dma1count", 0xF0528},
        {"dma1srcaddr", 0xF052C}, {"dma1dstaddr", 0xF0530}, {"dma1auto0", 0xF0534},  {"dma1auto1", 0xF0538},
        {"dma1status", 0xF053C},  {"memstatus", 0xF0604},   {"memprotect", 0xF0608}, {"meshconfig", 0xF0700},
        {"coreid", 0xF0704},      {"multicast", 0xF0708},   {"resetcore", 0xF070C},  {"cmeshroute", 0xF0710},
        {"xmeshroute", 0xF0714},  {"rmeshroute", 0xF0718}};
    const auto it = regs.find(name.trim().lower());
    if (it == regs.end()) return std::nullopt;
    return it->second;
  }

  // A whole statement that is one register move, load, store or bit
  // reversal: movfs $0, REG (e_reg_read), movts REG, $0 (e_reg_write),
  // ldr $0, [$1] and str $0, [$1] (a 32-bit device access, made as a
  // volatile one), bitr $0, $1.
  bool single_instruction(CallBase* cb, StringRef w) {
    const bool has_result = !cb->getType()->isVoidTy();
    auto arg = [&](unsigned k) -> Value* { return k < cb->arg_size() ? cb->getArgOperand(k) : nullptr; };
    auto [op, rest] = w.split(' ');
    SmallVector<StringRef, 2> xs;
    rest.split(xs, ',', 1, false);
    if (xs.size() != 2) return false;
    const StringRef a = xs[0].trim(), c = xs[1].trim();
    IRBuilder<> b(cb);
    if (op == "movfs" && has_result && a == "$0" && cb->getType()->isIntegerTy(32)) {
      const auto reg = special_register(c);
      if (!reg) return false;
      auto fn = m_.getOrInsertFunction("e_reg_read", FunctionType::get(i32_, {i32_}, false));
      cb->replaceAllUsesWith(b.CreateCall(fn, {ConstantInt::get(i32_, *reg)}));
      return true;
    }
    if (op == "movts" && !has_result && c == "$0" && arg(0) && arg(0)->getType()->isIntegerTy(32)) {
      const auto reg = special_register(a);
      if (!reg) return false;
      auto fn = m_.getOrInsertFunction("e_reg_write", FunctionType::get(Type::getVoidTy(c_), {i32_, i32_}, false));
      b.CreateCall(fn, {ConstantInt::get(i32_, *reg), arg(0)});
      return true;
    }
    // An address operand: a pointer, or an integer holding one.
    auto address = [&](Value* v) -> Value* {
      if (!v) return nullptr;
      if (v->getType()->isPointerTy()) return v;
      if (v->getType()->isIntegerTy()) return b.CreateIntToPtr(b.CreateZExtOrTrunc(v, i64_), ptr_);
      return nullptr;
    };
    if (op == "ldr" && has_result && a == "$0" && c == "[$1]" && cb->getType()->isIntegerTy(32)) {
      if (Value* p = address(arg(0))) {
        cb->replaceAllUsesWith(b.CreateAlignedLoad(i32_, p, Align(4), true));
        return true;
      }
    }
    if (op == "str" && !has_result && a == "$0" && c == "[$1]" && arg(0) && arg(0)->getType()->isIntegerTy(32)) {
      if (Value* p = address(arg(1))) {
        b.CreateAlignedStore(arg(0), p, Align(4), true);
        return true;
      }
    }
    if (op == "bitr" && has_result && a == "$0" && c == "$1" && arg(0) && arg(0)->getType()->isIntegerTy(32)) {
      cb->replaceAllUsesWith(b.CreateUnaryIntrinsic(Intrinsic::bitreverse, arg(0)));
      return true;
    }
    return false;
  }

  void inline_asm(Function& f) {
    std::vector<CallBase*> calls;
    for (auto& bb : f)
      for (auto& i : bb)
        if (auto* cb = dyn_cast<CallBase>(&i); cb && cb->isInlineAsm()) calls.push_back(cb);
    for (CallBase* cb : calls) {
      const std::string text = cast<InlineAsm>(cb->getCalledOperand())->getAsmString();
      if (const std::string one = StringRef(text).trim().lower();
          one.find_first_of(";\n") == std::string::npos && single_instruction(cb, one)) {
        cb->eraseFromParent();
        continue;
      }
      std::vector<std::pair<std::string, int>> ops;
      bool ok = cb->getType()->isVoidTy();
      std::string lines = text;
      std::replace(lines.begin(), lines.end(), ';', '\n');
      SmallVector<StringRef, 4> parts;
      StringRef(lines).split(parts, '\n');
      for (StringRef part : parts) {
        const std::string w = part.trim().lower();
        if (w.empty() || w == "nop") continue;
        if (w == "idle" || w == "gie" || w == "gid") {
          ops.emplace_back(w, 0);
        } else if (StringRef(w).startswith("trap")) {
          int n = 0;
          StringRef rest = StringRef(w).drop_front(4).trim();
          if (!rest.empty() && rest.getAsInteger(0, n)) ok = false;
          ops.emplace_back("trap", n);
        } else {
          ok = false;
        }
      }
      if (!ok) {
        errors_.push_back(where(*cb) + ": error: inline assembly \"" + text +
                          "\" has no meaning in hopsim (device code may use idle, gie, gid, nop, trap, movfs and movts "
                          "of a special register, ldr/str $0, [$1] and bitr)");
        continue;
      }
      IRBuilder<> b(cb);
      for (auto& [op, n] : ops) {
        if (op == "trap") {
          b.CreateCall(trap_, {ConstantInt::get(i32_, n)});
        } else {
          b.CreateCall(asm_[op]);
        }
      }
      cb->eraseFromParent();
    }
  }

  Module& m_;
  const DataLayout& dl_;
  LLVMContext& c_;
  std::vector<std::string>& errors_;
  Type *i8_, *i32_, *i64_;
  PointerType* ptr_;
  GlobalVariable* base_var_;
  FunctionCallee dev_ptr_, overflow_, memcpy_, memmove_, memset_, trap_, exit_, tick_, poll_enter_, poll_next_;
  std::vector<Instruction*> poll_loads_;  // loads of the function's polling loops
  std::vector<Instruction*> local_;       // accesses proven to stay in local memory
  std::vector<BasicBlock*> counted_;      // headers of loops with a computable bound
  AllocaInst* count_ = nullptr;           // loop iterations left before paying into the tick word
  std::map<std::string, FunctionCallee> asm_;
  Function* cur_fn_ = nullptr;
  hopsim_pass::InstructionCounter<hopsim_pass::ecore::Costs> counter_{dl_};
  std::FILE* report_ = nullptr;  // HOPSIM_COUNT_REPORT: each block's count and cycles
  Value* base_ = nullptr;
  GlobalVariable* vlimit_var_ = nullptr;
  Value* vlimit_ = nullptr;
};

struct DevicePass : PassInfoMixin<DevicePass> {
  FixedSections fixed;

  PreservedAnalyses run(Module& m, ModuleAnalysisManager&) {
    if (m.getGlobalVariable("__hopsim_device_image")) return PreservedAnalyses::all();
    std::vector<std::string> errors;
    for (const char* used : {"llvm.used", "llvm.compiler.used"})
      if (GlobalVariable* g = m.getGlobalVariable(used)) g->eraseFromParent();
    if (Function* main = m.getFunction("main"); main && !main->isDeclaration()) {
      main->setName("__hopsim_device_main");
      main->setLinkage(GlobalValue::ExternalLinkage);
      main->setVisibility(GlobalValue::DefaultVisibility);
    }
    Layout layout(m, fixed);
    layout.place(errors);
    FunctionRewriter fr(m, errors);
    if (errors.empty()) {
      layout.rewrite();
      std::vector<Function*> fs;
      for (Function& f : m) fs.push_back(&f);
      for (Function* f : fs) fr.run(*f);
    }
    if (!errors.empty()) {
      for (const auto& e : errors) errs() << tool_name() << ": " << e << "\n";
      std::exit(1);
    }
    return PreservedAnalyses::none();
  }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "hopsim-device", "1", [](PassBuilder& pb) {
            pb.registerPipelineParsingCallback(
                [](StringRef name, ModulePassManager& mpm, ArrayRef<PassBuilder::PipelineElement>) {
                  // hopsim-device or hopsim-device<SECTION=ADDR;...> (e-gcc reads
                  // the absolute sections from the -T linker script).
                  if (!name.consume_front("hopsim-device")) return false;
                  DevicePass pass;
                  if (name.consume_front("<")) {
                    if (!name.consume_back(">")) return false;
                    SmallVector<StringRef, 4> items;
                    name.split(items, ';', -1, false);
                    for (StringRef item : items) {
                      auto [sec, addr] = item.split('=');
                      std::uint64_t a = 0;
                      if (sec.empty() || addr.getAsInteger(0, a)) {
                        errs() << tool_name() << ": bad section placement '" << item << "' (want NAME=ADDRESS)\n";
                        return false;
                      }
                      pass.fixed[sec.str()] = a;
                    }
                  } else if (!name.empty()) {
                    return false;
                  }
                  mpm.addPass(std::move(pass));
                  return true;
                });
          }};
}
