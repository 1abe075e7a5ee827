// HAM-Offload's active-message layer (ham::msg) used directly, as programs
// that build their own communication on it do: message types derived from
// active_msg, sent as bytes and run through active_msg_base from a buffer.
// Exits 0 when every message ran once with its own data.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include "ham/msg/active_msg.hpp"
#include "ham/msg/active_msg_base.hpp"
#include "ham/msg/execution_policy.hpp"

namespace {

int sum = 0;  // what the messages added
int runs = 0;

class Add : public ham::msg::active_msg<Add> {
 public:
  explicit Add(int v) : v_(v) {}
  void operator()() const {
    sum += v_;
    ++runs;
  }

 private:
  int v_;
};

class Times : public ham::msg::active_msg<Times, ham::msg::execution_policy_direct> {
 public:
  explicit Times(int f) : f_(f) {}
  void operator()() const {
    sum *= f_;
    ++runs;
  }

 private:
  int f_;
};

// Copies the message into a byte buffer, as a channel would, and runs it from there.
template <class Msg>
void deliver(const Msg& m) {
  std::vector<unsigned char> buffer(sizeof m);
  std::memcpy(buffer.data(), static_cast<const void*>(&m), sizeof m);
  const auto base = *reinterpret_cast<const ham::msg::active_msg_base*>(buffer.data());
  base(buffer.data());
}

}  // namespace

int main() {
  ham::msg::msg_handler_registry::init();
  ham::msg::msg_handler_registry::print_handler_vector(std::cout);
  deliver(Add(5));
  deliver(Times(3));
  deliver(Add(-1));
  const bool ok = sum == 14 && runs == 3 && Add(1).handler_key() != Times(1).handler_key();
  std::printf("%s: sum %d after %d messages\n", ok ? "PASS" : "FAIL", sum, runs);
  return ok ? 0 : 1;
}
