#include "hopsim/network/model/patterns.hpp"

#include <array>
#include <bit>
#include <stdexcept>

namespace hopsim::network::model {

namespace {
struct Named {
  Pattern p;
  const char* name;
};
constexpr std::array kNames = {
    Named{Pattern::uniform, "uniform"},
    Named{Pattern::transpose, "transpose"},
    Named{Pattern::bit_complement, "bit_complement"},
    Named{Pattern::bit_reverse, "bit_reverse"},
    Named{Pattern::shuffle, "shuffle"},
    Named{Pattern::tornado, "tornado"},
    Named{Pattern::neighbor, "neighbor"},
    Named{Pattern::hotspot, "hotspot"},
};

std::string list_names() {
  std::string s;
  for (const auto& n : kNames) {
    if (!s.empty()) s += ", ";
    s += n.name;
  }
  return s;
}

std::uint32_t uniform_node(std::uint32_t n, Rng& rng) {
  return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng);
}

std::string shape_name(std::span<const int> dims) {
  std::string s;
  for (int d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

// Number of id bits; throws unless n is a power of two.
int id_bits(Pattern p, std::uint32_t n, std::span<const int> dims) {
  if (!std::has_single_bit(n))
    throw std::invalid_argument(std::string("traffic pattern ") + to_string(p) +
                                " needs a power-of-two node count, got " + shape_name(dims) + " = " +
                                std::to_string(n));
  return std::countr_zero(n);
}
}  // namespace

Pattern parse_pattern(std::string_view name) {
  std::string s(name);
  for (auto& c : s)
    if (c == '-') c = '_';
  for (const auto& n : kNames)
    if (s == n.name) return n.p;
  throw std::invalid_argument("unknown traffic pattern '" + std::string(name) + "' (expected one of: " + list_names() +
                              ")");
}

const char* to_string(Pattern p) {
  for (const auto& n : kNames)
    if (n.p == p) return n.name;
  return "?";
}

std::uint32_t destination(Pattern p, std::uint32_t src, int rows, int cols, Rng& rng, const HotspotSpec& hot) {
  const std::array dims{rows, cols};
  return destination(p, src, dims, rng, hot);
}

namespace {

constexpr int kMaxDims = 8;

// Node count of `dims`, checked; throws unless src is one of the nodes.
std::uint32_t checked_nodes(std::uint32_t src, std::span<const int> dims) {
  if (dims.empty() || dims.size() > kMaxDims)
    throw std::invalid_argument("traffic: need 1 to 8 dimensions, got " + std::to_string(dims.size()));
  std::uint64_t n64 = 1;
  for (int d : dims) {
    if (d < 1) throw std::invalid_argument("traffic: every extent must be at least 1, got " + shape_name(dims));
    n64 *= static_cast<std::uint64_t>(d);
  }
  if (n64 > 0xFFFFFFFFu) throw std::invalid_argument("traffic: too many nodes in " + shape_name(dims));
  const auto n = static_cast<std::uint32_t>(n64);
  if (src >= n)
    throw std::invalid_argument("traffic: source node " + std::to_string(src) + " out of range for " +
                                std::to_string(n) + " nodes");
  return n;
}

// A node's coordinates, last dimension fastest.
struct Coords {
  std::array<std::uint32_t, kMaxDims> x{};
  std::span<const int> dims;

  Coords(std::uint32_t id, std::span<const int> d) : dims(d) {
    for (std::size_t i = dims.size(); i-- > 0;) {
      x[i] = id % static_cast<std::uint32_t>(dims[i]);
      id /= static_cast<std::uint32_t>(dims[i]);
    }
  }
  std::uint32_t id() const {
    std::uint32_t id = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) id = id * static_cast<std::uint32_t>(dims[i]) + x[i];
    return id;
  }
};

std::uint32_t transpose_of(std::uint32_t src, std::span<const int> dims) {
  const std::size_t nd = dims.size();
  for (std::size_t i = 0; i < nd; ++i)
    if (dims[i] != dims[nd - 1 - i])
      throw std::invalid_argument(
          "traffic pattern transpose needs a square shape (extents equal to their reverse), got " + shape_name(dims));
  const Coords c(src, dims);
  Coords t = c;
  for (std::size_t i = 0; i < nd; ++i) t.x[i] = c.x[nd - 1 - i];
  return t.id();
}

std::uint32_t bit_reverse_of(std::uint32_t src, int b) {
  std::uint32_t d = 0;
  for (int i = 0; i < b; ++i)
    if (src >> i & 1u) d |= std::uint32_t{1} << (b - 1 - i);
  return d;
}

std::uint32_t shuffle_of(std::uint32_t src, int b) {
  if (b == 0) return 0;
  const std::uint32_t mask = (std::uint32_t{1} << b) - 1;
  return ((src << 1) | (src >> (b - 1))) & mask;
}

std::uint32_t tornado_of(std::uint32_t src, std::span<const int> dims) {
  Coords c(src, dims);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const auto k = static_cast<std::uint32_t>(dims[i]);
    c.x[i] = (c.x[i] + (k + 1) / 2 - 1) % k;
  }
  return c.id();
}

std::uint32_t neighbor_of(std::uint32_t src, std::span<const int> dims) {
  Coords c(src, dims);
  const std::size_t last = dims.size() - 1;
  c.x[last] = (c.x[last] + 1) % static_cast<std::uint32_t>(dims[last]);
  return c.id();
}

std::uint32_t hotspot_of(std::uint32_t n, Rng& rng, const HotspotSpec& hot) {
  if (hot.node >= n)
    throw std::invalid_argument("traffic: hotspot node " + std::to_string(hot.node) + " out of range for " +
                                std::to_string(n) + " nodes");
  if (!(hot.fraction >= 0 && hot.fraction <= 1))
    throw std::invalid_argument("traffic: hotspot fraction must be in [0, 1], got " + std::to_string(hot.fraction));
  if (std::uniform_real_distribution<double>(0, 1)(rng) < hot.fraction) return hot.node;
  return uniform_node(n, rng);
}

}  // namespace

std::uint32_t destination(Pattern p, std::uint32_t src, std::span<const int> dims, Rng& rng, const HotspotSpec& hot) {
  const std::uint32_t n = checked_nodes(src, dims);
  switch (p) {
    case Pattern::uniform:
      return uniform_node(n, rng);
    case Pattern::transpose:
      return transpose_of(src, dims);
    case Pattern::bit_complement:
      return ~src & ((std::uint32_t{1} << id_bits(p, n, dims)) - 1);
    case Pattern::bit_reverse:
      return bit_reverse_of(src, id_bits(p, n, dims));
    case Pattern::shuffle:
      return shuffle_of(src, id_bits(p, n, dims));
    case Pattern::tornado:
      return tornado_of(src, dims);
    case Pattern::neighbor:
      return neighbor_of(src, dims);
    case Pattern::hotspot:
      return hotspot_of(n, rng, hot);
  }
  throw std::invalid_argument("traffic: invalid pattern value");
}

}  // namespace hopsim::network::model
