#pragma once
// A processing element's execution context: a fiber whose stack lives in a
// caller-given region (the top of the core's local memory window), so a
// kernel's stack arrays sit at the same core-local offset on every core.
// resume() runs the body until it calls yield() or returns.
#include <cstddef>
#include <exception>
#include <functional>

#include <boost/context/fiber.hpp>

namespace hopsim::interpose {

class PeContext {
 public:
  PeContext(void* stack_lo, std::size_t stack_size);
  ~PeContext();
  PeContext(const PeContext&) = delete;
  PeContext& operator=(const PeContext&) = delete;

  // Prepares the fiber to run `body` from the top of the stack.
  void start(std::function<void()> body);
  // Runs until the body yields (returns false) or finishes (returns true).
  // An exception thrown by the body is rethrown here once it finishes.
  bool resume();
  // Called from inside the body: switches back to resume()'s caller.
  void yield();
  bool running() const { return running_; }

 private:
  void* stack_lo_;
  std::size_t stack_size_;
  boost::context::fiber fiber_;
  boost::context::fiber caller_;
  std::function<void()> body_;
  std::exception_ptr error_;
  bool running_ = false;
  bool finished_ = false;
};

}  // namespace hopsim::interpose
