#pragma once
// Textbook synthetic traffic patterns on an N-D mesh or torus
// (Dally & Towles ch. 3). Node ids are row-major over the coordinates, the
// last dimension fastest (as in hopsim::topo): on a 2-D rows x cols grid
// id = row * cols + col; x = col, y = row.
#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>

namespace hopsim::network::model {

enum class Pattern { uniform, transpose, bit_complement, bit_reverse, shuffle, tornado, neighbor, hotspot };

// Deterministic generator used for injection and destinations: xoshiro256**
// (Blackman & Vigna), 32 bytes of state per source instead of the 2.5 KB of
// a Mersenne twister, so a thousand sources stay in cache. Seeded through
// splitmix64; a UniformRandomBitGenerator for the <random> distributions.
class Rng {
 public:
  using result_type = std::uint64_t;
  explicit Rng(std::uint64_t seed = 1) { this->seed(seed); }
  void seed(std::uint64_t seed) {
    for (auto& w : s_) {
      seed += 0x9e3779b97f4a7c15ull;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      w = z ^ (z >> 31);
    }
  }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() {
    const std::uint64_t r = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> s_{};
};

// "uniform", "transpose", "bit_complement" (or "bit-complement"), ...; throws std::invalid_argument naming the value.
Pattern parse_pattern(std::string_view name);
// The canonical name ("bit_complement" ...), accepted back by parse_pattern.
const char* to_string(Pattern p);

// Hot-spot parameters (only read by Pattern::hotspot).
struct HotspotSpec {
  double fraction = 0.1;   // probability a packet goes to `node`
  std::uint32_t node = 0;  // the hot node
};

// Destination of a packet from `src` on a grid of extents `dims`:
//   uniform: any node (the source included), uniformly;
//   transpose: coordinates reversed, (x0, .., xn-1) -> (xn-1, .., x0), so
//   (r, c) -> (c, r) in 2-D; needs dims equal to their reverse (square);
//   bit_complement / bit_reverse / shuffle (rotate left by one): on the log2(N)
//   bits of the id, N the node count, a power of two;
//   tornado: (x + ceil(k/2) - 1) mod k in each dimension;
//   neighbor: (x + 1) mod k in the last dimension (the next column), others kept;
//   hotspot: hot.node with probability hot.fraction, else uniform.
// Throws std::invalid_argument for a pattern the shape does not allow,
// src out of range, or a bad hotspot spec.
std::uint32_t destination(Pattern p, std::uint32_t src, std::span<const int> dims, Rng& rng,
                          const HotspotSpec& hot = {});
// The 2-D form: dims = {rows, cols}.
std::uint32_t destination(Pattern p, std::uint32_t src, int rows, int cols, Rng& rng, const HotspotSpec& hot = {});

}  // namespace hopsim::network::model
