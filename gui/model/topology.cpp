#include "topology.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

namespace hopsim::gui {

const char* to_string(LayoutKind k) noexcept {
  switch (k) {
    case LayoutKind::mesh:
      return "mesh";
    case LayoutKind::torus:
      return "torus";
    case LayoutKind::generic:
      return "generic";
  }
  return "?";
}

std::optional<std::vector<long long>> numeric_coords(const std::string& coords) {
  const auto j = nlohmann::json::parse(coords, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array() || j.empty()) return std::nullopt;
  std::vector<long long> out;
  for (const auto& v : j) {
    if (!v.is_number_integer()) return std::nullopt;
    out.push_back(v.get<long long>());
  }
  return out;
}

namespace {

// "core00 (coreid 0x808)" -> {"core00", "coreid 0x808"}.
std::pair<std::string, std::string> split_name(const std::string& name) {
  const auto open = name.find(" (");
  if (open == std::string::npos || name.back() != ')') return {name, {}};
  return {name.substr(0, open), name.substr(open + 2, name.size() - open - 3)};
}

Point sub(Point a, Point b) { return {a.x - b.x, a.y - b.y}; }
Point add(Point a, Point b) { return {a.x + b.x, a.y + b.y}; }
Point mul(Point a, double k) { return {a.x * k, a.y * k}; }

void finish_edges(Topology& t, const std::vector<traces::Node>& nodes, const std::vector<traces::Link>& links,
                  bool grid) {
  std::map<std::int64_t, std::size_t> node_index;
  for (std::size_t i = 0; i < nodes.size(); ++i) node_index.emplace(nodes[i].id, i);
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> edge_of;
  t.link_edge.assign(links.size(), -1);
  for (std::size_t l = 0; l < links.size(); ++l) {
    const auto s = node_index.find(links[l].src), d = node_index.find(links[l].dst);
    if (s == node_index.end() || d == node_index.end()) continue;
    const long vs = t.node_vertex[s->second], vd = t.node_vertex[d->second];
    if (vs < 0 || vd < 0) continue;
    if (vs == vd) {
      t.vertices[static_cast<std::size_t>(vs)].self_links.push_back(l);
      continue;
    }
    const std::pair key{static_cast<std::size_t>(vs), static_cast<std::size_t>(vd)};
    auto [it, fresh] = edge_of.emplace(key, t.edges.size());
    if (fresh) {
      Edge e;
      e.from = key.first;
      e.to = key.second;
      if (grid) {
        const Point a = t.vertices[e.from].pos, b = t.vertices[e.to].pos;
        e.wrap = std::abs(a.x - b.x) > 1.5 || std::abs(a.y - b.y) > 1.5;
      }
      t.edges.push_back(e);
    }
    t.edges[it->second].links.push_back(l);
    t.link_edge[l] = static_cast<long>(it->second);
  }
}

void bounding_box(Topology& t) {
  double minx = 0, miny = 0, maxx = 0, maxy = 0;
  bool first = true;
  for (const auto& v : t.vertices) {
    if (first) {
      minx = maxx = v.pos.x;
      miny = maxy = v.pos.y;
      first = false;
    }
    minx = std::min(minx, v.pos.x);
    maxx = std::max(maxx, v.pos.x);
    miny = std::min(miny, v.pos.y);
    maxy = std::max(maxy, v.pos.y);
  }
  // Normalise so the box starts at (0, 0).
  for (auto& v : t.vertices) v.pos = {v.pos.x - minx, v.pos.y - miny};
  t.width = maxx - minx;
  t.height = maxy - miny;
}

// Breadth-first layers: x = depth, y = place in the layer; components stacked downwards.
void generic_layout(Topology& t, const std::vector<traces::Node>& nodes, const std::vector<traces::Link>& links) {
  t.kind = LayoutKind::generic;
  std::map<std::int64_t, std::size_t> node_index;
  for (std::size_t i = 0; i < nodes.size(); ++i) node_index.emplace(nodes[i].id, i);
  std::vector<std::set<std::size_t>> adj(nodes.size());
  for (const auto& l : links) {
    const auto s = node_index.find(l.src), d = node_index.find(l.dst);
    if (s == node_index.end() || d == node_index.end() || s->second == d->second) continue;
    adj[s->second].insert(d->second);
    adj[d->second].insert(s->second);
  }
  std::vector<long> depth(nodes.size(), -1);
  t.node_vertex.assign(nodes.size(), -1);
  double y_base = 0;
  for (std::size_t root = 0; root < nodes.size(); ++root) {
    if (depth[root] >= 0) continue;
    std::vector<std::vector<std::size_t>> layers;
    std::deque<std::size_t> queue{root};
    depth[root] = 0;
    while (!queue.empty()) {
      const auto n = queue.front();
      queue.pop_front();
      const auto d = static_cast<std::size_t>(depth[n]);
      if (layers.size() <= d) layers.resize(d + 1);
      layers[d].push_back(n);
      for (const auto m : adj[n]) {
        if (depth[m] < 0) {
          depth[m] = depth[n] + 1;
          queue.push_back(m);
        }
      }
    }
    std::size_t tallest = 0;
    for (const auto& layer : layers) tallest = std::max(tallest, layer.size());
    for (std::size_t d = 0; d < layers.size(); ++d) {
      const double top = y_base + (static_cast<double>(tallest) - static_cast<double>(layers[d].size())) / 2;
      for (std::size_t k = 0; k < layers[d].size(); ++k) {
        const auto n = layers[d][k];
        auto [label, sub] = split_name(nodes[n].name);
        Vertex v;
        v.label = label;
        v.sublabel = sub.empty() ? nodes[n].kind : sub;
        v.pos = {static_cast<double>(d) * 1.6, top + static_cast<double>(k)};
        v.nodes = {n};
        t.node_vertex[n] = static_cast<long>(t.vertices.size());
        t.vertices.push_back(std::move(v));
      }
    }
    y_base += static_cast<double>(tallest) + 0.5;
  }
  finish_edges(t, nodes, links, false);
  bounding_box(t);
}

}  // namespace

std::vector<Segment> Topology::geometry(std::size_t edge, double node_radius, double offset) const {
  const Edge& e = edges.at(edge);
  const Point a = vertices[e.from].pos, b = vertices[e.to].pos;
  auto unit = [](Point p) {
    const double len = std::hypot(p.x, p.y);
    return len > 0 ? mul(p, 1 / len) : Point{1, 0};
  };
  if (!e.wrap) {
    const Point dir = unit(sub(b, a));
    const Point n{-dir.y * offset, dir.x * offset};
    return {{add(add(a, mul(dir, node_radius)), n), add(sub(b, mul(dir, node_radius)), n)}};
  }
  // Wrap-around: leave a away from b, enter b from the far side.
  Point d = sub(b, a);
  Point out{std::abs(d.x) > 1.5 ? -std::copysign(1.0, d.x) : 0.0, std::abs(d.y) > 1.5 ? -std::copysign(1.0, d.y) : 0.0};
  out = unit(out);
  const Point n{-out.y * offset, out.x * offset};
  constexpr double kStub = 0.32;
  return {{add(add(a, mul(out, node_radius)), n), add(add(a, mul(out, node_radius + kStub)), n)},
          {add(sub(b, mul(out, node_radius + kStub)), n), add(sub(b, mul(out, node_radius)), n)}};
}

namespace {

using Coords = std::vector<std::optional<std::vector<long long>>>;
using Ranks = std::vector<std::map<long long, int>>;

// The most common length of numeric coordinates, when it is at least 2 and more than half
// the nodes have it; 0 otherwise (no grid).
std::size_t grid_dims(const Coords& coords, std::size_t node_count) {
  std::map<std::size_t, std::size_t> lengths;
  for (const auto& c : coords)
    if (c) ++lengths[c->size()];
  std::size_t dims = 0, best = 0;
  for (const auto& [len, count] : lengths) {
    if (count > best) {
      best = count;
      dims = len;
    }
  }
  return dims < 2 || best * 2 <= node_count ? 0 : dims;
}

// Distinct values per dimension: positions are ranks, so any integer labels work. Sets
// the extent of each dimension.
Ranks coordinate_ranks(Topology& t, const Coords& coords, std::size_t dims) {
  Ranks rank(dims);
  for (const auto& c : coords)
    if (c && c->size() == dims)
      for (std::size_t d = 0; d < dims; ++d) rank[d].emplace((*c)[d], 0);
  for (auto& r : rank) {
    int k = 0;
    for (auto& [value, index] : r) index = k++;
    t.extent.push_back(static_cast<long long>(r.size()));
  }
  return rank;
}

// The layout kind and the two drawn dimensions: a mesh is [row, col]; a torus defaults to
// its two widest dimensions, in coordinate order, unless the options choose.
void choose_projection(Topology& t, std::size_t dims, const ProjectionOptions& options) {
  int dx = 1, dy = 0;
  if (dims == 2) {
    t.kind = LayoutKind::mesh;
  } else {
    t.kind = LayoutKind::torus;
    std::vector<int> order(dims);
    for (std::size_t d = 0; d < dims; ++d) order[d] = static_cast<int>(d);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return t.extent[static_cast<std::size_t>(a)] > t.extent[static_cast<std::size_t>(b)];
    });
    dx = std::min(order[0], order[1]);
    dy = std::max(order[0], order[1]);
    const int n = static_cast<int>(dims);
    if (options.dim_x >= 0 && options.dim_x < n) dx = options.dim_x;
    if (options.dim_y >= 0 && options.dim_y < n && options.dim_y != dx) dy = options.dim_y;
    if (dy == dx) dy = dx == 0 ? 1 : 0;
  }
  t.dim_x = dx;
  t.dim_y = dy;
}

// Whether a node at `c` is in the slice the options fix for the dimensions not drawn.
bool in_slice(const Topology& t, const std::vector<long long>& c, const ProjectionOptions& options) {
  for (std::size_t d = 0; d < c.size() && d < options.fixed.size(); ++d)
    if (static_cast<int>(d) != t.dim_x && static_cast<int>(d) != t.dim_y && options.fixed[d] &&
        *options.fixed[d] != c[d])
      return false;
  return true;
}

// One vertex per (x, y) cell holding the nodes projected onto it; returns the nodes
// whose coordinates do not fit the grid.
std::vector<std::size_t> place_grid_nodes(Topology& t, const Coords& coords, const Ranks& rank, std::size_t dims,
                                          const ProjectionOptions& options) {
  const auto dx = static_cast<std::size_t>(t.dim_x), dy = static_cast<std::size_t>(t.dim_y);
  std::map<std::pair<int, int>, std::size_t> cell;
  std::vector<std::size_t> extras;
  for (std::size_t i = 0; i < coords.size(); ++i) {
    const auto& c = coords[i];
    if (!c || c->size() != dims) {
      extras.push_back(i);
      continue;
    }
    if (!in_slice(t, *c, options)) continue;
    const int x = rank[dx].at((*c)[dx]);
    const int y = rank[dy].at((*c)[dy]);
    auto [it, fresh] = cell.emplace(std::pair{x, y}, t.vertices.size());
    if (fresh) {
      Vertex v;
      v.pos = {static_cast<double>(x), static_cast<double>(y)};
      t.vertices.push_back(v);
    }
    t.vertices[it->second].nodes.push_back(i);
    t.node_vertex[i] = static_cast<long>(it->second);
  }
  return extras;
}

// Mesh vertices: the node's name and its parenthesised part; torus vertices: the drawn
// coordinates and the node's name or how many nodes the box holds.
void label_grid_vertices(Topology& t, const std::vector<traces::Node>& nodes, const Coords& coords) {
  for (auto& v : t.vertices) {
    const auto& first = nodes[v.nodes.front()];
    if (t.kind == LayoutKind::mesh) {
      auto [label, sub] = split_name(first.name);
      v.label = label;
      v.sublabel = sub;
    } else {
      const auto& c = *coords[v.nodes.front()];
      v.label = "(" + std::to_string(c[static_cast<std::size_t>(t.dim_x)]) + "," +
                std::to_string(c[static_cast<std::size_t>(t.dim_y)]) + ")";
      v.sublabel = v.nodes.size() == 1 ? split_name(first.name).first : std::to_string(v.nodes.size()) + " nodes";
    }
  }
}

// The y of the first grid vertex node `n` links to; 0 when it links to none.
double linked_grid_row(const Topology& t, const std::vector<traces::Node>& nodes,
                       const std::vector<traces::Link>& links, const std::map<std::int64_t, std::size_t>& node_index,
                       std::size_t n) {
  for (const auto& l : links) {
    std::int64_t other = -1;
    if (l.src == nodes[n].id)
      other = l.dst;
    else if (l.dst == nodes[n].id)
      other = l.src;
    const auto it = node_index.find(other);
    if (it != node_index.end() && t.node_vertex[it->second] >= 0)
      return t.vertices[static_cast<std::size_t>(t.node_vertex[it->second])].pos.y;
  }
  return 0;
}

// Nodes off the grid: left of it, level with the first grid vertex they link to.
void place_off_grid_nodes(Topology& t, const std::vector<traces::Node>& nodes, const std::vector<traces::Link>& links,
                          const std::vector<std::size_t>& extras) {
  std::map<std::int64_t, std::size_t> node_index;
  for (std::size_t i = 0; i < nodes.size(); ++i) node_index.emplace(nodes[i].id, i);
  std::set<std::pair<int, int>> taken;
  for (const auto n : extras) {
    int row = static_cast<int>(std::lround(linked_grid_row(t, nodes, links, node_index, n)));
    while (taken.count({-1, row})) ++row;
    taken.insert({-1, row});
    auto [label, sub] = split_name(nodes[n].name);
    Vertex v;
    v.label = label;
    v.sublabel = sub.empty() ? nodes[n].kind : sub;
    v.pos = {-1.3, static_cast<double>(row)};
    v.nodes = {n};
    t.node_vertex[n] = static_cast<long>(t.vertices.size());
    t.vertices.push_back(std::move(v));
  }
}

}  // namespace

Topology build_topology(const std::vector<traces::Node>& nodes, const std::vector<traces::Link>& links,
                        const ProjectionOptions& options) {
  Topology t;
  Coords coords;
  coords.reserve(nodes.size());
  for (const auto& n : nodes) coords.push_back(numeric_coords(n.coords));
  const std::size_t dims = grid_dims(coords, nodes.size());
  if (dims == 0) {
    generic_layout(t, nodes, links);
    return t;
  }
  t.dims = static_cast<int>(dims);
  const Ranks rank = coordinate_ranks(t, coords, dims);
  choose_projection(t, dims, options);
  t.node_vertex.assign(nodes.size(), -1);
  const auto extras = place_grid_nodes(t, coords, rank, dims, options);
  label_grid_vertices(t, nodes, coords);
  place_off_grid_nodes(t, nodes, links, extras);
  finish_edges(t, nodes, links, true);
  // Links to off-grid nodes are never wrap-arounds.
  for (auto& e : t.edges)
    if (t.vertices[e.from].pos.x < 0 || t.vertices[e.to].pos.x < 0) e.wrap = false;
  bounding_box(t);
  return t;
}

}  // namespace hopsim::gui
