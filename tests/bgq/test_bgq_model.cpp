// models/bgq: torus routes and hop counts, packetisation, direct-put
// reception (counter to exactly 0), dynamic routing stays minimal, and
// bad descriptors give clear errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

#include "hopsim/bgq/model/collective.hpp"
#include "hopsim/bgq/model/compute.hpp"
#include "hopsim/bgq/model/flow_torus.hpp"
#include "hopsim/bgq/model/mu.hpp"
#include "hopsim/bgq/model/network.hpp"
#include "hopsim/core/error.hpp"

using namespace hopsim::bgq::model;

namespace {
Params small(std::array<int, kDims> dims) {
  Params p;
  p.dims = dims;
  return p;
}
}  // namespace

TEST_CASE("torus hop counts take the wrap-around when it is shorter", "[bgq][torus]") {
  Torus t({8, 4, 3, 1, 2});
  const auto a = t.node_at({0, 0, 0, 0, 0});
  CHECK(t.hops(a, t.node_at({1, 0, 0, 0, 0})) == 1);
  CHECK(t.hops(a, t.node_at({7, 0, 0, 0, 0})) == 1);  // wrap: 1 hop, not 7
  CHECK(t.hops(a, t.node_at({5, 0, 0, 0, 0})) == 3);  // wrap: 3, not 5
  CHECK(t.steps(a, t.node_at({5, 0, 0, 0, 0}), 0) == -3);
  CHECK(t.steps(a, t.node_at({4, 0, 0, 0, 0}), 0) == 4);  // tie: the + way, as the hint bits
  CHECK(t.hops(a, t.node_at({4, 2, 2, 0, 1})) == 4 + 2 + 1 + 0 + 1);
  CHECK(t.nodes() == 8 * 4 * 3 * 1 * 2);
  // Node ids are row-major with E fastest: the ABCDET rank order.
  CHECK(t.node_at({0, 0, 0, 0, 1}) == 1);
  CHECK(t.node_at({1, 0, 0, 0, 0}) == 4 * 3 * 1 * 2);
}

TEST_CASE("deterministic routes correct A, B, C, D, E in order over existing links", "[bgq][torus]") {
  Network net(small({4, 4, 2, 2, 2}));
  const auto& t = net.torus();
  const auto src = t.node_at({0, 3, 1, 0, 0}), dst = t.node_at({3, 0, 0, 1, 1});
  std::vector<std::uint32_t> path;
  const auto s = net.send(src, dst, 544, 0, false, &path);
  REQUIRE(s.hops == 5);  // A: 0->3 is 1 hop back; B: 3->0 is 1 hop forward; C, D, E 1 each
  REQUIRE(path.size() == 5);
  std::uint32_t cur = src;
  int last_dim = -1;
  for (auto l : path) {
    const auto node = l / 10;
    const int dim = static_cast<int>(l % 10 / 2);
    const int dir = l % 2 ? -1 : +1;
    CHECK(node == cur);
    CHECK(dim > last_dim);
    last_dim = dim;
    cur = t.neighbour(cur, dim, dir);
  }
  CHECK(cur == dst);
  CHECK(path[0] % 10 == 1);  // A- (the wrap)
  CHECK(path[1] % 10 == 2);  // B+ (the wrap)
}

TEST_CASE("zero-load packet latency is hops x hop latency plus one serialisation", "[bgq][timing]") {
  Params p = small({4, 4, 4, 4, 2});
  p.hop_latency = 64;
  p.link_bandwidth = 1.25;
  p.link_packet_overhead = 24;
  Network net(p);
  const auto& t = net.torus();
  const auto a = t.node_at({0, 0, 0, 0, 0}), b = t.node_at({2, 1, 0, 3, 1});
  const auto s = net.send(a, b, 544, 0, false);
  CHECK(s.hops == 2 + 1 + 0 + 1 + 1);
  const double ser = (544 + 24) / 1.25;
  CHECK(to_cycles(s.arrival) == Approx(5 * 64 + ser).margin(1.0 / kTicksPerCycle));
  // A second packet on the same route waits for the first one's slot on the first link.
  const auto s2 = net.send(a, b, 544, 0, false);
  CHECK(to_cycles(s2.arrival - s.arrival) == Approx(ser).margin(1.0 / kTicksPerCycle));
}

TEST_CASE("dynamic routing never takes a non-minimal hop", "[bgq][timing]") {
  Network net(small({6, 5, 4, 3, 2}));
  const auto& t = net.torus();
  std::srand(7);
  for (int i = 0; i < 3000; ++i) {
    const auto a = static_cast<std::uint32_t>(std::rand()) % t.nodes();
    const auto b = static_cast<std::uint32_t>(std::rand()) % t.nodes();
    std::vector<std::uint32_t> path;
    const auto s = net.send(a, b, 544, static_cast<Tick>(std::rand() % 50000), true, &path);
    REQUIRE(s.hops == t.hops(a, b));
    REQUIRE(static_cast<int>(path.size()) == t.hops(a, b));
    std::uint32_t cur = a;
    for (auto l : path) {
      const auto dim = static_cast<int>(l % 10 / 2);
      const int dir = l % 2 ? -1 : +1;
      const auto next = t.neighbour(cur, dim, dir);
      REQUIRE(t.hops(next, b) == t.hops(cur, b) - 1);  // every hop brings it one closer
      cur = next;
    }
    REQUIRE(cur == b);
  }
}

TEST_CASE("dynamic routing spreads a hot route over the minimal dimensions", "[bgq][timing]") {
  Network net(small({4, 4, 1, 1, 1}));
  const auto& t = net.torus();
  const auto a = t.node_at({0, 0, 0, 0, 0}), b = t.node_at({1, 1, 0, 0, 0});
  std::set<std::uint32_t> first_links;
  for (int i = 0; i < 8; ++i) {
    std::vector<std::uint32_t> path;
    net.send(a, b, 544, 0, true, &path);
    first_links.insert(path.front());
  }
  CHECK(first_links.size() == 2);  // A+ and B+ both used
  Network det(small({4, 4, 1, 1, 1}));
  std::set<std::uint32_t> det_links;
  for (int i = 0; i < 8; ++i) {
    std::vector<std::uint32_t> path;
    det.send(a, b, 544, 0, false, &path);
    det_links.insert(path.front());
  }
  CHECK(det_links.size() == 1);
}

TEST_CASE("packetisation: 32-byte header, 512-byte payloads in 32-byte chunks, partial last packet", "[bgq][mu]") {
  auto p = packetise(512);
  CHECK(p.packets == 1);
  CHECK(p.last_payload == 512);
  CHECK(p.chunks == 17);
  CHECK(p.wire_bytes == 544);
  p = packetise(2048);
  CHECK(p.packets == 4);
  CHECK(p.chunks == 68);
  p = packetise(1000);
  CHECK(p.packets == 2);
  CHECK(p.last_payload == 488);
  CHECK(p.chunks == 17 + 1 + 16);  // 488 bytes round up to 16 chunks
  CHECK(p.wire_bytes == 544 + 544);
  p = packetise(1);
  CHECK(p.packets == 1);
  CHECK(p.chunks == 2);
  CHECK(p.wire_bytes == 64);
  p = packetise(513);
  CHECK(p.packets == 2);
  CHECK(p.last_payload == 1);
  CHECK(packet_payload(513, 0) == 512);
  CHECK(packet_payload(513, 1) == 1);
  CHECK(packet_wire_bytes(33) == 32 + 64);
  CHECK_THROWS_WITH(packetise(0), Catch::Contains("Message_Length is 0"));
}

namespace {
struct PutFixture {
  NodeMu mu;
  std::vector<std::uint8_t> recv = std::vector<std::uint8_t>(8192, 0);
  alignas(8) std::uint64_t counter[2] = {0, 0};
  MUHWI_Descriptor_t d{};
  PutFixture() {
    mu.bat_allocated[0] = mu.bat_allocated[1] = 1;
    mu.bat_set[0] = mu.bat_set[1] = 1;
    mu.bat[0] = reinterpret_cast<std::uint64_t>(recv.data());
    mu.bat[1] =
        reinterpret_cast<std::uint64_t>(&counter[0]) | (MUHWI_ATOMIC_OPCODE_STORE_ADD << MUHWI_ATOMIC_OPCODE_SHIFT);
    d.PacketHeader.NetworkHeader.pt2pt.Data_Packet_Type = MUHWI_PT2PT_DATA_PACKET_TYPE;
    d.PacketHeader.NetworkHeader.pt2pt.Byte8 = MUHWI_PACKET_TYPE_PUT;
    d.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP;
    d.PacketHeader.messageUnitHeader.Packet_Types.Direct_Put.Rec_Payload_Base_Address_Id = 0;
    d.PacketHeader.messageUnitHeader.Packet_Types.Direct_Put.Rec_Counter_Base_Address_Id = 1;
  }
};
}  // namespace

TEST_CASE("direct put: payload at base + offset, counter reaches exactly 0", "[bgq][mu]") {
  PutFixture f;
  std::vector<std::uint8_t> src(3000);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 7 + 1);
  f.d.Message_Length = src.size();
  f.d.Pa_Payload = reinterpret_cast<std::uint64_t>(src.data());
  set_put_offset(f.d, 1000);
  f.counter[0] = src.size();
  const auto pk = packetise(f.d.Message_Length);
  REQUIRE(pk.packets == 6);
  for (std::uint64_t i = 0; i < pk.packets; ++i) {
    const auto pay = packet_payload(f.d.Message_Length, i);
    receive_direct_put(f.mu, 1, 0, f.d, i * 512, src.data() + i * 512, pay, i % 2 == 0);
    if (i + 1 < pk.packets) CHECK(f.counter[0] == src.size() - (i + 1) * 512);
  }
  CHECK(f.counter[0] == 0);
  CHECK(std::memcmp(f.recv.data() + 1000, src.data(), src.size()) == 0);
  CHECK(f.recv[999] == 0);
  CHECK(f.recv[4000] == 0);
}

TEST_CASE("bad descriptors and reception give clear errors, not crashes", "[bgq][mu]") {
  Torus torus({2, 2, 2, 2, 2});
  PutFixture f;
  std::vector<std::uint8_t> src(64, 1);
  f.d.Pa_Payload = reinterpret_cast<std::uint64_t>(src.data());
  f.d.Message_Length = 64;
  f.d.PacketHeader.NetworkHeader.pt2pt.Destination = make_destination(1, 1, 0, 1, 1);
  CHECK(check_descriptor(f.d, torus, 0) == torus.node_at({1, 1, 0, 1, 1}));

  SECTION("zero length") {
    f.d.Message_Length = 0;
    CHECK_THROWS_AS(check_descriptor(f.d, torus, 3), hopsim::KernelError);
    CHECK_THROWS_WITH(check_descriptor(f.d, torus, 3),
                      Catch::Contains("node 3") && Catch::Contains("Message_Length 0"));
  }
  SECTION("destination outside the torus") {
    f.d.PacketHeader.NetworkHeader.pt2pt.Destination = make_destination(0, 0, 2, 0, 0);
    CHECK_THROWS_WITH(check_descriptor(f.d, torus, 0),
                      Catch::Contains("destination (0,0,2,0,0) is outside the 2x2x2x2x2 torus"));
  }
  SECTION("empty torus FIFO map") {
    f.d.Torus_FIFO_Map = 0;
    CHECK_THROWS_WITH(check_descriptor(f.d, torus, 0), Catch::Contains("Torus_FIFO_Map"));
  }
  SECTION("unknown base-address id") {
    f.d.PacketHeader.messageUnitHeader.Packet_Types.Direct_Put.Rec_Payload_Base_Address_Id = 5;
    f.counter[0] = 64;
    CHECK_THROWS_WITH(receive_direct_put(f.mu, 1, 0, f.d, 0, src.data(), 64, false),
                      Catch::Contains("payload base-address id 5 is not allocated"));
    f.mu.bat_allocated[5] = 1;
    CHECK_THROWS_WITH(receive_direct_put(f.mu, 1, 0, f.d, 0, src.data(), 64, false),
                      Catch::Contains("is not set (MUSPI_SetBaseAddress)"));
    f.d.PacketHeader.messageUnitHeader.Packet_Types.Direct_Put.Rec_Payload_Base_Address_Id = 600;
    CHECK_THROWS_WITH(receive_direct_put(f.mu, 1, 0, f.d, 0, src.data(), 64, false), Catch::Contains("not a valid id"));
    CHECK(f.counter[0] == 64);  // nothing was written
  }
  SECTION("unaligned counter") {
    f.d.PacketHeader.messageUnitHeader.Packet_Types.Direct_Put.Counter_Offset = 4;
    CHECK_THROWS_WITH(receive_direct_put(f.mu, 1, 0, f.d, 0, src.data(), 64, false),
                      Catch::Contains("not 8-byte aligned"));
  }
}

TEST_CASE("link calendars take the first gap at or after a request, out of order", "[bgq][timing]") {
  Calendar c;
  CHECK(c.reserve(100, 10, 0) == 100);
  CHECK(c.reserve(0, 10, 0) == 0);     // earlier request fits before
  CHECK(c.reserve(95, 10, 0) == 110);  // overlaps [100,110): goes after
  CHECK(c.reserve(10, 85, 0) == 10);   // exactly fills [10,95)
  CHECK(c.reserve(0, 1, 0) == 95);     // first gap is at 95..100
  CHECK(c.earliest(0, 5, 0) == 120);   // [96,100) is 4 ticks: too short -> after [100,120)
  CHECK(c.earliest(0, 4, 0) == 96);
  CHECK(c.reserve(0, 5, 200) == 200);  // nothing before the horizon
}

// ---- collectives (collective.hpp) ----

TEST_CASE("the comm-world class route is a tree rooted at node 0 with depth the sum of half extents",
          "[bgq][collective]") {
  for (const std::array<int, kDims> dims : {std::array<int, kDims>{2, 2, 2, 2, 2}, {4, 4, 4, 4, 2}, {5, 3, 1, 2, 2}}) {
    Torus t(dims);
    const auto routes = comm_world_routes(t);
    for (const auto& cr : routes) CHECK(check_class_route(cr) == 0);
    const std::vector<std::uint8_t> set(t.nodes(), 1);
    const auto tree = build_tree(t, 0, routes, set);
    CHECK(tree.root == 0);
    CHECK(tree.members.size() == t.nodes());
    int want = 0;
    for (int d : dims) want += d / 2;
    CHECK(tree.max_depth == want);
    // Every node's depth is its hop distance to node 0 (each hop goes one step closer).
    for (std::uint32_t n = 0; n < t.nodes(); ++n) CHECK(tree.depth[n] == t.hops(n, 0));
  }
}

TEST_CASE("class routes are checked as Kernel_SetCollectiveClassRoute checks them", "[bgq][collective]") {
  CHECK(check_class_route({BGQ_CLASS_INPUT_LINK_LOCAL, BGQ_CLASS_LINK_AM}) == 0);
  CHECK(check_class_route({BGQ_CLASS_INPUT_LINK_LOCAL, BGQ_CLASS_LINK_AM | BGQ_CLASS_LINK_BM}) == 1);
  CHECK(check_class_route({BGQ_CLASS_INPUT_LINK_LOCAL, BGQ_CLASS_INPUT_LINK_LOCAL}) == 2);
  CHECK(check_class_route({BGQ_CLASS_LINK_AP, BGQ_CLASS_LINK_AM}) == 3);
  CHECK(check_class_route({BGQ_CLASS_INPUT_LINK_LOCAL | BGQ_CLASS_LINK_AM, BGQ_CLASS_LINK_AM}) == 4);
}

TEST_CASE("broken class-route trees stop the run naming the route and the node", "[bgq][collective]") {
  Torus t({2, 2, 1, 1, 1});  // nodes 0 (0,0) 1 (0,1) 2 (1,0) 3 (1,1)
  auto routes = comm_world_routes(t);
  std::vector<std::uint8_t> set(4, 1);
  SECTION("a parent that has not set the route") {
    set[0] = 0;
    CHECK_THROWS_WITH(build_tree(t, 3, routes, set),
                      Catch::Contains("class route 3: node 1 sends up to node 0, which has not set class route 3"));
  }
  SECTION("a parent that does not take the link") {
    routes[0].input = BGQ_CLASS_INPUT_LINK_LOCAL;
    CHECK_THROWS_WITH(build_tree(t, 2, routes, set), Catch::Contains("whose input does not take that link"));
  }
  SECTION("two roots") {
    routes[3].output = 0;
    CHECK_THROWS_WITH(build_tree(t, 1, routes, set), Catch::Contains("2 roots (nodes 0 and 3"));
  }
  SECTION("a cycle") {
    routes[0].output = class_link_bit(0, +1);  // node 0 up to node 2, node 2 up to node 0
    routes[2].input |= class_link_bit(0, -1);
    routes[3].output = 0;  // the only root is now node 3
    routes[3].input = BGQ_CLASS_INPUT_LINK_LOCAL;
    routes[1].output = class_link_bit(0, +1);
    routes[3].input |= class_link_bit(0, -1);
    CHECK_THROWS_WITH(build_tree(t, 4, routes, set), Catch::Contains("on a cycle"));
  }
  SECTION("a link the torus does not have") {
    routes[1].output = class_link_bit(2, +1);
    CHECK_THROWS_WITH(build_tree(t, 5, routes, set), Catch::Contains("the torus has no links in C"));
  }
}

namespace {
template <typename T>
std::vector<T> fold_all(std::uint32_t op, std::uint32_t word, const std::vector<std::vector<T>>& in) {
  CollectiveFields f;
  f.op = op;
  f.word_length = word;
  std::vector<T> acc = in[0];
  for (std::size_t i = 1; i < in.size(); ++i)
    combine(f, reinterpret_cast<std::uint8_t*>(acc.data()), reinterpret_cast<const std::uint8_t*>(in[i].data()),
            acc.size() * sizeof(T), "test");
  return acc;
}
}  // namespace

TEST_CASE("the collective ops combine words as their op codes say", "[bgq][collective]") {
  CHECK(fold_all<std::uint64_t>(MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_ADD, 8, {{1, ~0ull}, {2, 2}, {3, 0}}) ==
        std::vector<std::uint64_t>{6, 1});  // wraps
  CHECK(fold_all<std::int32_t>(MUHWI_COLLECTIVE_OP_CODE_SIGNED_MIN, 4, {{5, -7}, {-3, 2}}) ==
        std::vector<std::int32_t>{-3, -7});
  CHECK(fold_all<std::uint32_t>(MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_MAX, 4, {{5, 0xFFFFFFFFu}, {7, 2}}) ==
        std::vector<std::uint32_t>{7, 0xFFFFFFFFu});
  CHECK(fold_all<std::int64_t>(MUHWI_COLLECTIVE_OP_CODE_SIGNED_ADD, 8, {{-5, 9}, {2, -10}}) ==
        std::vector<std::int64_t>{-3, -1});
  CHECK(fold_all<double>(MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_ADD, 8, {{0.5, -1}, {0.25, 4}}) ==
        std::vector<double>{0.75, 3});
  CHECK(fold_all<double>(MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_MAX, 8, {{0.5, -1}, {0.25, 4}}) ==
        std::vector<double>{0.5, 4});
  CHECK(fold_all<std::uint32_t>(MUHWI_COLLECTIVE_OP_CODE_XOR, 16, {{1, 2, 3, 4}, {3, 3, 3, 3}}) ==
        std::vector<std::uint32_t>{2, 1, 0, 7});
  CHECK(fold_all<std::uint32_t>(MUHWI_COLLECTIVE_OP_CODE_AND, 4, {{6}, {3}}) == std::vector<std::uint32_t>{2});
  CHECK(fold_all<std::uint32_t>(MUHWI_COLLECTIVE_OP_CODE_OR, 4, {{6}, {3}}) == std::vector<std::uint32_t>{7});
  CHECK_THROWS_WITH((fold_all<float>(MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_ADD, 4, {{1.0F}, {2.0F}})),
                    Catch::Contains("collective floating-point add on 4-byte words is not modelled"));
  CHECK_THROWS_WITH((fold_all<std::uint64_t>(MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_ADD, 16, {{1, 2}, {3, 4}})),
                    Catch::Contains("unsigned add on 16-byte words is not modelled"));
  CHECK_THROWS_WITH((fold_all<std::uint32_t>(MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_ADD, 8, {{1, 2, 3}, {3, 4, 5}})),
                    Catch::Contains("a collective of 12 bytes in 8-byte words"));
}

TEST_CASE("a collective's schedule: the last contribution climbs, the stream runs down pipelined",
          "[bgq][collective]") {
  Params p;
  p.hop_latency = 64;
  p.mu_descriptor_latency = 400;
  p.link_bandwidth = 1.25;
  p.link_packet_overhead = 24;
  p.mu_rx_bandwidth = 4;
  p.mu_engine_bandwidth = 8;
  // Three contributions: taken at 0, 1000 and 200 cycles, at depths 0, 1 and 5.
  const std::vector<Tick> taken = {to_ticks(0), to_ticks(1000), to_ticks(200)};
  const std::vector<int> depth = {0, 1, 5};
  const auto s = schedule_collective(p, taken, depth, 1024);  // two full packets
  // The root sees the last contribution at max(0, 1000 + 64, 200 + 320) + 400.
  CHECK(s.at_root == to_ticks(1464));
  CHECK(s.stream == 2 * static_cast<Tick>(std::ceil((544 + 24) * 16 / 1.25)));
  CHECK(s.arrival(3) == s.at_root + 3 * to_ticks(64) + s.stream + to_ticks(512 / 4.0));
  // A contributor's send is done when its last packet has left, not before its engine read the payload.
  CHECK(s.sent(to_ticks(1000), 1, 1024) == s.at_root - to_ticks(64) + s.stream);
  CHECK(s.sent(to_ticks(1000), 1, 1024) > to_ticks(1000 + 1024 / 8.0));
}

TEST_CASE("A2 compute: linear over the 16 cores, then bounded by the shared pipelines and memory", "[bgq][compute]") {
  Params p;  // the bgq preset's values
  p.element_cycles = 4.69;
  p.core_element_rate = 1;
  p.memory_bandwidth = 26.6;
  p.omp_overhead = 2000;
  const std::uint64_t n = 32768;  // the halo's reduction
  const double one = compute_cycles(p, n, 1);
  CHECK(one == Approx(32768 * 4.69));
  // One thread per core up to 16: each core does its share at 1/element_cycles.
  CHECK(compute_cycles(p, n, 8) == Approx(4096 * 4.69 + 2000));
  // From 16 threads on, the node's memory (8 bytes per element at 26.6 B/cycle) bounds it.
  const double mem = n * 8 / 26.6;
  CHECK(compute_cycles(p, n, 16) == Approx(mem + 2000));
  CHECK(compute_cycles(p, n, 64) == Approx(mem + 2000));
  // With memory out of the way, 4 threads on a core share its pipeline: 4/4.69 elements per cycle, not 4x one
  // thread's rate beyond the XU's one load per cycle.
  p.memory_bandwidth = 1e9;
  CHECK(compute_cycles(p, n, 64) == Approx(512.0 * 4 / (4 / 4.69) + 2000));
  p.element_cycles = 2;  // four threads could do 2 per cycle; the core issues one load per cycle
  CHECK(compute_cycles(p, n, 64) == Approx(512.0 * 4 / 1.0 + 2000));
  CHECK_THROWS_WITH(compute_cycles(p, n, 65), Catch::Contains("a BG/Q node has 1..64 hardware threads"));
}

TEST_CASE("A2 counted compute: one thread's schedule spread over threads, the core's XU and FPU issue, memory",
          "[bgq][compute]") {
  Params p;
  p.memory_bandwidth = 1e9;  // out of the way first
  p.omp_overhead = 2000;
  const std::uint64_t n = 32768;
  // A loop one thread counted at 6 cycles, 4 instructions (1 to the FPU) per element.
  const CountedWork w{6.0 * n, 4.0 * n, 1.0 * n};
  CHECK(counted_compute_cycles(p, w, n, 1) == Approx(6.0 * n));
  // 16 threads, one per core: each runs its 2048 elements' share of the schedule.
  CHECK(counted_compute_cycles(p, w, n, 16) == Approx(6.0 * 2048 + 2000));
  // 64 threads, 4 per core: the core issues one XU instruction per cycle, 3 per element of 4 x 512.
  CHECK(counted_compute_cycles(p, w, n, 64) == Approx(3.0 * 4 * 512 + 2000));
  // An FPU-heavy loop is bounded by the FPU's one instruction per cycle.
  const CountedWork fp{6.0 * n, 5.0 * n, 4.0 * n};
  CHECK(counted_compute_cycles(p, fp, n, 64) == Approx(4.0 * 4 * 512 + 2000));
  // Uneven chunks: 3 threads over 10 elements, the busiest does ceil(10/3) = 4 of them.
  CHECK(counted_compute_cycles(p, CountedWork{100, 10, 0}, 10, 3) == Approx(100 * 0.4 + 2000));
  // The node's memory (8 bytes per element) bounds a streaming loop.
  p.memory_bandwidth = 26.6;
  CHECK(counted_compute_cycles(p, w, n, 64) == Approx(n * 8 / 26.6 + 2000));
  CHECK_THROWS_WITH(counted_compute_cycles(p, w, n, 0), Catch::Contains("a BG/Q node has 1..64 hardware threads"));
}

constexpr std::uint64_t kAllTorusFifos = 0xFFC0u;  // AM .. EP

TEST_CASE("flow-controlled torus: zero-load arrival, a cycle per hop stage, a shared link serialises", "[bgq][flow]") {
  const Params p = small({4, 4, 1, 1, 2});
  const auto g = FlowTorus::network_for(p);
  REQUIRE(g.flow_control);
  REQUIRE(g.endpoint_channels == 10);
  const Torus t(p.dims);
  // Descriptors injected at tick 1000 from node 0; returns each one's arrival.
  auto run = [&](const std::vector<std::pair<std::uint32_t, std::uint64_t>>& descs) {
    FlowTorus f(p, g);
    std::vector<Tick> got(descs.size(), 0);
    for (std::uint32_t i = 0; i < descs.size(); ++i)
      f.inject(i, 0, i, descs[i].first, descs[i].second, 1000, true, kAllTorusFifos);
    while (f.busy())
      f.step(~Tick{0}, [&](std::uint32_t id, Tick at) {
        REQUIRE(id < got.size());
        CHECK(got[id] == 0);  // once each
        got[id] = at;
      });
    for (const Tick a : got) CHECK(a > 0);
    return got;
  };
  const double tpc = 32 / p.link_bandwidth * kTicksPerCycle;  // 409.6 ticks: one 32-byte chunk on a link
  // 512 bytes: the engine reads them by tick 1000 + 512 x 4 = 3048 (cycle 8,
  // tick 3277); the head leaves then and the tail is in endpoint 4 + 3 per hop
  // + 17 chunks later; the MU writes the payload in 512 x 4 ticks.
  const Tick one = run({{t.node_at({1, 0, 0, 0, 0}), 512}})[0];
  CHECK(one == static_cast<Tick>(std::llround((8 + 4 + 3 + 17) * tpc)) + 2048);
  const Tick three = run({{t.node_at({1, 1, 0, 0, 1}), 512}})[0];
  CHECK(three == static_cast<Tick>(std::llround((8 + 4 + 9 + 17) * tpc)) + 2048);
  // Two descriptors (two FIFOs, two injection channels) to one neighbour
  // share its link, on its two VCs, chunk by chunk: the last tail is in at
  // least 17 chunks after one alone (plus allocation), well before a second
  // whole latency.
  const auto two = run({{t.node_at({1, 0, 0, 0, 0}), 512}, {t.node_at({1, 0, 0, 0, 0}), 512}});
  CHECK(std::min(two[0], two[1]) >= one);
  CHECK(std::max(two[0], two[1]) >= one + static_cast<Tick>(std::llround(17 * tpc)));
  CHECK(std::max(two[0], two[1]) < one + static_cast<Tick>(std::llround(24 * tpc)));
}

TEST_CASE("flow-controlled torus: Torus_FIFO_Map picks the injection channels", "[bgq][flow]") {
  CHECK(FlowTorus::channels_of(MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP) == 1u);
  CHECK(FlowTorus::channels_of(MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AM) == 2u);
  CHECK(FlowTorus::channels_of(MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_BP | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_EM) == (4u | 512u));
  CHECK(FlowTorus::channels_of(MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_EP) == 256u);
  CHECK(FlowTorus::channels_of(kAllTorusFifos) == 1023u);
  CHECK(FlowTorus::channels_of(MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_LOCAL0) == 1023u);  // no torus FIFO: all ten

  // Node 0 sends 4 KiB to its A+ and to its B+ neighbour (two MU FIFOs, two
  // engines). An injection channel takes a 32-byte chunk a cycle, slower
  // than an engine reads: two descriptors mapped to one channel take it in
  // turn, mapped to two they go side by side.
  const Params p = small({4, 4, 1, 1, 2});
  const auto g = FlowTorus::network_for(p);
  const Torus t(p.dims);
  const double tpc = 32 / p.link_bandwidth * kTicksPerCycle;
  auto last = [&](std::uint64_t map_a, std::uint64_t map_b) {
    FlowTorus f(p, g);
    f.inject(0, 0, 0, t.node_at({1, 0, 0, 0, 0}), 4096, 1000, false, map_a);
    f.inject(1, 0, 1, t.node_at({0, 1, 0, 0, 0}), 4096, 1000, false, map_b);
    Tick end = 0;
    int arrived = 0;
    while (f.busy())
      f.step(~Tick{0}, [&](std::uint32_t, Tick at) {
        end = std::max(end, at);
        ++arrived;
      });
    CHECK(arrived == 2);
    return end;
  };
  const Tick shared = last(MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP, MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP);
  const Tick apart = last(MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP, MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_BP);
  // 8 packets of 17 chunks each: one channel carries 272 chunks, two carry 136 each.
  CHECK(shared >= apart + static_cast<Tick>(std::llround(120 * tpc)));
  CHECK(shared >= static_cast<Tick>(std::llround(272 * tpc)));
}

TEST_CASE("flow-controlled torus: each packet's links, in order, for the trace", "[bgq][flow]") {
  const Params p = small({4, 4, 1, 1, 2});
  const auto g = FlowTorus::network_for(p);
  const Torus t(p.dims);
  const double tpc = 32 / p.link_bandwidth * kTicksPerCycle;
  FlowTorus f(p, g);
  std::vector<FlowTorus::LinkUse> uses;
  f.on_link([&](const FlowTorus::LinkUse& u) { uses.push_back(u); });
  const std::uint32_t dst = t.node_at({1, 1, 0, 0, 1});  // three hops
  f.inject(7, 0, 0, dst, 512, 1000, true, kAllTorusFifos);
  while (f.busy()) f.step(~Tick{0}, [](std::uint32_t, Tick) {});
  REQUIRE(uses.size() == 3);
  std::uint32_t at = 0;  // the node the packet is at
  for (std::size_t i = 0; i < uses.size(); ++i) {
    const auto& u = uses[i];
    CHECK(u.desc == 7);
    CHECK(u.bytes == 544);
    CHECK(u.busy == static_cast<Tick>(std::llround(17 * tpc)));
    CHECK(u.asked <= u.start);
    CHECK(u.end > u.start);
    if (i > 0) CHECK(u.start > uses[i - 1].start);
    // The link leaves the node the packet is at; the next starts where it leads.
    REQUIRE(u.link / 10 == at);
    const int dim = static_cast<int>(u.link % 10 / 2);
    at = t.neighbour(at, dim, u.link % 2 == 0 ? +1 : -1);
  }
  CHECK(at == dst);
}
