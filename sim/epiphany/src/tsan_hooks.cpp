// hopsim's own __tsan_* hooks. Kernel translation units are compiled with
// -fsanitize=thread but linked without libtsan: every load and store the
// compiler instruments calls one of these before it happens, and atomics
// call them instead of happening (so the hook performs the operation).
// Addresses below 4 GiB are device addresses (the Epiphany's 32-bit space,
// where hopsim maps its windows); everything else is host memory the
// kernel may use (its arguments) and passes untouched.
#include <cstdint>

#include "hopsim/epiphany/device.hpp"

using hopsim::epiphany::Device;

namespace hopsim::epiphany {
void link_raw_hooks() {}  // referenced by the devices so this object is always linked
}  // namespace hopsim::epiphany

namespace {
using hopsim::epiphany::RawKind;
inline void raw(const volatile void* a, unsigned size, RawKind kind) {
  const auto addr = reinterpret_cast<std::uintptr_t>(a);
  if (addr >> 32) return;
  // Native runs only validate: an inline look-up, no virtual call.
  if (const auto* map = hopsim::epiphany::g_native_map) [[likely]] {
    if (map->locate(addr, size).kind != hopsim::epiphany::model::Location::Kind::none) [[likely]]
      return;
  }
  if (Device* d = Device::current_or_null()) d->raw_access(addr, size, kind);
}
inline void raw_atomic(const volatile void* a, unsigned size) {
  const auto addr = reinterpret_cast<std::uintptr_t>(a);
  if (addr >> 32) return;
  if (Device* d = Device::current_or_null()) d->raw_atomic(addr, size);
}
}  // namespace

// The hooks' names and signatures are the ABI that -fsanitize=thread
// instrumentation calls (reserved identifiers by design), and one macro per
// access size and type spells them out.
// NOLINTBEGIN(bugprone-reserved-identifier, cppcoreguidelines-macro-usage, bugprone-macro-parentheses)
#define HOPSIM_EXPORT extern "C" __attribute__((visibility("default")))

HOPSIM_EXPORT void __tsan_init() {}
HOPSIM_EXPORT void __tsan_func_entry(void*) {}
HOPSIM_EXPORT void __tsan_func_exit() {}
HOPSIM_EXPORT void __tsan_vptr_update(void**, void*) {}
HOPSIM_EXPORT void __tsan_vptr_read(void**) {}

#define HOPSIM_RW(N)                                                                                     \
  HOPSIM_EXPORT void __tsan_read##N(void* a) { raw(a, N, RawKind::load); }                               \
  HOPSIM_EXPORT void __tsan_write##N(void* a) { raw(a, N, RawKind::store); }                             \
  HOPSIM_EXPORT void __tsan_unaligned_read##N(void* a) { raw(a, N, RawKind::load); }                     \
  HOPSIM_EXPORT void __tsan_unaligned_write##N(void* a) { raw(a, N, RawKind::store); }                   \
  HOPSIM_EXPORT void __tsan_volatile_read##N(void* a) { raw(a, N, RawKind::volatile_load); }             \
  HOPSIM_EXPORT void __tsan_volatile_write##N(void* a) { raw(a, N, RawKind::volatile_store); }           \
  HOPSIM_EXPORT void __tsan_unaligned_volatile_read##N(void* a) { raw(a, N, RawKind::volatile_load); }   \
  HOPSIM_EXPORT void __tsan_unaligned_volatile_write##N(void* a) { raw(a, N, RawKind::volatile_store); } \
  HOPSIM_EXPORT void __tsan_read##N##_pc(void* a, void*) { raw(a, N, RawKind::load); }                   \
  HOPSIM_EXPORT void __tsan_write##N##_pc(void* a, void*) { raw(a, N, RawKind::store); }
HOPSIM_RW(1)
HOPSIM_RW(2)
HOPSIM_RW(4)
HOPSIM_RW(8)
HOPSIM_RW(16)
#undef HOPSIM_RW

HOPSIM_EXPORT void __tsan_read_range(void* a, unsigned long n) {
  if (n) raw(a, static_cast<unsigned>(n), RawKind::load);
}
HOPSIM_EXPORT void __tsan_write_range(void* a, unsigned long n) {
  if (n) raw(a, static_cast<unsigned>(n), RawKind::store);
}

// Atomics: the memory order argument is ignored (every operation is
// sequentially consistent, which is stronger than any order asked for).
#define HOPSIM_ATOMIC(N, T)                                                                          \
  HOPSIM_EXPORT T __tsan_atomic##N##_load(const volatile T* a, int) {                                \
    raw_atomic(a, sizeof(T));                                                                        \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                     \
  }                                                                                                  \
  HOPSIM_EXPORT void __tsan_atomic##N##_store(volatile T* a, T v, int) {                             \
    raw_atomic(a, sizeof(T));                                                                        \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                        \
  }                                                                                                  \
  HOPSIM_EXPORT T __tsan_atomic##N##_exchange(volatile T* a, T v, int) {                             \
    raw_atomic(a, sizeof(T));                                                                        \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                              \
  }                                                                                                  \
  HOPSIM_EXPORT T __tsan_atomic##N##_fetch_add(volatile T* a, T v, int) {                            \
    raw_atomic(a, sizeof(T));                                                                        \
    return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                               \
  }                                                                                                  \
  HOPSIM_EXPORT T __tsan_atomic##N##_fetch_sub(volatile T* a, T v, int) {                            \
    raw_atomic(a, sizeof(T));                                                                        \
    return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                               \
  }                                                                                                  \
  HOPSIM_EXPORT T __tsan_atomic##N##_fetch_and(volatile T* a, T v, int) {                            \
    raw_atomic(a, sizeof(T));                                                                        \
    return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                               \
  }                                                                                                  \
  HOPSIM_EXPORT T __tsan_atomic##N##_fetch_or(volatile T* a, T v, int) {                             \
    raw_atomic(a, sizeof(T));                                                                        \
    return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                                \
  }                                                                                                  \
  HOPSIM_EXPORT T __tsan_atomic##N##_fetch_xor(volatile T* a, T v, int) {                            \
    raw_atomic(a, sizeof(T));                                                                        \
    return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                               \
  }                                                                                                  \
  HOPSIM_EXPORT T __tsan_atomic##N##_fetch_nand(volatile T* a, T v, int) {                           \
    raw_atomic(a, sizeof(T));                                                                        \
    return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);                                              \
  }                                                                                                  \
  HOPSIM_EXPORT int __tsan_atomic##N##_compare_exchange_strong(volatile T* a, T* c, T v, int, int) { \
    raw_atomic(a, sizeof(T));                                                                        \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
  }                                                                                                  \
  HOPSIM_EXPORT int __tsan_atomic##N##_compare_exchange_weak(volatile T* a, T* c, T v, int, int) {   \
    raw_atomic(a, sizeof(T));                                                                        \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
  }                                                                                                  \
  HOPSIM_EXPORT T __tsan_atomic##N##_compare_exchange_val(volatile T* a, T c, T v, int, int) {       \
    raw_atomic(a, sizeof(T));                                                                        \
    __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                \
    return c;                                                                                        \
  }
HOPSIM_ATOMIC(8, char)
HOPSIM_ATOMIC(16, short)
HOPSIM_ATOMIC(32, int)
HOPSIM_ATOMIC(64, long)
#undef HOPSIM_ATOMIC

HOPSIM_EXPORT void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
HOPSIM_EXPORT void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
// NOLINTEND(bugprone-reserved-identifier, cppcoreguidelines-macro-usage, bugprone-macro-parentheses)
