#pragma once
// The two transports behind ham::offload (internal).
#include <memory>

#include "ham/offload/runtime.hpp"

namespace ham::offload::detail {

// Message header in front of every active message in a buffer.
struct MsgHeader {
  std::uint32_t key;
  std::uint32_t body_size;
  std::uint32_t slot;         // result slot on the host
  std::uint32_t result_size;
};
static_assert(sizeof(MsgHeader) == 16);

inline constexpr std::uint32_t kTerminateKey = 0xFFFFFFFFu;

std::unique_ptr<Runtime> make_native_runtime(const Options& o);
std::unique_ptr<Runtime> make_sim_runtime(const Options& o);

}  // namespace ham::offload::detail
