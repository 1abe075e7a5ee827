// The flow-controlled generic network (GenericNetwork::flow_control):
// zero-load latency, the credit loop's throughput worked out by hand,
// deadlock with and without dateline classes, determinism, bad input.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "hopsim/network/model/flow.hpp"
#include "hopsim/network/model/traffic.hpp"
#include "hopsim/topo/topology.hpp"

using namespace hopsim::network::model;
using Catch::Matchers::Contains;

namespace {

// BookSim2's example router (presets/booksim-iq.json) on a generic network.
TrafficConfig booksim(std::vector<int> dims, bool torus, Pattern pat, double load) {
  TrafficConfig c;
  c.network = NetworkKind::generic;
  c.generic.dims = std::move(dims);
  c.generic.torus = torus;
  c.generic.hop_latency = torus ? 5 : 4;
  c.generic.channel_latency = torus ? 2 : 1;
  c.generic.endpoint_latency = 5;
  c.generic.link_width = 16;
  c.generic.flow_control = true;
  c.generic.vcs = 8;
  c.generic.vc_buffer = 8;
  c.generic.credit_delay = 2;
  c.generic.wait_for_tail_credit = true;
  c.generic.routing_delay = 0;
  c.generic.vc_alloc_delay = 1;
  c.generic.sw_alloc_delay = 1;
  c.generic.input_speedup = 2;
  c.packet_bytes = 16;
  c.pattern = pat;
  c.offered_load = load;
  return c;
}

// Full load with three seeds: every run ends saturated, packets still
// arriving (never stuck in a deadlock).
void runs_to_the_end(TrafficConfig c) {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    c.seed = seed;
    INFO("seed " << seed);
    const auto r = run_traffic(c);
    CHECK(r.saturated);
    CHECK(r.accepted > 0.005);
  }
}

}  // namespace

TEST_CASE("flow: at zero load every packet takes endpoint + hops x hop + flits") {
  for (const bool torus : {false, true})
    for (const int bytes : {16, 64}) {
      auto c = booksim({8, 8}, torus, Pattern::uniform, 0.002);
      c.packet_bytes = bytes;
      c.measure = 20000;
      const auto r = run_traffic(c);
      INFO((torus ? "torus" : "mesh") << ", " << bytes << " B");
      REQUIRE(r.packets_measured > 1000);
      REQUIRE_FALSE(r.saturated);
      const double flits = bytes / 16.0;
      CHECK(r.avg_zero_load == Approx(5.0 + (torus ? 5.0 : 4.0) * r.avg_hops + flits).epsilon(1e-9));
      // A few packets meet another at this load: within 0.5%, never below.
      CHECK(r.avg_network_latency >= r.avg_zero_load - 1e-9);
      CHECK(r.avg_network_latency == Approx(r.avg_zero_load).epsilon(0.005));
    }
}

TEST_CASE("flow: one VC's throughput is one packet per credit round trip") {
  // Two nodes, each sending to the other at full load: a packet holds the
  // link's only VC from its VC allocation (cycle v) until its tail credit is
  // back: switch allocation v+1, at the next router v+4 (hop 4 less routing
  // and VC allocation), its ejection's switch allocation v+5, leaving the
  // buffer at v+6 (switch allocation 1 cycle), the credit back at v+6 +
  // credit_delay + channel_latency = v+9. So 1/9 packets per cycle, 2/9 with
  // two VCs, 1/14 with credit_delay 7.
  auto c = booksim({2}, false, Pattern::neighbor, 1.0);
  c.generic.vcs = 1;
  auto r = run_traffic(c);
  CHECK(r.accepted == Approx(1.0 / 9).epsilon(0.01));
  c.generic.vcs = 2;
  r = run_traffic(c);
  CHECK(r.accepted == Approx(2.0 / 9).epsilon(0.01));
  c.generic.vcs = 1;
  c.generic.credit_delay = 7;
  r = run_traffic(c);
  CHECK(r.accepted == Approx(1.0 / 14).epsilon(0.01));
  // Without waiting for the tail credit the VC is free once the tail is
  // sent; a 4-flit packet then needs only its 4 credits (buffer 8): more
  // than half the channel's flits (against 4/12 waiting for the tail credit).
  c.generic.credit_delay = 2;
  c.generic.wait_for_tail_credit = false;
  c.packet_bytes = 64;
  r = run_traffic(c);
  CHECK(4 * r.accepted > 0.5);
}

TEST_CASE("flow: a ring without dateline classes deadlocks and says where; with them it never does") {
  auto c = booksim({8}, true, Pattern::tornado, 1.0);  // every packet 3 hops the same way round
  c.generic.vcs = 1;
  c.generic.dateline = 0;
  c.packet_bytes = 64;
  try {
    (void)run_traffic(c);
    FAIL("no deadlock");
  } catch (const NetworkDeadlock& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK_THAT(what, Contains("8 torus: the network deadlocked at cycle"));
    CHECK_THAT(what, Contains("8 channels wait for each other in a cycle: "));
    CHECK_THAT(what, Contains("(0)->(1) vc 0 -> (1)->(2) vc 0 -> (2)->(3) vc 0"));
  }
  // Two VCs, split by the dateline: full load runs to the end (saturated, never stuck).
  c.generic.vcs = 2;
  c.generic.dateline = 1;
  runs_to_the_end(c);
  // A 2-D torus too, uniform traffic at full load, with BookSim2's classes.
  auto t = booksim({4, 4}, true, Pattern::uniform, 1.0);
  t.generic.dateline = 1;
  CHECK_NOTHROW(run_traffic(t));
}

TEST_CASE("flow: runs are deterministic per seed, and seeds differ") {
  auto c = booksim({8, 8}, true, Pattern::uniform, 0.2);
  c.generic.dateline = 2;
  const auto a = run_traffic(c), b = run_traffic(c);
  CHECK(a.avg_latency == b.avg_latency);
  CHECK(a.packets_simulated == b.packets_simulated);
  c.seed = 2;
  CHECK(run_traffic(c).avg_latency != a.avg_latency);
}

TEST_CASE("flow: near saturation the credit loop costs what link calendars miss") {
  // BookSim2's router on the 8x8 mesh saturates at about 0.354 (docs/traffic.md):
  // at 0.40 the flow-controlled network is saturated, the calendars are not.
  auto c = booksim({8, 8}, false, Pattern::uniform, 0.40);
  CHECK(run_traffic(c).saturated);
  c.generic.flow_control = false;
  CHECK_FALSE(run_traffic(c).saturated);
}

TEST_CASE("flow: bad parameters are rejected naming the key") {
  auto c = booksim({4, 4}, true, Pattern::uniform, 0.1);
  auto bad = [&](auto change, const std::string& text) {
    auto d = c;
    change(d.generic);
    CHECK_THROWS_WITH(run_traffic(d), Contains(text));
  };
  bad([](GenericNetwork& g) { g.vcs = 0; }, "vcs must be 1..64");
  bad([](GenericNetwork& g) { g.vcs = 65; }, "vcs must be 1..64");
  bad([](GenericNetwork& g) { g.vc_buffer = 0; }, "vc_buffer must be 1..4096");
  bad([](GenericNetwork& g) { g.vcs = 1; }, "dateline VC classes need vcs >= 2");
  bad([](GenericNetwork& g) { g.dateline = 4; }, "dateline must be 0, 1, 2 or 3");
  bad([](GenericNetwork& g) { g.hop_latency = 3; }, "must hold the router pipeline");
  bad([](GenericNetwork& g) { g.hop_latency = 4.5; }, "whole cycles");
  bad([](GenericNetwork& g) { g.endpoint_latency = 4; }, "endpoint_latency (4 cycles) must hold");
  bad([](GenericNetwork& g) { g.channel_latency = 0; }, "channel_latency must be 1..1000");
  bad([](GenericNetwork& g) { g.endpoint_channels = 0; }, "endpoint_channels must be 1..16");
  bad([](GenericNetwork& g) { g.endpoint_channels = 17; }, "endpoint_channels must be 1..16");
  // One VC on a mesh is fine (no classes there).
  auto mesh = booksim({4, 4}, false, Pattern::uniform, 0.1);
  mesh.generic.vcs = 1;
  CHECK_NOTHROW(run_traffic(mesh));
}

TEST_CASE("flow: minimal adaptive routing takes only shortest paths, at any load") {
  // zero_load counts the minimal hops of each measured packet; the hops the
  // packets took must give the same figure, even past saturation.
  for (const bool torus : {false, true})
    for (const double load : {0.002, 1.0}) {
      auto c = booksim({8, 8}, torus, Pattern::uniform, load);
      c.generic.routing = GenericNetwork::Routing::min_adapt;
      c.generic.dateline = 1;
      c.measure = 4000;
      const auto r = run_traffic(c);
      INFO((torus ? "torus" : "mesh") << " at load " << load);
      REQUIRE(r.packets_measured > 100);
      CHECK(r.saturated == (load > 0.5));
      CHECK(r.avg_zero_load == Approx(5.0 + (torus ? 5.0 : 4.0) * r.avg_hops + 1).epsilon(1e-9));
      if (load < 0.5) CHECK(r.avg_network_latency == Approx(r.avg_zero_load).epsilon(0.005));
    }
}

TEST_CASE("flow: on a torus adaptive VCs alone deadlock; escape VCs with dateline classes never do") {
  auto c = booksim({8}, true, Pattern::tornado, 1.0);
  c.generic.routing = GenericNetwork::Routing::min_adapt;
  c.packet_bytes = 64;
  c.generic.vcs = 2;  // one escape VC without classes, one adaptive VC: both rings can close
  c.generic.dateline = 0;
  CHECK_THROWS_AS(run_traffic(c), NetworkDeadlock);
  c.generic.vcs = 3;  // two escape VCs split by the dateline, one adaptive
  c.generic.dateline = 1;
  runs_to_the_end(c);
  auto t = booksim({4, 4, 4}, true, Pattern::uniform, 1.0);
  t.generic.routing = GenericNetwork::Routing::min_adapt;
  t.generic.vcs = 3;
  t.generic.dateline = 1;
  t.packet_bytes = 64;
  CHECK_NOTHROW(run_traffic(t));
}

TEST_CASE("flow: minimal adaptive routing needs its escape VCs") {
  auto c = booksim({4, 4}, true, Pattern::uniform, 0.1);
  c.generic.routing = GenericNetwork::Routing::min_adapt;
  c.generic.dateline = 1;
  c.generic.vcs = 2;
  CHECK_THROWS_WITH(run_traffic(c),
                    Contains("routing min_adapt needs vcs >= 3: two escape VCs (one per dateline class) and at least "
                             "one adaptive VC, got vcs 2"));
  c.generic.vcs = 3;
  c.generic.stay_on_escape = false;
  CHECK_THROWS_WITH(run_traffic(c), Contains("stay_on_escape=0 on a torus needs dateline=3"));
  c.generic.torus = false;  // on a mesh the escape VC (dimension order) may be left
  CHECK_NOTHROW(run_traffic(c));
  auto full = booksim({8, 8}, false, Pattern::transpose, 1.0);  // and full load never deadlocks
  full.generic.routing = GenericNetwork::Routing::min_adapt;
  full.generic.stay_on_escape = false;
  full.generic.vcs = 2;
  full.packet_bytes = 64;
  CHECK(run_traffic(full).saturated);
  c.generic.vcs = 1;
  CHECK_THROWS_WITH(run_traffic(c), Contains("routing min_adapt needs vcs >= 2: one escape VC"));
  c.generic.vcs = 2;
  CHECK_NOTHROW(run_traffic(c));
}

TEST_CASE("flow: bubble flow control keeps a one-VC ring from deadlocking") {
  // The ring that deadlocks without classes (above) runs at full load with
  // one VC when a packet enters the ring only with room for two.
  auto c = booksim({8}, true, Pattern::tornado, 1.0);
  c.generic.vcs = 1;
  c.generic.vc_buffer = 8;
  c.generic.wait_for_tail_credit = false;
  c.packet_bytes = 64;
  c.generic.dateline = 0;
  CHECK_THROWS_AS(run_traffic(c), NetworkDeadlock);
  c.generic.dateline = 3;
  runs_to_the_end(c);
  // The BG/Q's scheme on a 5-D torus: a dynamic (adaptive) VC beside the bubble escape VC.
  auto b = booksim({4, 4, 2, 2, 2}, true, Pattern::uniform, 1.0);
  b.generic.vcs = 2;
  b.generic.vc_buffer = 8;
  b.generic.wait_for_tail_credit = false;
  b.generic.dateline = 3;
  b.packet_bytes = 64;
  b.measure = 3000;
  for (const int mode : {0, 1, 2}) {  // dimension order; adaptive, staying on the escape VC or not
    b.generic.routing = mode == 0 ? GenericNetwork::Routing::dor : GenericNetwork::Routing::min_adapt;
    b.generic.stay_on_escape = mode != 2;
    INFO("mode " << mode);
    const auto r = run_traffic(b);
    CHECK(r.saturated);
    CHECK(r.accepted > 0.02);
  }
  // At low load the bubble costs nothing: zero-load latency.
  b.offered_load = 0.002;
  b.measure = 20000;
  const auto r = run_traffic(b);
  CHECK(r.avg_network_latency == Approx(r.avg_zero_load).epsilon(0.005));
}

TEST_CASE("flow: bubble flow control needs cut-through VCs of two packets") {
  auto c = booksim({4, 4}, true, Pattern::uniform, 0.1);
  c.generic.dateline = 3;
  c.packet_bytes = 64;
  CHECK_THROWS_WITH(run_traffic(c), Contains("dateline=3 (bubble flow control) needs wait_for_tail_credit=0"));
  c.generic.wait_for_tail_credit = false;
  c.generic.vc_buffer = 7;
  CHECK_THROWS_WITH(run_traffic(c),
                    Contains("dateline=3 (bubble flow control) needs vc_buffer >= two of the largest packets, 2 x 4 "
                             "flits, got 7"));
  c.generic.vc_buffer = 8;
  CHECK_NOTHROW(run_traffic(c));
}

TEST_CASE("flow: adaptive routing spreads transpose traffic that dimension order concentrates") {
  // Dimension order brings a whole row's packets to one diagonal node of
  // the 8x8 mesh (1/7 of a link each: saturated near 0.13); minimal
  // adaptive paths spread over the triangle (the diagonal cut allows 0.5).
  auto c = booksim({8, 8}, false, Pattern::transpose, 0.18);
  c.measure = 5000;
  CHECK(run_traffic(c).saturated);
  c.generic.routing = GenericNetwork::Routing::min_adapt;
  for (const int selection : {0, 1}) {
    c.generic.adaptive_selection = selection;
    INFO("adaptive_selection " << selection);
    const auto r = run_traffic(c);
    CHECK_FALSE(r.saturated);
    CHECK(r.accepted == Approx(0.18).epsilon(0.03));
  }
}

TEST_CASE("flow: packets longer than a VC buffer cross routers as worms") {
  // 16-flit packets through 8-flit VCs: at zero load the credits of a VC
  // come back before its buffer runs dry, so a packet still takes
  // endpoint + hops x hop + flits; a full load on a torus with dateline
  // classes never deadlocks with packets spread over several routers.
  auto c = booksim({8, 8}, false, Pattern::uniform, 0.0005);
  c.packet_bytes = 256;
  c.measure = 40000;
  auto r = run_traffic(c);
  REQUIRE(r.packets_measured > 500);
  CHECK(r.avg_zero_load == Approx(5.0 + 4.0 * r.avg_hops + 16).epsilon(1e-9));
  CHECK(r.avg_network_latency == Approx(r.avg_zero_load).epsilon(0.01));
  // With 2-flit VCs each flit waits for a credit: slower than zero load.
  c.generic.vc_buffer = 2;
  CHECK(run_traffic(c).avg_network_latency > 1.2 * r.avg_zero_load);
  auto t = booksim({8}, true, Pattern::tornado, 1.0);
  t.generic.vcs = 2;
  t.generic.vc_buffer = 4;
  t.packet_bytes = 256;
  t.measure = 3000;
  CHECK(run_traffic(t).saturated);
  t.generic.vcs = 1;  // without classes the worms close the ring
  t.generic.dateline = 0;
  CHECK_THROWS_AS(run_traffic(t), NetworkDeadlock);
}

TEST_CASE(
    "flow: deterministic packets keep to dimension order under adaptive routing; tags and issue cycles come back") {
  // A flood from (1,0) to (3,0) fills the x links east of (1,0). Probes from
  // (0,0) to (3,3): adaptive ones turn north at (1,0), around the flood;
  // deterministic ones go east first whatever the load, never on (1,0)->(1,1).
  auto c = booksim({4, 4}, false, Pattern::uniform, 0.1);
  c.generic.routing = GenericNetwork::Routing::min_adapt;
  c.generic.adaptive_selection = 0;
  const hopsim::topo::Topology topo({4, 4}, {false, false});
  auto at = [&](int x, int y) {
    const int xy[2] = {x, y};
    return static_cast<std::uint32_t>(topo.node_at(xy));
  };
  const auto north = topo.link(at(1, 0), 1, +1);
  for (const bool det : {true, false}) {
    INFO((det ? "deterministic" : "adaptive") << " probes");
    flow::FlowNet net(c.generic, 1);
    net.set_window(0, 1 << 30);
    constexpr int kProbes = 150;
    std::vector<std::int64_t> issued(kProbes, -1), arrived(kProbes, -1), issue_seen(kProbes, -1);
    net.on_issued([&](std::uint32_t tag, std::int64_t t) {
      if (tag > 0) issued[tag - 1] = t;
    });
    const std::function<void(const flow::Delivered&)> done = [&](const flow::Delivered& d) {
      if (d.tag == 0) return;
      CHECK(d.src == at(0, 0));
      CHECK(d.dst == at(3, 3));
      arrived[d.tag - 1] = d.arrival;
      issue_seen[d.tag - 1] = d.issue;
    };
    for (std::int64_t t = 0; t < 20 * kProbes; ++t) {
      net.run_until(t, done);
      net.add(t, at(1, 0), at(3, 0), 16);
      if (t % 20 == 0) net.add(t, at(0, 0), at(3, 3), 16, static_cast<std::uint32_t>(t / 20 + 1), det);
    }
    net.run_until(200000, done);
    for (int k = 0; k < kProbes; ++k) {
      INFO("probe " << k);
      REQUIRE(arrived[k] > 0);
      CHECK(issued[k] == issue_seen[k]);  // one flit: head and tail leave together
      CHECK(issued[k] >= 20 * k);
      CHECK(arrived[k] >= issued[k] + 5 + 4 * 6);
    }
    if (det)
      CHECK(net.busy_window(north) == 0);
    else
      CHECK(net.busy_window(north) > kProbes / 2);
  }
}

TEST_CASE("flow: a node takes in one flit a cycle per ejection channel") {
  // Every node sends to node 0 at full load. With one ejection channel node 0
  // takes one 1-flit packet a cycle, 1/16 per node. With four (one per
  // incoming link of the 4x4 torus) it takes what its links bring: in
  // dimension order the 12 nodes outside its row arrive over its two y links
  // (2 packets a cycle), its row's 3 over the x links, so more than 2/16.
  auto c = booksim({4, 4}, true, Pattern::hotspot, 1.0);
  c.hotspot_fraction = 1.0;
  c.hotspot_node = 0;
  c.measure = 4000;
  const auto one = run_traffic(c);
  CHECK(one.saturated);
  CHECK(one.accepted == Approx(1.0 / 16).epsilon(0.03));
  c.generic.endpoint_channels = 4;
  const auto four = run_traffic(c);
  CHECK(four.saturated);
  CHECK(four.accepted > 2.0 / 16 + 0.01);
  CHECK(four.accepted <= 4.0 / 16 + 1e-9);
}

TEST_CASE("flow: packets on VCs of one crossbar input take the output flit by flit in turn") {
  // A 4x1 mesh: nodes 0 and 1 each send 4-flit packets to node 3 at full
  // load. Router 1's output toward node 2 serves its west input (node 0's
  // packets, queued in several VCs) and its local input in turn, so node 0's
  // packets wait in several VCs of one input. With one crossbar input per
  // port (input_speedup 1) the switch allocator takes that input's VCs
  // round-robin, one flit each (BookSim2's _sw_rr_offset): node 0's packets
  // overlap on link 1->2. Packet by packet, they never would.
  auto c = booksim({4, 1}, false, Pattern::uniform, 1.0);
  c.generic.input_speedup = 1;
  flow::FlowNet net(c.generic, 1);
  struct Use {
    std::int64_t head, tail;
  };
  std::vector<Use> from0;  // node 0's packets on link 1->2
  std::size_t link12 = 0;
  net.on_hop([&](const flow::FlowNet::Hop& h) {
    if (h.router == 1 && h.port == 0) {  // port 0: the + way of dimension 0
      ++link12;
      if (h.tag == 0) from0.push_back({h.head, h.tail});
    }
  });
  int delivered = 0;
  const auto done = [&](const flow::Delivered& d) {
    CHECK(d.dst == 3);
    ++delivered;
  };
  for (std::int64_t t = 0; t < 400; t += 4) {
    net.run_until(t, done);
    net.add(t, 0, 3, 64, 0);
    net.add(t, 1, 3, 64, 1);
  }
  net.run_until(20000, done);
  CHECK(delivered == 200);
  REQUIRE(from0.size() > 10);
  CHECK(link12 == 200);  // every packet of both sources crossed it
  int overlapping = 0;
  for (std::size_t i = 1; i < from0.size(); ++i)
    if (from0[i].head < from0[i - 1].tail) ++overlapping;
  INFO(overlapping << " of " << from0.size() << " overlap the one before");
  CHECK(overlapping > 5);
}

TEST_CASE("flow: with more crossbar sub-inputs than VCs every packet is still switched") {
  // One VC and input_speedup 3, two VCs and input_speedup 5: after a grant a
  // sub-input's VC pointer is (vc + input_speedup) mod vcs, as BookSim2 keeps
  // it. A pointer past the last VC would rank every request of that input
  // after all others: an output whose own pointer sat at that input would
  // never grant it, and the network would stop with packets inside.
  for (const int vcs : {1, 2}) {
    auto c = booksim({4, 1}, false, Pattern::uniform, 1.0);
    c.generic.vcs = vcs;
    c.generic.input_speedup = vcs == 1 ? 3 : 5;
    flow::FlowNet net(c.generic, 1);
    int delivered = 0;
    const auto done = [&](const flow::Delivered&) { ++delivered; };
    for (std::int64_t t = 0; t < 200; t += 2) {
      net.run_until(t, done);
      net.add(t, 0, 3, 16);
      net.add(t, 0, 2, 16);
      net.add(t, 1, 2, 16);
    }
    net.run_until(100000, done);
    INFO("vcs " << vcs);
    CHECK_FALSE(net.deadlocked());
    CHECK(delivered == 300);
  }
}

namespace {

// Everything a run reports, packet by packet, for comparing runs.
struct Record {
  std::vector<flow::Delivered> delivered;
  std::vector<flow::FlowNet::Hop> hops;
  std::vector<std::pair<std::uint32_t, std::int64_t>> issued;
  std::int64_t end = 0;
  std::string deadlock;
};

// Bernoulli traffic at `load` to uniform destinations for `cycles`, every
// third packet deterministic, then a drain.
Record record_run(const GenericNetwork& g, unsigned threads, double load, std::uint32_t bytes, std::int64_t cycles,
                  flow::FlowNet::Schedule schedule = flow::FlowNet::Schedule::automatic) {
  flow::FlowNet net(g, 7, threads);
  REQUIRE(net.threads() == threads);
  net.set_schedule(schedule);
  Record rec;
  net.on_hop([&](const flow::FlowNet::Hop& h) { rec.hops.push_back(h); });
  net.on_issued([&](std::uint32_t tag, std::int64_t t) { rec.issued.emplace_back(tag, t); });
  const std::function<void(const flow::Delivered&)> done = [&](const flow::Delivered& d) {
    rec.delivered.push_back(d);
  };
  Rng rng(5);
  const auto threshold = static_cast<std::uint64_t>(load * 18446744073709551615.0);
  std::uint32_t tag = 0;
  for (std::int64_t t = 0; t < cycles; ++t) {
    net.run_until(t, done);
    if (net.deadlocked()) break;
    for (std::uint32_t node = 0; node < net.nodes(); ++node) {
      if (rng() > threshold) continue;
      const auto dst = static_cast<std::uint32_t>(rng() % net.nodes());
      net.add(t, node, dst, bytes, tag, tag % 3 == 0);
      ++tag;
    }
  }
  if (!net.deadlocked()) net.run_until(cycles + 50000, done);
  rec.end = net.now();
  if (net.deadlocked()) rec.deadlock = net.deadlock_report();
  return rec;
}

void check_same(const Record& a, const Record& b) {
  REQUIRE(a.delivered.size() == b.delivered.size());
  for (std::size_t i = 0; i < a.delivered.size(); ++i) {
    const auto &x = a.delivered[i], &y = b.delivered[i];
    INFO("delivery " << i << ": tag " << x.tag << " and " << y.tag);
    REQUIRE((x.tag == y.tag && x.src == y.src && x.dst == y.dst && x.bytes == y.bytes && x.gen == y.gen &&
             x.issue == y.issue && x.arrival == y.arrival && x.hops == y.hops));
  }
  REQUIRE(a.hops.size() == b.hops.size());
  for (std::size_t i = 0; i < a.hops.size(); ++i) {
    const auto &x = a.hops[i], &y = b.hops[i];
    INFO("hop " << i);
    REQUIRE((x.router == y.router && x.port == y.port && x.tag == y.tag && x.bytes == y.bytes && x.asked == y.asked &&
             x.head == y.head && x.tail == y.tail));
  }
  CHECK(a.issued == b.issued);
  CHECK(a.end == b.end);
  CHECK(a.deadlock == b.deadlock);
}

}  // namespace

TEST_CASE("flow: a run is the same whatever the number of threads") {
  // The routers split into 1, 2 and 3 bands (threads), the bands on their
  // own threads, all on the caller's, or either as the host's speed
  // decides: every delivery, link use and issue, in the order reported, is
  // the same. The cases cover what
  // could depend on the order of one cycle's events: torus ties (6-node
  // rings), dateline classes, adaptive routing with both selections,
  // multi-flit worms, bubble flow control, several injection channels, and
  // a deadlock and its report.
  struct Case {
    const char* name;
    GenericNetwork g;
    double load;
    std::uint32_t bytes;
  };
  std::vector<Case> cases;
  cases.push_back({"8x8 mesh", booksim({8, 8}, false, Pattern::uniform, 0).generic, 0.3, 16});
  auto torus = booksim({6, 6}, true, Pattern::uniform, 0).generic;
  torus.dateline = 1;
  cases.push_back({"6x6 torus, dateline 1, 4-flit packets", torus, 0.12, 64});
  auto adapt = booksim({6, 6}, true, Pattern::uniform, 0).generic;
  adapt.routing = GenericNetwork::Routing::min_adapt;
  adapt.dateline = 2;
  adapt.endpoint_channels = 2;
  cases.push_back({"6x6 torus, adaptive, 2 endpoint channels", adapt, 0.3, 16});
  adapt.adaptive_selection = 1;
  cases.push_back({"6x6 torus, adaptive, round-robin selection, 2-flit packets", adapt, 0.2, 32});
  auto bubble = booksim({4, 4, 4}, true, Pattern::uniform, 0).generic;
  bubble.routing = GenericNetwork::Routing::min_adapt;
  bubble.dateline = 3;
  bubble.wait_for_tail_credit = false;
  bubble.vc_buffer = 16;
  cases.push_back({"4x4x4 torus, bubble flow control", bubble, 0.2, 64});
  auto deadlocks = booksim({6, 6}, true, Pattern::uniform, 0).generic;
  deadlocks.dateline = 0;
  deadlocks.vcs = 1;
  cases.push_back({"6x6 torus without dateline classes (deadlocks)", deadlocks, 0.5, 64});
  for (const auto& c : cases) {
    INFO(c.name);
    const Record one = record_run(c.g, 1, c.load, c.bytes, 1500);
    REQUIRE(one.delivered.size() > 100);
    if (std::string(c.name).find("deadlocks") != std::string::npos)
      CHECK_THAT(one.deadlock, Contains("channels wait for each other in a cycle"));
    else
      CHECK(one.deadlock.empty());
    using S = flow::FlowNet::Schedule;
    for (const unsigned threads : {2u, 3u})
      for (const S s : {S::automatic, S::threads, S::one_thread}) {
        INFO(threads << " bands, schedule " << static_cast<int>(s));
        check_same(one, record_run(c.g, threads, c.load, c.bytes, 1500, s));
      }
  }
}

TEST_CASE("flow: a saturated run's results are the same on several threads") {
  // Saturated: the sources' queues reach their limit (about 2,300 packets
  // here, the driver's check through FlowNet::queued, which counts the
  // packets added for a band that has not taken them yet).
  auto c = booksim({16, 16}, false, Pattern::transpose, 1.0);
  c.measure = 2000;
  c.drain_limit = 2000;
  c.threads = 1;
  const auto one = run_traffic(c);
  CHECK(one.saturated);
  CHECK(one.host_threads == 1);
  c.threads = 2;
  const auto two = run_traffic(c);
  CHECK(two.host_threads == 2);
  CHECK(two.accepted == one.accepted);
  CHECK(two.avg_latency == one.avg_latency);
  CHECK(two.p99_latency == one.p99_latency);
  CHECK(two.packets_simulated == one.packets_simulated);
  CHECK(two.packets_measured == one.packets_measured);
  CHECK(two.link_utilisation == one.link_utilisation);
}
