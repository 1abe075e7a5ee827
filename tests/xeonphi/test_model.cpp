// The Xeon Phi offload path model: TLP accounting, posted vs non-posted
// timing, the far-socket penalty, the presets and their calibration checks.
#include <cmath>

#include <catch2/catch.hpp>

#include "hopsim/core/error.hpp"
#include "hopsim/xeonphi/model/model.hpp"

using namespace hopsim::xeonphi::model;

namespace {
PcieParams gen2x16() {
  PcieParams p;  // defaults: Gen2 x16, MPS 256, MRRS 512, 16 B header, 8 B framing, 8 B DLLPs, ack/fc every 4
  return p;
}
}  // namespace

TEST_CASE("line encoding and raw rate per generation", "[xeonphi][pcie]") {
  PcieParams p = gen2x16();
  CHECK(PcieLink(p).encoding_efficiency() == Approx(0.8));
  CHECK(PcieLink(p).raw_bytes_per_s() == Approx(8e9));
  p.gen = 1;
  CHECK(PcieLink(p).raw_bytes_per_s() == Approx(4e9));
  p.gen = 3;
  CHECK(PcieLink(p).encoding_efficiency() == Approx(128.0 / 130.0));
  CHECK(PcieLink(p).raw_bytes_per_s() == Approx(15.754e9).epsilon(1e-3));
  p.gen = 5;
  CHECK(PcieLink(p).raw_bytes_per_s() == Approx(63.015e9).epsilon(1e-3));
  p.lanes = 8;
  CHECK(PcieLink(p).raw_bytes_per_s() == Approx(31.508e9).epsilon(1e-3));
}

TEST_CASE("TLP counts and bytes of a 1 MiB posted write", "[xeonphi][pcie]") {
  const PcieLink link(gen2x16());
  const TlpCount c = link.write_tlps(1 << 20);
  CHECK(c.data_tlps == 4096);  // 1 MiB / 256 B
  CHECK(c.request_tlps == 0);
  CHECK(c.payload_bytes == 1048576);
  CHECK(c.forward_wire_bytes == 1048576 + 4096 * 24);  // + (16 B header + 8 B framing) per TLP
  CHECK(c.dllps == 1024 + 1024);                       // one Ack and one UpdateFC per 4 TLPs
  CHECK(c.reverse_wire_bytes == 2048 * 8);
  // A partial last TLP and programmed-I/O sizing.
  const TlpCount d = link.write_tlps(1000, 64);
  CHECK(d.data_tlps == 16);
  CHECK(d.forward_wire_bytes == 1000 + 16 * 24);
  CHECK(link.payload_bytes_per_s() == Approx(8e9 * 256.0 / 280.0));
}

TEST_CASE("TLP counts and bytes of a 1 MiB non-posted read", "[xeonphi][pcie]") {
  const PcieLink link(gen2x16());
  const TlpCount c = link.read_tlps(1 << 20);
  CHECK(c.request_tlps == 2048);  // MRRS 512 B
  CHECK(c.data_tlps == 4096);     // completions of MPS 256 B
  // Completions carry a 12 B header; the requests' DLLPs travel with them.
  CHECK(c.forward_wire_bytes == 1048576 + 4096 * (12 + 8) + (512 + 512) * 8);
  CHECK(c.reverse_wire_bytes == 2048 * (16 + 8) + (1024 + 1024) * 8);
  // 700 B: two requests (512 + 188), completions 256 + 256 + 188.
  const TlpCount d = link.read_tlps(700);
  CHECK(d.request_tlps == 2);
  CHECK(d.data_tlps == 3);
}

TEST_CASE("a non-posted read pays the round trip a posted write does not", "[xeonphi][pcie]") {
  const PcieParams p = gen2x16();
  const PcieLink link(p);
  const double w = link.write_time(64), r = link.read_time(64);
  CHECK(w == Approx(p.link_latency + (64 + 24) / 8e9));
  // request (16 + 8 B), two latencies, the completer, then the completion
  // (64 + 12 + 8 B) and the request's Ack and UpdateFC DLLPs (2 x 8 B).
  CHECK(r == Approx(2 * p.link_latency + p.completer_latency + 24 / 8e9 + (64 + 20 + 16) / 8e9));
  CHECK(r - w >= p.link_latency + p.completer_latency);
  // Large transfers both approach the link rate: the difference stays a round trip.
  const double big = 64.0 * 1024 * 1024;
  CHECK(big / link.read_time(64 << 20) == Approx(link.raw_bytes_per_s() * 256.0 / 276.0).epsilon(0.01));
  CHECK(big / link.write_time(64 << 20) == Approx(link.payload_bytes_per_s()).epsilon(0.001));
  // Too few tags make reads latency bound.
  PcieParams q = p;
  q.read_tags = 1;
  CHECK(PcieLink(q).read_time(64 << 20) > 2 * link.read_time(64 << 20));
}

TEST_CASE("the knc-7120p preset: calibration against the SCIF round trip and the HAM call", "[xeonphi][preset]") {
  const Machine m = load_machine("knc-7120p");
  CHECK(m.pcie.gen == 2);
  CHECK(m.pcie.lanes == 16);
  const OffloadModel near(m, Placement{0});
  // link_latency is calibrated on this: 0.44 us (Documentation/mic/scif_overview.txt).
  CHECK(near.scif_pingpong(8) == Approx(440e-9).epsilon(0.01));
  // card_dispatch_cycles is calibrated on the published median 1678.5 ns. The
  // published average (1786 ns) is the same measurement: a calibration check at
  // the -6.0% docs/validation.md states, not a validation.
  const double call = near.call(1, 0);
  CHECK(call == Approx(1678.5e-9).epsilon(0.01));
  CHECK(call == Approx(1786.359e-9).epsilon(0.065));
  // Control: without the card's software the call misses both by far.
  Machine wrong = m;
  wrong.card.dispatch_cycles = 0;
  const double bare = OffloadModel(wrong, Placement{0}).call(1, 0);
  CHECK(std::abs(bare - 1786.359e-9) / 1786.359e-9 > 0.065);
  CHECK(std::abs(bare - 1678.5e-9) / 1678.5e-9 > 0.01);
}

// A host on the far socket, event by event (X: one inter-socket crossing,
// D: a line fetched from the other socket's LLC instead of the own LLC):
// a message's posted writes cross once; a card's write to host memory costs
// the ownership round trip (2X), then the poll of its flag and each line
// read after it cost D; a DMA read of host memory crosses there and back.
TEST_CASE("a host thread on the far socket pays the crossings and remote cache lines of each event",
          "[xeonphi][host]") {
  const Machine m = load_machine("knc-7120p");
  const OffloadModel near(m, Placement{m.host.cores_per_socket - 1});
  const OffloadModel far(m, Placement{m.host.cores_per_socket});
  const OffloadModel unpinned(m, Placement{-1});
  CHECK_FALSE(near.placement().far(m.host));
  CHECK(far.placement().far(m.host));
  CHECK(unpinned.call(1, 0) == near.call(1, 0));
  const double X = m.host.inter_socket_latency, D = m.host.remote_cache_latency - m.host.llc_latency;
  CHECK(X == Approx(27e-9));
  CHECK(D == Approx(55e-9));
  CHECK(near.card_write_seen(3) == 0.0);
  CHECK(far.card_write_seen(0) == Approx(2 * X + D));
  // An empty call: message there (X), result back (2X), its flag and the one line of its header (2D).
  CHECK(far.call(1, 0) - near.call(1, 0) == Approx(3 * X + 2 * D));
  // A 100-byte result: header + result take two lines.
  CHECK(far.call(1, 100) - near.call(1, 100) == Approx(3 * X + 3 * D));
  // Copy-out: the doorbell (X), the completion flag (2X + D); the data stay in the card socket's LLC.
  CHECK(far.copy_out(4096) - near.copy_out(4096) == Approx(3 * X + D));
  // Copy-in: the doorbell (X), the reads' round trip (2X), the completion flag (2X + D).
  CHECK(far.copy_in(4096) - near.copy_in(4096) == Approx(5 * X + D));
  CHECK(far.scif_pingpong() - near.scif_pingpong() == Approx(3 * X + D));
  CHECK_THROWS_WITH(OffloadModel(m, Placement{2 * m.host.cores_per_socket}), Catch::Contains("core 16 does not exist"));
}

TEST_CASE("DMA: copy-in is read-bound, copy-out posted; large transfers approach the payload rate", "[xeonphi][dma]") {
  const Machine m = load_machine("knc-7120p");
  const OffloadModel model(m, Placement{0});
  CHECK(model.copy_in(4096) > model.copy_out(4096));
  const double big = 64.0 * 1024 * 1024;
  CHECK(big / model.copy_out(64 << 20) == Approx(model.link().payload_bytes_per_s()).epsilon(0.01));
  // 64-byte DMA granule: 1 B costs what 64 B cost.
  CHECK(model.copy_out(1) == model.copy_out(64));
  // A Gen5 x16 link moves large copies about 8x faster, but the call is latency bound.
  const OffloadModel gen5(load_machine("pcie-gen5-x16"), Placement{0});
  CHECK(model.copy_out(64 << 20) / gen5.copy_out(64 << 20) > 7.0);
  CHECK(model.call(1, 0) / gen5.call(1, 0) < 1.05);
}

TEST_CASE("impossible machines are refused with the parameter named", "[xeonphi][preset]") {
  CHECK_THROWS_WITH(load_machine("knc-7120p", {{"pcie_gen", 6}}), Catch::Contains("pcie_gen"));
  CHECK_THROWS_WITH(load_machine("knc-7120p", {{"pcie_lanes", 3}}), Catch::Contains("pcie_lanes: 3"));
  CHECK_THROWS_WITH(load_machine("knc-7120p", {{"max_payload", 300}}), Catch::Contains("max_payload"));
  CHECK_THROWS_WITH(load_machine("knc-7120p", {{"card_socket", 2}}), Catch::Contains("card_socket"));
  CHECK_THROWS_WITH(load_machine("knc-7120p", {{"no_such", 1}}), Catch::Contains("no_such"));
  CHECK_THROWS_WITH(load_machine("e16g301"), Catch::Contains("not a xeonphi"));
  CHECK_THROWS_AS(load_machine("no-such-preset"), hopsim::ConfigError);
}

namespace {
DmaFlow flow(int card, double issue, double before, double data, double after, std::uint64_t moved, bool down = true,
             bool far = false) {
  DmaFlow f;
  f.card = card;
  f.issue = issue;
  f.phases = {before, data, after, moved};
  f.down = down;
  f.crosses_sockets = far;
  return f;
}
}  // namespace

TEST_CASE("several cards: a transfer alone takes its phases; one card's transfers run in order", "[xeonphi][share]") {
  HostParams h;
  h.root_complex_bandwidth = 40e9;
  h.inter_socket_bandwidth = 30e9;
  // 1 GB in 0.1 s alone (10 GB/s): below every capacity.
  const auto one = share_dma({flow(1, 1.0, 0.01, 0.1, 0.002, 1'000'000'000)}, h);
  CHECK(one[0].start == 1.0);
  CHECK(one[0].data_start == Approx(1.01));
  CHECK(one[0].data_end == Approx(1.11));
  CHECK(one[0].ready == Approx(1.112));
  // The same card twice, issued together: the second starts when the first completed.
  const auto two =
      share_dma({flow(1, 0, 0.01, 0.1, 0.002, 1'000'000'000), flow(1, 0, 0.01, 0.1, 0.002, 1'000'000'000)}, h);
  CHECK(two[1].start == Approx(two[0].ready));
  CHECK(two[1].ready == Approx(2 * 0.112));
  // Two cards at 10 GB/s each under a 40 GB/s root complex: no slowdown.
  const auto side = share_dma({flow(1, 0, 0, 0.1, 0, 1'000'000'000), flow(2, 0, 0, 0.1, 0, 1'000'000'000)}, h);
  CHECK(side[0].ready == Approx(0.1));
  CHECK(side[1].ready == Approx(0.1));
}

TEST_CASE("several cards: transfers share the root complex per direction and the inter-socket link",
          "[xeonphi][share]") {
  HostParams h;
  h.root_complex_bandwidth = 15e9;
  h.inter_socket_bandwidth = 12e9;
  const std::uint64_t gb = 1'000'000'000;
  // Two 10 GB/s copy-ins at once: 20 GB/s asked of 15, each at 7.5 GB/s.
  auto t = share_dma({flow(1, 0, 0, 0.1, 0, gb), flow(2, 0, 0, 0.1, 0, gb)}, h);
  CHECK(t[0].data_end == Approx(1.0 / 7.5));
  CHECK(t[1].data_end == Approx(1.0 / 7.5));
  // A copy-in and a copy-out use opposite directions: no sharing.
  t = share_dma({flow(1, 0, 0, 0.1, 0, gb, true), flow(2, 0, 0, 0.1, 0, gb, false)}, h);
  CHECK(t[0].data_end == Approx(0.1));
  CHECK(t[1].data_end == Approx(0.1));
  // From the far socket the inter-socket link (12) is the tighter: 6 GB/s each.
  t = share_dma({flow(1, 0, 0, 0.1, 0, gb, true, true), flow(2, 0, 0, 0.1, 0, gb, true, true)}, h);
  CHECK(t[0].data_end == Approx(1.0 / 6.0));
  // Staggered: card 2 starts when card 1 has moved half; they share 15 GB/s
  // until card 1 ends (0.5 GB at 7.5 GB/s: 1/15 s), then card 2 runs alone
  // (0.5 GB left at 10 GB/s: 0.05 s).
  t = share_dma({flow(1, 0, 0, 0.1, 0, gb), flow(2, 0.05, 0, 0.1, 0, gb)}, h);
  CHECK(t[0].data_end == Approx(0.05 + 1.0 / 15));
  CHECK(t[1].data_end == Approx(0.05 + 1.0 / 15 + 0.05));
  // A single transfer faster than the root complex is held to it.
  t = share_dma({flow(1, 0, 0, 0.05, 0, gb)}, h);
  CHECK(t[0].data_end == Approx(1.0 / 15));
}

TEST_CASE("DMA phases add up to the copy times", "[xeonphi][dma]") {
  const OffloadModel m(load_machine("knc-7120p"), Placement{0});
  for (std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{1} << 20, std::uint64_t{64} << 20}) {
    const DmaPhases in = m.dma_phases(bytes, true), out = m.dma_phases(bytes, false);
    CHECK(in.before + in.data + in.after == Approx(m.copy_in(bytes)).epsilon(1e-12));
    CHECK(out.before + out.data + out.after == Approx(m.copy_out(bytes)).epsilon(1e-12));
    CHECK(in.moved == bytes);
  }
}
