#include "hopsim/epiphany/model/params.hpp"

#include <fmt/format.h>

#include "hopsim/core/error.hpp"

namespace hopsim::epiphany::model {

const std::vector<ParamDecl>& param_decls() {
  static const std::vector<ParamDecl> decls{
      {"rows", Dim::count, 1, 64, true, "mesh rows of cores"},
      {"cols", Dim::count, 1, 64, true, "mesh columns of cores"},
      {"first_row", Dim::count, 0, 63, true, "row coordinate of the first core"},
      {"first_col", Dim::count, 0, 63, true, "column coordinate of the first core"},
      {"clock", Dim::frequency, 1e6, 10e9, false, "core and mesh clock"},
      {"local_mem", Dim::bytes, 4096, 1 << 20, true, "SRAM per core"},
      {"mem_banks", Dim::count, 1, 16, true, "SRAM banks per core"},
      {"stack_size", Dim::bytes, 4096, 1 << 20, true, "SRAM at the top of each core given to the kernel stack"},
      {"hop_latency", Dim::cycles, 0, 100, false, "latency per router traversed"},
      {"link_width", Dim::bytes_per_cycle, 0.01, 1024, false, "mesh link bandwidth per direction"},
      {"rmesh_interval", Dim::cycles, 0.5, 1000, false, "cycles between two read requests on one rMesh link"},
      {"write_overhead", Dim::cycles, 0, 1000, false, "store issue to source router (fixed part of a write)"},
      {"read_overhead", Dim::cycles, 0, 1000, false,
       "fixed part of a remote read's round trip (both legs, besides the routers)"},
      {"store_issue", Dim::cycles, 0, 100, false, "writer's cycles per store transaction"},
      {"mesh_buffer", Dim::cycles, 0, 1e6, false, "contention delay absorbed by router buffers before a writer stalls"},
      {"emem_base", Dim::address, 0, 4294967295.0, true, "global address of external memory"},
      {"emem_size", Dim::bytes, 0, 1u << 30, true, "size of external memory"},
      {"elink_width", Dim::bytes_per_cycle, 0.01, 1024, false, "off-chip link bandwidth"},
      {"elink_latency", Dim::cycles, 0, 100000, false, "off-chip link latency"},
      {"dma_channels", Dim::count, 1, 8, true, "DMA channels per core"},
      {"dma_setup", Dim::cycles, 0, 10000, false, "cycles to fetch a DMA descriptor and start the channel"},
      {"api_call", Dim::cycles, 0, 10000, false, "cycles charged per device-API call (annotated compute)"},
      {"raw_access", Dim::cycles, 0, 10000, false, "cycles charged per raw remote load or store (annotated compute)"},
      {"local_access", Dim::cycles, 0, 10000, false, "cycles charged per raw local load or store (annotated compute)"},
      {"barrier_overhead", Dim::cycles, 0, 1e6, false, "software cycles per barrier beyond its mesh traffic"},
      {"poll_cycles", Dim::cycles, 1, 1000, false, "cycles per iteration of a flag-polling loop"},
      {"sync_quantum", Dim::cycles, 1, 1e9, false, "cycles a core may run ahead of global time"},
  };
  return decls;
}

Params params_from(const ParamSet& s) {
  Params p;
  p.rows = s.get_int("rows");
  p.cols = s.get_int("cols");
  p.first_row = s.get_int("first_row");
  p.first_col = s.get_int("first_col");
  p.clock_hz = s.get("clock");
  p.local_mem = static_cast<std::uint32_t>(s.get("local_mem"));
  p.mem_banks = s.get_int("mem_banks");
  p.stack_size = static_cast<std::uint32_t>(s.get("stack_size"));
  p.hop_latency = s.get("hop_latency");
  p.link_width = s.get("link_width");
  p.rmesh_interval = s.get("rmesh_interval");
  p.write_overhead = s.get("write_overhead");
  p.read_overhead = s.get("read_overhead");
  p.store_issue = s.get("store_issue");
  p.mesh_buffer = s.get("mesh_buffer");
  p.emem_base = static_cast<std::uint32_t>(s.get("emem_base"));
  p.emem_size = static_cast<std::uint32_t>(s.get("emem_size"));
  p.elink_width = s.get("elink_width");
  p.elink_latency = s.get("elink_latency");
  p.dma_channels = s.get_int("dma_channels");
  p.dma_setup = s.get("dma_setup");
  p.api_call = s.get("api_call");
  p.raw_access = s.get("raw_access");
  p.local_access = s.get("local_access");
  p.barrier_overhead = s.get("barrier_overhead");
  p.poll_cycles = s.get("poll_cycles");
  p.sync_quantum = s.get("sync_quantum");
  if (p.first_row + p.rows > 64 || p.first_col + p.cols > 64) {
    throw ConfigError(
        fmt::format("machine: a {}x{} mesh starting at row {}, col {} does not fit the 64x64 coreid space", p.rows,
                    p.cols, p.first_row, p.first_col));
  }
  if (p.stack_size + 1024 > p.local_mem) {
    throw ConfigError(
        fmt::format("machine.stack_size: {} B leaves no room in {} B of local memory", p.stack_size, p.local_mem));
  }
  return p;
}

}  // namespace hopsim::epiphany::model
