#pragma once
// Open-loop synthetic traffic on the Epiphany cMesh timing model
// (hopsim::epiphany::MeshTiming, XY routing): every node injects single-packet
// writes by a Bernoulli (or on/off bursty) process into an infinite source
// queue; after a warm-up, packets generated in the measurement window are
// measured until they arrive (drain). All times are in device cycles.
#include <cstdint>
#include <vector>

#include "hopsim/epiphany/params.hpp"
#include "hopsim/traffic/patterns.hpp"

namespace hopsim::traffic {

struct TrafficConfig {
  int rows = 8, cols = 8;             // mesh size; overrides net.rows / net.cols
  Pattern pattern = Pattern::uniform;
  double offered_load = 0.1;          // packets per node per cycle, in (0, 1]
  int packet_bytes = 8;               // bytes per packet, 1..8 (one eMesh packet)
  bool bursty = false;                // on/off source: back-to-back bursts, geometric with mean burst_mean
  double burst_mean = 8;              // packets per burst (>= 1); bursty needs offered_load < 1
  std::uint64_t seed = 1;
  double warmup = 1000, measure = 10000, drain_limit = 20000;  // cycles
  double hotspot_fraction = 0.1;
  std::uint32_t hotspot_node = 0;
  epiphany::Params net;               // timing parameters of the mesh
};

struct TrafficResult {
  double offered = 0;           // configured load, packets per node per cycle
  double accepted = 0;          // packets per node per cycle arriving in the measurement window
  double avg_latency = 0, p50_latency = 0, p99_latency = 0;  // total: generation to arrival (cycles)
  double avg_network_latency = 0;  // issue (leaving the source queue) to arrival
  double avg_source_delay = 0;     // generation to issue
  double avg_hops = 0;             // mesh links traversed (Manhattan distance)
  // Per cMesh mesh link (topology link id): cycles reserved by packets issued in the
  // window / window length; above 1 only when saturated (reservations pile up in the future).
  std::vector<double> link_utilisation;
  bool saturated = false;
  std::uint64_t packets_measured = 0;  // packets generated in the window (all of them, when not saturated)
};

// One run. Throws std::invalid_argument for a bad config (load <= 0 or > 1,
// bad packet size, pattern the mesh cannot take, bad windows or hotspot).
// Saturated when the measured packets do not all arrive within drain_limit
// after the window, or when the mean total latency (source queue + network)
// of packets generated in the last quarter of the window exceeds 10x the mean
// zero-load latency;
// the run never simulates beyond warmup + measure + drain_limit.
TrafficResult run_traffic(const TrafficConfig& cfg);

// Runs loads step, 2*step, ... <= max_load (plus tiny slack), stopping after
// the first saturated point. Throws std::invalid_argument for step <= 0.
std::vector<TrafficResult> latency_curve(TrafficConfig base, double step, double max_load);

// Uncontended issue-to-arrival latency of one packet:
// write_overhead + hop_latency * (Manhattan hops + 1), as MeshTiming computes it.
double zero_load_latency(const TrafficConfig& cfg, std::uint32_t src, std::uint32_t dst);

}  // namespace hopsim::traffic
