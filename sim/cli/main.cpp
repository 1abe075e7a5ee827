// hopsim: run kernels of message-passing accelerators natively and on
// cycle-approximate SystemC models, side by side. main() declares the
// subcommands (each cmd_*.cpp, then each family's), runs the one parsed and
// maps the hopsim exceptions to exit codes (hopsim/core/commands.hpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/family.hpp"
#include "hopsim/traces/error.hpp"

namespace {

int run_parsed(const hopsim::Commands& commands) {
  try {
    for (const auto& [sub, action] : commands.actions)
      if (sub->parsed()) return action();
    return 0;
  } catch (const hopsim::ConfigError& e) {
    std::cerr << "hopsim: error: " << e.what() << "\n";
    return 2;
  } catch (const hopsim::KernelError& e) {
    std::cerr << "\nhopsim: kernel error: " << e.what() << "\n";
    return 5;
  } catch (const hopsim::DeadlockError& e) {
    std::cerr << "\nhopsim: " << e.what() << "\n";
    return 6;
  } catch (const hopsim::traces::TraceError& e) {
    std::cerr << "hopsim: trace error: " << e.what() << "\n";
    return 2;
  } catch (const hopsim::CrashError& e) {
    std::cerr << "\nhopsim: " << e.what() << "\n";
    return hopsim::crash::exit_status(e.signal());
  } catch (const std::exception& e) {
    std::cerr << "\nhopsim: error: " << e.what() << "\n";
    return 1;
  }
}

int run_cli(int argc, char** argv) {
  CLI::App app{"hopsim: runs accelerator kernels natively and on cycle-approximate SystemC models"};
  app.set_version_flag("--version", fmt::format("hopsim {} ({})", hopsim::version(), hopsim::git_revision()));
  app.require_subcommand(1);

  hopsim::Commands commands{app, {}};
  hopsim::cli::add_run_commands(commands);
  hopsim::cli::add_tool_commands(commands);
  hopsim::cli::add_compare_commands(commands);
  hopsim::cli::add_curve_commands(commands);
  hopsim::cli::add_sweep_commands(commands);
  for (const auto* f : hopsim::families())
    if (f->commands) f->commands(commands);
  hopsim::cli::add_completion_command(commands);

  // An unknown subcommand is named (CLI11 would only say one is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const auto* sub : app.get_subcommands({})) {
      found = found || sub->get_name() == argv[1];
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!found) {
      std::cerr << fmt::format("hopsim: error: unknown subcommand '{}' (known: {}; try --help)\n", argv[1], known);
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Every bad argument exits 2 (README), with one line naming it.
    std::cerr << "hopsim: error: " << e.what() << " (try --help)\n";
    return 2;
  }
  return run_parsed(commands);
}

}  // namespace

int main(int argc, char** argv) {
  hopsim::crash::install();
  hopsim::crash::remove_partials_on_termination();
  try {
    return run_cli(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hopsim: error: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fputs("hopsim: error: unknown exception\n", stderr);
    return 1;
  }
}
