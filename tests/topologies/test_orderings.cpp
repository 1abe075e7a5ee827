#include <catch2/catch.hpp>

#include <hopsim/topo/topology.hpp>

#include <algorithm>
#include <cstdlib>
#include <vector>

using namespace hopsim::topo;

namespace {

int grid_hops(int cols, NodeId a, NodeId b) {
  const int ra = static_cast<int>(a) / cols, ca = static_cast<int>(a) % cols;
  const int rb = static_cast<int>(b) / cols, cb = static_cast<int>(b) % cols;
  return std::abs(ra - rb) + std::abs(ca - cb);
}

bool is_permutation_of_grid(const std::vector<NodeId>& order, int rows, int cols) {
  std::vector<NodeId> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != i) return false;
  return sorted.size() == static_cast<std::size_t>(rows * cols);
}

// Every consecutive pair, including last -> first, is one mesh hop.
void require_single_hop_cycle(const std::vector<NodeId>& order, int rows, int cols) {
  REQUIRE(is_permutation_of_grid(order, rows, cols));
  for (std::size_t i = 0; i < order.size(); ++i) {
    const NodeId a = order[i], b = order[(i + 1) % order.size()];
    INFO("step " << i << ": " << a << " -> " << b);
    REQUIRE(grid_hops(cols, a, b) == 1);
  }
}

}  // namespace

TEST_CASE("snake ring 4x4 matches the reference order", "[orderings][snake]") {
  const std::vector<NodeId> expected{0, 1, 2, 3, 7, 11, 15, 14, 10, 6, 5, 9, 13, 12, 8, 4};
  const auto order = snake_ring_order(4, 4);
  CHECK(order == expected);
  require_single_hop_cycle(order, 4, 4);
}

TEST_CASE("snake ring 2x6 closes with single hops", "[orderings][snake]") {
  const std::vector<NodeId> expected{0, 1, 2, 3, 4, 5, 11, 10, 9, 8, 7, 6};
  const auto order = snake_ring_order(2, 6);
  CHECK(order == expected);
  require_single_hop_cycle(order, 2, 6);
}

TEST_CASE("snake ring 6x3 uses the transposed pattern", "[orderings][snake]") {
  // Column 0 downward, then rows 5..1/0 serpentine over cols 1..2.
  const std::vector<NodeId> expected{0, 3, 6, 9, 12, 15, 16, 17, 14, 13, 10, 11, 8, 7, 4, 5, 2, 1};
  const auto order = snake_ring_order(6, 3);
  CHECK(order == expected);
  require_single_hop_cycle(order, 6, 3);
}

TEST_CASE("snake ring with both sides odd only fails at the closing step", "[orderings][snake]") {
  const std::vector<NodeId> expected{0, 1, 2, 5, 8, 7, 4, 3, 6};
  const auto order = snake_ring_order(3, 3);
  CHECK(order == expected);
  for (std::size_t i = 0; i + 1 < order.size(); ++i) CHECK(grid_hops(3, order[i], order[i + 1]) == 1);
  CHECK(grid_hops(3, order.back(), order.front()) == 2);  // rows - 1
}

TEST_CASE("snake ring on a single row or column is line order", "[orderings][snake]") {
  CHECK(snake_ring_order(1, 5) == std::vector<NodeId>{0, 1, 2, 3, 4});
  CHECK(snake_ring_order(4, 1) == std::vector<NodeId>{0, 1, 2, 3});
  CHECK(snake_ring_order(1, 1) == std::vector<NodeId>{0});
  CHECK_THROWS_AS(snake_ring_order(0, 3), std::invalid_argument);
}

TEST_CASE("boustrophedon 4x4 matches the reference order", "[orderings]") {
  const std::vector<NodeId> expected{0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12};
  CHECK(boustrophedon_order(4, 4) == expected);
  CHECK(boustrophedon_order(2, 3) == std::vector<NodeId>{0, 1, 2, 5, 4, 3});
  CHECK_THROWS_AS(boustrophedon_order(3, 0), std::invalid_argument);
}

TEST_CASE("ring_position wraps around the cycle", "[orderings][ring]") {
  const auto ring = snake_ring_order(4, 4);
  const RingPos p = ring_position(ring, 7);
  CHECK(p.next == 11u);
  CHECK(p.prev == 3u);
  CHECK(p.index == 4);
  const RingPos first = ring_position(ring, 0);
  CHECK(first.prev == 4u);  // wraps to the last entry
  CHECK(first.next == 1u);
  CHECK(first.index == 0);
  const RingPos last = ring_position(ring, 4);
  CHECK(last.next == 0u);
  CHECK(last.index == 15);
  CHECK_THROWS_AS(ring_position(ring, 16), std::invalid_argument);
}

TEST_CASE("line_position has kNoNode at both ends", "[orderings][line]") {
  const auto line = boustrophedon_order(4, 4);
  const LinePos head = line_position(line, 0);
  CHECK(head.left == kNoNode);
  CHECK(head.right == 1u);
  CHECK(head.index == 0);
  const LinePos tail = line_position(line, 12);
  CHECK(tail.right == kNoNode);
  CHECK(tail.left == 13u);
  CHECK(tail.index == 15);
  const LinePos mid = line_position(line, 7);
  CHECK(mid.left == 3u);
  CHECK(mid.right == 6u);
  CHECK(mid.index == 4);
  CHECK_THROWS_AS(line_position(line, 99), std::invalid_argument);
}

TEST_CASE("mesh_neighbours at corners and in the middle", "[orderings][neighbours]") {
  const MeshNeighbours nw = mesh_neighbours(4, 4, 0);
  CHECK(nw.north == kNoNode);
  CHECK(nw.west == kNoNode);
  CHECK(nw.south == 4u);
  CHECK(nw.east == 1u);

  const MeshNeighbours se = mesh_neighbours(4, 4, 15);
  CHECK(se.south == kNoNode);
  CHECK(se.east == kNoNode);
  CHECK(se.north == 11u);
  CHECK(se.west == 14u);

  const MeshNeighbours mid = mesh_neighbours(4, 4, 5);
  CHECK(mid.north == 1u);
  CHECK(mid.south == 9u);
  CHECK(mid.east == 6u);
  CHECK(mid.west == 4u);

  // Non-square: node 3 is the top-right corner of a 2x4 grid.
  const MeshNeighbours tr = mesh_neighbours(2, 4, 3);
  CHECK(tr.north == kNoNode);
  CHECK(tr.east == kNoNode);
  CHECK(tr.south == 7u);
  CHECK(tr.west == 2u);

  CHECK_THROWS_AS(mesh_neighbours(4, 4, 16), std::out_of_range);
}
