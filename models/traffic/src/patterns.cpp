#include "hopsim/traffic/patterns.hpp"

#include <bit>
#include <stdexcept>

namespace hopsim::traffic {

namespace {
struct Named {
  Pattern p;
  const char* name;
};
constexpr Named kNames[] = {
    {Pattern::uniform, "uniform"},   {Pattern::transpose, "transpose"},
    {Pattern::bit_complement, "bit_complement"}, {Pattern::bit_reverse, "bit_reverse"},
    {Pattern::shuffle, "shuffle"},   {Pattern::tornado, "tornado"},
    {Pattern::neighbor, "neighbor"}, {Pattern::hotspot, "hotspot"},
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

// Number of id bits; throws unless n is a power of two.
int id_bits(Pattern p, int rows, int cols) {
  const auto n = static_cast<std::uint32_t>(rows) * static_cast<std::uint32_t>(cols);
  if (!std::has_single_bit(n))
    throw std::invalid_argument(std::string("traffic pattern ") + to_string(p) + " needs a power-of-two node count, got " +
                                std::to_string(rows) + "x" + std::to_string(cols) + " = " + std::to_string(n));
  return std::countr_zero(n);
}
}  // namespace

Pattern parse_pattern(std::string_view name) {
  std::string s(name);
  for (auto& c : s)
    if (c == '-') c = '_';
  for (const auto& n : kNames)
    if (s == n.name) return n.p;
  throw std::invalid_argument("unknown traffic pattern '" + std::string(name) + "' (expected one of: " + list_names() + ")");
}

const char* to_string(Pattern p) {
  for (const auto& n : kNames)
    if (n.p == p) return n.name;
  return "?";
}

std::uint32_t destination(Pattern p, std::uint32_t src, int rows, int cols, Rng& rng, const HotspotSpec& hot) {
  if (rows < 1 || cols < 1)
    throw std::invalid_argument("traffic: mesh must be at least 1x1, got " + std::to_string(rows) + "x" +
                                std::to_string(cols));
  const auto n = static_cast<std::uint32_t>(rows) * static_cast<std::uint32_t>(cols);
  if (src >= n)
    throw std::invalid_argument("traffic: source node " + std::to_string(src) + " out of range for " +
                                std::to_string(n) + " nodes");
  const auto r = src / static_cast<std::uint32_t>(cols), c = src % static_cast<std::uint32_t>(cols);
  switch (p) {
    case Pattern::uniform: return uniform_node(n, rng);
    case Pattern::transpose:
      if (rows != cols)
        throw std::invalid_argument("traffic pattern transpose needs a square mesh, got " + std::to_string(rows) + "x" +
                                    std::to_string(cols));
      return c * static_cast<std::uint32_t>(cols) + r;
    case Pattern::bit_complement: {
      const int b = id_bits(p, rows, cols);
      return ~src & ((std::uint32_t{1} << b) - 1);
    }
    case Pattern::bit_reverse: {
      const int b = id_bits(p, rows, cols);
      std::uint32_t d = 0;
      for (int i = 0; i < b; ++i)
        if (src >> i & 1u) d |= std::uint32_t{1} << (b - 1 - i);
      return d;
    }
    case Pattern::shuffle: {
      const int b = id_bits(p, rows, cols);
      if (b == 0) return 0;
      const std::uint32_t mask = (std::uint32_t{1} << b) - 1;
      return ((src << 1) | (src >> (b - 1))) & mask;
    }
    case Pattern::tornado: {
      const auto kx = static_cast<std::uint32_t>(cols), ky = static_cast<std::uint32_t>(rows);
      const auto dx = (c + (kx + 1) / 2 - 1) % kx, dy = (r + (ky + 1) / 2 - 1) % ky;
      return dy * kx + dx;
    }
    case Pattern::neighbor: return r * static_cast<std::uint32_t>(cols) + (c + 1) % static_cast<std::uint32_t>(cols);
    case Pattern::hotspot: {
      if (hot.node >= n)
        throw std::invalid_argument("traffic: hotspot node " + std::to_string(hot.node) + " out of range for " +
                                    std::to_string(n) + " nodes");
      if (!(hot.fraction >= 0 && hot.fraction <= 1))
        throw std::invalid_argument("traffic: hotspot fraction must be in [0, 1], got " + std::to_string(hot.fraction));
      if (std::uniform_real_distribution<double>(0, 1)(rng) < hot.fraction) return hot.node;
      return uniform_node(n, rng);
    }
  }
  throw std::invalid_argument("traffic: invalid pattern value");
}

}  // namespace hopsim::traffic
