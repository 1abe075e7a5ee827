#pragma once
// The studies' subcommands (each in its own cmd_*.cpp); the families add
// theirs through the family registry (hopsim/core/family.hpp).
#include "hopsim/core/commands.hpp"

namespace hopsim::cli {

// hopsim compare (cmd_compare.cpp)
void add_compare_commands(Commands& c);
// hopsim curve (cmd_curve.cpp) and hopsim sweep (cmd_sweep.cpp).
void add_curve_commands(Commands& c);
void add_sweep_commands(Commands& c);

}  // namespace hopsim::cli
