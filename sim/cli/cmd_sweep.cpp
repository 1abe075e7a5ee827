// hopsim sweep: options; the study is hopsim::studies::run_sweep.
#include <memory>

#include "commands.hpp"
#include "hopsim/studies/sweep.hpp"

namespace hopsim::cli {

void add_sweep_commands(Commands& c) {
  auto o = std::make_shared<studies::SweepOptions>();
  auto* cmd = c.app.add_subcommand(
      "sweep", "run the cartesian product of swept scenario keys; one table; resumable; splits over mpirun ranks");
  cmd->add_option("file", o->file, "sweep file (JSON: kind, scenario, sweep {key: [values]}, out)");
  cmd->add_option("--scenario", o->scenario,
                  "base scenario (traffic scenario, or a hopsim run scenario for --kind run)");
  cmd->add_option("--kind", o->kind, "traffic (default; in process) or run (hopsim run scenarios, child processes)")
      ->check(CLI::IsMember({"traffic", "run"}));
  cmd->add_option(
      "--sweep", o->sweeps,
      "key=v1,v2,... (JSON values, or low:high:step); repeat for more keys, e.g. --sweep traffic.load=0.1,0.2");
  cmd->add_option("--out", o->out,
                  "output folder (default out/NAME, NAME the sweep file's name): points/ and results.csv");
  cmd->add_flag("--fresh", o->fresh, "rerun points already done");
  cmd->add_option("--seeds", o->seeds,
                  "traffic sweeps: run each point with seeds traffic.seed, +1, ...; each column is the mean, with its "
                  "95% interval in COLUMN_ci95 (default 1)");
  add_progress_option(cmd);
  c.on(cmd, [o] { return studies::run_sweep(*o); });
}

}  // namespace hopsim::cli
