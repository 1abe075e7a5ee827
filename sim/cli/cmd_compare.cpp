// `hopsim compare SCENARIO`: options; the study is hopsim::studies::compare.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "hopsim/core/interrupt.hpp"
#include "hopsim/core/log.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/studies/compare.hpp"

namespace hopsim::cli {
namespace {

struct Options {
  std::string scenario;
  std::vector<std::string> sets;
  std::optional<std::string> out_dir, png, level;
};

int run_compare(const Options& o) {
  auto overrides = o.sets;
  if (o.out_dir) overrides.push_back("outputs.dir=\"" + *o.out_dir + "\"");
  catch_interrupts();
  const auto sc = load_scenario(o.scenario, overrides, std::string("both"));
  log::set_level(o.level ? *o.level : sc.log_level);
  return studies::compare(sc, o.png);
}

}  // namespace

void add_compare_commands(Commands& c) {
  auto o = std::make_shared<Options>();
  auto* cmd = c.app.add_subcommand(
      "compare", "run a scenario natively and simulated on the identical workload and print them side by side");
  cmd->add_option("scenario", o->scenario, "scenario file")->required();
  cmd->add_option("--set", o->sets, "override a scenario key, e.g. --set kernel.args.repeat=100");
  cmd->add_option("--out", o->out_dir, "output folder (overrides outputs.dir)");
  cmd->add_option("--png", o->png, "chart file, .png or .svg (default OUT/compare.png)");
  cmd->add_option("--log-level", o->level, "trace, debug, info, warn, error, critical or off");
  add_progress_option(cmd);
  c.on(cmd, [o] { return run_compare(*o); });
}

}  // namespace hopsim::cli
