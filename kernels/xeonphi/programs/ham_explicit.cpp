// A HAM-Offload program with HAM_EXPLICIT: main() runs on every node and
// starts and ends the runtime itself (ham_init, ham_finalise), MPI style.
// The host offloads to every target; exits 0 when every check passes.
#define HAM_EXPLICIT
#include <cstdio>
#include <vector>

#include "ham/offload.hpp"

namespace {
int square(int v) { return v * v; }
long sum(ham::offload::buffer_ptr<long> p, std::size_t n) {
  long s = 0;
  for (std::size_t i = 0; i < n; ++i) s += p[i];
  return s;
}
}  // namespace

int main(int argc, char* argv[]) {
  int failures = 0;
  if (ham::offload::ham_init(&argc, &argv)) {  // true on the host only
    for (std::size_t t = 1; t < ham::offload::num_nodes(); ++t) {
      const auto node = static_cast<ham::offload::node_t>(t);
      if (ham::offload::sync(node, f2f(&square, 12)) != 144) ++failures;
      std::vector<long> v(1000, 3);
      auto buf = ham::offload::allocate<long>(node, v.size());
      ham::offload::put_sync(v.data(), buf, v.size());
      if (ham::offload::sync(node, f2f(&sum, buf, v.size())) != 3000) ++failures;
      ham::offload::free(buf);
    }
    std::printf("%s: %zu target(s), %d failure(s)\n", failures == 0 ? "PASS" : "FAIL", ham::offload::num_nodes() - 1,
                failures);
  }
  const int status = ham::offload::ham_finalise();
  return failures != 0 ? 1 : status;
}
