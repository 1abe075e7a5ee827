#pragma once
// ham::offload: the HAM-Offload API subset (Noack et al., SC14) on hopsim's
// transports. A program includes this header and ham/offload/main.hpp; its
// main() runs on the host (node 0) while the target (node 1) serves active
// messages. Start it with --ham-mode native (default: a second process
// talking through shared memory, SCIF style) or --ham-mode sim (the modelled
// PCIe path of --ham-preset).
//
// Active messages are the function objects themselves, sent bitwise: every
// argument and result must be trivially copyable.
#include <array>
#include <cstddef>
#include <cstring>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "ham/offload/runtime.hpp"

namespace ham {

namespace detail {

// Arguments stored as a plain aggregate chain (trivially copyable when the
// arguments are, unlike std::tuple).
template <class... T>
struct pack;
template <>
struct pack<> {
  template <class F, class... A>
  decltype(auto) call(F f, const A&... a) const {
    return f(a...);
  }
};
template <class H, class... T>
struct pack<H, T...> {
  H head;
  pack<T...> tail;
  pack() = default;
  template <class A, class... B>
  explicit pack(A&& a, B&&... b) : head(std::forward<A>(a)), tail(std::forward<B>(b)...) {}
  template <class F, class... A>
  decltype(auto) call(F f, const A&... a) const {
    return tail.call(f, a..., head);
  }
};

}  // namespace detail

// A function object whose target is a template parameter: its type, and so
// its handler key, names the function, identically in host and target.
template <class FnPtr, FnPtr Fn>
struct function;
template <class R, class... P, R (*Fn)(P...)>
struct function<R (*)(P...), Fn> {
  using result_type = R;
  detail::pack<std::decay_t<P>...> args;

  function() = default;
  template <class... A>
  explicit function(A&&... a) : args(std::forward<A>(a)...) {}
  R operator()() const { return args.call(Fn); }
};

template <class FnPtr, FnPtr Fn, class... A>
function<FnPtr, Fn> new_function(A&&... a) {
  return function<FnPtr, Fn>(std::forward<A>(a)...);
}

// f2f(&fn, args...): the function object for fn(args...).
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): HAM spells f2f as a macro
#define f2f(fn_ptr, ...) ::ham::new_function<decltype(fn_ptr), fn_ptr>(__VA_ARGS__)

namespace offload {

using ham::node_t;

inline node_t this_node() { return detail::runtime().this_node(); }
inline node_t num_nodes() { return detail::runtime().num_nodes(); }
inline bool is_host() { return this_node() == 0; }
inline bool is_host(node_t node) { return node == 0; }
// hopsim extensions: the host clock (simulated in sim mode) and declared compute.
inline std::int64_t now_ps() { return detail::runtime().now_ps(); }
inline double now_ns() { return static_cast<double>(now_ps()) * 1e-3; }
inline void charge_cycles(double cycles) { detail::runtime().charge_cycles(cycles); }

namespace detail {

template <class Msg>
void handle(const void* body, void* result) {
  alignas(Msg) std::array<unsigned char, sizeof(Msg)> storage{};
  std::memcpy(storage.data(), body, sizeof(Msg));
  const Msg& msg = *std::launder(reinterpret_cast<const Msg*>(storage.data()));
  using R = decltype(msg());
  if constexpr (std::is_void_v<R>) {
    msg();
    (void)result;
  } else {
    const R r = msg();
    std::memcpy(result, &r, sizeof(R));
  }
}

template <class Msg>
const int registered<Msg>::token = Registry::add(typeid(Msg).name(), &handle<Msg>);

template <class Msg>
std::uint32_t key_of() {
  (void)&registered<Msg>::token;  // instantiates the registration
  static const std::uint32_t key = Registry::key(typeid(Msg).name());
  return key;
}

template <class T>
constexpr std::size_t result_size() {
  if constexpr (std::is_void_v<T>)
    return 0;
  else
    return sizeof(T);
}

}  // namespace detail

// The result of an offloaded call or transfer. Move-only. get() waits and
// returns the result (once); test() says whether it is there. A future
// destroyed without get() does not wait: the call still runs to completion
// on the target and its result is dropped when it arrives.
template <class T>
class future {
 public:
  future() = default;
  explicit future(std::uint64_t ticket) : ticket_(ticket), valid_(true) {}
  future(const future&) = delete;
  future& operator=(const future&) = delete;
  future(future&& o) noexcept : ticket_(o.ticket_), valid_(std::exchange(o.valid_, false)) {}
  future& operator=(future&& o) noexcept {
    if (this != &o) {
      release();
      ticket_ = o.ticket_;
      valid_ = std::exchange(o.valid_, false);
    }
    return *this;
  }
  ~future() { release(); }

  bool valid() const { return valid_; }
  bool test() { return !valid_ || ticket_ == detail::kDone || detail::runtime().test(ticket_); }
  T get() {
    if (!valid_)
      throw std::logic_error("ham::offload::future::get() on a future without a result (moved or already got)");
    valid_ = false;
    if constexpr (std::is_void_v<T>) {
      if (ticket_ != detail::kDone) detail::runtime().wait(ticket_, nullptr, 0);
    } else {
      alignas(T) std::array<unsigned char, sizeof(T)> storage{};
      detail::runtime().wait(ticket_, storage.data(), sizeof(T));
      T r;
      std::memcpy(&r, storage.data(), sizeof(T));
      return r;
    }
  }

 private:
  void release() noexcept {
    if (valid_ && ticket_ != detail::kDone && detail::has_runtime()) detail::runtime().discard(ticket_);
    valid_ = false;
  }
  std::uint64_t ticket_ = detail::kDone;
  bool valid_ = false;
};

// A typed pointer into a node's memory.
template <class T>
class buffer_ptr {
 public:
  buffer_ptr() = default;
  buffer_ptr(T* ptr, node_t node) : ptr_(ptr), node_(node) {}
  T* get() const { return ptr_; }
  node_t node() const { return node_; }
  buffer_ptr operator+(std::ptrdiff_t n) const { return {ptr_ + n, node_}; }
  T& operator[](std::size_t i) const { return ptr_[i]; }  // valid on the owning node only
  explicit operator bool() const { return ptr_ != nullptr; }

 private:
  T* ptr_ = nullptr;
  node_t node_ = 0;
};

template <class Msg>
auto async(node_t node, const Msg& msg) -> future<decltype(msg())> {
  using R = decltype(msg());
  static_assert(std::is_trivially_copyable_v<Msg>,
                "an active message is sent bitwise: its arguments must be trivially copyable");
  static_assert(std::is_void_v<R> || std::is_trivially_copyable_v<R>,
                "results are sent bitwise: the result type must be trivially copyable");
  const std::uint32_t key = detail::key_of<Msg>();
  return future<R>(detail::runtime().send(node, key, &msg, sizeof(Msg), detail::result_size<R>()));
}

template <class Msg>
auto sync(node_t node, const Msg& msg) -> decltype(msg()) {
  return async(node, msg).get();
}

// Runs msg on the node; the result is not transferred back (the call is still awaited).
template <class Msg>
void ping(node_t node, const Msg& msg) {
  async(node, msg).get();
}

namespace detail {
std::uintptr_t allocate_bytes(std::size_t bytes);
void free_bytes(std::uintptr_t p);
void move_bytes(std::uintptr_t dst, std::uintptr_t src, std::size_t bytes);
}  // namespace detail

template <class T>
buffer_ptr<T> allocate(node_t node, std::size_t n) {
  static_assert(std::is_trivially_copyable_v<T>, "target buffers hold trivially copyable data");
  const std::uintptr_t p = sync(node, f2f(&detail::allocate_bytes, n * sizeof(T)));
  return buffer_ptr<T>(reinterpret_cast<T*>(p), node);
}

template <class T>
void free(buffer_ptr<T> b) {
  sync(b.node(), f2f(&detail::free_bytes, reinterpret_cast<std::uintptr_t>(b.get())));
}

// Copies n elements from host memory to a target buffer.
template <class T>
future<void> put(const T* src, buffer_ptr<T> dst, std::size_t n) {
  return future<void>(detail::runtime().put(src, dst.node(), dst.get(), n * sizeof(T)));
}
template <class T>
void put_sync(const T* src, buffer_ptr<T> dst, std::size_t n) {
  put(src, dst, n).get();
}

// Copies n elements from a target buffer to host memory.
template <class T>
future<void> get(buffer_ptr<T> src, T* dst, std::size_t n) {
  return future<void>(detail::runtime().get(src.node(), src.get(), dst, n * sizeof(T)));
}
template <class T>
void get_sync(buffer_ptr<T> src, T* dst, std::size_t n) {
  get(src, dst, n).get();
}

// Copies between two buffers: host<->target via put/get, within one target by the target.
template <class T>
void copy_sync(buffer_ptr<T> src, buffer_ptr<T> dst, std::size_t n) {
  if (is_host(src.node()) && is_host(dst.node())) {
    std::memmove(dst.get(), src.get(), n * sizeof(T));
  } else if (is_host(src.node())) {
    put_sync(src.get(), dst, n);
  } else if (is_host(dst.node())) {
    get_sync(src, dst.get(), n);
  } else if (src.node() == dst.node()) {
    sync(src.node(), f2f(&detail::move_bytes, reinterpret_cast<std::uintptr_t>(dst.get()),
                         reinterpret_cast<std::uintptr_t>(src.get()), n * sizeof(T)));
  } else {
    throw std::logic_error("ham::offload::copy_sync between two different targets: only one target exists");
  }
}

}  // namespace offload
}  // namespace ham
