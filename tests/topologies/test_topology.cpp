#include <catch2/catch.hpp>

#include <hopsim/topo/topology.hpp>

#include <stdexcept>
#include <vector>

using namespace hopsim::topo;

TEST_CASE("mesh 4x4 has 16 nodes and 48 directed links", "[topology][mesh]") {
  const Topology t = make_mesh2d(4, 4);
  CHECK(t.num_nodes() == 16);
  // Per dim: 4 lines x 3 adjacent pairs x 2 directions = 24; two dims.
  CHECK(t.num_links() == 48);
  CHECK(t.ndims() == 2);
  CHECK_FALSE(t.wraps(0));
  CHECK_FALSE(t.wraps(1));
  CHECK(boost::num_vertices(t.graph()) == 16);
  CHECK(boost::num_edges(t.graph()) == 48);
}

TEST_CASE("mesh node_at and coord_of round trip row-major", "[topology][mesh]") {
  const Topology t = make_mesh2d(3, 5);
  for (NodeId n = 0; n < t.num_nodes(); ++n) {
    const std::vector<int> c = t.coord_of(n);
    REQUIRE(c.size() == 2);
    CHECK(c[0] == static_cast<int>(n / 5));
    CHECK(c[1] == static_cast<int>(n % 5));
    CHECK(t.node_at(c) == n);
    CHECK(t.graph()[n].coord == c);
  }
  const std::vector<int> rc{2, 3};
  CHECK(t.node_at(rc) == 13u);  // 2*5 + 3
}

TEST_CASE("node_at and coord_of reject bad input", "[topology][errors]") {
  const Topology t = make_mesh2d(4, 4);
  const std::vector<int> outside{4, 0};
  const std::vector<int> negative{0, -1};
  const std::vector<int> wrong_arity{1, 1, 1};
  CHECK_THROWS_AS(t.node_at(outside), std::out_of_range);
  CHECK_THROWS_AS(t.node_at(negative), std::out_of_range);
  CHECK_THROWS_AS(t.node_at(wrong_arity), std::invalid_argument);
  CHECK_THROWS_AS(t.coord_of(16), std::out_of_range);
  CHECK_THROWS_AS(t.link_source(48), std::out_of_range);
  CHECK_THROWS_AS(t.link(0, 2, 1), std::out_of_range);
  CHECK_THROWS_AS(t.link(0, 0, 0), std::invalid_argument);
}

TEST_CASE("constructor errors name the problem", "[topology][errors]") {
  CHECK_THROWS_WITH(make_mesh2d(0, 4), Catch::Contains("rows"));
  CHECK_THROWS_AS(make_mesh2d(0, 4), std::invalid_argument);
  CHECK_THROWS_WITH(make_mesh2d(4, 0), Catch::Contains("cols"));
  CHECK_THROWS_WITH(Topology({}, {}), Catch::Contains("empty"));
  CHECK_THROWS_WITH(Topology({2, 2}, {true}), Catch::Contains("wrap"));
  CHECK_THROWS_WITH(make_torus({4, 0, 2}), Catch::Contains("dims[1]"));
}

TEST_CASE("mesh links follow coordinates and stop at edges", "[topology][mesh]") {
  const Topology t = make_mesh2d(4, 4);
  // Node 5 = (1,1) has all four neighbours.
  const LinkId east = t.link(5, 1, +1);
  REQUIRE(east != kNoLink);
  CHECK(t.link_source(east) == 5u);
  CHECK(t.link_target(east) == 6u);
  CHECK(t.link_dim(east) == 1);
  CHECK(t.link_dir(east) == +1);
  CHECK(t.link_target(t.link(5, 0, -1)) == 1u);
  CHECK(t.link_target(t.link(5, 0, +1)) == 9u);
  CHECK(t.link_target(t.link(5, 1, -1)) == 4u);
  // Corner 0 = (0,0): nothing north or west.
  CHECK(t.link(0, 0, -1) == kNoLink);
  CHECK(t.link(0, 1, -1) == kNoLink);
  CHECK(t.link(15, 0, +1) == kNoLink);
  CHECK(t.link(15, 1, +1) == kNoLink);
}

TEST_CASE("graph edge properties agree with the link table", "[topology]") {
  const Topology t = make_torus({3, 2, 1});
  for (auto [it, end] = boost::edges(t.graph()); it != end; ++it) {
    const LinkProps& p = t.graph()[*it];
    CHECK(boost::source(*it, t.graph()) == t.link_source(p.id));
    CHECK(boost::target(*it, t.graph()) == t.link_target(p.id));
    CHECK(p.dim == t.link_dim(p.id));
    CHECK(p.dir == t.link_dir(p.id));
  }
}

TEST_CASE("torus 4x2x2x2x2 counts", "[topology][torus]") {
  const Topology t = make_torus({4, 2, 2, 2, 2});
  CHECK(t.num_nodes() == 64);  // 4*2*2*2*2 (not 32)
  // Every dim has extent > 1 and wraps, so each node has one +1 and one -1
  // link per dim (extent 2 keeps both, BG/Q style): 64 * 2 * 5 = 640.
  CHECK(t.num_links() == 640);
  for (int d = 0; d < 5; ++d) CHECK(t.wraps(d));

  const Topology t4 = make_torus({4, 2, 2, 2});
  CHECK(t4.num_nodes() == 32);   // 4*2*2*2
  CHECK(t4.num_links() == 256);  // 32 * 2 * 4
}

TEST_CASE("torus extent 1 has no links, extent 2 has two distinct links", "[topology][torus]") {
  const Topology t = make_torus({4, 1, 2});
  CHECK(t.num_nodes() == 8);
  // Dims with extent > 1: dims 0 and 2 -> 8 * 2 * 2 = 32.
  CHECK(t.num_links() == 32);
  CHECK(t.link(0, 1, +1) == kNoLink);
  CHECK(t.link(0, 1, -1) == kNoLink);
  const LinkId plus = t.link(0, 2, +1);
  const LinkId minus = t.link(0, 2, -1);
  REQUIRE(plus != kNoLink);
  REQUIRE(minus != kNoLink);
  CHECK(plus != minus);
  CHECK(t.link_target(plus) == 1u);
  CHECK(t.link_target(minus) == 1u);
  // Wrap in dim 0: node 0 = (0,0,0) going -1 lands on (3,0,0) = 6.
  CHECK(t.link_target(t.link(0, 0, -1)) == 6u);
}

TEST_CASE("Topology is a copyable value", "[topology]") {
  Topology a = make_mesh2d(2, 3);
  const Topology b = a;
  a = make_torus({5});
  CHECK(b.num_nodes() == 6);
  CHECK(b.link_target(b.link(0, 1, +1)) == 1u);
  CHECK(a.num_nodes() == 5);
}
