// Harness: the importer of pcie_probe output (kernels/xeonphi/pcie-probe).
#include "fuzz.hpp"
#include "hopsim/traces/import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static hopsim::fuzz::ScratchFile file("measured.txt");
  const auto& path = file.write(data, size);
  hopsim::fuzz::expect_clean([&] {
    for (const auto& row : hopsim::traces::import_pcie_probe(path, "fuzz-system")) {
      if (row.system.empty() || row.experiment.empty() || row.metric.empty())
        hopsim::fuzz::violation("an imported row without system, experiment or metric", row.configuration);
    }
  });
  return 0;
}
