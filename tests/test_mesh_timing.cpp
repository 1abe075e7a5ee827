// The eMesh timing model: latencies by hand, contention, calendars, backpressure.
#include <cmath>

#include <catch2/catch.hpp>

#include "hopsim/core/log.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/epiphany/model/address_map.hpp"
#include "hopsim/epiphany/model/mesh_timing.hpp"
#include "hopsim/epiphany/sc_log.hpp"

#include <spdlog/sinks/ostream_sink.h>
#include <sstream>
#include <systemc>

using namespace hopsim;
using namespace hopsim::epiphany;
using namespace hopsim::epiphany::model;

namespace {
Params e16() {
  const auto preset = load_preset("e16g301");
  return params_from(ParamSet::resolve(param_decls(), preset, nullptr, "machine"));
}
std::uint32_t at(int row, int col) { return static_cast<std::uint32_t>(row * 4 + col); }
}  // namespace

TEST_CASE("one write to a neighbour takes 14.5 cycles, corner to corner 22 (published 14.5 and 21.7)") {
  MeshTiming m(e16());
  // 11.5 cycles to the source router, then 1.5 per router traversed.
  const auto n = m.write(at(0, 0), at(0, 1), 4, 100.0);
  CHECK(n.arrival - 100.0 == Approx(11.5 + 1.5 * 2));
  CHECK(n.writer_free - 100.0 == Approx(1.0));  // a posted write costs the writer its issue time
  const auto c = m.write(at(0, 0), at(3, 3), 4, 200.0);
  CHECK(c.arrival - 200.0 == Approx(11.5 + 1.5 * 7));
  // Within 10% of the measured figures.
  CHECK(std::abs(n.arrival - 100.0 - 14.5) / 14.5 <= 0.10);
  CHECK(std::abs(c.arrival - 200.0 - 21.7) / 21.7 <= 0.10);
}

TEST_CASE("zero-load latency follows 11.5 + 1.5 x (manhattan hops + 1) for every pair") {
  MeshTiming m(e16());
  double t = 0;
  for (int s = 0; s < 16; ++s) {
    for (int d = 0; d < 16; ++d) {
      if (s == d) continue;
      const int hops = std::abs(s / 4 - d / 4) + std::abs(s % 4 - d % 4);
      t += 1000;  // far apart: no contention
      const auto w = m.write(static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(d), 4, t);
      CHECK(w.arrival - t == Approx(11.5 + 1.5 * (hops + 1)));
      CHECK(m.zero_load_write_latency(static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(d)) ==
            Approx(11.5 + 1.5 * (hops + 1)));
    }
  }
}

TEST_CASE("XY routing: a write goes along the row first, then the column") {
  MeshTiming m(e16());
  m.write(at(0, 0), at(2, 3), 8, 0.0);
  // Links used: (0,0)->(0,1)->(0,2)->(0,3) then (0,3)->(1,3)->(2,3).
  std::size_t used = 0;
  for (std::size_t l = 0; l < m.topology().num_links(); ++l) {
    if (m.stats(Net::cmesh, l).packets == 0) continue;
    ++used;
    const auto name = m.link_name(l);
    const bool row_part = name == "(0,0)->(0,1)" || name == "(0,1)->(0,2)" || name == "(0,2)->(0,3)";
    const bool col_part = name == "(0,3)->(1,3)" || name == "(1,3)->(2,3)";
    CHECK((row_part || col_part));
  }
  CHECK(used == 5);
}

TEST_CASE("two writers sharing a link take longer than one") {
  auto p = e16();
  const int stores = 64;
  // (0,0)->(0,3) alone.
  MeshTiming alone(p);
  double t = 0, last_alone = 0;
  for (int i = 0; i < stores; ++i) {
    const auto w = alone.write(at(0, 0), at(0, 3), 8, t);
    t = w.writer_free;
    last_alone = w.arrival;
  }
  // The same stream while (0,1)->(0,3) streams over the shared links (0,1)->(0,2)->(0,3) and the ejection port.
  MeshTiming shared(p);
  double ta = 0, tb = 0, last_a = 0, last_b = 0;
  for (int i = 0; i < stores; ++i) {
    const auto a = shared.write(at(0, 0), at(0, 3), 8, ta);
    const auto b = shared.write(at(0, 1), at(0, 3), 8, tb);
    ta = a.writer_free;
    tb = b.writer_free;
    last_a = a.arrival;
    last_b = b.arrival;
  }
  CHECK(std::max(last_a, last_b) > last_alone);
  // One packet per cycle through the shared ejection port: 128 packets need at least 128 cycles.
  CHECK(std::max(last_a, last_b) - 11.5 >= 2 * stores - 1);
  double stall = 0;
  for (std::size_t l = 0; l < shared.links_per_net(); ++l) stall += shared.stats(Net::cmesh, l).stall();
  CHECK(stall > 0);
}

TEST_CASE("a link calendar fills gaps left by requests that arrived later in host order") {
  LinkCalendar c;
  CHECK(c.reserve(100, 2) == 100);
  CHECK(c.reserve(104, 2) == 104);
  CHECK(c.reserve(101, 2) == 102);  // busy 100-101, first free run of 2 is 102-103
  CHECK(c.reserve(90, 2) == 90);    // earlier in time, still free
  CHECK(c.reserve(100, 2) == 106);  // 100..105 all taken now
  // Far in the future: the ring grows instead of wrapping onto live ticks.
  CHECK(c.reserve(1000000, 4) == 1000000);
  CHECK(c.reserve(1000001, 1) == 1000004);
  c.advance(1000000);
  CHECK(c.reserve(10, 1) == 1000004 + 1);  // requests before the horizon are clamped to it
}

TEST_CASE("a saturated destination holds writers back once router buffers are full") {
  auto p = e16();
  MeshTiming m(p);
  // Fifteen cores each fire 100 stores at core (0,0) at the same time.
  std::vector<double> t(16, 0.0);
  double max_free = 0;
  for (int i = 0; i < 100; ++i) {
    for (std::uint32_t s = 1; s < 16; ++s) {
      const auto w = m.write(s, 0, 8, t[s]);
      t[s] = w.writer_free;
      max_free = std::max(max_free, w.writer_free);
    }
  }
  // 1500 packets through one ejection port at one per cycle: writers cannot
  // have finished issuing much before the port drained them.
  CHECK(max_free > 1500 - 11.5 - 1.5 * 7 - p.mesh_buffer - 16);
}

TEST_CASE("external memory writes cross the xMesh and the eLink") {
  auto p = e16();
  MeshTiming m(p);
  const auto w = m.write_emem(at(0, 0), 64, 0.0);
  // 64 bytes at elink_width bytes per cycle cannot arrive before 64 / width cycles.
  CHECK(w.arrival >= 64 / p.elink_width);
  std::uint64_t elink_bytes = m.stats(Net::xmesh, m.links_per_net() - 1).bytes;
  CHECK(elink_bytes == 64);
}

TEST_CASE("the address map follows coreid = row<<6 | col at 0x808") {
  AddressMap a(e16());
  CHECK(a.coreid_of(0) == 0x808);
  CHECK(a.base_of(0) == 0x80800000u);
  CHECK(a.base_of(15) == 0x8CB00000u);
  CHECK(a.base_of(6) == 0x84A00000u);
  const auto in = a.locate(0x84A00100u, 4);
  CHECK(in.kind == Location::Kind::core);
  CHECK(in.core == 6);
  CHECK(in.offset == 0x100);
  CHECK(a.locate(0x84A08000u, 4).kind == Location::Kind::none);  // past 32 KiB
  CHECK(a.locate(0x84A07FFEu, 4).kind == Location::Kind::none);  // straddles the end
  CHECK(a.locate(0x90000000u, 4).kind == Location::Kind::none);  // no such core
  CHECK(a.locate(0x8E000010u, 4).kind == Location::Kind::emem);
}

TEST_CASE("the e64g401 preset: an 8x8 mesh with corner-to-corner latency 11.5 + 1.5 x 15") {
  const auto preset = load_preset("e64g401");
  const auto p = params_from(ParamSet::resolve(param_decls(), preset, nullptr, "machine"));
  CHECK(p.rows == 8);
  CHECK(p.cols == 8);
  CHECK(p.clock_hz == Approx(800e6));
  MeshTiming m(p);
  CHECK(m.topology().num_nodes() == 64);
  const auto w = m.write(0, 63, 4, 0.0);
  CHECK(w.arrival == Approx(11.5 + 1.5 * 15));
  AddressMap a(p);
  CHECK(a.base_of(63) == ((39u << 6 | 15u) << 20));
}

TEST_CASE("SystemC reports are routed into spdlog") {
  std::ostringstream os;
  auto log = hopsim::log::get("systemc");
  log->sinks().push_back(std::make_shared<spdlog::sinks::ostream_sink_mt>(os));
  hopsim::epiphany::route_sc_reports_to_spdlog();
  SC_REPORT_WARNING("hopsim/test", "a warning from SystemC");
  CHECK_THAT(os.str(), Catch::Matchers::Contains("a warning from SystemC") && Catch::Matchers::Contains("hopsim/test"));
}

TEST_CASE("router event counters: packets per input port along the XY route, and the cycles they waited") {
  MeshTiming m(e16());
  MeshEventLog log(m.topology());
  m.set_events(&log);
  // 64 dwords (0,0) -> (1,2): along row 0 to column 2, then south into (1,2).
  m.write(at(0, 0), at(1, 2), 512, 100.0, 8);
  constexpr std::uint64_t end = ~std::uint64_t{0};
  CHECK(log.count(at(0, 0), 14, end) == 64);  // core access at the source
  CHECK(log.count(at(0, 1), 12, end) == 64);  // west access: entered (0,1) from the west
  CHECK(log.count(at(0, 2), 12, end) == 64);
  CHECK(log.count(at(1, 2), 11, end) == 64);  // north access: entered (1,2) from the north
  CHECK(log.count(at(1, 2), 12, end) == 0);
  CHECK(log.count(at(1, 1), 15, end) == 0);  // off the route
  CHECK(log.count(at(1, 2), 15, end) == 64);
  // Alone on its route, nothing waits.
  for (std::uint32_t n = 0; n < 16; ++n) CHECK(log.count(n, 2, end) == 0);
  // Counts stop at the given time: none of it had reached (1,2) by cycle 100.
  CHECK(log.count(at(1, 2), 11, MeshTiming::ticks(100.0)) == 0);

  // A second stream from (0,1) joins at (0,1) for the same links: packets
  // that find the (0,1)->(0,2) link taken wait at (0,1).
  log.clear();
  m.write(at(0, 0), at(0, 3), 512, 1000.0, 8);
  m.write(at(0, 1), at(0, 3), 512, 1000.0, 8);
  const auto west = log.count(at(0, 1), 6, end), core = log.count(at(0, 1), 3, end);
  CHECK(west + core > 0);
  CHECK(log.count(at(0, 1), 2, end) >= std::max(west, core));  // any wait: the union of both ports
  CHECK(log.count(at(0, 1), 2, end) <= west + core);
  CHECK(log.count(at(0, 1), 9, end) == west);  // north-or-west: only west waits there
  CHECK(log.count(at(0, 2), 12, end) == 128);
  m.set_events(nullptr);
  m.write(at(0, 0), at(0, 3), 512, 5000.0, 8);
  CHECK(log.count(at(0, 2), 12, end) == 128);  // no longer logging
}

TEST_CASE("router event codes: 2..15 are events, the rest are not") {
  CHECK_FALSE(valid_mesh_event(0));
  CHECK_FALSE(valid_mesh_event(1));
  CHECK(valid_mesh_event(2));
  CHECK(valid_mesh_event(15));
  CHECK_FALSE(valid_mesh_event(16));
  CHECK(std::string(mesh_event_name(10)) == "south access");
}
