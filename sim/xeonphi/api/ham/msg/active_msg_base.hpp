#pragma once
// ham::msg: HAM-Offload's active-message layer, the part programs use
// directly. An active message is an object whose type names its handler;
// it travels as bytes, and the receiver calls the bytes as an
// active_msg_base, which looks up the handler of the message's type (a key
// the same in every process: the type's index in the sorted registry, see
// ham::offload::detail::Registry) and runs it on the buffer.
#include <cstddef>
#include <cstdint>
#include <ostream>

#include "ham/offload/runtime.hpp"

namespace ham::msg {

class active_msg_base {
 public:
  explicit active_msg_base(std::uint32_t key) : key_(key) {}
  // Runs the handler of the message in `buffer` (whose bytes start with this object).
  void operator()(void* buffer) const { offload::detail::Registry::handler(key_)(buffer, nullptr); }
  [[nodiscard]] std::uint32_t handler_key() const { return key_; }

 private:
  std::uint32_t key_;
};

// The handler registry of all message types (ham::offload's): init() sorts
// it once every type has registered (before main), so that keys agree
// between processes; the printers list it.
struct msg_handler_registry {
  static void init() { offload::detail::Registry::finalize(); }
  // One line per message type: its key and its name.
  static void print_handler_map(std::ostream& out) {
    const auto names = offload::detail::Registry::names();
    for (std::size_t i = 0; i < names.size(); ++i) out << names[i] << " -> " << i << "\n";
  }
  // The handlers in key order.
  static void print_handler_vector(std::ostream& out) {
    const auto names = offload::detail::Registry::names();
    for (std::size_t i = 0; i < names.size(); ++i) out << i << ": " << names[i] << "\n";
  }
};

}  // namespace ham::msg
