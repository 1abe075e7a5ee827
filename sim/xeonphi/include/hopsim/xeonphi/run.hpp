#pragma once
// `hopsim run` of a Xeon Phi scenario: a HAM-Offload program (a separate
// executable, built against ham::offload) run once per mode as a child
// process, `--ham-mode native` and `--ham-mode sim` with the scenario's
// preset and overrides; its own output is kept (OUT/ham-MODE.txt) and read
// back with the HAM benchmark importer. The program checks its own data
// (copy-out contents, call-mul results) in each mode and exits 3 when a
// check fails: data agree between the modes when both pass.
#include <string>

#include "hopsim/core/report.hpp"
#include "hopsim/core/scenario.hpp"

namespace hopsim::xeonphi {

// Registers benchmark_ham_offload in the program list (family xeonphi).
void register_programs();
// Runs, prints, writes OUT/results.json and OUT/results.csv. Throws
// ConfigError on a bad scenario, Error when the program cannot run.
RunReport run(const Scenario& sc);

}  // namespace hopsim::xeonphi
