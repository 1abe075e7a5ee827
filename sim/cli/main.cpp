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
#include <vector>

#include "commands.hpp"
#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/family.hpp"
#include "hopsim/core/progress.hpp"
#include "hopsim/traces/error.hpp"

namespace {

int run_parsed(const hopsim::Commands& commands) {
  try {
    hopsim::set_progress_mode(hopsim::progress_mode());  // a bad HOPSIM_PROGRESS is refused before anything runs
    for (const auto& [sub, action] : commands.actions)
      if (sub->parsed()) return action();
    return 0;
  } catch (const hopsim::ConfigError& e) {
    hopsim::end_progress_line();
    std::cerr << "hopsim: error: " << e.what() << "\n";
    return 2;
  } catch (const hopsim::KernelError& e) {
    hopsim::end_progress_line();
    std::cerr << "\nhopsim: kernel error: " << e.what() << "\n";
    return 5;
  } catch (const hopsim::DataMismatchError& e) {
    hopsim::end_progress_line();
    std::cerr << "\nhopsim: data check failed: " << e.what() << "\n";
    return 3;
  } catch (const hopsim::DeadlockError& e) {
    hopsim::end_progress_line();
    std::cerr << "\nhopsim: " << e.what() << "\n";
    return 6;
  } catch (const hopsim::traces::TraceError& e) {
    hopsim::end_progress_line();
    std::cerr << "hopsim: trace error: " << e.what() << "\n";
    return 2;
  } catch (const hopsim::CrashError& e) {
    hopsim::end_progress_line();
    std::cerr << "\nhopsim: " << e.what() << "\n";
    return hopsim::crash::exit_status(e.signal());
  } catch (const std::exception& e) {
    hopsim::end_progress_line();
    std::cerr << "\nhopsim: error: " << e.what() << "\n";
    return 1;
  }
}

// The subcommands of a group, by name (nameless option groups left out).
std::vector<const CLI::App*> named_subcommands(const CLI::App& app) {
  std::vector<const CLI::App*> subs;
  for (const auto* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); }))
    subs.push_back(sub);
  return subs;
}

// Follows the subcommand words of argv down the tree and names what CLI11
// would only call "A subcommand is required": an unknown subcommand of any
// group (hopsim frob, hopsim trace frob) and a group given none (hopsim
// trace), each with the known ones. Empty when argv names a command (or
// stops at an option, which CLI11 then parses).
std::string subcommand_error(const CLI::App& app, int argc, char** argv) {
  const CLI::App* group = &app;
  std::string path;  // the group's words after "hopsim", e.g. "trace"
  for (int i = 1;; ++i) {
    const auto subs = named_subcommands(*group);
    if (subs.empty()) return {};
    std::string known;
    for (const auto* sub : subs) known += (known.empty() ? "" : ", ") + sub->get_name();
    const std::string where = path.empty() ? "" : path + ": ";
    if (i >= argc) {
      if (group->get_require_subcommand_min() == 0) return {};
      return fmt::format("{}A subcommand is required (known: {}; try --help)", where, known);
    }
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') return {};
    const auto* next = [&]() -> const CLI::App* {
      for (const auto* sub : subs)
        if (sub->check_name(word)) return sub;
      return nullptr;
    }();
    if (next == nullptr) return fmt::format("{}unknown subcommand '{}' (known: {}; try --help)", where, word, known);
    path += (path.empty() ? "" : " ") + next->get_name();
    group = next;
  }
}

// The arguments no option or positional of the parsed (sub)commands took.
// A command that passes what follows its program on (prefix_command, like
// a family's exec of a program) counts them only when none of its positionals got a value: then
// they came before the program.
void unexpected_arguments(const CLI::App& app, std::vector<std::string>& out) {
  bool own = !app.get_allow_extras();
  if (own && app.get_prefix_command())
    for (const auto* opt : app.get_options())
      if (opt->get_positional() && opt->count() > 0) own = false;
  if (own)
    for (auto& arg : app.remaining(false)) out.push_back(std::move(arg));
  for (const auto* sub : app.get_subcommands([](const CLI::App* s) { return s->parsed(); }))
    unexpected_arguments(*sub, out);
}

// The option of a parsed (sub)command named `name`, or nullptr.
const CLI::Option* parsed_option(const CLI::App& app, const std::string& name) {
  if (const auto* opt = app.get_option_no_throw(name)) return opt;
  for (const auto* sub : app.get_subcommands([](const CLI::App* s) { return s->parsed(); }))
    if (const auto* opt = parsed_option(*sub, name)) return opt;
  return nullptr;
}

// CLI11's "Could not convert: --step = abc", as the scenario keys say it:
// "--step: expected a number, got 'abc'".
std::string conversion_message(const CLI::App& app, const CLI::ConversionError& e) {
  std::string what = e.what();
  const std::string head = "Could not convert: ";
  const auto eq = what.find(" = ");
  if (what.rfind(head, 0) != 0 || eq == std::string::npos) return what;
  const std::string name = what.substr(head.size(), eq - head.size());
  const std::string value = what.substr(eq + 3);
  const auto* opt = parsed_option(app, name);
  if (opt == nullptr) return what;
  const bool list = opt->get_expected_max() > 1;
  const std::string type = opt->get_type_name();
  std::string expected;
  if (type.rfind("FLOAT", 0) == 0 || type.rfind("NUMBER", 0) == 0)
    expected = list ? "numbers" : "a number";
  else if (type.rfind("UINT", 0) == 0)
    expected = list ? "non-negative integers" : "a non-negative integer";
  else if (type.rfind("INT", 0) == 0)
    expected = list ? "integers" : "an integer";
  else
    return what;
  return fmt::format("{}: expected {}, got '{}'", name, expected, value);
}

// The one line of a bad command line: an argument nothing took comes first
// (CLI11 would report a missing required argument before it), a value of the
// wrong type names its option and what it expected.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e) {
  std::vector<std::string> extras;
  unexpected_arguments(app, extras);
  if (!extras.empty()) return CLI::ExtrasError(extras).what();
  if (const auto* conv = dynamic_cast<const CLI::ConversionError*>(&e)) return conversion_message(app, *conv);
  return e.what();
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

  // An unknown or missing subcommand is named with the known ones (CLI11
  // would only say one is required).
  if (const auto error = subcommand_error(app, argc, argv); !error.empty()) {
    std::cerr << "hopsim: error: " << error << "\n";
    return 2;
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
    std::cerr << "hopsim: error: " << parse_error_message(app, e) << " (try --help)\n";
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
