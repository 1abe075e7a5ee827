// hopsim: run kernels of message-passing accelerators natively and on
// cycle-approximate SystemC models, side by side.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "hopsim/common/error.hpp"
#include "hopsim/common/log.hpp"
#include "hopsim/common/preset.hpp"
#include "hopsim/common/scenario.hpp"
#include "hopsim/epiphany/params.hpp"
#include "hopsim/runtime/kernel_registry.hpp"
#include "hopsim/runtime/run.hpp"
#include "passing.h"

namespace {

int cmd_run(const std::string& path, const std::optional<std::string>& mode, const std::vector<std::string>& sets,
            const std::optional<std::string>& out_dir, const std::optional<std::string>& level) {
  auto overrides = sets;
  if (out_dir) overrides.push_back("outputs.dir=\"" + *out_dir + "\"");
  const auto sc = hopsim::load_scenario(path, overrides, mode);
  hopsim::log::set_level(level ? *level : sc.log_level);
  const auto report = hopsim::runtime::run_scenario(sc);
  hopsim::runtime::print_report(report, std::cout);
  hopsim::runtime::write_outputs(report);
  std::cout << fmt::format("results: {}/results.json, {}/results.csv\n", sc.outputs.dir, sc.outputs.dir);
  return hopsim::runtime::exit_code(report);
}

void list_machines() {
  for (const auto& p : hopsim::list_presets()) {
    std::cout << fmt::format("{:<12} {:<10} {}\n", p.name, p.family, p.description);
  }
}

void list_kernels() {
  for (const auto* k : hopsim::runtime::all_packages()) {
    std::cout << fmt::format("{:<12} {:<10} {}\n", k->name, k->family, k->description);
    for (const auto& a : k->args) std::cout << fmt::format("    {:<14} default {:<40} {}\n", a.name, a.default_value.dump(), a.help);
  }
}

void list_params(const std::string& preset_name) {
  const auto preset = hopsim::load_preset(preset_name, "preset");
  const auto set = hopsim::ParamSet::resolve(hopsim::epiphany::param_decls(), preset, nullptr, "machine");
  const auto j = set.to_json();
  for (const auto& d : hopsim::epiphany::param_decls()) {
    std::cout << fmt::format("{:<17} {:>12}  {}  [{}]\n", d.name, j[d.name]["value"].get<std::string>(), d.meaning,
                             j[d.name]["source"].get<std::string>());
  }
}

}  // namespace

int main(int argc, char** argv) {
  hopsim_register_epiphany_kernels();
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

  auto* list = app.add_subcommand("list", "list machines, kernels or a machine's parameters");
  std::string what;
  std::string preset;
  list->add_option("what", what, "machines, kernels or params")->required()->check(CLI::IsMember({"machines", "kernels", "params"}));
  list->add_option("preset", preset, "machine preset (for params)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (run->parsed()) return cmd_run(scenario, mode, sets, out_dir, level);
    if (what == "machines") list_machines();
    if (what == "kernels") list_kernels();
    if (what == "params") list_params(preset.empty() ? "e16g301" : preset);
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
  } catch (const std::exception& e) {
    std::cerr << "\nhopsim: error: " << e.what() << "\n";
    return 1;
  }
}
