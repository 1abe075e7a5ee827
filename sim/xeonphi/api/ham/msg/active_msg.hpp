#pragma once
// active_msg<Derived, Policy>: the base of a message type Derived (CRTP).
// Its handler, registered before main under Derived's name, views the
// received bytes as a Derived and runs it as Policy says.
#include <array>
#include <cstring>
#include <new>
#include <typeinfo>

#include "ham/msg/active_msg_base.hpp"
#include "ham/msg/execution_policy.hpp"

namespace ham::msg {

template <class Derived, class Policy = default_execution_policy>
class active_msg : public active_msg_base {
 public:
  active_msg() : active_msg_base(key()) {}

  // The handler: the bytes at `buffer` are a Derived (sent bitwise).
  static void handle(const void* buffer, void* /*result*/) {
    alignas(Derived) std::array<unsigned char, sizeof(Derived)> storage{};
    std::memcpy(storage.data(), buffer, sizeof(Derived));
    Policy::execute(*std::launder(reinterpret_cast<Derived*>(storage.data())));
  }

 private:
  static const int registered;
  static std::uint32_t key() {
    (void)&registered;  // instantiates the registration
    return offload::detail::Registry::key(typeid(Derived).name());
  }
};

template <class Derived, class Policy>
const int active_msg<Derived, Policy>::registered =
    offload::detail::Registry::add(typeid(Derived).name(), &active_msg<Derived, Policy>::handle);

}  // namespace ham::msg
