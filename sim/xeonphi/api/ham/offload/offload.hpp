#pragma once
// ham::offload: the HAM-Offload API (Noack et al., SC14) on hopsim's
// transports. Programs include ham/offload.hpp, which also renames their
// main() (ham/offload/main.hpp) unless HAM_EXPLICIT is defined; this header
// is the API alone. main() runs on the host (node 0) while the targets
// (nodes 1..N) serve active messages. Start a program with --ham-mode native
// (default: one process per target talking through shared memory, SCIF
// style), --ham-mode sim (the modelled PCIe path of --ham-preset) or
// --ham-mode mpi (under mpirun -np N+1); --ham-targets N gives N targets.
//
// Active messages are the function objects themselves, sent bitwise, as
// HAM-Offload sends them: arguments and results of any type whose
// destructor is trivial. hopsim is stricter than HAM-Offload in one rule:
// a type with a non-trivial destructor (std::string, std::vector, a
// std::unique_ptr) owns memory of the sending process, which a bitwise
// copy would point into, so it is refused at compile time.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "ham/offload/runtime.hpp"

// Silences an unused variable, as HAM-Offload's util/debug.hpp does.
#ifndef HAM_UNUSED_VAR
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): HAM-Offload's spelling
#define HAM_UNUSED_VAR(var) (void)(var)
#endif

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
  // An argument or the result has virtual functions: its bytes carry the
  // sending process's vtable pointer (see async).
  static constexpr bool carries_vtable = (std::is_polymorphic_v<std::decay_t<P>> || ...) || std::is_polymorphic_v<R>;
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
// Nodes in the run: the host and its targets.
inline std::size_t num_nodes() { return static_cast<std::size_t>(detail::runtime().num_nodes()); }
inline bool is_host() { return this_node() == 0; }
inline bool is_host(node_t node) { return node == 0; }
inline bool is_host(std::size_t node) { return node == 0; }

// What a node is: name() says which machine or card it is (the host's
// name; a target's kind, number and, natively, its process).
class node_descriptor {
 public:
  node_descriptor() = default;
  explicit node_descriptor(const std::string& name) {
    const std::size_t n = std::min(name.size(), sizeof name_ - 1);
    std::memcpy(name_.data(), name.data(), n);
    name_[n] = '\0';
  }
  [[nodiscard]] const char* name() const { return name_.data(); }

 private:
  std::array<char, 256> name_{};
};
// Throws hopsim::Error for a node that does not exist.
const node_descriptor& get_node_description(node_t node);
// hopsim extensions: the host clock (simulated in sim mode) and declared compute.
inline std::int64_t now_ps() { return detail::runtime().now_ps(); }
inline double now_ns() { return static_cast<double>(now_ps()) * 1e-3; }
inline void charge_cycles(double cycles) { detail::runtime().charge_cycles(cycles); }

namespace detail {

template <class Msg>
void handle(const void* body, void* result) {
  // The message arrived as bytes: it is the sender's object, copied bitwise.
  alignas(Msg) std::array<unsigned char, sizeof(Msg)> storage{};
  std::memcpy(storage.data(), body, sizeof(Msg));
  const Msg& msg = *std::launder(reinterpret_cast<const Msg*>(storage.data()));
  using R = decltype(msg());
  if constexpr (std::is_void_v<R>) {
    msg();
    (void)result;
  } else {
    const R r = msg();
    std::memcpy(result, static_cast<const void*>(&r), sizeof(R));
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

// Whether a value may travel bitwise between processes (see the header's
// comment): HAM-Offload sends any type; hopsim refuses those that own
// memory, recognised by a non-trivial destructor.
template <class T>
inline constexpr bool sendable = std::is_void_v<T> || std::is_trivially_destructible_v<T>;

// A future dropped without get() waits in its destructor, where a failure
// of its call cannot be thrown: the first such failure is kept and thrown
// by the runtime when the program's main returns (exit status 5).
void defer_error(const std::string& what) noexcept;

// An object with virtual functions arrives with the host's vtable pointer,
// valid where the target shares the host's program image (native: a fork;
// sim: the same process). Under mpirun the target is another process of
// the program, whose addresses may differ (ASLR): hopsim refuses such a
// message in --ham-mode mpi (throws hopsim::Error naming the type) where
// HAM-Offload would send it.
void check_vtable_travel(const char* message_type);

template <class T>
constexpr std::size_t result_size() {
  if constexpr (std::is_void_v<T>)
    return 0;
  else
    return sizeof(T);
}

}  // namespace detail

// The result of an offloaded call or transfer. Move-only. get() waits and
// returns the result (once); test() says whether it is there. As in
// HAM-Offload, a future still holding its result waits for it when it is
// destroyed or assigned to: `offload::put(...);` alone is a synchronous put.
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
      finish();
      ticket_ = o.ticket_;
      valid_ = std::exchange(o.valid_, false);
    }
    return *this;
  }
  ~future() { finish(); }

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
      return *std::launder(reinterpret_cast<T*>(storage.data()));
    }
  }

 private:
  // Waits for a result still held; a failure is deferred (see defer_error).
  void finish() noexcept {
    if (!valid_) return;
    valid_ = false;
    if (ticket_ == detail::kDone || !detail::has_runtime()) return;
    try {
      alignas(std::max_align_t) std::array<unsigned char, detail::result_size<T>() + 1> sink{};
      detail::runtime().wait(ticket_, sink.data(), detail::result_size<T>());
    } catch (const std::exception& e) {
      detail::defer_error(e.what());
    }
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
  static_assert(detail::sendable<Msg>,
                "an active message is sent bitwise, as in HAM-Offload; hopsim refuses an argument type with a "
                "non-trivial destructor (it owns memory the bitwise copy would point into): pass data with "
                "allocate/put and a buffer_ptr");
  static_assert(detail::sendable<R>,
                "results are sent bitwise, as in HAM-Offload; hopsim refuses a result type with a non-trivial "
                "destructor (it owns memory the bitwise copy would point into)");
  if constexpr (requires { Msg::carries_vtable; }) {
    if constexpr (Msg::carries_vtable) detail::check_vtable_travel(typeid(Msg).name());
  }
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

// Copies between two buffers: host<->target via put/get, within one target
// by the target, between two targets through the host.
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
    // Between two targets the data goes through host memory: a get, then a
    // put (HAM-Offload's MPI back end sends target to target instead).
    std::vector<T> relay(n);
    get_sync(src, relay.data(), n);
    put_sync(relay.data(), dst, n);
  }
}

}  // namespace offload
}  // namespace ham
