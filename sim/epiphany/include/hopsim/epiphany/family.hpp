#pragma once
// Machine families other than epiphany run their scenarios through their
// own runner: `hopsim run` looks up the family of the scenario's preset
// here first and falls back to the epiphany run_scenario().
#include <functional>
#include <string>

#include "hopsim/core/scenario.hpp"

namespace hopsim::runtime {

// Runs the scenario, prints its report, writes its outputs; returns the exit code.
using FamilyRunner = std::function<int(const Scenario&)>;
void register_family_runner(const std::string& family, FamilyRunner runner);
// nullptr if the family has no runner of its own.
const FamilyRunner* family_runner(const std::string& family);

}  // namespace hopsim::runtime
