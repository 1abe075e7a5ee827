#include "hopsim/network/model/patterns.hpp"

#include <bit>
#include <stdexcept>

namespace hopsim::network::model {

namespace {
struct Named {
  Pattern p;
  const char* name;
};
constexpr Named kNames[] = {
    {Pattern::uniform, "uniform"},
    {Pattern::transpose, "transpose"},
    {Pattern::bit_complement, "bit_complement"},
    {Pattern::bit_reverse, "bit_reverse"},
    {Pattern::shuffle, "shuffle"},
    {Pattern::tornado, "tornado"},
    {Pattern::neighbor, "neighbor"},
    {Pattern::hotspot, "hotspot"},
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
  const int dims[] = {rows, cols};
  return destination(p, src, dims, rng, hot);
}

std::uint32_t destination(Pattern p, std::uint32_t src, std::span<const int> dims, Rng& rng, const HotspotSpec& hot) {
  constexpr int kMaxDims = 8;
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
  const std::size_t nd = dims.size();
  // Coordinates of src, last dimension fastest.
  // (only the patterns that need them pay for the divisions).
  std::uint32_t x[kMaxDims];
  auto coords = [&] {
    std::uint32_t rest = src;
    for (std::size_t i = nd; i-- > 0;) {
      x[i] = rest % static_cast<std::uint32_t>(dims[i]);
      rest /= static_cast<std::uint32_t>(dims[i]);
    }
  };
  auto id_of = [&](const std::uint32_t* c) {
    std::uint32_t id = 0;
    for (std::size_t i = 0; i < nd; ++i) id = id * static_cast<std::uint32_t>(dims[i]) + c[i];
    return id;
  };
  switch (p) {
    case Pattern::uniform:
      return uniform_node(n, rng);
    case Pattern::transpose: {
      for (std::size_t i = 0; i < nd; ++i)
        if (dims[i] != dims[nd - 1 - i])
          throw std::invalid_argument(
              "traffic pattern transpose needs a square shape (extents equal to their reverse), got " +
              shape_name(dims));
      coords();
      std::uint32_t y[kMaxDims];
      for (std::size_t i = 0; i < nd; ++i) y[i] = x[nd - 1 - i];
      return id_of(y);
    }
    case Pattern::bit_complement: {
      const int b = id_bits(p, n, dims);
      return ~src & ((std::uint32_t{1} << b) - 1);
    }
    case Pattern::bit_reverse: {
      const int b = id_bits(p, n, dims);
      std::uint32_t d = 0;
      for (int i = 0; i < b; ++i)
        if (src >> i & 1u) d |= std::uint32_t{1} << (b - 1 - i);
      return d;
    }
    case Pattern::shuffle: {
      const int b = id_bits(p, n, dims);
      if (b == 0) return 0;
      const std::uint32_t mask = (std::uint32_t{1} << b) - 1;
      return ((src << 1) | (src >> (b - 1))) & mask;
    }
    case Pattern::tornado: {
      coords();
      std::uint32_t y[kMaxDims];
      for (std::size_t i = 0; i < nd; ++i) {
        const auto k = static_cast<std::uint32_t>(dims[i]);
        y[i] = (x[i] + (k + 1) / 2 - 1) % k;
      }
      return id_of(y);
    }
    case Pattern::neighbor: {
      coords();
      x[nd - 1] = (x[nd - 1] + 1) % static_cast<std::uint32_t>(dims[nd - 1]);
      return id_of(x);
    }
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

}  // namespace hopsim::network::model
