#include "hopsim/topo/topology.hpp"

#include <array>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace hopsim::topo {

namespace {

// Signed step count along one dimension: sign is the direction, magnitude
// the hop count. Wrapped dims take the shorter way; a tie goes +1.
int signed_steps(const Topology& topo, int dim, int from, int to) {
  const int delta = to - from;
  if (!topo.wraps(dim)) return delta;
  const int extent = topo.dims()[static_cast<std::size_t>(dim)];
  const int fwd = ((delta % extent) + extent) % extent;
  const int back = (extent - fwd) % extent;
  return fwd <= back ? fwd : -back;
}

void check_dim_order(const Topology& topo, std::span<const int> order) {
  const auto nd = static_cast<std::size_t>(topo.ndims());
  if (order.size() != nd)
    throw std::invalid_argument("route_dor: dim_order has " + std::to_string(order.size()) + " entries, topology has " +
                                std::to_string(nd) + " dims");
  // O(ndims^2) but allocation-free; ndims is tiny.
  for (std::size_t i = 0; i < nd; ++i) {
    if (order[i] < 0 || order[i] >= topo.ndims())
      throw std::invalid_argument("route_dor: dim_order contains invalid dim " + std::to_string(order[i]));
    for (std::size_t j = 0; j < i; ++j)
      if (order[j] == order[i])
        throw std::invalid_argument("route_dor: dim_order repeats dim " + std::to_string(order[i]));
  }
}

}  // namespace

int hop_distance(const Topology& topo, NodeId a, NodeId b) {
  int hops = 0;
  for (int d = 0; d < topo.ndims(); ++d)
    hops += std::abs(signed_steps(topo, d, topo.coord_of(a, d), topo.coord_of(b, d)));
  return hops;
}

std::vector<LinkId> route_dor(const Topology& topo, NodeId src, NodeId dst, std::span<const int> dim_order) {
  check_dim_order(topo, dim_order);
  std::vector<LinkId> path;
  path.reserve(static_cast<std::size_t>(hop_distance(topo, src, dst)));
  NodeId cur = src;
  for (int d : dim_order) {
    const int steps = signed_steps(topo, d, topo.coord_of(cur, d), topo.coord_of(dst, d));
    const int dir = steps >= 0 ? +1 : -1;
    for (int i = std::abs(steps); i > 0; --i) {
      const LinkId l = topo.link(cur, d, dir);
      // Cannot happen for a well-formed topology; guards against silent loops.
      if (l == kNoLink) throw std::logic_error("route_dor: missing link on path");
      path.push_back(l);
      cur = topo.link_target(l);
    }
  }
  return path;
}

std::vector<LinkId> route_xy(const Topology& mesh2d, NodeId src, NodeId dst) {
  if (mesh2d.ndims() != 2)
    throw std::invalid_argument("route_xy: topology has " + std::to_string(mesh2d.ndims()) + " dims, need 2");
  static constexpr std::array<int, 2> kXThenY{1, 0};
  return route_dor(mesh2d, src, dst, kXThenY);
}

}  // namespace hopsim::topo
