#pragma once
// `hopsim run` of a Xeon Phi scenario: a HAM-Offload program (a separate
// executable, built against ham::offload) run once per mode as a child
// process, `--ham-mode native` and `--ham-mode sim` with the scenario's
// preset and overrides; its own output is kept (OUT/ham-MODE.txt) and read
// back with the HAM benchmark importer. The program checks its own data
// (copy-out contents, call-mul results) in each mode and exits 3 when a
// check fails: data agree between the modes when both pass.
#include <string>

#include <nlohmann/json.hpp>

#include "hopsim/core/report.hpp"
#include "hopsim/core/scenario.hpp"

namespace hopsim::xeonphi {

// A program named without a folder: next to hopsim (installed), then the
// build tree's kernels/xeonphi, then PATH (returned as given); a path is
// returned as given after checking it exists (ConfigError).
std::string locate_program(const std::string& program);

// Registers benchmark_ham_offload and ham (any HAM-Offload program) in the
// program list (family xeonphi).
void register_programs();
// `hopsim run` of kernel "ham" with its resolved kernel.args (program,
// args, targets): the program in each mode, its output compared
// (ham_run.cpp).
RunReport run_ham(const Scenario& sc, const nlohmann::json& args);
// Runs, prints, writes OUT/results.json and OUT/results.csv. Throws
// ConfigError on a bad scenario, Error when the program cannot run.
RunReport run(const Scenario& sc);

}  // namespace hopsim::xeonphi
