// Synthetic traffic on the eMesh timing model: patterns, zero-load latency,
// saturation of uniform random traffic, bad inputs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "hopsim/epiphany/model/mesh_timing.hpp"
#include "hopsim/network/model/traffic.hpp"

using namespace hopsim::network::model;
using Catch::Matchers::Contains;

namespace {

hopsim::epiphany::model::Params net8() {
  hopsim::epiphany::model::Params p;
  p.rows = 8;
  p.cols = 8;
  p.hop_latency = 1.5;
  p.link_width = 8.0;  // an 8-byte packet holds a link for 1 cycle
  p.write_overhead = 11.5;
  p.store_issue = 1.0;
  p.mesh_buffer = 8.0;
  return p;
}

TrafficConfig config(Pattern pat, double load) {
  TrafficConfig c;
  c.rows = c.cols = 8;
  c.pattern = pat;
  c.offered_load = load;
  c.packet_bytes = 8;
  c.net = net8();
  return c;
}

std::uint32_t id(int r, int c) { return static_cast<std::uint32_t>(r * 8 + c); }

constexpr Pattern kAll[] = {Pattern::uniform, Pattern::transpose, Pattern::bit_complement, Pattern::bit_reverse,
                            Pattern::shuffle, Pattern::tornado,   Pattern::neighbor,       Pattern::hotspot};

}  // namespace

TEST_CASE("traffic: pattern names round trip") {
  for (auto p : kAll) CHECK(parse_pattern(to_string(p)) == p);
  CHECK(parse_pattern("bit-complement") == Pattern::bit_complement);
  CHECK_THROWS_AS(parse_pattern("butterfly"), std::invalid_argument);
  CHECK_THROWS_WITH(parse_pattern("butterfly"), Contains("butterfly") && Contains("uniform"));
}

TEST_CASE("traffic: destinations on 8x8 by hand") {
  Rng rng(7);
  const auto d = [&](Pattern p, std::uint32_t s) { return destination(p, s, 8, 8, rng); };
  // transpose: (1,2) -> (2,1); the diagonal is fixed.
  CHECK(d(Pattern::transpose, id(1, 2)) == id(2, 1));
  CHECK(d(Pattern::transpose, id(7, 0)) == id(0, 7));
  CHECK(d(Pattern::transpose, id(3, 3)) == id(3, 3));
  // bit complement on 6 bits.
  CHECK(d(Pattern::bit_complement, 5) == 58);
  CHECK(d(Pattern::bit_complement, 0) == 63);
  // bit reverse on 6 bits.
  CHECK(d(Pattern::bit_reverse, 1) == 32);
  CHECK(d(Pattern::bit_reverse, 6) == 24);  // 000110 -> 011000
  CHECK(d(Pattern::bit_reverse, 63) == 63);
  // shuffle = rotate left by one on 6 bits.
  CHECK(d(Pattern::shuffle, 33) == 3);  // 100001 -> 000011
  CHECK(d(Pattern::shuffle, 5) == 10);
  // tornado: (x + ceil(8/2) - 1) mod 8 = x + 3 per dimension.
  CHECK(d(Pattern::tornado, id(0, 0)) == id(3, 3));
  CHECK(d(Pattern::tornado, id(6, 5)) == id(1, 0));
  // neighbor: x + 1 mod 8, same row.
  CHECK(d(Pattern::neighbor, id(2, 7)) == id(2, 0));
  CHECK(d(Pattern::neighbor, id(4, 3)) == id(4, 4));
  // tornado on an odd, non-square mesh: 3 rows (ceil(3/2)-1 = 1), 5 cols (+2).
  CHECK(destination(Pattern::tornado, 0, 3, 5, rng) == 1u * 5 + 2);
  // uniform covers the mesh, source included; hotspot fraction 1 always hits the hot node.
  std::vector<int> seen(64, 0);
  for (int i = 0; i < 20000; ++i) ++seen.at(d(Pattern::uniform, 9));
  for (int s : seen) CHECK(s > 200);
  for (int i = 0; i < 100; ++i) CHECK(destination(Pattern::hotspot, 3, 8, 8, rng, HotspotSpec{1.0, 42}) == 42u);
  int hot = 0;
  for (int i = 0; i < 20000; ++i) hot += destination(Pattern::hotspot, 3, 8, 8, rng, HotspotSpec{0.25, 42}) == 42u;
  CHECK(hot / 20000.0 == Approx(0.25 + 0.75 / 64).margin(0.015));
}

TEST_CASE("traffic: zero-load formula matches MeshTiming") {
  const auto c = config(Pattern::uniform, 0.1);
  hopsim::epiphany::model::MeshTiming mesh(c.net);
  for (std::uint32_t s : {0u, 9u, 27u, 63u})
    for (std::uint32_t t : {0u, 7u, 36u, 56u, 63u})
      CHECK(zero_load_latency(c, s, t) == mesh.zero_load_write_latency(s, t));
  CHECK(zero_load_latency(c, id(0, 0), id(7, 7)) == 11.5 + 1.5 * 15);
}

TEST_CASE("traffic: zero-load network latency for every pattern") {
  for (auto p : kAll) {
    auto c = config(p, 0.001);
    c.measure = 20000;
    const auto r = run_traffic(c);
    INFO(to_string(p) << ": " << r.packets_measured << " packets, avg hops " << r.avg_hops << ", network latency "
                      << r.avg_network_latency);
    CHECK_FALSE(r.saturated);
    CHECK(r.packets_measured > 800);
    const double expect = c.net.write_overhead + c.net.hop_latency * (r.avg_hops + 1);
    CHECK(r.avg_network_latency == Approx(expect).epsilon(0.01));
    CHECK(r.avg_latency == Approx(r.avg_network_latency).epsilon(0.01));
    CHECK(r.accepted == Approx(0.001).epsilon(0.15));
  }
  // Fixed patterns have known mean distances: bit complement of (r,c) is (7-r,7-c).
  const auto bc = run_traffic(config(Pattern::bit_complement, 0.001));
  CHECK(bc.avg_hops == Approx(8.0).epsilon(0.1));
  const auto nb = run_traffic(config(Pattern::neighbor, 0.001));
  CHECK(nb.avg_hops == Approx(1.75).epsilon(0.1));  // 7 of 8 columns 1 hop, the last wraps 7 hops
}

TEST_CASE("traffic: uniform saturation near the channel-load bound") {
  // Channel-load bound of uniform traffic on a k x k mesh: 4/k = 0.5 packets/node/cycle.
  auto c = config(Pattern::uniform, 0.05);
  c.warmup = 1000;
  c.measure = 5000;
  c.drain_limit = 5000;
  const auto curve = latency_curve(c, 0.05, 1.0);
  REQUIRE(curve.size() >= 2);
  REQUIRE(curve.back().saturated);
  double best = 0;
  for (const auto& r : curve) best = std::max(best, r.accepted);
  INFO("points " << curve.size() << ", last unsaturated load " << curve[curve.size() - 2].offered << ", best accepted "
                 << best);
  // docs/traffic.md: about 0.44 accepted, 88% of the bound (the writers' backpressure).
  CHECK(best == Approx(0.44).margin(0.02));
  for (std::size_t i = 1; i < curve.size(); ++i) {
    INFO("load " << curve[i].offered << " latency " << curve[i].avg_latency << " after " << curve[i - 1].avg_latency);
    CHECK(curve[i].avg_latency >= curve[i - 1].avg_latency);
  }
  for (std::size_t i = 0; i + 1 < curve.size(); ++i) CHECK(curve[i].accepted == Approx(curve[i].offered).epsilon(0.05));
  // Utilisation of the busiest link stays within its capacity below saturation.
  for (std::size_t i = 0; i + 1 < curve.size(); ++i)
    for (double u : curve[i].link_utilisation) CHECK(u <= 1.0 + 1e-3);
}

TEST_CASE("traffic: saturation is found when routers never push back") {
  // A huge mesh_buffer: writers never stall, the backlog grows inside the link calendars instead.
  auto c = config(Pattern::uniform, 0.05);
  c.net.mesh_buffer = 1e6;
  c.measure = 4000;
  c.drain_limit = 4000;
  const auto curve = latency_curve(c, 0.1, 1.0);
  REQUIRE(curve.back().saturated);
  CHECK(curve.back().offered <= 0.6 + 1e-9);
  CHECK(curve.back().avg_source_delay == Approx(0.0).margin(1.0));
}

TEST_CASE("traffic: runs are deterministic per seed") {
  auto c = config(Pattern::uniform, 0.2);
  c.measure = 3000;
  const auto a = run_traffic(c), b = run_traffic(c);
  CHECK(a.avg_latency == b.avg_latency);
  CHECK(a.packets_measured == b.packets_measured);
  c.seed = 2;
  CHECK(run_traffic(c).packets_measured != a.packets_measured);
}

TEST_CASE("traffic: bursty sources keep the average load") {
  auto c = config(Pattern::uniform, 0.1);
  c.bursty = true;
  c.burst_mean = 8;
  c.measure = 10000;
  const auto bursty = run_traffic(c);
  c.bursty = false;
  const auto smooth = run_traffic(c);
  CHECK_FALSE(bursty.saturated);
  CHECK(bursty.accepted == Approx(0.1).epsilon(0.1));
  CHECK(bursty.avg_latency > smooth.avg_latency);  // back-to-back bursts queue at the source
}

TEST_CASE("traffic: bad inputs are rejected") {
  SECTION("bit pattern on a non-power-of-two mesh") {
    Rng rng(1);
    CHECK_THROWS_WITH(destination(Pattern::bit_complement, 0, 6, 6, rng), Contains("power-of-two"));
    auto c = config(Pattern::bit_reverse, 0.1);
    c.rows = c.cols = 6;
    CHECK_THROWS_AS(run_traffic(c), std::invalid_argument);
    CHECK_THROWS_WITH(run_traffic(c), Contains("bit_reverse") && Contains("power-of-two"));
  }
  SECTION("transpose on a non-square mesh") {
    auto c = config(Pattern::transpose, 0.1);
    c.rows = 4;
    CHECK_THROWS_WITH(run_traffic(c), Contains("square"));
  }
  SECTION("offered load out of range") {
    for (double l : {0.0, -0.1, 1.5, std::nan("")}) {
      INFO("load " << l);
      CHECK_THROWS_AS(run_traffic(config(Pattern::uniform, l)), std::invalid_argument);
      CHECK_THROWS_WITH(run_traffic(config(Pattern::uniform, l)), Contains("offered_load"));
    }
  }
  SECTION("other fields") {
    auto c = config(Pattern::uniform, 0.1);
    c.packet_bytes = 9;
    CHECK_THROWS_WITH(run_traffic(c), Contains("packet_bytes"));
    c = config(Pattern::hotspot, 0.1);
    c.hotspot_node = 64;
    CHECK_THROWS_WITH(run_traffic(c), Contains("hotspot_node"));
    CHECK_THROWS_AS(latency_curve(config(Pattern::uniform, 0.1), 0.0, 0.5), std::invalid_argument);
  }
}

// ---- Generic N-D networks: the 4x4x4 torus ----

namespace {

TrafficConfig torus444(Pattern pat, double load) {
  TrafficConfig c;
  c.network = NetworkKind::generic;
  c.generic.dims = {4, 4, 4};
  c.generic.torus = true;
  c.generic.hop_latency = 2;
  c.generic.link_width = 16;
  c.generic.buffer = 32;
  c.packet_bytes = 64;  // 4 cycles of serialisation per link
  c.pattern = pat;
  c.offered_load = load;
  return c;
}

// Wrap-aware distance on a 4x4x4 torus, written independently of the model.
int torus_hops(std::uint32_t a, std::uint32_t b) {
  int h = 0;
  for (int d = 0; d < 3; ++d) {
    const int x = static_cast<int>(a % 4), y = static_cast<int>(b % 4);
    const int diff = std::abs(x - y);
    h += std::min(diff, 4 - diff);
    a /= 4;
    b /= 4;
  }
  return h;
}

}  // namespace

TEST_CASE("traffic: destinations on a 4x4x4 torus by hand") {
  Rng rng(3);
  const int dims[] = {4, 4, 4};
  const auto id3 = [](int a, int b, int c) { return static_cast<std::uint32_t>((a * 4 + b) * 4 + c); };
  const auto d = [&](Pattern p, std::uint32_t s) { return destination(p, s, dims, rng); };
  CHECK(d(Pattern::transpose, id3(1, 2, 3)) == id3(3, 2, 1));
  CHECK(d(Pattern::transpose, id3(0, 0, 2)) == id3(2, 0, 0));
  CHECK(d(Pattern::tornado, id3(0, 1, 3)) == id3(1, 2, 0));  // +1 mod 4 in every dimension
  CHECK(d(Pattern::neighbor, id3(2, 1, 3)) == id3(2, 1, 0));
  CHECK(d(Pattern::bit_complement, 0) == 63u);
  CHECK(d(Pattern::bit_reverse, 1) == 32u);
  CHECK(d(Pattern::shuffle, 33) == 3u);
  const int odd[] = {3, 4, 4};
  CHECK_THROWS_WITH(destination(Pattern::transpose, 0, odd, rng), Contains("square"));
  CHECK_THROWS_WITH(destination(Pattern::bit_complement, 0, odd, rng), Contains("power-of-two") && Contains("3x4x4"));
}

TEST_CASE("traffic: torus zero-load formula, wrap-around routes") {
  const auto c = torus444(Pattern::uniform, 0.1);
  for (std::uint32_t s = 0; s < 64; s += 5)
    for (std::uint32_t t = 0; t < 64; t += 3) {
      INFO(s << " -> " << t);
      CHECK(zero_load_latency(c, s, t) == 2.0 * torus_hops(s, t) + 4.0);
    }
  // (0,0,0) -> (0,0,3) is one hop over the wrap-around link; 6 hops is the diameter.
  CHECK(zero_load_latency(c, 0, 3) == 2.0 + 4.0);
  CHECK(zero_load_latency(c, 0, 42) == 2.0 * 6 + 4.0);
  CHECK(zero_load_latency(c, 0, 0, 8) == 1.0);          // at least one cycle of serialisation
  CHECK(zero_load_latency(c, 0, 1, 100) == 2.0 + 7.0);  // ceil(100 / 16)
}

TEST_CASE("traffic: zero-load latency of every pattern on a 4x4x4 torus") {
  for (auto p : kAll) {
    auto c = torus444(p, 0.002);
    c.measure = 20000;
    const auto r = run_traffic(c);
    INFO(to_string(p) << ": " << r.packets_measured << " packets, avg hops " << r.avg_hops << ", network latency "
                      << r.avg_network_latency);
    CHECK_FALSE(r.saturated);
    CHECK(r.packets_measured > 1500);
    // hop count x per-hop latency + serialisation (64 B over 16 B/cycle).
    const double expect = c.generic.hop_latency * r.avg_hops + 64.0 / 16.0;
    CHECK(r.avg_network_latency == Approx(expect).epsilon(0.01));
    CHECK(r.avg_zero_load == Approx(expect).epsilon(1e-9));
    CHECK(r.avg_latency == Approx(r.avg_network_latency).epsilon(0.01));
    CHECK(r.accepted == Approx(0.002).epsilon(0.15));
    CHECK(r.link_utilisation.size() == 64u * 6u);
  }
  // Patterns with a fixed destination: mean hops over all sources, computed here.
  const Pattern fixed[] = {Pattern::transpose, Pattern::bit_complement, Pattern::bit_reverse,
                           Pattern::shuffle,   Pattern::tornado,        Pattern::neighbor};
  for (auto p : fixed) {
    Rng rng(1);
    const int dims[] = {4, 4, 4};
    double mean = 0;
    for (std::uint32_t s = 0; s < 64; ++s) mean += torus_hops(s, destination(p, s, dims, rng)) / 64.0;
    const auto r = run_traffic(torus444(p, 0.002));
    INFO(to_string(p) << ": mean hops by hand " << mean);
    CHECK(r.avg_hops == Approx(mean).epsilon(0.1));
  }
  // bit complement of (a,b,c) is (3-a,3-b,3-c): 1 or 2 hops... each dimension 3 -> 1 hop, 1 -> 1 hop: 3 hops always.
  CHECK(run_traffic(torus444(Pattern::bit_complement, 0.002)).avg_hops == 3.0);
  // tornado moves +1 in each of the 3 dimensions.
  CHECK(run_traffic(torus444(Pattern::tornado, 0.002)).avg_hops == 3.0);
}

TEST_CASE("traffic: packet size distribution on the torus") {
  auto c = torus444(Pattern::uniform, 0.002);
  c.packet_sizes = {{16, 3}, {64, 1}};  // 1 and 4 cycles; mean 1.75
  c.measure = 20000;
  const auto r = run_traffic(c);
  CHECK(r.avg_network_latency == Approx(2.0 * r.avg_hops + 1.75).epsilon(0.02));
  c.packet_sizes = {{16, 1}, {0, 1}};
  CHECK_THROWS_WITH(run_traffic(c), Contains("packet_sizes"));
}

TEST_CASE("traffic: generic 8x8 mesh near its channel-load bound, the torus carries more") {
  TrafficConfig c;
  c.network = NetworkKind::generic;
  c.generic.dims = {8, 8};
  c.generic.link_width = 16;
  c.packet_bytes = 16;  // one flit: 1 cycle per link
  c.measure = 4000;
  c.drain_limit = 4000;
  const auto curve = latency_curve(c, 0.05, 1.0);
  REQUIRE(curve.back().saturated);
  double best = 0;
  for (const auto& r : curve) best = std::max(best, r.accepted);
  INFO("best accepted " << best);
  CHECK(best >= 0.6 * 0.5);
  CHECK(best <= 0.5 + 1e-9);
  for (std::size_t i = 1; i < curve.size(); ++i) CHECK(curve[i].avg_latency >= curve[i - 1].avg_latency);
  // An 8x8 torus halves the channel load (bound 8/k = 1): 0.7 still flows.
  c.generic.torus = true;
  c.offered_load = 0.7;
  const auto t = run_traffic(c);
  CHECK_FALSE(t.saturated);
  CHECK(t.accepted == Approx(0.7).epsilon(0.05));
  c.generic.torus = false;
  CHECK(run_traffic(c).saturated);
}

TEST_CASE("traffic: endpoint latency is paid once per packet, hops still count hop_latency") {
  // The booksim-iq shape: 4 cycles per hop, 5 once per packet, one flit.
  auto c = torus444(Pattern::uniform, 0.002);
  c.generic.torus = false;
  c.generic.dims = {8, 8};
  c.generic.hop_latency = 4;
  c.generic.endpoint_latency = 5;
  c.packet_bytes = 16;
  const auto hops = [](std::uint32_t a, std::uint32_t b) {
    return std::abs(static_cast<int>(a / 8) - static_cast<int>(b / 8)) +
           std::abs(static_cast<int>(a % 8) - static_cast<int>(b % 8));
  };
  for (std::uint32_t s = 0; s < 64; s += 7)
    for (std::uint32_t t = 0; t < 64; t += 5) {
      INFO(s << " -> " << t);
      CHECK(zero_load_latency(c, s, t) == 5.0 + 4.0 * hops(s, t) + 1.0);
    }
  CHECK(zero_load_latency(c, 9, 9) == 6.0);  // a packet to itself crosses one router
  // Simulated at a low load, every measured packet pays it once.
  c.measure = 20000;
  const auto r = run_traffic(c);
  REQUIRE(r.packets_measured > 1000);
  CHECK(r.avg_zero_load == Approx(5.0 + 4.0 * r.avg_hops + 1.0).epsilon(1e-9));
  CHECK(r.avg_network_latency == Approx(r.avg_zero_load).epsilon(0.01));
  // Not a multiple of half a cycle, or negative: rejected.
  c.generic.endpoint_latency = 0.3;
  CHECK_THROWS_WITH(run_traffic(c), Contains("endpoint_latency"));
  c.generic.endpoint_latency = -1;
  CHECK_THROWS_WITH(run_traffic(c), Contains("endpoint_latency"));
}

TEST_CASE("traffic: generic link utilisation counts only the window's cycles, never above 1") {
  // Links are reserved when a packet is sent, for cycles that may lie past the window's end;
  // past saturation the busiest links are busy all the time, and no more.
  TrafficConfig c;
  c.network = NetworkKind::generic;
  c.generic.dims = {8, 8};  // uniform traffic saturates an 8x8 mesh at 0.5 of its injection rate
  c.generic.link_width = 16;
  c.packet_bytes = 4096;  // 256 cycles per link: reservations reach well past the window's edges
  c.measure = 1000;
  c.drain_limit = 3000;
  c.offered_load = 1.0;
  const auto r = run_traffic(c);
  double max_u = 0;
  for (double u : r.link_utilisation) max_u = std::max(max_u, u);
  INFO("max link utilisation " << max_u);
  CHECK(max_u <= 1.0);
  CHECK(max_u >= 0.9);  // saturated: the hottest link is busy nearly all the window
}
