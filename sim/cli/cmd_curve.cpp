// hopsim curve: options; the study is hopsim::studies::run_curve.
#include <memory>

#include "commands.hpp"
#include "hopsim/studies/curve.hpp"

namespace hopsim::cli {

void add_curve_commands(Commands& c) {
  auto o = std::make_shared<studies::CurveOptions>();
  auto* cmd = c.app.add_subcommand("curve", "latency vs offered load of synthetic traffic on a mesh or torus");
  cmd->add_option("scenario", o->scenario, "traffic scenario file (JSON, see docs/traffic.md); options override it");
  cmd->add_option(
      "--machine", o->machine,
      "a preset with a mesh network (hopsim list machines): a chip preset (default: the 8x8 eMesh chip) or a "
      "network preset: unit-network (textbook), booksim-iq (BookSim2's example router), the others of hopsim "
      "list machines");
  cmd->add_option("--topology", o->topology, "mesh or torus (torus: network presets only)")
      ->check(CLI::IsMember({"mesh", "torus"}));
  cmd->add_option("--routing", o->routing,
                  "dor (dimension order, default) or min_adapt (minimal adaptive with escape VCs; flow_control=1)");
  cmd->add_option("--dims", o->dims, "extents, e.g. 4x4x4 (default: the preset's, 8x8 for unit-network)");
  cmd->add_option("--rows", o->rows, "mesh rows (with --cols; same as --dims RxC)");
  cmd->add_option("--cols", o->cols, "mesh columns (with --rows)");
  cmd->add_option("--pattern", o->pattern,
                  "uniform, transpose, bit_complement, bit_reverse, shuffle, tornado, neighbor or hotspot");
  cmd->add_option("--injection", o->injection, "bernoulli or bursty");
  cmd->add_option("--bytes", o->bytes, "packet size in bytes (eMesh 1..8)");
  cmd->add_option("--set", o->sets, "override a network parameter, e.g. --set mesh_buffer=1e6");
  cmd->add_option("--key", o->keys, "override any scenario key, e.g. --key phases.measure=20000");
  cmd->add_option("--step", o->step, "load step in packets per node per cycle (default 0.05)");
  cmd->add_option("--max", o->max_load, "highest load (default 1; the curve stops at saturation)");
  cmd->add_option("--csv", o->csv, "also write the curve as CSV");
  cmd->add_option("--png", o->png, "also plot latency vs offered load (PNG, or SVG by the .svg extension)");
  cmd->add_option("--reference", o->reference,
                  "a reference curve (CSV with offered and packet_latency or avg_latency columns, e.g. BookSim2's from "
                  "tests/bench/booksim_reference.sh): run at its loads and report the error per load");
  cmd->add_option("--max-error", o->max_error,
                  "with --reference: exit 3 when a load below --below x the reference's saturation is further off "
                  "(percent)")
      ->check(finite_at_least(0));
  cmd->add_option("--max-saturation-error", o->max_saturation_error,
                  "with --reference: exit 3 when the saturation throughput (accepted load at the highest load "
                  "finished) is further off than this (percent; the reference needs an accepted column)")
      ->check(finite_at_least(0));
  cmd->add_option("--below", o->below, "with --reference: compare below this fraction of its saturation (default 0.8)");
  cmd->add_option("--seeds", o->seeds,
                  "runs per load with seeds traffic.seed, +1, ...: mean and 95% confidence interval per load and for "
                  "the saturation point (default 1)");
  cmd->add_option("--threads", o->threads,
                  "host threads for a network with flow control (traffic.threads; 0: automatic, one below 256 "
                  "routers); results do not depend on it");
  add_progress_option(cmd);
  c.on(cmd, [o] { return studies::run_curve(*o); });
}

}  // namespace hopsim::cli
