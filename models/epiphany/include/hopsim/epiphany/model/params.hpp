#pragma once
// Parameters of an Epiphany chip model. Declared once here (name, unit,
// range, meaning); values come from a preset (presets/e16g301.json ...)
// with their sources, overridable from the scenario's machine object.
#include <cstdint>
#include <vector>

#include "hopsim/core/preset.hpp"

namespace hopsim::epiphany::model {

struct Params {
  int rows = 4, cols = 4;             // mesh size in cores
  int first_row = 32, first_col = 8;  // coordinates of the first core (coreid = row<<6 | col)
  double clock_hz = 600e6;
  std::uint32_t local_mem = 32 * 1024;  // bytes of SRAM per core
  int mem_banks = 4;
  std::uint32_t stack_size = 16 * 1024;  // bytes of each core's SRAM given to the kernel stack (top down)
  double hop_latency = 1.5;              // cycles per router traversed
  double link_width = 8.0;               // bytes per cycle per link per direction
  double rmesh_interval = 8.0;           // cycles between two read requests on one rMesh link (per direction)
  double write_overhead = 11.5;          // cycles from store issue to the source router (calibrated)
  double read_overhead = 15.0;           // cycles of a remote read's round trip besides the routers (sourced)
  double store_issue = 1.0;              // cycles the writer spends issuing one store transaction
  double mesh_buffer = 8.0;  // cycles of contention delay the routers' buffers absorb before a writer stalls
  std::uint32_t emem_base = 0x8E000000u;
  std::uint32_t emem_size = 32u << 20;
  double elink_width = 1.0;     // bytes per cycle over the off-chip link
  double elink_latency = 50.0;  // cycles across the off-chip link
  int dma_channels = 2;
  double dma_setup = 4.0;        // cycles to fetch a DMA descriptor and start the channel
  double api_call = 8.0;         // cycles charged per e-lib call (annotated compute)
  double raw_access = 7.0;       // cycles charged per raw remote load/store of instrumented code (annotated)
  double local_access = 1.0;     // cycles charged per raw local load/store of instrumented code (annotated)
  double barrier_overhead = 0;   // software cycles per barrier beyond its mesh traffic (calibrated)
  double poll_cycles = 3.0;      // cycles per iteration of a flag-polling loop
  double sync_quantum = 2000.0;  // cycles a core may run ahead of SystemC time between syncs

  std::uint32_t num_cores() const { return static_cast<std::uint32_t>(rows * cols); }
};

// Every parameter a preset must give, with unit and range.
const std::vector<ParamDecl>& param_decls();
// Builds Params from resolved values; throws ConfigError for inconsistent sets
// (e.g. a mesh whose global addresses overlap external memory).
Params params_from(const ParamSet& set);

}  // namespace hopsim::epiphany::model
