#pragma once
// The studies' subcommands (each in its own cmd_*.cpp); the families add
// theirs through the family registry (hopsim/core/family.hpp).
#include "hopsim/core/commands.hpp"

namespace hopsim::cli {

// hopsim run and hopsim list (cmd_run.cpp)
void add_run_commands(Commands& c);
// hopsim validate, import and trace (cmd_tools.cpp)
void add_tool_commands(Commands& c);
// hopsim compare (cmd_compare.cpp)
void add_compare_commands(Commands& c);
// hopsim curve (cmd_curve.cpp) and hopsim sweep (cmd_sweep.cpp).
void add_curve_commands(Commands& c);
void add_sweep_commands(Commands& c);
// hopsim completion (cmd_completion.cpp): declared last, it sees every subcommand.
void add_completion_command(Commands& c);

}  // namespace hopsim::cli
