// `hopsim run SCENARIO` and `hopsim list ...`: the runner comes from the
// family registry (hopsim/core/family.hpp), so nothing here names a family.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <memory>
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
#include "hopsim/studies/curve.hpp"
#include "hopsim/studies/sweep.hpp"

namespace hopsim::cli {
namespace {

struct RunOptions {
  std::string scenario;
  std::optional<std::string> mode, out_dir, level, trace, detail, window, max_size;
  std::vector<std::string> sets;
};

int run_scenario(const RunOptions& o) {
  auto overrides = o.sets;
  auto set = [&](const char* key, const std::optional<std::string>& v) {
    if (v) overrides.push_back(std::string(key) + "=" + nlohmann::json(*v).dump());
  };
  set("outputs.dir", o.out_dir);
  set("outputs.trace", o.trace);
  set("outputs.trace_detail", o.detail);
  set("outputs.trace_window", o.window);
  set("outputs.trace_max_size", o.max_size);
  catch_interrupts();
  const auto sc = load_scenario(o.scenario, overrides, o.mode);
  log::set_level(o.level ? *o.level : sc.log_level);
  return runner_of(sc).run(sc).exit_code;
}

void list_machines() {
  for (const auto& p : list_presets()) std::cout << fmt::format("{:<12} {:<10} {}\n", p.name, p.family, p.description);
}

void list_families() {
  const auto presets = list_presets();
  for (const auto* f : families()) {
    std::vector<std::string> names;
    for (const auto& p : presets)
      if (p.family == f->name) names.push_back(p.name);
    std::cout << fmt::format("{:<10} {}\n{:<10} presets: {}\n", f->name, f->summary, "",
                             names.empty() ? "-" : fmt::format("{}", fmt::join(names, ", ")));
  }
}

void list_kernels() {
  for (const auto* k : programs()) {
    std::cout << fmt::format("{:<12} {:<10} {}\n", k->name, k->family, k->description);
    for (const auto& a : k->args)
      std::cout << fmt::format("    {:<14} default {:<40} {}\n", a.name, a.default_value.dump(), a.help);
  }
  for (const auto* f : families())
    if (f->print_programs) f->print_programs(std::cout);
}

int list(const std::string& what, const std::string& preset_name) {
  if (what == "machines") list_machines();
  if (what == "families") list_families();
  if (what == "kernels") list_kernels();
  if (what == "keys") {
    // Every key of the three kinds of file, with its type, default and meaning; with a preset,
    // that preset's parameters too (checked first, so a bad name prints nothing else).
    std::optional<Preset> preset;
    if (!preset_name.empty()) preset = load_preset(preset_name, "preset");
    std::cout << "hopsim run scenarios (hopsim run, compare, sweep --kind run):\n";
    print_keys(std::cout, scenario_keys());
    std::cout << "\nAny key can be set on the command line: --set KEY=VALUE (VALUE as JSON when it parses).\n";
    std::cout << "\ntraffic scenarios (hopsim curve, sweep --kind traffic; docs/traffic.md):\n";
    print_keys(std::cout, studies::traffic_scenario_keys());
    std::cout << "\nsweep files (hopsim sweep; docs/traffic.md):\n";
    print_keys(std::cout, studies::sweep_file_keys());
    if (!preset) return 0;
    std::cout << fmt::format("\nmachine.* for {}: each parameter below, its value the default\n", preset_name);
    find_family(preset->family, "preset " + preset_name).print_params(preset_name, std::cout);
    return 0;
  }
  if (what != "params") return 0;
  if (preset_name.empty()) throw ConfigError("list params: name a preset (hopsim list machines shows them)");
  const auto preset = load_preset(preset_name, "preset");
  find_family(preset.family, "preset " + preset_name).print_params(preset_name, std::cout);
  return 0;
}

}  // namespace

void add_run_commands(Commands& c) {
  auto o = std::make_shared<RunOptions>();
  auto* run = c.app.add_subcommand("run", "run a scenario (JSON file)");
  run->add_option("scenario", o->scenario, "scenario file")->required();
  run->add_option("--mode", o->mode, "sim, native or both (overrides the scenario)")
      ->check(CLI::IsMember({"sim", "native", "both"}));
  run->add_option("--set", o->sets, "override a scenario key, e.g. --set kernel.args.repeat=1000");
  run->add_option("--out", o->out_dir, "output folder (overrides outputs.dir)");
  run->add_option("--log-level", o->level, "trace, debug, info, warn, error, critical or off");
  add_progress_option(run);
  run->add_option("--trace", o->trace, "write an SQLite trace of the simulated run (outputs.trace)");
  run->add_option("--trace-detail", o->detail, "counters, transactions (default) or hops")
      ->check(CLI::IsMember({"counters", "transactions", "hops"}));
  run->add_option("--trace-window", o->window,
                  "record transactions, hops and PE states only in BEGIN:END, cycles or times: 10000:20000, "
                  "\"2 us:5 us\", :5000 (outputs.trace_window)");
  run->add_option("--trace-max-size", o->max_size,
                  "stop recording detail once the trace holds this much, e.g. \"200 MB\"; 0: no limit (default "
                  "1 GiB; outputs.trace_max_size)");
  c.on(run, [o] { return run_scenario(*o); });

  auto what = std::make_shared<std::pair<std::string, std::string>>();
  auto* lst = c.app.add_subcommand("list", "list machines, kernels, scenario keys or a machine's parameters");
  lst->add_option("what", what->first, "machines, families, kernels, keys (every scenario key) or params")
      ->required()
      ->check(CLI::IsMember({"machines", "families", "kernels", "keys", "params"}));
  lst->add_option("preset", what->second, "machine preset (for params; for keys, adds its parameters)");
  c.on(lst, [what] { return list(what->first, what->second); });
}

}  // namespace hopsim::cli
