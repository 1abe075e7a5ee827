// The seam between hopsim's main() and its subcommands.
//
// Each family or study adds its subcommands in its own file through one
// add_*_commands(Commands&) function: it declares the subcommand and its
// options on `app` and registers the action to run when that subcommand was
// parsed. Actions return the process exit code and report errors by throwing
// the hopsim exceptions (ConfigError -> 2, KernelError -> 5, DeadlockError
// -> 6, anything else -> 1); main() maps them, so every subcommand speaks
// with one voice.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace hopsim::cli {

struct Commands {
  CLI::App& app;
  // (subcommand, action): the first subcommand found parsed runs its action.
  std::vector<std::pair<CLI::App*, std::function<int()>>> actions;

  void on(CLI::App* sub, std::function<int()> action) { actions.emplace_back(sub, std::move(action)); }
};

// hopsim compare (cmd_compare.cpp)
void add_compare_commands(Commands& c);
// hopsim curve (cmd_curve.cpp) and hopsim sweep (cmd_sweep.cpp).
void add_curve_commands(Commands& c);
void add_sweep_commands(Commands& c);

// hopsim host ...: intra-node copy paths (cmd_host.cpp).
void add_host_commands(Commands& cmds);

// Blue Gene/Q: registers the bgq kernels and `hopsim run` for bgq presets,
// adds `hopsim bgq ...` (cmd_bgq.cpp).
void add_bgq_commands(Commands& c);

}  // namespace hopsim::cli
