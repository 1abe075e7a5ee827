#pragma once
// Open-loop synthetic traffic on one of two networks:
//  * emesh: the Epiphany cMesh timing model (hopsim::epiphany::model::MeshTiming,
//    XY routing), one eMesh packet (1..8 bytes) per message;
//  * generic: any N-D mesh or torus (hopsim::topo) with dimension-order
//    routing (wrap-around links taken the shorter way on a torus), link
//    calendars of the same kind, a per-hop latency and a link width.
// Every node injects packets by a Bernoulli (or on/off bursty) process into
// an infinite source queue; after a warm-up, packets generated in the
// measurement window are measured until they arrive (drain). All times are
// in network cycles.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hopsim/epiphany/model/params.hpp"
#include "hopsim/network/model/patterns.hpp"

namespace hopsim::network::model {

enum class NetworkKind { emesh, generic };

// A generic network: virtual cut-through routers, each packet holds every
// link of its route for ceil(bytes / link_width) cycles; its head moves one
// hop per hop_latency cycles (router + wire), after endpoint_latency cycles
// spent once per packet (the source router's pipeline and the injection and
// ejection channels: a route of h hops crosses h + 1 routers). Zero-load
// latency from injection to the tail's arrival:
//   endpoint_latency + hops x hop_latency + max(1, ceil(bytes / link_width)).
// Each node has one injection and one ejection channel of the same width.
struct GenericNetwork {
  std::vector<int> dims{8, 8};  // extents; node id row-major, last dimension fastest
  bool torus = false;           // every dimension wraps
  double hop_latency = 1;       // cycles per hop (router + link), a multiple of 0.5
  double endpoint_latency = 0;  // cycles once per packet (source router, injection/ejection), a multiple of 0.5
  double link_width = 16;       // bytes per cycle per direction (one flit)
  // Contention delay (cycles beyond zero load) the network absorbs before a
  // source stalls (finite router buffers); 0 = a source waits for every
  // packet's contention, 1e6 = effectively unbounded buffers.
  double buffer = 32;

  // Flow control. Off: the link calendars above. On: input-queued
  // virtual-channel routers with credits, simulated event by event
  // (docs/traffic.md, "Flow control"): per input port `vcs` VCs of
  // `vc_buffer` flits; a head is routed (routing_delay), gets an output VC
  // (vc_alloc_delay) and the switch (sw_alloc_delay), and reaches the next
  // router hop_latency cycles after it reached this one; a flit leaving a
  // buffer returns its credit credit_delay + channel_latency cycles later; an
  // output VC is held until its tail's credit is back (wait_for_tail_credit)
  // or until its tail is sent. Cycles are whole numbers here.
  bool flow_control = false;
  int vcs = 8;
  int vc_buffer = 8;  // flits per VC; a longer packet moves as a worm over several routers
  int credit_delay = 2;
  bool wait_for_tail_credit = true;
  int routing_delay = 0, vc_alloc_delay = 1, sw_alloc_delay = 1;
  int channel_latency = 1;
  // Flits an input port may send per cycle (its VCs split over that many
  // crossbar inputs, BookSim2's input_speedup).
  int input_speedup = 1;
  // VC classes on a torus: 0 none (rings can deadlock), 1 dateline (a packet
  // takes the upper half of the VCs from the ring's wrap-around link on),
  // 2 BookSim2's dim_order_torus partition (chosen when entering a ring),
  // 3 bubble flow control (no classes: a packet enters a ring only with room
  // for two packets in the VC, as the BG/Q's escape VC; needs
  // wait_for_tail_credit=0 and vc_buffer >= 2 packets).
  int dateline = 1;
  // Routing: dimension order, or minimal adaptive with escape VCs (Duato):
  // a packet on an adaptive VC may take any adaptive VC of any productive
  // output, or the escape VC of its dimension-order output; on an escape VC
  // it stays on the escape VCs in dimension order (BookSim2's
  // min_adapt_mesh). Escape VCs: VC 0, on a torus with dateline classes
  // VCs 0 and 1 (one per class); the other VCs are adaptive. flow_control only.
  enum class Routing { dor, min_adapt };
  Routing routing = Routing::dor;
  // min_adapt: a packet on an escape VC stays there to its destination
  // (BookSim2); false: at the next router it may take adaptive VCs again
  // (the BG/Q's Stay_On_Bubble=0; torus: with bubble flow control only).
  bool stay_on_escape = true;
  // min_adapt: how a packet chooses among productive outputs with free
  // adaptive VCs: 0 the one with the most free adaptive VCs (ties: the
  // dimension-order one); 1 round-robin over (output, VC) pairs per input
  // VC, blind to congestion (BookSim2's separable input-first VC allocator).
  int adaptive_selection = 0;
  // Injection and ejection channels per node (flow_control), each one flit a
  // cycle: packets are dealt to the injection channels in turn (or a driver
  // names one); a packet leaves the network on ejection channel
  // (input port mod endpoint_channels), the one of the link it came in on.
  int endpoint_channels = 1;
};

// A run of the flow-controlled network stopped with no packet able to move:
// the message names a cycle of channels waiting for each other.
struct NetworkDeadlock : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One entry of a packet size distribution.
struct PacketSize {
  int bytes = 8;
  double weight = 1;  // relative probability (> 0)
};

struct TrafficConfig {
  NetworkKind network = NetworkKind::emesh;
  GenericNetwork generic;  // used when network == generic
  int rows = 8, cols = 8;  // emesh size; overrides net.rows / net.cols
  Pattern pattern = Pattern::uniform;
  double offered_load = 0.1;  // packets per node per cycle, in (0, 1]
  int packet_bytes = 8;       // bytes per packet, 1..8 on the eMesh (one eMesh packet)
  // Packet size distribution (bytes with weights); empty = always packet_bytes.
  std::vector<PacketSize> packet_sizes;
  bool bursty = false;    // on/off source: back-to-back bursts, geometric with mean burst_mean
  double burst_mean = 8;  // packets per burst (>= 1); bursty needs offered_load < 1
  std::uint64_t seed = 1;
  // Host threads simulating a flow-controlled network (each a band of its
  // routers); 0: flow::FlowNet::auto_threads. Results do not depend on it.
  unsigned threads = 0;
  double warmup = 1000, measure = 10000, drain_limit = 20000;  // cycles
  // Saturated when the last quarter's packets average more latency than
  // this (cycles); 0: more than 10x their zero-load latency.
  double saturation_latency = 0;
  double hotspot_fraction = 0.1;
  std::uint32_t hotspot_node = 0;
  epiphany::model::Params net;  // timing parameters of the emesh
};

// Extents of the configured network ({rows, cols} for the eMesh).
std::vector<int> shape(const TrafficConfig& cfg);
// "8x8 mesh", "4x4x4 torus".
std::string describe(const TrafficConfig& cfg);
// Throws std::invalid_argument naming the field for a bad config.
void validate(const TrafficConfig& cfg);

struct TrafficResult {
  double offered = 0;   // configured load, packets per node per cycle
  double accepted = 0;  // packets per node per cycle arriving in the measurement window
  double avg_latency = 0, p50_latency = 0, p99_latency = 0;  // total: generation to arrival (cycles)
  double avg_network_latency = 0;                            // issue (leaving the source queue) to arrival
  double avg_source_delay = 0;                               // generation to issue
  double avg_hops = 0;                                       // network links traversed
  double avg_zero_load = 0;                                  // mean zero-load network latency of the measured packets
  // Per network link (topology link id): cycles reserved by packets issued in the
  // window / window length; above 1 only when saturated (reservations pile up in the future).
  std::vector<double> link_utilisation;
  bool saturated = false;
  std::uint64_t packets_measured = 0;   // packets generated in the window (all of them, when not saturated)
  std::uint64_t packets_simulated = 0;  // every packet sent, warm-up and drain included (simulator speed)
  // Host time (for speed reports only, never for results): building the
  // network (route tables, calendars) and simulating the packets.
  double host_setup_seconds = 0, host_run_seconds = 0;
  unsigned host_threads = 1;  // threads that simulated the network
};

// One run. Throws std::invalid_argument for a bad config (load <= 0 or > 1,
// bad packet size, pattern the mesh cannot take, bad windows or hotspot).
// Saturated when the measured packets do not all arrive within drain_limit
// after the window, or when the mean total latency (source queue + network)
// of packets generated in the last quarter of the window exceeds 10x the mean
// zero-load latency (or saturation_latency, when set);
// the run never simulates beyond warmup + measure + drain_limit.
TrafficResult run_traffic(const TrafficConfig& cfg);

// Runs loads step, 2*step, ... <= max_load (plus tiny slack), stopping after
// the first saturated point. Throws std::invalid_argument for step <= 0.
// `each`, when given, is called after every load (progress reports).
std::vector<TrafficResult> latency_curve(TrafficConfig base, double step, double max_load,
                                         const std::function<void(const TrafficResult&)>& each = {});

// Uncontended issue-to-arrival latency of one packet of `bytes` (default: packet_bytes):
// emesh: write_overhead + hop_latency * (Manhattan hops + 1), as MeshTiming computes it;
// generic: hop_latency * hops + max(1, ceil(bytes / link_width)).
double zero_load_latency(const TrafficConfig& cfg, std::uint32_t src, std::uint32_t dst, int bytes = -1);

}  // namespace hopsim::network::model
