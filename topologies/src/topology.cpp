#include "hopsim/topo/topology.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace hopsim::topo {

Topology::Topology(std::vector<int> dims, std::vector<bool> wrap) : dims_(std::move(dims)), wrap_(std::move(wrap)) {
  if (dims_.empty()) throw std::invalid_argument("Topology: dims is empty");
  if (dims_.size() != wrap_.size())
    throw std::invalid_argument("Topology: dims has " + std::to_string(dims_.size()) + " entries but wrap has " +
                                std::to_string(wrap_.size()));
  const std::size_t nd = dims_.size();

  // Ids are 32-bit with 0xFFFFFFFF reserved as a sentinel, so reject grids
  // whose node or link count would not fit.
  constexpr std::uint64_t kIdLimit = 0xFFFFFFFFull;
  std::uint64_t nodes = 1;
  for (std::size_t d = 0; d < nd; ++d) {
    if (dims_[d] < 1)
      throw std::invalid_argument("Topology: dims[" + std::to_string(d) + "] = " + std::to_string(dims_[d]) +
                                  ", every dim must be >= 1");
    nodes *= static_cast<std::uint64_t>(dims_[d]);
    if (nodes >= kIdLimit) throw std::invalid_argument("Topology: too many nodes");
  }
  if (nodes * nd * 2 >= kIdLimit) throw std::invalid_argument("Topology: too many links");
  num_nodes_ = static_cast<std::size_t>(nodes);

  strides_.assign(nd, 1);
  for (std::size_t d = nd - 1; d > 0; --d) strides_[d - 1] = strides_[d] * static_cast<std::uint32_t>(dims_[d]);

  graph_ = Graph(num_nodes_);
  for (std::size_t n = 0; n < num_nodes_; ++n) graph_[n].coord = coord_of(static_cast<NodeId>(n));

  out_links_.assign(num_nodes_ * nd * 2, kNoLink);
  for (std::size_t n = 0; n < num_nodes_; ++n) {
    const auto src = static_cast<NodeId>(n);
    for (std::size_t d = 0; d < nd; ++d) {
      const int extent = dims_[d];
      if (extent == 1) continue;
      const int c = coord_of(src, static_cast<int>(d));
      for (int dir : {+1, -1}) {
        int nc = c + dir;
        if (nc < 0 || nc >= extent) {
          if (!wrap_[d]) continue;
          nc = (nc + extent) % extent;
        }
        const auto dst =
            static_cast<NodeId>(static_cast<std::int64_t>(src) +
                                static_cast<std::int64_t>(nc - c) * static_cast<std::int64_t>(strides_[d]));
        const auto id = static_cast<LinkId>(links_.size());
        links_.push_back({src, dst, static_cast<int>(d), dir});
        out_links_[slot(src, static_cast<int>(d), dir)] = id;
        boost::add_edge(src, dst, LinkProps{id, static_cast<int>(d), dir}, graph_);
      }
    }
  }
}

void Topology::check_node(NodeId n, const char* what) const {
  if (n >= num_nodes_)
    throw std::out_of_range(std::string(what) + ": node " + std::to_string(n) + " out of range (num_nodes " +
                            std::to_string(num_nodes_) + ")");
}

void Topology::check_dim(int dim, const char* what) const {
  if (dim < 0 || dim >= ndims())
    throw std::out_of_range(std::string(what) + ": dim " + std::to_string(dim) + " out of range (ndims " +
                            std::to_string(ndims()) + ")");
}

bool Topology::wraps(int dim) const {
  check_dim(dim, "Topology::wraps");
  return wrap_[static_cast<std::size_t>(dim)];
}

std::uint32_t Topology::stride(int dim) const {
  check_dim(dim, "Topology::stride");
  return strides_[static_cast<std::size_t>(dim)];
}

NodeId Topology::node_at(std::span<const int> coord) const {
  if (coord.size() != dims_.size())
    throw std::invalid_argument("Topology::node_at: got " + std::to_string(coord.size()) + " coordinates for " +
                                std::to_string(dims_.size()) + " dims");
  NodeId id = 0;
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    if (coord[d] < 0 || coord[d] >= dims_[d])
      throw std::out_of_range("Topology::node_at: coord[" + std::to_string(d) + "] = " + std::to_string(coord[d]) +
                              " outside [0, " + std::to_string(dims_[d]) + ")");
    id += static_cast<NodeId>(coord[d]) * strides_[d];
  }
  return id;
}

std::vector<int> Topology::coord_of(NodeId node) const {
  check_node(node, "Topology::coord_of");
  std::vector<int> c(dims_.size());
  for (std::size_t d = 0; d < dims_.size(); ++d)
    c[d] = static_cast<int>((node / strides_[d]) % static_cast<std::uint32_t>(dims_[d]));
  return c;
}

int Topology::coord_of(NodeId node, int dim) const {
  check_node(node, "Topology::coord_of");
  check_dim(dim, "Topology::coord_of");
  const auto d = static_cast<std::size_t>(dim);
  return static_cast<int>((node / strides_[d]) % static_cast<std::uint32_t>(dims_[d]));
}

LinkId Topology::link(NodeId from, int dim, int dir) const {
  check_node(from, "Topology::link");
  check_dim(dim, "Topology::link");
  if (dir != 1 && dir != -1)
    throw std::invalid_argument("Topology::link: dir must be +1 or -1, got " + std::to_string(dir));
  return out_links_[slot(from, dim, dir)];
}

const Topology::LinkRec& Topology::checked(LinkId l) const {
  if (l >= links_.size())
    throw std::out_of_range("Topology: link " + std::to_string(l) + " out of range (num_links " +
                            std::to_string(links_.size()) + ")");
  return links_[l];
}

Topology make_mesh2d(int rows, int cols) {
  if (rows < 1) throw std::invalid_argument("make_mesh2d: rows must be >= 1, got " + std::to_string(rows));
  if (cols < 1) throw std::invalid_argument("make_mesh2d: cols must be >= 1, got " + std::to_string(cols));
  return Topology({rows, cols}, {false, false});
}

Topology make_torus(std::vector<int> dims) {
  std::vector<bool> wrap(dims.size(), true);
  return {std::move(dims), std::move(wrap)};
}

}  // namespace hopsim::topo
