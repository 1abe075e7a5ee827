// hopsim::topo -- N-dimensional mesh/torus topologies on Boost.Graph,
// dimension-order routing, hop distances and logical node orderings.
//
// Conventions:
//  * Node ids are row-major over the coordinate vector: the last dimension
//    varies fastest. For make_mesh2d(rows, cols), id = row * cols + col.
//  * Links are directed. Each link's id equals its index in creation order
//    (by source node, then dimension, then +1 before -1), and the Boost edge
//    property LinkProps::id carries the same value.
//  * A dimension of extent 1 has no links. A wrapped dimension of extent 2
//    has two distinct links (+1 and -1) from each node to its peer.
#pragma once

#include <boost/graph/adjacency_list.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace hopsim::topo {

using NodeId = std::uint32_t;
using LinkId = std::uint32_t;
inline constexpr NodeId kNoNode = 0xFFFFFFFFu;
inline constexpr LinkId kNoLink = 0xFFFFFFFFu;

struct NodeProps {
  std::vector<int> coord;  // one coordinate per dimension
};

// Defaults only matter for Boost's internally default-constructed copies
// (silences -Wmaybe-uninitialized at -O2); still an aggregate.
struct LinkProps {
  LinkId id = kNoLink;
  int dim = -1;
  int dir = 0;  // +1 or -1 on real links
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, NodeProps, LinkProps>;

// A grid of N dimensions, each optionally wrapped (torus). Value type:
// copying is safe because no Boost descriptors are cached internally.
class Topology {
 public:
  // Throws std::invalid_argument if dims is empty, sizes differ, any dim < 1,
  // or the node/link count does not fit in a 32-bit id.
  Topology(std::vector<int> dims, std::vector<bool> wrap);

  const Graph& graph() const { return graph_; }
  std::size_t num_nodes() const { return num_nodes_; }
  std::size_t num_links() const { return links_.size(); }  // directed links

  const std::vector<int>& dims() const { return dims_; }
  bool wraps(int dim) const;  // std::out_of_range for a bad dim
  int ndims() const { return static_cast<int>(dims_.size()); }
  // Row-major stride of a dimension (product of the later extents).
  std::uint32_t stride(int dim) const;

  // std::invalid_argument if coord.size() != ndims(); std::out_of_range if a
  // coordinate is outside its extent.
  NodeId node_at(std::span<const int> coord) const;
  std::vector<int> coord_of(NodeId node) const;  // std::out_of_range
  // One coordinate without allocating; std::out_of_range for bad node/dim.
  int coord_of(NodeId node, int dim) const;

  // The directed link leaving `from` along dim in dir (+1/-1), or kNoLink if
  // there is none (mesh edge or extent 1). Throws std::out_of_range for a bad
  // node or dim, std::invalid_argument if dir is not +1 or -1.
  LinkId link(NodeId from, int dim, int dir) const;

  // All throw std::out_of_range for an unknown link id.
  NodeId link_source(LinkId l) const { return checked(l).src; }
  NodeId link_target(LinkId l) const { return checked(l).dst; }
  int link_dim(LinkId l) const { return checked(l).dim; }
  int link_dir(LinkId l) const { return checked(l).dir; }

 private:
  struct LinkRec {
    NodeId src;
    NodeId dst;
    int dim;
    int dir;
  };
  const LinkRec& checked(LinkId l) const;
  void check_node(NodeId n, const char* what) const;
  void check_dim(int dim, const char* what) const;
  // Slot of (node, dim, dir) in out_links_.
  std::size_t slot(NodeId n, int dim, int dir) const {
    return (static_cast<std::size_t>(n) * dims_.size() + static_cast<std::size_t>(dim)) * 2 + (dir > 0 ? 0 : 1);
  }

  std::vector<int> dims_;
  std::vector<bool> wrap_;
  std::vector<std::uint32_t> strides_;
  std::size_t num_nodes_ = 0;
  std::vector<LinkRec> links_;     // indexed by LinkId
  std::vector<LinkId> out_links_;  // indexed by slot(); kNoLink if absent
  Graph graph_;
};

// dim 0 = row (Y), dim 1 = col (X); no wrap. Node id = row * cols + col.
// Throws std::invalid_argument naming rows/cols if either is < 1.
Topology make_mesh2d(int rows, int cols);

// All dimensions wrap. See the header comment for extents 1 and 2.
Topology make_torus(std::vector<int> dims);

// Dimension-order route: correct dimensions in dim_order; in a wrapped dim
// take the shorter way (ties: +1). Returns the directed links in path order,
// empty if src == dst. dim_order must be a permutation of 0..ndims()-1
// (std::invalid_argument otherwise); bad node ids throw std::out_of_range.
std::vector<LinkId> route_dor(const Topology& topo, NodeId src, NodeId dst, std::span<const int> dim_order);

// Column (X, dim 1) first, then row (Y, dim 0). Requires a 2-D topology.
std::vector<LinkId> route_xy(const Topology& mesh2d, NodeId src, NodeId dst);

// Minimal hop count, wrap-aware (equals route_dor length for any order).
int hop_distance(const Topology& topo, NodeId a, NodeId b);

// ---- Logical orderings over a rows x cols grid (ids are row*cols+col) ----
// All throw std::invalid_argument if rows or cols < 1.

// Hamiltonian cycle of single mesh hops (closing step included) when cols or
// rows is even. 1xN and Nx1 give plain line order. When both are odd (> 1) no
// such cycle exists: the even-cols pattern is returned and its closing step
// (last -> first) is rows-1 hops, not one.
std::vector<NodeId> snake_ring_order(int rows, int cols);

// Row 0 left to right, row 1 right to left, ...
std::vector<NodeId> boustrophedon_order(int rows, int cols);

struct RingPos {
  NodeId next;
  NodeId prev;
  int index;
};
// next/prev wrap around the cycle; std::invalid_argument if node is absent.
RingPos ring_position(std::span<const NodeId> order, NodeId node);

struct LinePos {
  NodeId right;
  NodeId left;
  int index;
};
// kNoNode past the two ends; std::invalid_argument if node is absent.
LinePos line_position(std::span<const NodeId> order, NodeId node);

struct MeshNeighbours {
  NodeId north, south, east, west;
};
// north = row-1, south = row+1, east = col+1, west = col-1; kNoNode past the
// edges. std::out_of_range if node >= rows*cols.
MeshNeighbours mesh_neighbours(int rows, int cols, NodeId node);

}  // namespace hopsim::topo
