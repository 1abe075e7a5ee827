#include "hopsim/bgq/model/params.hpp"

#include <array>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"

namespace hopsim::bgq::model {

const std::vector<ParamDecl>& param_decls() {
  static const std::vector<ParamDecl> decls{
      {"torus_a", Dim::count, 1, 64, true, "torus extent in dimension A"},
      {"torus_b", Dim::count, 1, 64, true, "torus extent in dimension B"},
      {"torus_c", Dim::count, 1, 64, true, "torus extent in dimension C"},
      {"torus_d", Dim::count, 1, 64, true, "torus extent in dimension D"},
      {"torus_e", Dim::count, 1, 2, true, "torus extent in dimension E (2 on every BG/Q)"},
      {"clock", Dim::frequency, 1e6, 10e9, false, "A2 core clock (GetTimeBase counts it)"},
      {"link_bandwidth", Dim::bytes_per_cycle, 0.001, 1024, false, "raw bandwidth of one torus link per direction"},
      {"link_packet_overhead", Dim::bytes, 0, 1024, false,
       "bytes a packet costs on a link beyond its header and payload"},
      {"hop_latency", Dim::cycles, 0, 1e5, false, "latency of one router plus link"},
      {"mu_descriptor_latency", Dim::cycles, 0, 1e6, false, "core's inject to the MU's first packet of a descriptor"},
      {"mu_descriptor_overhead", Dim::cycles, 0, 1e6, false, "injection-engine cycles per descriptor"},
      {"mu_engine_bandwidth", Dim::bytes_per_cycle, 0.001, 1024, false, "payload one injection engine reads per cycle"},
      {"mu_rx_bandwidth", Dim::bytes_per_cycle, 0.001, 1024, false, "payload a node's MU writes into memory per cycle"},
      {"inject_cycles", Dim::cycles, 0, 1e6, false, "core cycles per MUSPI_InjFifoInject"},
      {"poll_cycles", Dim::cycles, 0, 1e6, false, "core cycles per iteration of a polling loop"},
      {"gi_barrier_latency", Dim::cycles, 0, 1e7, false, "global-interrupt barrier: last enter to release"},
      {"mpi_send_cycles", Dim::cycles, 0, 1e7, false, "MPI software cycles per message sent (envelope, injection)"},
      {"mpi_recv_cycles", Dim::cycles, 0, 1e7, false, "MPI software cycles per message received (matching, copy)"},
      {"mpi_eager_bytes", Dim::bytes, 0, 1e9, false, "largest MPI message sent eagerly; larger ones rendezvous"},
      {"mpi_lock_cycles", Dim::cycles, 0, 1e7, false,
       "MPI_THREAD_MULTIPLE: taking and releasing the rank's MPI lock around a call"},
      {"cores", Dim::count, 1, 64, true, "compute cores per node"},
      {"threads_per_core", Dim::count, 1, 8, true, "hardware threads per core"},
      {"element_cycles", Dim::cycles, 0.01, 1e6, false, "cycles per reduction element, one thread alone on a core"},
      {"core_element_rate", Dim::count, 0.01, 64, false,
       "reduction elements per cycle one core sustains with all its threads"},
      {"memory_bandwidth", Dim::bytes_per_cycle, 0.01, 4096, false, "node memory bandwidth"},
      {"omp_overhead", Dim::cycles, 0, 1e7, false, "fork and join of a parallel region of more than one thread"},
      {"mu_interference", Dim::count, 0, 10, false,
       "extra compute time per cycle of overlap with the node's MU traffic"},
      {"torus_flow_control", Dim::count, 0, 1, true,
       "1: the torus as the bgq-torus preset's VC routers with credits (programs only), 0: link calendars"},
  };
  return decls;
}

Params params_from(const ParamSet& s) {
  Params p;
  constexpr std::array<const char*, kDims> names{"torus_a", "torus_b", "torus_c", "torus_d", "torus_e"};
  for (std::size_t d = 0; d < names.size(); ++d) p.dims[d] = s.get_int(names[d]);
  p.clock_hz = s.get("clock");
  p.link_bandwidth = s.get("link_bandwidth");
  p.link_packet_overhead = s.get("link_packet_overhead");
  p.hop_latency = s.get("hop_latency");
  p.mu_descriptor_latency = s.get("mu_descriptor_latency");
  p.mu_descriptor_overhead = s.get("mu_descriptor_overhead");
  p.mu_engine_bandwidth = s.get("mu_engine_bandwidth");
  p.mu_rx_bandwidth = s.get("mu_rx_bandwidth");
  p.inject_cycles = s.get("inject_cycles");
  p.poll_cycles = s.get("poll_cycles");
  p.gi_barrier_latency = s.get("gi_barrier_latency");
  p.mpi_send_cycles = s.get("mpi_send_cycles");
  p.mpi_recv_cycles = s.get("mpi_recv_cycles");
  p.mpi_eager_bytes = s.get("mpi_eager_bytes");
  p.mpi_lock_cycles = s.get("mpi_lock_cycles");
  p.cores = s.get_int("cores");
  p.threads_per_core = s.get_int("threads_per_core");
  p.element_cycles = s.get("element_cycles");
  p.core_element_rate = s.get("core_element_rate");
  p.memory_bandwidth = s.get("memory_bandwidth");
  p.omp_overhead = s.get("omp_overhead");
  p.mu_interference = s.get("mu_interference");
  p.torus_flow_control = s.get_int("torus_flow_control") != 0;
  if (p.num_nodes() > (1u << 20))
    throw ConfigError(fmt::format("machine: a {}x{}x{}x{}x{} torus has {} nodes; hopsim's BG/Q model stops at 1048576",
                                  p.dims[0], p.dims[1], p.dims[2], p.dims[3], p.dims[4], p.num_nodes()));
  return p;
}

}  // namespace hopsim::bgq::model
