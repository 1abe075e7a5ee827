// A HAM-Offload program built outside hopsim's source tree: y = a x + y on
// every target, the data put there and read back, checked on the host.
#include <cstdio>
#include <vector>

#include "ham/offload.hpp"

using namespace ham;

void axpy(offload::buffer_ptr<float> x, offload::buffer_ptr<float> y, std::size_t n, float a) {
  for (std::size_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

int main(int argc, char* argv[]) {
  HAM_UNUSED_VAR(argc);
  HAM_UNUSED_VAR(argv);
  const std::size_t n = 1 << 16;
  std::vector<float> x(n, 2.0f), y(n, 1.0f), out(n);
  int bad = 0;
  for (std::size_t t = 1; t < offload::num_nodes(); ++t) {
    const auto node = static_cast<offload::node_t>(t);
    auto xt = offload::allocate<float>(node, n);
    auto yt = offload::allocate<float>(node, n);
    auto put_x = offload::put(x.data(), xt, n);
    offload::put(y.data(), yt, n);  // the dropped future waits
    put_x.get();
    offload::sync(node, f2f(&axpy, xt, yt, n, 3.0f));
    offload::get_sync(yt, out.data(), n);
    for (float v : out) bad += v != 7.0f;
    std::printf("%s: %s\n", offload::get_node_description(node).name(), bad == 0 ? "ok" : "WRONG");
    offload::free(xt);
    offload::free(yt);
  }
  return bad == 0 ? 0 : 1;
}
