#include "hopsim/xeonphi/model/model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"

namespace hopsim::xeonphi::model {
namespace {

std::uint64_t div_up(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }
// A host cache line (Intel SDM: 64-byte lines).
constexpr std::uint64_t kCacheLine = 64;
bool power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
// A completion's header is always 3 DW (PCIe base spec, completion TLP format).
constexpr std::uint64_t kCompletionHeader = 12;

}  // namespace

// ---------------------------------------------------------------- PcieLink

PcieLink::PcieLink(const PcieParams& p) : p_(p) {
  if (p.gen < 1 || p.gen > 5) throw ConfigError(fmt::format("pcie_gen: {} is not a PCIe generation 1..5", p.gen));
  constexpr std::array ok_lanes{1, 2, 4, 8, 12, 16, 32};
  if (std::find(ok_lanes.begin(), ok_lanes.end(), p.lanes) == ok_lanes.end())
    throw ConfigError(fmt::format("pcie_lanes: {} is not a PCIe link width (1, 2, 4, 8, 12, 16, 32)", p.lanes));
  if (!power_of_two(p.max_payload) || p.max_payload < 128 || p.max_payload > 4096)
    throw ConfigError(fmt::format("max_payload: {} B is not a power of two in 128..4096 B", p.max_payload));
  if (!power_of_two(p.max_read_request) || p.max_read_request < 128 || p.max_read_request > 4096)
    throw ConfigError(fmt::format("max_read_request: {} B is not a power of two in 128..4096 B", p.max_read_request));
  if (p.tlp_header != 12 && p.tlp_header != 16)
    throw ConfigError(fmt::format("tlp_header: {} B, but a request header is 12 or 16 B", p.tlp_header));
  if (p.ack_every < 1 || p.fc_every < 1 || p.read_tags < 1)
    throw ConfigError("ack_every, fc_every and read_tags must be at least 1");
}

double PcieLink::transfers_per_s() const {
  static constexpr std::array kGt{0.0, 2.5e9, 5e9, 8e9, 16e9, 32e9};
  return kGt[p_.gen];
}

double PcieLink::encoding_efficiency() const { return p_.gen <= 2 ? 8.0 / 10.0 : 128.0 / 130.0; }

double PcieLink::raw_bytes_per_s() const { return transfers_per_s() * p_.lanes * encoding_efficiency() / 8.0; }

double PcieLink::payload_bytes_per_s() const {
  const auto mps = static_cast<double>(p_.max_payload);
  return raw_bytes_per_s() * mps / (mps + static_cast<double>(p_.tlp_header + p_.tlp_framing));
}

TlpCount PcieLink::write_tlps(std::uint64_t bytes, std::uint64_t tlp_bytes) const {
  const std::uint64_t chunk = tlp_bytes == 0 ? p_.max_payload : std::min(tlp_bytes, p_.max_payload);
  TlpCount c;
  c.data_tlps = div_up(bytes, chunk);
  c.payload_bytes = bytes;
  c.forward_wire_bytes = bytes + c.data_tlps * (p_.tlp_header + p_.tlp_framing);
  // The receiver acknowledges and returns credits on the reverse direction.
  c.dllps = div_up(c.data_tlps, p_.ack_every) + div_up(c.data_tlps, p_.fc_every);
  c.reverse_wire_bytes = c.dllps * p_.dllp_bytes;
  return c;
}

TlpCount PcieLink::read_tlps(std::uint64_t bytes) const {
  TlpCount c;
  c.request_tlps = div_up(bytes, p_.max_read_request);
  // Each request is answered by completions of at most MPS bytes (aligned transfers).
  const std::uint64_t full = bytes / p_.max_read_request;
  const std::uint64_t rest = bytes % p_.max_read_request;
  c.data_tlps = full * div_up(p_.max_read_request, p_.max_payload) + div_up(rest, p_.max_payload);
  c.payload_bytes = bytes;
  const std::uint64_t req_dllps = div_up(c.request_tlps, p_.ack_every) + div_up(c.request_tlps, p_.fc_every);
  const std::uint64_t cpl_dllps = div_up(c.data_tlps, p_.ack_every) + div_up(c.data_tlps, p_.fc_every);
  c.dllps = req_dllps + cpl_dllps;
  // Forward (completion direction): data, completion headers, and the DLLPs that answer the requests.
  c.forward_wire_bytes = bytes + c.data_tlps * (kCompletionHeader + p_.tlp_framing) + req_dllps * p_.dllp_bytes;
  // Reverse: the requests (header only) and the DLLPs that answer the completions.
  c.reverse_wire_bytes = c.request_tlps * (p_.tlp_header + p_.tlp_framing) + cpl_dllps * p_.dllp_bytes;
  return c;
}

double PcieLink::write_time(std::uint64_t bytes, std::uint64_t tlp_bytes) const {
  return serialise(write_tlps(bytes, tlp_bytes).forward_wire_bytes) + p_.link_latency;
}

double PcieLink::read_time(std::uint64_t bytes) const {
  const TlpCount c = read_tlps(bytes);
  const double request = serialise(p_.tlp_header + p_.tlp_framing);
  const double round_trip = request + 2 * p_.link_latency + p_.completer_latency;
  // Completions stream back at the link rate unless the tags run out: then
  // each further group of read_tags requests waits for a round trip.
  const std::uint64_t rounds =
      c.request_tlps == 0 ? 0 : (c.request_tlps - 1) / static_cast<std::uint64_t>(p_.read_tags);
  const std::uint64_t last_req = std::min<std::uint64_t>(bytes, p_.max_read_request);
  const double tail = serialise(last_req + div_up(last_req, p_.max_payload) * (kCompletionHeader + p_.tlp_framing));
  const double body = std::max(serialise(c.forward_wire_bytes), static_cast<double>(rounds) * round_trip + tail);
  return round_trip + body;
}

// ---------------------------------------------------------------- parameters

const std::vector<ParamDecl>& param_decls() {
  static const std::vector<ParamDecl> decls = {
      {"pcie_gen", Dim::count, 1, 5, true, "PCIe generation (1..5): 2.5, 5, 8, 16, 32 GT/s per lane"},
      {"pcie_lanes", Dim::count, 1, 32, true, "link width in lanes"},
      {"max_payload", Dim::bytes, 128, 4096, true, "max payload size (MPS) of one TLP"},
      {"max_read_request", Dim::bytes, 128, 4096, true, "max read request size (MRRS)"},
      {"tlp_header", Dim::bytes, 12, 16, true, "request TLP header: 12 (32-bit address) or 16 (64-bit)"},
      {"tlp_framing", Dim::bytes, 0, 64, true, "per-TLP framing, sequence number and LCRC"},
      {"dllp_bytes", Dim::bytes, 0, 64, true, "one DLLP on the wire (ack/nak, flow-control update)"},
      {"ack_every", Dim::count, 1, 1024, true, "TLPs acknowledged per Ack DLLP"},
      {"fc_every", Dim::count, 1, 1024, true, "TLPs per flow-control update DLLP"},
      {"link_latency", Dim::seconds, 0, 1e-5, false, "one-way PCIe latency without serialisation"},
      {"completer_latency", Dim::seconds, 0, 1e-5, false, "read request in to first completion out"},
      {"read_tags", Dim::count, 1, 1024, true, "outstanding non-posted read requests"},
      {"host_sockets", Dim::count, 1, 8, true, "CPU sockets of the host"},
      {"host_cores_per_socket", Dim::count, 1, 1024, true, "cores per socket (numbering: socket-major)"},
      {"card_socket", Dim::count, 0, 7, true, "socket whose root complex the card hangs off"},
      {"inter_socket_latency", Dim::seconds, 0, 1e-5, false, "one crossing of the inter-socket link"},
      {"llc_latency", Dim::seconds, 0, 1e-6, false,
       "a host core's read of a line in its own socket's last-level cache (where DDIO leaves what a card wrote)"},
      {"remote_cache_latency", Dim::seconds, 0, 1e-5, false,
       "a host core's read of a line modified in the other socket's last-level cache"},
      {"inter_socket_bandwidth", Dim::bytes_per_second, 1e6, 1e13, false,
       "inter-socket link capacity per direction, shared by the cards' DMA to and from the far socket"},
      {"root_complex_bandwidth", Dim::bytes_per_second, 1e6, 1e13, false,
       "root complex capacity per direction, shared by the DMA of the cards on it"},
      {"host_send_overhead", Dim::seconds, 0, 1e-4, false, "host software per message sent"},
      {"host_recv_overhead", Dim::seconds, 0, 1e-4, false, "host software per result received"},
      {"host_poll_period", Dim::seconds, 0, 1e-5, false, "one iteration of the host's flag polling loop"},
      {"host_rma_overhead", Dim::seconds, 0, 1e-3, false, "host software to start one RMA/DMA transfer"},
      {"card_clock", Dim::frequency, 1e6, 1e10, false, "card core clock"},
      {"dma_channels", Dim::count, 1, 64, true, "DMA channels one transfer is spread over"},
      {"dma_alignment", Dim::bytes, 1, 4096, true, "DMA transfer granule"},
      {"dma_channel_bandwidth", Dim::bytes_per_cycle, 0.01, 1024, false,
       "one DMA channel's rate, bytes per card cycle"},
      {"dma_setup", Dim::seconds, 0, 1e-3, false, "DMA descriptor fetch and channel start"},
      {"card_dispatch_cycles", Dim::cycles, 0, 1e7, false, "card software per message: receive, dispatch, execute"},
      {"card_send_cycles", Dim::cycles, 0, 1e7, false, "card software to send a result message"},
      {"card_poll_cycles", Dim::cycles, 0, 1e7, false, "one iteration of the card's flag polling loop"},
      {"pio_tlp_bytes", Dim::bytes, 4, 4096, true,
       "programmed-I/O stores leave in TLPs of this size (write combining)"},
      {"flag_bytes", Dim::bytes, 1, 64, true, "the flag a receiver polls"},
      {"message_header", Dim::bytes, 0, 1024, true, "HAM message header (handler key, size, result slot)"},
  };
  return decls;
}

Machine machine_from(const ParamSet& ps, const std::string& name) {
  Machine m;
  m.name = name;
  auto u64 = [&](const char* k) { return static_cast<std::uint64_t>(ps.get_int(k)); };
  m.pcie.gen = ps.get_int("pcie_gen");
  m.pcie.lanes = ps.get_int("pcie_lanes");
  m.pcie.max_payload = u64("max_payload");
  m.pcie.max_read_request = u64("max_read_request");
  m.pcie.tlp_header = u64("tlp_header");
  m.pcie.tlp_framing = u64("tlp_framing");
  m.pcie.dllp_bytes = u64("dllp_bytes");
  m.pcie.ack_every = ps.get_int("ack_every");
  m.pcie.fc_every = ps.get_int("fc_every");
  m.pcie.link_latency = ps.get("link_latency");
  m.pcie.completer_latency = ps.get("completer_latency");
  m.pcie.read_tags = ps.get_int("read_tags");
  m.host.sockets = ps.get_int("host_sockets");
  m.host.cores_per_socket = ps.get_int("host_cores_per_socket");
  m.host.card_socket = ps.get_int("card_socket");
  m.host.inter_socket_latency = ps.get("inter_socket_latency");
  m.host.llc_latency = ps.get("llc_latency");
  m.host.remote_cache_latency = ps.get("remote_cache_latency");
  m.host.inter_socket_bandwidth = ps.get("inter_socket_bandwidth");
  m.host.root_complex_bandwidth = ps.get("root_complex_bandwidth");
  m.host.send_overhead = ps.get("host_send_overhead");
  m.host.recv_overhead = ps.get("host_recv_overhead");
  m.host.poll_period = ps.get("host_poll_period");
  m.host.rma_overhead = ps.get("host_rma_overhead");
  m.card.clock = ps.get("card_clock");
  m.card.dma_channels = ps.get_int("dma_channels");
  m.card.dma_alignment = u64("dma_alignment");
  m.card.dma_channel_bandwidth = ps.get("dma_channel_bandwidth") * m.card.clock;
  m.card.dma_setup = ps.get("dma_setup");
  m.card.dispatch_cycles = ps.get("card_dispatch_cycles");
  m.card.send_cycles = ps.get("card_send_cycles");
  m.card.poll_cycles = ps.get("card_poll_cycles");
  m.scif.pio_tlp_bytes = u64("pio_tlp_bytes");
  m.scif.flag_bytes = u64("flag_bytes");
  m.scif.message_header = u64("message_header");
  if (m.host.card_socket >= m.host.sockets)
    throw ConfigError(fmt::format("card_socket: socket {} does not exist on a host with {} socket(s)",
                                  m.host.card_socket, m.host.sockets));
  PcieLink check(m.pcie);  // validates the link parameters
  (void)check;
  return m;
}

Machine load_machine(const std::string& name, const nlohmann::json& overrides) {
  const Preset preset = load_preset(name, "--ham-preset");
  if (preset.family != "xeonphi")
    throw ConfigError(
        fmt::format("--ham-preset: {} is a {} machine, not a xeonphi (PCIe offload) one", name, preset.family));
  const ParamSet ps = ParamSet::resolve(param_decls(), preset, overrides, "--ham-set");
  return machine_from(ps, preset.name);
}

// ---------------------------------------------------------------- OffloadModel

int Placement::socket(const HostParams& h) const {
  return host_core < 0 ? h.card_socket : host_core / h.cores_per_socket;
}

OffloadModel::OffloadModel(Machine m, Placement where) : m_(std::move(m)), where_(where), link_(m_.pcie) {
  const int cores = m_.host.sockets * m_.host.cores_per_socket;
  if (where_.host_core >= cores)
    throw ConfigError(fmt::format("--ham-cpu-affinity: core {} does not exist on {}'s host ({} sockets x {} cores)",
                                  where_.host_core, m_.name, m_.host.sockets, m_.host.cores_per_socket));
}

double OffloadModel::crossing() const { return where_.far(m_.host) ? m_.host.inter_socket_latency : 0.0; }

double OffloadModel::card_write_seen(std::uint64_t lines_after_flag) const {
  if (!where_.far(m_.host)) return 0.0;
  const HostParams& h = m_.host;
  return 2 * h.inter_socket_latency +
         static_cast<double>(1 + lines_after_flag) * std::max(0.0, h.remote_cache_latency - h.llc_latency);
}

namespace {
// Message body and then its flag, both as programmed-I/O posted writes.
std::uint64_t pio_wire(const PcieLink& link, const ScifParams& s, std::uint64_t bytes) {
  return link.write_tlps(bytes, s.pio_tlp_bytes).forward_wire_bytes +
         link.write_tlps(s.flag_bytes, s.pio_tlp_bytes).forward_wire_bytes;
}
}  // namespace

double OffloadModel::host_send_busy(std::uint64_t bytes) const {
  return m_.host.send_overhead + link_.serialise(pio_wire(link_, m_.scif, m_.scif.message_header + bytes));
}

double OffloadModel::host_to_card_flight(std::uint64_t) const {
  return m_.pcie.link_latency + crossing() + 0.5 * m_.card.poll_cycles / m_.card.clock;
}

double OffloadModel::card_execute(double extra_cycles) const {
  return (m_.card.dispatch_cycles + extra_cycles) / m_.card.clock;
}

double OffloadModel::card_send_busy(std::uint64_t bytes) const {
  return m_.card.send_cycles / m_.card.clock +
         link_.serialise(pio_wire(link_, m_.scif, m_.scif.message_header + bytes));
}

double OffloadModel::card_to_host_flight(std::uint64_t bytes) const {
  // The host reads the message (header + result) after its flag.
  return m_.pcie.link_latency + card_write_seen(div_up(m_.scif.message_header + bytes, kCacheLine)) +
         0.5 * m_.host.poll_period;
}

double OffloadModel::call(std::uint64_t msg_bytes, std::uint64_t result_bytes, double extra_cycles) const {
  return host_send_busy(msg_bytes) + host_to_card_flight(msg_bytes) + card_execute(extra_cycles) +
         card_send_busy(result_bytes) + card_to_host_flight(result_bytes) + host_receive();
}

double OffloadModel::scif_pingpong(std::uint64_t bytes) const {
  const double one_way =
      link_.serialise(link_.write_tlps(bytes, m_.scif.pio_tlp_bytes).forward_wire_bytes) + m_.pcie.link_latency;
  // There: the host's posted write crosses to the card's socket; back: the
  // card's write reaches the host as card_write_seen says (the data are the flag's line).
  return 2 * one_way + crossing() + card_write_seen(0) + 0.5 * m_.card.poll_cycles / m_.card.clock +
         0.5 * m_.host.poll_period;
}

double OffloadModel::dma_bandwidth_cap() const { return m_.card.dma_channels * m_.card.dma_channel_bandwidth; }

double OffloadModel::dma_body(std::uint64_t bytes, bool read) const {
  const std::uint64_t a = m_.card.dma_alignment;
  const std::uint64_t moved = div_up(bytes, a) * a;
  // A read of far-socket memory: its round trip crosses the inter-socket link
  // twice. Writes land in the card's socket's LLC (DDIO): no crossing on
  // their way; the completion flag after them pays card_write_seen.
  const double link = read ? link_.read_time(moved) + 2 * crossing() : link_.write_time(moved);
  const double engines = static_cast<double>(moved) / dma_bandwidth_cap() + m_.pcie.link_latency;
  return m_.card.dma_setup + std::max(link, engines);
}

DmaPhases OffloadModel::dma_phases(std::uint64_t bytes, bool in) const {
  // Host: driver call, doorbell (MMIO write) to the card; the card's engines
  // start, move the data (copy-in: DMA reads of host memory; copy-out:
  // posted writes), then the completion flag is written to host memory and
  // seen by polling. Copy-out's flag follows the data in order (posted
  // writes are not reordered).
  const std::uint64_t a = m_.card.dma_alignment;
  DmaPhases p;
  p.moved = div_up(bytes, a) * a;
  p.before = m_.host.rma_overhead + link_.write_time(m_.scif.flag_bytes, m_.scif.pio_tlp_bytes) + crossing() +
             m_.card.dma_setup;
  p.data = dma_body(bytes, in) - m_.card.dma_setup;
  p.after = (in ? m_.pcie.link_latency + 0.5 * m_.host.poll_period : 0.5 * m_.host.poll_period) + card_write_seen(0) +
            link_.serialise(link_.write_tlps(m_.scif.flag_bytes).forward_wire_bytes);
  return p;
}

double OffloadModel::copy_in(std::uint64_t bytes) const {
  const DmaPhases p = dma_phases(bytes, true);
  return p.before + p.data + p.after;
}

double OffloadModel::copy_out(std::uint64_t bytes) const {
  const DmaPhases p = dma_phases(bytes, false);
  return p.before + p.data + p.after;
}

}  // namespace hopsim::xeonphi::model

namespace hopsim::xeonphi::model {
namespace {

enum class Phase { waiting, before, data, after, done };

// One card's engines: the transfer they serve now.
struct Engine {
  std::vector<std::size_t> queue;  // its transfers, in order
  std::size_t next = 0;            // index into queue of the current one
  Phase phase = Phase::done;
  double until = 0;  // waiting/before/after: when that phase ends
  double left = 0;   // data: bytes still to move
};

// The rate (B/s) of each transfer moving data now, from the shared capacities.
std::vector<double> data_rates(const std::vector<DmaFlow>& flows, const std::vector<Engine>& engines,
                               const HostParams& host) {
  std::vector<double> alone(flows.size(), 0.0), rate(flows.size(), 0.0);
  std::array<double, 2> rc{}, qpi{};  // demand per direction: [0] down, [1] up
  for (const Engine& e : engines) {
    if (e.phase != Phase::data) continue;
    const std::size_t i = e.queue[e.next];
    const DmaFlow& f = flows[i];
    alone[i] = static_cast<double>(f.phases.moved) / f.phases.data;
    rc[f.down ? 0 : 1] += alone[i];
    if (f.crosses_sockets) qpi[f.down ? 0 : 1] += alone[i];
  }
  auto scale = [](double capacity, double demand) { return demand > capacity ? capacity / demand : 1.0; };
  for (const Engine& e : engines) {
    if (e.phase != Phase::data) continue;
    const std::size_t i = e.queue[e.next];
    const int d = flows[i].down ? 0 : 1;
    double s = scale(host.root_complex_bandwidth, rc[d]);
    if (flows[i].crosses_sockets) s = std::min(s, scale(host.inter_socket_bandwidth, qpi[d]));
    rate[i] = alone[i] * s;
  }
  return rate;
}

// Moves engine e's current transfer into its next phase at time t (several
// steps at once where a phase takes no time).
void step(const std::vector<DmaFlow>& flows, std::vector<DmaTimes>& times, Engine& e, double t) {
  for (;;) {
    if (e.phase == Phase::done) return;  // e.next is past the queue
    const std::size_t i = e.queue[e.next];
    const DmaPhases& p = flows[i].phases;
    switch (e.phase) {
      case Phase::waiting:
        if (t < e.until) return;
        times[i].start = t;
        e.phase = Phase::before;
        e.until = t + p.before;
        break;
      case Phase::before:
        if (t < e.until) return;
        times[i].data_start = t;
        e.phase = Phase::data;
        e.left = static_cast<double>(p.moved);
        if (p.data > 0 && e.left > 0) return;
        e.left = 0;
        [[fallthrough]];
      case Phase::data:
        if (e.left > 0) return;
        times[i].data_end = t;
        e.phase = Phase::after;
        e.until = t + p.after;
        break;
      case Phase::after:
        if (t < e.until) return;
        times[i].ready = t;
        if (++e.next == e.queue.size()) {
          e.phase = Phase::done;
          return;
        }
        e.phase = Phase::waiting;
        e.until = std::max(flows[e.queue[e.next]].issue, t);
        break;
      case Phase::done:
        return;
    }
  }
}

}  // namespace

std::vector<DmaTimes> share_dma(const std::vector<DmaFlow>& flows, const HostParams& host) {
  std::vector<DmaTimes> times(flows.size());
  std::map<int, Engine> by_card;
  for (std::size_t i = 0; i < flows.size(); ++i) by_card[flows[i].card].queue.push_back(i);
  std::vector<Engine> engines;
  for (auto& [card, e] : by_card) {
    e.phase = Phase::waiting;
    e.until = flows[e.queue.front()].issue;
    engines.push_back(std::move(e));
  }
  double t = 0;
  for (Engine& e : engines) t = std::min(t, e.until);
  for (Engine& e : engines) step(flows, times, e, t);
  for (;;) {
    const std::vector<double> rate = data_rates(flows, engines, host);
    double next = std::numeric_limits<double>::infinity();
    for (const Engine& e : engines) {
      if (e.phase == Phase::done) continue;
      const std::size_t i = e.queue[e.next];
      next = std::min(next, e.phase == Phase::data ? t + e.left / rate[i] : e.until);
    }
    if (!std::isfinite(next)) break;
    for (Engine& e : engines) {
      if (e.phase != Phase::data) continue;
      const std::size_t i = e.queue[e.next];
      // The transfer that ends now ends exactly (no rounding remainder).
      e.left = t + e.left / rate[i] <= next ? 0.0 : e.left - rate[i] * (next - t);
    }
    t = next;
    for (Engine& e : engines) step(flows, times, e, t);
  }
  return times;
}

}  // namespace hopsim::xeonphi::model
