// Synthetic traces for the GUI tests and the benchmark, written with TraceWriter.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "hopsim/traces/traces.hpp"

namespace gui_test {

using namespace hopsim::traces;

inline Meta meta(std::string machine, double bucket_cycles = 100) {
  Meta m;
  m.hopsim_version = "0.1.0";
  m.git_revision = "test";
  m.machine = std::move(machine);
  m.mode = "sim";
  m.clock_hz = 600e6;
  m.bucket_cycles = bucket_cycles;
  return m;
}

inline std::string coords(const std::vector<int>& c) {
  std::string s = "[";
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (i) s.append(",");
    s.append(std::to_string(c[i]));
  }
  s.append("]");
  return s;
}

/// A torus with the given extents: node id = mixed-radix index of its coordinates,
/// links +1 and -1 along every dimension (wrapping), link id = node * 2 * dims + 2 * d + (minus ? 1 : 0).
struct Torus {
  std::vector<int> extent;
  int nodes() const {
    int n = 1;
    for (int e : extent) n *= e;
    return n;
  }
  int dims() const { return static_cast<int>(extent.size()); }
  std::vector<int> coord(int id) const {
    std::vector<int> c(extent.size());
    for (int d = dims() - 1; d >= 0; --d) {
      c[static_cast<std::size_t>(d)] = id % extent[static_cast<std::size_t>(d)];
      id /= extent[static_cast<std::size_t>(d)];
    }
    return c;
  }
  int id(const std::vector<int>& c) const {
    int id = 0;
    for (int d = 0; d < dims(); ++d) id = id * extent[static_cast<std::size_t>(d)] + c[static_cast<std::size_t>(d)];
    return id;
  }
  int neighbour(int node, int d, bool minus) const {
    auto c = coord(node);
    const int e = extent[static_cast<std::size_t>(d)];
    c[static_cast<std::size_t>(d)] = (c[static_cast<std::size_t>(d)] + (minus ? e - 1 : 1)) % e;
    return id(c);
  }
  std::int64_t link(int node, int d, bool minus) const {
    return static_cast<std::int64_t>(node) * 2 * dims() + 2 * d + (minus ? 1 : 0);
  }

  void declare(TraceWriter& w) const {
    for (int n = 0; n < nodes(); ++n) w.add_node({n, "node " + std::to_string(n), "router", coords(coord(n))});
    for (int n = 0; n < nodes(); ++n)
      for (int d = 0; d < dims(); ++d)
        for (bool minus : {false, true})
          w.add_link({link(n, d, minus), "torus", n, neighbour(n, d, minus),
                      "node " + std::to_string(n) + " dim " + std::to_string(d) + (minus ? "-" : "+")});
  }
};

}  // namespace gui_test
