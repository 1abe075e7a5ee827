#pragma once
// `hopsim run` of an unmodified eSDK program (kernel.name "esdk"; see
// esdk_run.cpp and docs/esdk.md).
#include "hopsim/core/report.hpp"
#include "hopsim/core/scenario.hpp"

namespace hopsim::epiphany {

// Runs the program's host executable in the scenario's modes, prints the
// report, writes results.json/results.csv; throws ConfigError for bad
// kernel.args.
hopsim::RunReport run_esdk(const Scenario& sc);

}  // namespace hopsim::epiphany
