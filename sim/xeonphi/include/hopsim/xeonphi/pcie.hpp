// `hopsim xeonphi pcie`: what the offload-path model predicts for the copy
// paths and the doorbell of a PCIe accelerator, in the rows the real-device
// probe measures (kernels/xeonphi/pcie-probe, imported with
// `hopsim import --format pcie`), and the two side by side.
//
// Contract: the predicted rows are exactly those import_pcie_probe makes of
// the probe's output for the model's paths, so a prediction and a
// measurement match row by row (experiment, configuration, metric):
//   pcie-copy        "h2d pinned <bytes> B"  OffloadModel::copy_in  (the device's DMA reads host memory)
//   pcie-copy        "d2h pinned <bytes> B"  OffloadModel::copy_out (the device's DMA writes host memory)
//   pcie-latency     "h2d|d2h pinned 8 B"    the same for one 8-byte copy
//   pcie-flag-round-trip "host-device-host mapped 8 B"  OffloadModel::scif_pingpong(8)
// with metrics median (ns) and bandwidth (GB/s), sizes 4096 B doubling up to
// max_bytes. The model has no path for pageable host memory: measured
// pageable rows are listed as not modelled.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "hopsim/traces/import.hpp"

namespace hopsim::xeonphi {

struct PcieOptions {
  std::string machine = "pcie-gen5-x16";  // xeonphi preset
  std::vector<std::string> sets;          // NAME=VALUE parameter overrides
  std::uint64_t max_bytes = std::uint64_t{256} << 20;
  std::string system;   // system name of the predicted rows (default: the preset's name)
  std::string out;      // write the prediction here as a reference CSV ("" : standard output, unless against is set)
  std::string against;  // reference CSV of a measurement: print the comparison table
  std::string csv;      // with against: also write the comparison as CSV (one row per compared median)
  double tolerance = 25;
};

// The model's rows for machine + overrides (throws ConfigError naming the bad preset or parameter).
std::vector<traces::ResultRow> predict_pcie(const PcieOptions& o);

// Prints or writes the prediction, or compares it with `against`. Returns 0,
// or 3 when a compared median differs from the measurement by more than the
// tolerance.
int pcie_command(const PcieOptions& o, std::ostream& out);

}  // namespace hopsim::xeonphi
