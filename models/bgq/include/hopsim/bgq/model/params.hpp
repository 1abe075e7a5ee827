#pragma once
// Parameters of the Blue Gene/Q model (torus, links, messaging unit, A2
// node). Every value comes from a preset (presets/bgq*.json) with its
// source; times are in core cycles at `clock`, bandwidths in bytes per
// core cycle (2 GB/s = 1.25 B/cycle at 1.6 GHz).
#include <array>
#include <cstdint>
#include <vector>

#include "hopsim/core/preset.hpp"

namespace hopsim::bgq::model {

inline constexpr int kDims = 5;  // A B C D E

struct Params {
  std::array<int, kDims> dims{2, 2, 2, 2, 2};
  double clock_hz = 1.6e9;
  double link_bandwidth = 1.25;       // B/cycle per direction (raw)
  double link_packet_overhead = 24;   // bytes on the wire per packet beyond header + payload
  double hop_latency = 64;            // cycles per router + link
  double mu_descriptor_latency = 0;   // cycles from the core's inject to the MU's first packet
  double mu_descriptor_overhead = 0;  // cycles the injection engine spends per descriptor
  double mu_engine_bandwidth = 4;     // B/cycle one injection engine reads payload from memory
  double mu_rx_bandwidth = 4;         // B/cycle a node's reception side writes payload to memory
  double inject_cycles = 0;           // core cycles per MUSPI_InjFifoInject
  double poll_cycles = 0;             // core cycles per iteration of a polling loop
  double gi_barrier_latency = 0;      // cycles from the last node's enter to everyone seeing it
  double mpi_send_cycles = 0;         // MPI software per message sent
  double mpi_recv_cycles = 0;         // MPI software per message received
  double mpi_lock_cycles = 0;         // MPI_THREAD_MULTIPLE: the rank's MPI lock, taken and released once
  double mpi_eager_bytes = 2048;      // largest eager MPI message
  int cores = 16;                     // compute cores per node
  int threads_per_core = 4;
  double element_cycles = 4.7;      // cycles per element of the reduction, one thread alone on a core
  double core_element_rate = 1;     // elements per cycle one core sustains with all its threads
  double memory_bandwidth = 26.6;   // B/cycle of the node's memory
  double omp_overhead = 0;          // cycles to fork and join a parallel region of more than one thread
  double mu_interference = 0;       // compute slowdown while the node's MU moves data (fraction)
  bool torus_flow_control = false;  // the torus as VC routers with credits (FlowTorus), not link calendars

  std::uint32_t num_nodes() const {
    std::uint32_t n = 1;
    for (int d : dims) n *= static_cast<std::uint32_t>(d);
    return n;
  }
};

const std::vector<ParamDecl>& param_decls();
// ConfigError naming machine.X for an impossible combination.
Params params_from(const ParamSet& s);

}  // namespace hopsim::bgq::model
