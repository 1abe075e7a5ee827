#pragma once
// Timing model of the Xeon Phi offload path: a host with two sockets, a PCIe
// link to the card, the card's DMA engines and cores, and the SCIF-style
// one-sided message protocol HAM-Offload uses on top of it.
//
// Pure functions of the parameters (no state, no SystemC): every figure is
// deterministic and can be checked by hand. Times are in seconds, sizes in
// bytes. The simulated HAM transport (sim/xeonphi/src/sim.cpp) advances its clocks
// with these functions.
#include <cstdint>
#include <string>
#include <vector>

#include "hopsim/core/preset.hpp"

namespace hopsim::xeonphi::model {

// ---------------------------------------------------------------- PCIe link
struct PcieParams {
  int gen = 2;                           // 1..5
  int lanes = 16;                        // 1, 2, 4, 8, 16, 32
  std::uint64_t max_payload = 256;       // bytes of data per TLP (MPS)
  std::uint64_t max_read_request = 512;  // bytes one read request may ask for (MRRS)
  std::uint64_t tlp_header = 16;         // bytes: 12 (32-bit address) or 16 (64-bit)
  std::uint64_t tlp_framing = 8;         // bytes per TLP besides the header: start/end framing, sequence number, LCRC
  std::uint64_t dllp_bytes = 8;          // bytes of one DLLP (ack/nak, flow-control update) on the wire
  int ack_every = 4;                     // TLPs acknowledged by one Ack DLLP
  int fc_every = 4;                      // TLPs per flow-control credit update DLLP
  double link_latency = 200e-9;       // one-way: transmitter to receiver's transaction layer, excluding serialisation
  double completer_latency = 100e-9;  // a read's completer: request in to first completion out
  int read_tags = 32;                 // outstanding non-posted requests
};

// What crosses the link for one transfer, per direction ("forward" carries
// the data; "reverse" carries requests' acks and credits, or read requests).
struct TlpCount {
  std::uint64_t data_tlps = 0;     // TLPs carrying payload (writes or completions)
  std::uint64_t request_tlps = 0;  // read requests (no payload)
  std::uint64_t payload_bytes = 0;
  std::uint64_t forward_wire_bytes = 0;  // data direction, headers and framing and DLLPs included
  std::uint64_t reverse_wire_bytes = 0;  // opposite direction
  std::uint64_t dllps = 0;               // both directions
};

class PcieLink {
 public:
  explicit PcieLink(const PcieParams& p);
  const PcieParams& params() const { return p_; }

  double transfers_per_s() const;      // per lane: 2.5e9 .. 32e9
  double encoding_efficiency() const;  // 8b/10b = 0.8 (Gen1/2), 128b/130b (Gen3+)
  double raw_bytes_per_s() const;      // per direction, after line encoding
  // Data rate of a long stream of max-payload posted writes: headers and
  // framing counted; the writes' Ack and credit DLLPs travel the other way.
  double payload_bytes_per_s() const;

  // Posted memory write of `bytes` split into TLPs of at most `tlp_bytes` (0: max payload).
  TlpCount write_tlps(std::uint64_t bytes, std::uint64_t tlp_bytes = 0) const;
  // Non-posted memory read of `bytes`: requests of at most MRRS, completions of at most MPS.
  TlpCount read_tlps(std::uint64_t bytes) const;

  double serialise(std::uint64_t wire_bytes) const { return static_cast<double>(wire_bytes) / raw_bytes_per_s(); }
  // Issue of the first byte until the last byte reaches the receiver.
  double write_time(std::uint64_t bytes, std::uint64_t tlp_bytes = 0) const;
  // Issue of the first request until the last completion reaches the requester.
  double read_time(std::uint64_t bytes) const;

 private:
  PcieParams p_;
};

// ---------------------------------------------------------------- host, card, SCIF
struct HostParams {
  int sockets = 2;
  int cores_per_socket = 8;
  int card_socket = 0;                  // the socket whose root complex the card hangs off
  double inter_socket_latency = 60e-9;  // one crossing of the inter-socket link (QPI)
  // Host reads of a line a card wrote (DDIO leaves inbound writes in the
  // last-level cache of the socket the card hangs off): from the own
  // socket's LLC, or modified in the other socket's.
  double llc_latency = 15e-9;
  double remote_cache_latency = 70e-9;
  // Capacities per direction (B/s) of the paths the cards' DMA shares: the
  // inter-socket link (data to or from the far socket's memory) and the root
  // complex the cards hang off.
  double inter_socket_bandwidth = 32e9;
  double root_complex_bandwidth = 39.4e9;
  double send_overhead = 0;  // host software: build the message, pick a buffer
  double recv_overhead = 0;  // host software: read the result, release the buffer
  double poll_period = 0;    // one iteration of the host's flag-polling loop
  double rma_overhead = 0;   // host software to start one RMA/DMA transfer (driver call, descriptors)
};

struct CardParams {
  double clock = 1.238e9;              // card core clock
  int dma_channels = 4;                // channels one transfer is spread over
  std::uint64_t dma_alignment = 64;    // DMA moves whole aligned lines
  double dma_channel_bandwidth = 2e9;  // one channel's engine rate
  double dma_setup = 0;                // descriptor fetch and channel start
  double dispatch_cycles = 0;          // card software per message: receive, look up handler, run, build the result
  double send_cycles = 0;              // card software to write a result message and its flag
  double poll_cycles = 0;              // one iteration of the card's flag-polling loop
};

struct ScifParams {
  std::uint64_t pio_tlp_bytes = 64;   // write-combining buffer size: programmed-I/O stores leave in TLPs of this size
  std::uint64_t flag_bytes = 8;       // the flag the receiver polls
  std::uint64_t message_header = 16;  // HAM message header (handler key, size, result slot)
};

// One DMA transfer's phases, seconds with the path to itself: `before` the
// engines move data (host driver call, doorbell, engine start), `data` (the
// bytes moving over the link), `after` (the completion flag seen by the
// host). moved: bytes on the link (whole DMA granules).
struct DmaPhases {
  double before = 0, data = 0, after = 0;
  std::uint64_t moved = 0;
};

// Where a host thread sits relative to the card.
struct Placement {
  int host_core = -1;  // -1: not pinned, taken as the card's socket
  int socket(const HostParams& h) const;
  bool far(const HostParams& h) const { return socket(h) != h.card_socket; }
};

struct Machine {
  std::string name;
  PcieParams pcie;
  HostParams host;
  CardParams card;
  ScifParams scif;
};

// The parameters a xeonphi preset must give (name, unit, range, meaning).
const std::vector<ParamDecl>& param_decls();
// Builds a machine from a resolved parameter set; throws ConfigError on impossible combinations.
Machine machine_from(const ParamSet& params, const std::string& name);
// Loads preset `name` (family xeonphi) with overrides {"name": value}.
Machine load_machine(const std::string& name, const nlohmann::json& overrides = nlohmann::json::object());

// Costs of the offload path. All one-way figures include the far-socket
// crossing when the host thread sits on the other socket.
class OffloadModel {
 public:
  OffloadModel(Machine m, Placement where);
  const Machine& machine() const { return m_; }
  const PcieLink& link() const { return link_; }
  const Placement& placement() const { return where_; }

  double crossing() const;  // one inter-socket crossing when the host thread is on the far socket (0 near)
  // What a host on the far socket pays beyond a near one to see a card's
  // write to host memory (0 near): the card's socket takes ownership of the
  // host-homed flag line from the home on the far socket (a round trip,
  // which also invalidates the polling core's copy), DDIO leaves the line
  // modified in the card socket's LLC, and the host's poll, then each of
  // `lines_after_flag` lines it reads after the flag, fetches a line
  // modified in the other socket's LLC instead of hitting its own LLC.
  double card_write_seen(std::uint64_t lines_after_flag) const;

  // Host software and PIO to put a message of `bytes` into the card's buffer
  // plus fence and flag: the time the host CPU is busy.
  double host_send_busy(std::uint64_t bytes) const;
  // From the host's last store until the card sees the flag (link, crossing, half a poll period).
  double host_to_card_flight(std::uint64_t bytes) const;
  // Card software to process one message, at the card clock (extra: cycles the function itself charged).
  double card_execute(double extra_cycles = 0) const;
  // Card writes a result of `bytes` into the host's buffer: from the card's decision to send until the host sees the
  // flag.
  double card_send_busy(std::uint64_t bytes) const;
  double card_to_host_flight(std::uint64_t bytes) const;
  double host_receive() const { return m_.host.recv_overhead; }

  // A whole synchronous call carrying a message of msg_bytes and returning result_bytes.
  double call(std::uint64_t msg_bytes, std::uint64_t result_bytes, double extra_cycles = 0) const;
  // SCIF 8-byte ping-pong through mapped memory (host writes, card answers), as in scif_overview.txt.
  double scif_pingpong(std::uint64_t bytes = 8) const;

  // DMA transfers started by the host (RMA): copy-in = card DMA reads host
  // memory (non-posted), copy-out = card DMA writes host memory (posted).
  // Time from the host's call until the host has seen completion.
  double copy_in(std::uint64_t bytes) const;
  double copy_out(std::uint64_t bytes) const;
  // The same transfer in its phases (before + data + after = copy_in or copy_out).
  DmaPhases dma_phases(std::uint64_t bytes, bool in) const;
  double dma_bandwidth_cap() const;  // channels x channel rate

 private:
  double dma_body(std::uint64_t bytes, bool read) const;
  Machine m_;
  Placement where_;
  PcieLink link_;
};

// ---------------------------------------------------------------- several cards
// One DMA transfer as the paths the cards share see it.
struct DmaFlow {
  int card = 0;                  // a card's transfers run one after another, in the order given
  double issue = 0;              // s: when the host started it
  DmaPhases phases;              // with the path to itself
  bool down = true;              // data towards the card (copy-in) or towards the host (copy-out)
  bool crosses_sockets = false;  // the host memory it reads or writes is on the far socket
};
struct DmaTimes {
  double start = 0;       // the card's engines take it (issue, or when the card's previous transfer completed)
  double data_start = 0;  // start + phases.before
  double data_end = 0;    // its last byte moved
  double ready = 0;       // data_end + phases.after: the host sees the completion
};
// Runs the transfers of several cards on one host. Each card's engines take
// its transfers one at a time; the data of transfers moving at the same
// time share, per direction, the root complex the cards hang off
// (host.root_complex_bandwidth) and, for those whose host memory is on the
// far socket, the inter-socket link (host.inter_socket_bandwidth): a
// transfer alone moves phases.moved bytes in phases.data seconds; where the
// rates of the transfers on a resource add up to more than its capacity,
// each of them is slowed by the same factor (the smallest over the
// resources it crosses). Event-driven and exact: times change only where a
// transfer starts or ends. A transfer whose path is never loaded beyond
// capacity takes exactly before + data + after. Times in the order given.
std::vector<DmaTimes> share_dma(const std::vector<DmaFlow>& flows, const HostParams& host);

}  // namespace hopsim::xeonphi::model
