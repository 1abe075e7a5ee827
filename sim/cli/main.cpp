// hopsim: run kernels of message-passing accelerators natively and on
// cycle-approximate SystemC models, side by side.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/family.hpp"
#include "hopsim/core/interrupt.hpp"
#include "hopsim/core/log.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/program.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/studies/tools.hpp"
#include "hopsim/traces/error.hpp"

namespace {

int cmd_run(const std::string& path, const std::optional<std::string>& mode, const std::vector<std::string>& sets,
            const std::optional<std::string>& out_dir, const std::optional<std::string>& level,
            const std::optional<std::string>& trace, const std::optional<std::string>& detail) {
  auto overrides = sets;
  if (out_dir) overrides.push_back("outputs.dir=\"" + *out_dir + "\"");
  if (trace) overrides.push_back("outputs.trace=\"" + *trace + "\"");
  if (detail) overrides.push_back("outputs.trace_detail=\"" + *detail + "\"");
  hopsim::catch_interrupts();
  const auto sc = hopsim::load_scenario(path, overrides, mode);
  hopsim::log::set_level(level ? *level : sc.log_level);
  return hopsim::runner_of(sc).run(sc).exit_code;
}

void list_machines() {
  for (const auto& p : hopsim::list_presets()) {
    std::cout << fmt::format("{:<12} {:<10} {}\n", p.name, p.family, p.description);
  }
}

void list_families() {
  const auto presets = hopsim::list_presets();
  for (const auto* f : hopsim::families()) {
    std::vector<std::string> names;
    for (const auto& p : presets)
      if (p.family == f->name) names.push_back(p.name);
    std::cout << fmt::format("{:<10} {}\n{:<10} presets: {}\n", f->name, f->summary, "",
                             names.empty() ? "-" : fmt::format("{}", fmt::join(names, ", ")));
  }
}

void list_kernels() {
  for (const auto* k : hopsim::programs()) {
    std::cout << fmt::format("{:<12} {:<10} {}\n", k->name, k->family, k->description);
    for (const auto& a : k->args)
      std::cout << fmt::format("    {:<14} default {:<40} {}\n", a.name, a.default_value.dump(), a.help);
  }
  for (const auto* f : hopsim::families())
    if (f->print_programs) f->print_programs(std::cout);
}

int list_params(const std::string& preset_name) {
  if (preset_name.empty()) throw hopsim::ConfigError("list params: name a preset (hopsim list machines shows them)");
  const auto preset = hopsim::load_preset(preset_name, "preset");
  hopsim::find_family(preset.family, "preset " + preset_name).print_params(preset_name, std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hopsim: runs accelerator kernels natively and on cycle-approximate SystemC models"};
  app.set_version_flag("--version", fmt::format("hopsim {} ({})", hopsim::version(), hopsim::git_revision()));
  app.require_subcommand(1);

  auto* run = app.add_subcommand("run", "run a scenario (JSON file)");
  std::string scenario;
  std::optional<std::string> mode, out_dir, level;
  std::vector<std::string> sets;
  run->add_option("scenario", scenario, "scenario file")->required();
  run->add_option("--mode", mode, "sim, native or both (overrides the scenario)")
      ->check(CLI::IsMember({"sim", "native", "both"}));
  run->add_option("--set", sets, "override a scenario key, e.g. --set kernel.args.repeat=1000");
  run->add_option("--out", out_dir, "output folder (overrides outputs.dir)");
  run->add_option("--log-level", level, "trace, debug, info, warn, error, critical or off");
  std::optional<std::string> trace_file, trace_detail;
  run->add_option("--trace", trace_file, "write an SQLite trace of the simulated run (outputs.trace)");
  run->add_option("--trace-detail", trace_detail, "counters, transactions (default) or hops")
      ->check(CLI::IsMember({"counters", "transactions", "hops"}));

  auto* val = app.add_subcommand("validate", "compare a run's figures with published device measurements");
  std::string val_result, val_reference;
  double tolerance = 25;
  val->add_option("result", val_result, "results.json of a simulated run")->required();
  val->add_option("--against", val_reference,
                  "reference CSV (system,experiment,configuration,metric,value,unit,source)")
      ->required();
  val->add_option("--tolerance", tolerance, "allowed error in percent (default 25)")->check(CLI::NonNegativeNumber);

  auto* imp = app.add_subcommand("import", "convert real-device results into the reference CSV format");
  std::string imp_file, imp_format, imp_system, imp_output;
  imp->add_option("file", imp_file, "results file")->required();
  imp->add_option("--format", imp_format,
                  "reference (system,...,source CSV), passing (n,method,ticks), hpcc (ring bandwidth output) or ham "
                  "(benchmark_ham_offload output)")
      ->required()
      ->check(CLI::IsMember({"reference", "passing", "hpcc", "ham"}));
  imp->add_option("--system", imp_system, "system name for the rows (default: the format's own system)");
  imp->add_option("--output", imp_output, "CSV file (default: standard output)");

  auto* trace = app.add_subcommand("trace", "inspect or export a trace database");
  trace->require_subcommand(1);
  std::string trace_in;
  int top = 10;
  auto* stats = trace->add_subcommand("stats", "hottest links, per-PE breakdown, totals");
  stats->add_option("file", trace_in, "trace database")->required();
  stats->add_option("--top", top, "links to list")->check(CLI::PositiveNumber);
  std::optional<std::string> perfetto, csv_table, csv_out;
  auto* exp = trace->add_subcommand("export", "export to Chrome/Perfetto trace-event JSON or CSV");
  exp->add_option("file", trace_in, "trace database")->required();
  exp->add_option("--perfetto", perfetto, "write trace-event JSON here (open in ui.perfetto.dev)");
  exp->add_option("--csv", csv_table,
                  "table to write as CSV (nodes, links, transactions, hops, link_counters, pe_states, meta)");
  exp->add_option("--output", csv_out, "CSV file (default: standard output)");

  auto* list = app.add_subcommand("list", "list machines, kernels or a machine's parameters");
  std::string what;
  std::string preset;
  list->add_option("what", what, "machines, families, kernels or params")
      ->required()
      ->check(CLI::IsMember({"machines", "families", "kernels", "params"}));
  list->add_option("preset", preset, "machine preset (for params)");

  hopsim::Commands commands{app, {}};
  // Further subcommands register here (see commands.hpp).
  hopsim::cli::add_compare_commands(commands);
  hopsim::cli::add_curve_commands(commands);
  hopsim::cli::add_sweep_commands(commands);
  for (const auto* f : hopsim::families())
    if (f->commands) f->commands(commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (auto& [sub, action] : commands.actions)
      if (sub->parsed()) return action();
    if (run->parsed()) return cmd_run(scenario, mode, sets, out_dir, level, trace_file, trace_detail);
    if (stats->parsed()) return hopsim::studies::trace_stats(trace_in, top);
    if (val->parsed()) return hopsim::studies::validate_results(val_result, val_reference, tolerance);
    if (imp->parsed()) return hopsim::studies::import_results(imp_file, imp_format, imp_system, imp_output);
    if (exp->parsed()) return hopsim::studies::trace_export(trace_in, perfetto, csv_table, csv_out);
    if (what == "machines") list_machines();
    if (what == "families") list_families();
    if (what == "kernels") list_kernels();
    if (what == "params") return list_params(preset);
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
  } catch (const std::exception& e) {
    std::cerr << "\nhopsim: error: " << e.what() << "\n";
    return 1;
  }
}
