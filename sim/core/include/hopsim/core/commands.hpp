// The seam between hopsim's main() and its subcommands.
//
// Each study (sim/studies) and each family (its Family::commands) adds its
// subcommands through one function taking Commands&: it declares the
// subcommand and its options on `app` and registers the action to run when
// that subcommand was parsed. Actions return the process exit code and report errors by throwing
// the hopsim exceptions (ConfigError -> 2, KernelError -> 5, DeadlockError
// -> 6, anything else -> 1); main() maps them, so every subcommand speaks
// with one voice.
#pragma once

#include <cmath>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "hopsim/core/progress.hpp"

namespace hopsim {

struct Commands {
  CLI::App& app;
  // (subcommand, action): the first subcommand found parsed runs its action.
  std::vector<std::pair<CLI::App*, std::function<int()>>> actions;

  void on(CLI::App* sub, std::function<int()> action) { actions.emplace_back(sub, std::move(action)); }
};

// The --progress option of every command that may run longer than a few seconds (hopsim/core/progress.hpp).
inline CLI::Option* add_progress_option(CLI::App* cmd) {
  return cmd
      ->add_option_function<std::string>(
          "--progress", [](const std::string& m) { set_progress_mode(parse_progress_mode(m)); },
          "auto (a line with elapsed time and ETA on a terminal, quiet otherwise), bar, lines (one per eighth, for "
          "logs) or off; default HOPSIM_PROGRESS, else auto")
      ->check(CLI::IsMember({"auto", "bar", "lines", "off"}));
}

// A number an option takes: finite and at least `low` (CLI11's
// NonNegativeNumber and PositiveNumber let NaN through and print their
// ranges to 308 digits). The message names the option and the bound.
inline CLI::Validator finite_at_least(double low) {
  return {[low](const std::string& text) -> std::string {
            std::size_t used = 0;
            double v = 0;
            try {
              v = std::stod(text, &used);
            } catch (const std::exception&) {
              used = 0;
            }
            if (used != text.size() || used == 0 || !std::isfinite(v) || v < low)
              return "'" + text + "' is not a number >= " + fmt::format("{}", low);
            return {};
          },
          "NUMBER >= " + fmt::format("{}", low)};
}

}  // namespace hopsim
