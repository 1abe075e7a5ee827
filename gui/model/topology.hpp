// Where the GUI draws a trace's nodes and links: a plain layout computed from the
// nodes' coordinates, free of Qt so it can be tested without widgets.
//
// - 2 numeric coordinates [row, col]: a mesh, one vertex per node.
// - 3 or more numeric coordinates: a torus drawn as the projection onto two chosen
//   dimensions; nodes that differ only in the other dimensions share a vertex and
//   their links are aggregated (or, with a slice, only nodes at the chosen values count).
// - anything else: a generic layered layout (breadth-first depth from the first node).
// Nodes whose coordinates do not fit the grid (e.g. external memory ["elink"]) sit in a
// column to the right of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hopsim/traces/records.hpp"

namespace hopsim::gui {

/// A point in layout units (one grid cell = 1).
struct Point {
  double x = 0;
  double y = 0;
};

/// A straight piece of a drawn link, in layout units.
struct Segment {
  Point a;
  Point b;
};

enum class LayoutKind { mesh, torus, generic };

/// "mesh", "torus" or "generic".
const char* to_string(LayoutKind k) noexcept;

/// A drawn node: one trace node (mesh, generic) or all nodes projected onto one cell (torus).
struct Vertex {
  std::string label;     ///< e.g. "core00"
  std::string sublabel;  ///< e.g. "coreid 0x808" or "4 nodes"
  Point pos;
  std::vector<std::size_t> nodes;       ///< indices into the node list
  std::vector<std::size_t> self_links;  ///< links that start and end here (injection, ejection, aggregated)
};

/// A drawn directed link between two vertices: every trace link from one to the other.
struct Edge {
  std::size_t from = 0;            ///< vertex index
  std::size_t to = 0;              ///< vertex index
  bool wrap = false;               ///< a torus wrap-around (drawn as stubs leaving the grid)
  std::vector<std::size_t> links;  ///< indices into the link list
};

/// How to lay out a trace with 3 or more coordinates.
struct ProjectionOptions {
  int dim_x = -1;  ///< coordinate drawn left to right (-1: the default choice)
  int dim_y = -1;  ///< coordinate drawn top to bottom (-1: the default choice)
  /// Per coordinate, a value to keep (slice) instead of aggregating; empty or nullopt = aggregate.
  std::vector<std::optional<long long>> fixed;
};

/// The laid out machine.
struct Topology {
  LayoutKind kind = LayoutKind::generic;
  int dims = 0;    ///< numeric coordinates per node (0 for generic)
  int dim_x = -1;  ///< torus: the projected dimensions
  int dim_y = -1;
  std::vector<long long> extent;  ///< per dimension: number of distinct values (mesh/torus)
  std::vector<Vertex> vertices;
  std::vector<Edge> edges;
  std::vector<long> node_vertex;  ///< per node: vertex index, -1 when sliced away
  std::vector<long> link_edge;    ///< per link: edge index, -1 for self links or sliced away
  double width = 0;               ///< bounding box of the vertex centres
  double height = 0;

  /// The drawn pieces of `edge`: directions of a pair are offset to either side;
  /// ends are cut back by `node_radius` so arrows do not hide under the node boxes.
  std::vector<Segment> geometry(std::size_t edge, double node_radius = 0.3, double offset = 0.09) const;
};

/// Lays out `nodes` and `links` as described above.
Topology build_topology(const std::vector<traces::Node>& nodes, const std::vector<traces::Link>& links,
                        const ProjectionOptions& options = {});

/// The numeric coordinates of `coords` (a JSON array), or nullopt when it is not all integers.
std::optional<std::vector<long long>> numeric_coords(const std::string& coords);

}  // namespace hopsim::gui
