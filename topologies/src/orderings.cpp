#include "hopsim/topo/topology.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace hopsim::topo {

namespace {

std::size_t checked_grid(const char* what, int rows, int cols) {
  if (rows < 1) throw std::invalid_argument(std::string(what) + ": rows must be >= 1, got " + std::to_string(rows));
  if (cols < 1) throw std::invalid_argument(std::string(what) + ": cols must be >= 1, got " + std::to_string(cols));
  const auto n = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  if (n >= kNoNode) throw std::invalid_argument(std::string(what) + ": grid too large");
  return static_cast<std::size_t>(n);
}

// Snake over an R x C grid in (r, c) terms: row 0 left to right, then each
// column from last to first through rows 1..R-1, alternating down/up with
// the last column going down. `id` maps (r, c) to a node id so the same walk
// serves the transposed case.
template <typename IdFn>
void snake_walk(int R, int C, std::vector<NodeId>& out, IdFn id) {
  for (int c = 0; c < C; ++c) out.push_back(id(0, c));
  for (int c = C - 1; c >= 0; --c) {
    const bool down = ((C - 1 - c) % 2) == 0;
    if (down)
      for (int r = 1; r < R; ++r) out.push_back(id(r, c));
    else
      for (int r = R - 1; r >= 1; --r) out.push_back(id(r, c));
  }
}

int index_of(const char* what, std::span<const NodeId> order, NodeId node) {
  const auto it = std::find(order.begin(), order.end(), node);
  if (it == order.end())
    throw std::invalid_argument(std::string(what) + ": node " + std::to_string(node) + " not in order");
  return static_cast<int>(it - order.begin());
}

}  // namespace

std::vector<NodeId> snake_ring_order(int rows, int cols) {
  const std::size_t n = checked_grid("snake_ring_order", rows, cols);
  std::vector<NodeId> out;
  out.reserve(n);
  const auto ucols = static_cast<NodeId>(cols);
  auto rc = [ucols](int r, int c) { return static_cast<NodeId>(r) * ucols + static_cast<NodeId>(c); };
  if (rows == 1 || cols == 1) {
    for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<NodeId>(i));
  } else if (cols % 2 != 0 && rows % 2 == 0) {
    // Odd cols break the even-cols pattern; walk the transposed grid so the
    // even row count makes the cycle close with one hop.
    snake_walk(cols, rows, out, [&](int r, int c) { return rc(c, r); });
  } else {
    // Even cols: closes with (1,0) -> (0,0). Both odd: no one-hop cycle
    // exists (bipartite grid with odd node count); closing step is rows-1.
    snake_walk(rows, cols, out, rc);
  }
  return out;
}

std::vector<NodeId> boustrophedon_order(int rows, int cols) {
  const std::size_t n = checked_grid("boustrophedon_order", rows, cols);
  std::vector<NodeId> out;
  out.reserve(n);
  for (int r = 0; r < rows; ++r) {
    const auto base = static_cast<NodeId>(r) * static_cast<NodeId>(cols);
    if (r % 2 == 0)
      for (int c = 0; c < cols; ++c) out.push_back(base + static_cast<NodeId>(c));
    else
      for (int c = cols - 1; c >= 0; --c) out.push_back(base + static_cast<NodeId>(c));
  }
  return out;
}

RingPos ring_position(std::span<const NodeId> order, NodeId node) {
  const int i = index_of("ring_position", order, node);
  const auto n = order.size();
  const auto ui = static_cast<std::size_t>(i);
  return RingPos{order[(ui + 1) % n], order[(ui + n - 1) % n], i};
}

LinePos line_position(std::span<const NodeId> order, NodeId node) {
  const int i = index_of("line_position", order, node);
  const auto ui = static_cast<std::size_t>(i);
  return LinePos{ui + 1 < order.size() ? order[ui + 1] : kNoNode, ui > 0 ? order[ui - 1] : kNoNode, i};
}

MeshNeighbours mesh_neighbours(int rows, int cols, NodeId node) {
  const std::size_t n = checked_grid("mesh_neighbours", rows, cols);
  if (node >= n)
    throw std::out_of_range("mesh_neighbours: node " + std::to_string(node) + " outside " + std::to_string(rows) + "x" +
                            std::to_string(cols) + " grid");
  const auto ucols = static_cast<NodeId>(cols);
  const NodeId r = node / ucols;
  const NodeId c = node % ucols;
  return MeshNeighbours{
      r > 0 ? node - ucols : kNoNode,
      r + 1 < static_cast<NodeId>(rows) ? node + ucols : kNoNode,
      c + 1 < ucols ? node + 1 : kNoNode,
      c > 0 ? node - 1 : kNoNode,
  };
}

}  // namespace hopsim::topo
