#include "hopsim/interpose/pe_context.hpp"

#include <boost/context/preallocated.hpp>
#include <boost/context/stack_context.hpp>

namespace hopsim::interpose {
namespace ctx = boost::context;

namespace {
// The stack memory belongs to the memory window: nothing to free.
struct WindowStack {
  ctx::stack_context allocate() { return {}; }
  void deallocate(ctx::stack_context&) noexcept {}
};
}  // namespace

PeContext::PeContext(void* stack_lo, std::size_t stack_size) : stack_lo_(stack_lo), stack_size_(stack_size) {}

PeContext::~PeContext() = default;

void PeContext::start(std::function<void()> body) {
  body_ = std::move(body);
  error_ = nullptr;
  finished_ = false;
  ctx::stack_context sctx;
  sctx.size = stack_size_;
  sctx.sp = static_cast<char*>(stack_lo_) + stack_size_;
  fiber_ = ctx::fiber(std::allocator_arg, ctx::preallocated(sctx.sp, sctx.size, sctx), WindowStack{},
                      [this](ctx::fiber&& caller) {
                        caller_ = std::move(caller);
                        try {
                          body_();
                        } catch (const ctx::detail::forced_unwind&) {
                          throw;
                        } catch (...) {
                          error_ = std::current_exception();
                        }
                        finished_ = true;
                        return std::move(caller_);
                      });
}

bool PeContext::resume() {
  running_ = true;
  fiber_ = std::move(fiber_).resume();
  running_ = false;
  if (finished_) {
    fiber_ = {};
    if (error_) {
      auto e = error_;
      error_ = nullptr;
      std::rethrow_exception(e);
    }
    return true;
  }
  return false;
}

void PeContext::yield() { caller_ = std::move(caller_).resume(); }

}  // namespace hopsim::interpose
