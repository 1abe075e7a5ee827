#pragma once
// How a received active message runs: execution_policy_direct calls it at
// once, on the receiving thread (the default).
namespace ham::msg {

struct execution_policy_direct {
  template <class Msg>
  static void execute(Msg& msg) {
    msg();
  }
};
using default_execution_policy = execution_policy_direct;

}  // namespace ham::msg
