#include <catch2/catch.hpp>

#include <hopsim/topo/topology.hpp>

#include <array>
#include <cstdlib>
#include <random>
#include <vector>

using namespace hopsim::topo;

namespace {

// Each link must start where the previous one ended; the chain runs src->dst.
void require_chain(const Topology& t, const std::vector<LinkId>& path, NodeId src, NodeId dst) {
  NodeId cur = src;
  for (LinkId l : path) {
    REQUIRE(t.link_source(l) == cur);
    cur = t.link_target(l);
  }
  REQUIRE(cur == dst);
}

}  // namespace

TEST_CASE("route_xy corner to corner on 4x4", "[routing][mesh]") {
  const Topology t = make_mesh2d(4, 4);
  const std::array<int, 2> from{0, 0}, to{3, 3};
  const NodeId src = t.node_at(from), dst = t.node_at(to);
  const auto path = route_xy(t, src, dst);
  REQUIRE(path.size() == 6);
  for (int i = 0; i < 3; ++i) {
    CHECK(t.link_dim(path[i]) == 1);
    CHECK(t.link_dir(path[i]) == +1);
  }
  for (int i = 3; i < 6; ++i) {
    CHECK(t.link_dim(path[i]) == 0);
    CHECK(t.link_dir(path[i]) == +1);
  }
  require_chain(t, path, src, dst);
}

TEST_CASE("route_xy goes west then north", "[routing][mesh]") {
  const Topology t = make_mesh2d(4, 4);
  const std::array<int, 2> from{2, 3}, to{0, 1};
  const NodeId src = t.node_at(from), dst = t.node_at(to);
  REQUIRE(src == 11u);
  REQUIRE(dst == 1u);
  const auto path = route_xy(t, src, dst);
  REQUIRE(path.size() == 4);
  // 11 -> 10 -> 9 along X (west), then 9 -> 5 -> 1 along Y (north).
  const std::array<NodeId, 4> targets{10, 9, 5, 1};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(t.link_dim(path[i]) == (i < 2 ? 1 : 0));
    CHECK(t.link_dir(path[i]) == -1);
    CHECK(t.link_target(path[i]) == targets[i]);
  }
  require_chain(t, path, src, dst);
}

TEST_CASE("route to self is empty", "[routing]") {
  const Topology t = make_mesh2d(4, 4);
  CHECK(route_xy(t, 6, 6).empty());
  const Topology tor = make_torus({4, 4});
  const std::array<int, 2> order{0, 1};
  CHECK(route_dor(tor, 9, 9, order).empty());
}

TEST_CASE("route_dor rejects bad dim orders and route_xy needs 2-D", "[routing][errors]") {
  const Topology t = make_torus({4, 4});
  const std::array<int, 1> too_short{0};
  const std::array<int, 2> repeated{1, 1};
  const std::array<int, 2> bad{0, 2};
  CHECK_THROWS_AS(route_dor(t, 0, 5, too_short), std::invalid_argument);
  CHECK_THROWS_AS(route_dor(t, 0, 5, repeated), std::invalid_argument);
  CHECK_THROWS_AS(route_dor(t, 0, 5, bad), std::invalid_argument);
  CHECK_THROWS_AS(route_xy(make_torus({4, 4, 4}), 0, 1), std::invalid_argument);
  const std::array<int, 2> ok{0, 1};
  CHECK_THROWS_AS(route_dor(t, 0, 16, ok), std::out_of_range);
}

TEST_CASE("hop_distance on a mesh is manhattan distance", "[distance][mesh]") {
  const Topology t = make_mesh2d(4, 4);
  CHECK(hop_distance(t, 0, 15) == 6);  // (0,0)-(3,3)
  CHECK(hop_distance(t, 6, 12) == 4);  // (1,2)-(3,0)
  CHECK(hop_distance(t, 9, 9) == 0);   // (2,1)-(2,1)
  CHECK(hop_distance(t, 3, 12) == 6);  // (0,3)-(3,0): no wrap on a mesh
  CHECK(hop_distance(t, 5, 11) == 3);  // (1,1)-(2,3)
  CHECK(hop_distance(t, 11, 5) == 3);  // symmetric
}

TEST_CASE("hop_distance on a 4x4x4x4x2 torus wraps", "[distance][torus]") {
  const Topology t = make_torus({4, 4, 4, 4, 2});
  const std::array<int, 5> origin{0, 0, 0, 0, 0};
  const std::array<int, 5> a{3, 0, 0, 0, 1};
  const std::array<int, 5> b{2, 2, 2, 2, 1};
  // 3 in extent 4 is one hop backwards; extent 2 is always one hop.
  CHECK(hop_distance(t, t.node_at(origin), t.node_at(a)) == 2);
  // 2 is the antipode in extent 4: 2+2+2+2+1.
  CHECK(hop_distance(t, t.node_at(origin), t.node_at(b)) == 9);
}

TEST_CASE("route_dor takes the short way round, ties go +1", "[routing][torus]") {
  const Topology t = make_torus({4});
  const std::array<int, 1> order{0};

  const auto tie = route_dor(t, 0, 2, order);  // 2 either way
  REQUIRE(tie.size() == 2);
  CHECK(t.link_dir(tie[0]) == +1);
  CHECK(t.link_dir(tie[1]) == +1);
  require_chain(t, tie, 0, 2);

  const auto back = route_dor(t, 0, 3, order);  // 1 hop via wrap vs 3 forward
  REQUIRE(back.size() == 1);
  CHECK(t.link_dir(back[0]) == -1);
  CHECK(t.link_target(back[0]) == 3u);

  const auto wrap_fwd = route_dor(t, 3, 0, order);  // 3 -> 0 is +1 through the wrap
  REQUIRE(wrap_fwd.size() == 1);
  CHECK(t.link_dir(wrap_fwd[0]) == +1);

  // Extent 2: distance 1 either way, tie -> +1 link.
  const Topology t2 = make_torus({2});
  const auto pair = route_dor(t2, 1, 0, order);
  REQUIRE(pair.size() == 1);
  CHECK(t2.link_dir(pair[0]) == +1);
  CHECK(pair[0] == t2.link(1, 0, +1));
}

TEST_CASE("route_dor follows the given dimension order", "[routing][torus]") {
  const Topology t = make_torus({4, 4});
  const std::array<int, 2> yx{0, 1};
  const std::array<int, 2> xy{1, 0};
  // (0,0) -> (1,3): dim 0 +1 once, dim 1 -1 once (wrap).
  const NodeId dst = 7;
  const auto p1 = route_dor(t, 0, dst, yx);
  REQUIRE(p1.size() == 2);
  CHECK(t.link_dim(p1[0]) == 0);
  CHECK(t.link_dim(p1[1]) == 1);
  CHECK(t.link_dir(p1[1]) == -1);
  require_chain(t, p1, 0, dst);
  const auto p2 = route_dor(t, 0, dst, xy);
  REQUIRE(p2.size() == 2);
  CHECK(t.link_dim(p2[0]) == 1);
  CHECK(t.link_dim(p2[1]) == 0);
  require_chain(t, p2, 0, dst);
}

TEST_CASE("512-node torus: route_dor length equals hop_distance", "[routing][torus]") {
  const Topology t = make_torus({4, 4, 4, 4, 2});
  REQUIRE(t.num_nodes() == 512);
  REQUIRE(t.num_links() == 512 * 2 * 5);
  const std::array<int, 5> fwd{0, 1, 2, 3, 4};
  const std::array<int, 5> rev{4, 3, 2, 1, 0};
  std::mt19937 rng(12345u);  // fixed seed: reproducible pairs
  for (int i = 0; i < 200; ++i) {
    const NodeId a = static_cast<NodeId>(rng() % 512u);
    const NodeId b = static_cast<NodeId>(rng() % 512u);
    const int d = hop_distance(t, a, b);
    CHECK(d == hop_distance(t, b, a));
    const auto p = route_dor(t, a, b, fwd);
    CHECK(static_cast<int>(p.size()) == d);
    require_chain(t, p, a, b);
    const auto q = route_dor(t, a, b, rev);
    CHECK(static_cast<int>(q.size()) == d);
    require_chain(t, q, a, b);
  }
}
