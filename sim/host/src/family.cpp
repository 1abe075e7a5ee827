// The host family: this machine's intra-node copy paths. Host presets and
// calibrated profiles as machines, the ring program run natively and on
// the host model, and `hopsim host calibrate | ring | simulate | predict`
// (calibrate measures this machine into a profile; ring runs the
// hpcc-style ring natively; simulate runs it on the host model; predict
// does both and reports the error per cell).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "hopsim/core/commands.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/family.hpp"
#include "hopsim/core/program.hpp"
#include "hopsim/host/model/profile.hpp"

namespace hopsim::host {
namespace {

using commands::RingArgs;

void add_ring_options(CLI::App* s, RingArgs& a, bool native) {
  s->add_option("--procs", a.procs, "ring sizes (processes), e.g. 2,4,8")->delimiter(',')->capture_default_str();
  s->add_option("--sizes", a.sizes, "message sizes, e.g. 4KiB,64KiB,1MiB")->delimiter(',')->capture_default_str();
  s->add_option("--transport", a.transports, "double-copy, cma, zero-copy (comma list)")
      ->delimiter(',')
      ->capture_default_str();
  s->add_flag("--remap", a.remap, "zero copy pays a page remap per message (as page flipping would)");
  s->add_option("--chunk", a.chunk, "double copy: size of a bounce-buffer slot (a message moves in chunks of it)")
      ->capture_default_str();
  s->add_option("--slots", a.slots, "double copy: slots per channel (chunks in flight)")->capture_default_str();
  s->add_option("--cma-buffers", a.cma_buffers,
                "CMA: send buffers taken from the transport, so a sender goes on while its last messages are "
                "pulled (1 to 16); 0: send from the ring's own buffer and wait for each pull (a blocking "
                "MPI_Sendrecv's rendezvous)")
      ->capture_default_str();
  s->add_option("--reps", a.reps, "timed repetitions per cell; the fastest counts")->capture_default_str();
  s->add_option("--bytes", a.bytes, "data each process receives per repetition")->capture_default_str();
  s->add_option("--min-steps", a.min_steps,
                "at least this many timed steps per repetition (large messages; 4 steps of 4 MiB vary by 30-60% "
                "between runs here, 16 by under 10%)")
      ->capture_default_str();
  s->add_flag("--two-way", a.two_way,
              "hpcc's ring: each step a message to the right while the left one's comes in, then one to the left "
              "while the right one's comes in (bandwidth counts both)");
  s->add_option("--order", a.order, "ring order: natural, random or both")->capture_default_str();
  s->add_option("--seed", a.seed, "seed of the random ring order")->capture_default_str()->check(finite_at_least(0));
  if (native) {
    s->add_option("--bind", a.bind,
                  "rank placement: spread (rank r pinned to CPU r mod n of the allowed CPUs, what the host model "
                  "assumes) or none (the kernel places and migrates them)")
        ->capture_default_str();
    s->add_flag(
        "--deny-cma", a.deny_cma,
        "test aid: every rank makes itself inaccessible to CMA, so the kernel refuses it and the fallback runs");
  }
  s->add_option("--csv", a.csv, "also write the table as CSV to this file");
}

// Runs an action, turning a failed data check into exit status 3.
int checked(const std::function<int()>& f) {
  try {
    return f();
  } catch (const DataMismatchError& e) {
    std::cerr << "hopsim: data check failed: " << e.what() << "\n";
    return 3;
  }
}

void add_calibrate(CLI::App* host, Commands& cmds) {
  auto* cal = host->add_subcommand("calibrate", "measure this machine's copy costs and write a machine profile (JSON)");
  auto out = std::make_shared<std::string>("host-profile.json");
  auto quick = std::make_shared<bool>(false);
  cal->add_option("--out", *out, "profile file to write")->capture_default_str();
  cal->add_flag("--quick", *quick, "shorter measurements (noisier)");
  auto rounds_csv = std::make_shared<std::optional<std::string>>();
  cal->add_option("--rounds-csv", *rounds_csv,
                  "also write every round of the cross-CPU exchanges as CSV (time, rate, the hand-over probed "
                  "around its block, near/apart/mixed), to see the CPUs' placement at work");
  cmds.on(cal, [out, quick, rounds_csv] { return commands::cmd_calibrate(*out, *quick, *rounds_csv); });
}

void add_ring(CLI::App* host, Commands& cmds) {
  auto ring_args = std::make_shared<RingArgs>();
  auto* ring =
      host->add_subcommand("ring", "hpcc-style ring bandwidth, native: N processes over the chosen transports");
  add_ring_options(ring, *ring_args, true);
  ring->add_flag("--small-pages", ring_args->small_pages,
                 "4 KiB pages for the send and receive buffers (default: they ask for transparent huge pages, as "
                 "`host calibrate` measures them)");
  ring->add_option("--profile", ring_args->profile,
                   "profile whose memcpy bandwidth the table is divided by (default: measured now)");
  cmds.on(ring, [ring_args] { return checked([&] { return commands::cmd_ring(*ring_args); }); });
}

void add_simulate(CLI::App* host, Commands& cmds) {
  auto sim_args = std::make_shared<RingArgs>();
  auto* sim = host->add_subcommand("simulate", "the ring on the host model of a profile or preset (e.g. host-smp32)");
  add_ring_options(sim, *sim_args, false);
  sim->add_option("--profile", sim_args->profile, "profile file or host preset name")->required();
  cmds.on(sim, [sim_args] { return commands::cmd_simulate(*sim_args); });
}

void add_predict(CLI::App* host, Commands& cmds) {
  auto pred_args = std::make_shared<RingArgs>();
  auto o = std::make_shared<commands::PredictArgs>();
  auto* pred =
      host->add_subcommand("predict", "native ring and its prediction by the host model, with the error per cell");
  add_ring_options(pred, *pred_args, true);
  pred->add_option("--profile", pred_args->profile, "profile written by hopsim host calibrate")->required();
  pred->add_option("--max-error", o->max_error, "relative error a cell may have")->capture_default_str();
  pred->add_flag("--check", o->check, "exit 3 when a cell is off by more than --max-error");
  pred->add_option("--runs", o->runs,
                   "native table runs; per cell the median bandwidth counts and the spread is reported")
      ->capture_default_str();
  pred->add_option("--cpu-speed", o->cpu_speed,
                   "CPU speeds the model uses: calibrated (the profile's) or probed (measured around each cell's "
                   "native runs; a virtual machine's CPUs change speed when their host cores are shared). Both are "
                   "probed and reported either way")
      ->capture_default_str();
  pred->add_option("--placement", o->placement,
                   "CPU placement the model uses: calibrated (the profile's exchange tables for every cell) or "
                   "probed (a cell whose native run had the two CPUs apart, by the cache-line hand-over of ranks 0 "
                   "and 1, is simulated on the profile's tables measured apart, when the calibration met that "
                   "placement). Placement is probed and reported either way")
      ->capture_default_str();
  add_progress_option(pred);
  cmds.on(pred, [pred_args, o] { return checked([&] { return commands::cmd_predict(*pred_args, *o); }); });
}

void add_fit(CLI::App* host, Commands& cmds) {
  auto f = std::make_shared<commands::FitArgs>();
  auto* fit = host->add_subcommand(
      "fit",
      "fit a described machine's two unpublished parameters to two measured ring cells of one path: the path's "
      "rate at the message size (zero copy: read_bw, CMA: cma_bw) from --low, and coherence_bw from --high");
  fit->add_option("--profile", f->profile, "profile file or host preset of several chips")->required();
  fit->add_option("--against", f->against, "reference CSV with the two cells (as hopsim validate reads it)")
      ->required();
  fit->add_option("--low", f->low, "the cell with fewer processes, as the CSV names it, e.g. 'zero-copy 4 procs'")
      ->required();
  fit->add_option("--high", f->high, "the same ring with more processes, e.g. 'zero-copy 32 procs'")->required();
  fit->add_option("--experiment", f->experiment, "hpcc-ring-natural or hpcc-ring-random")->capture_default_str();
  fit->add_option("--seed", f->seed, "seed of the random ring order")->capture_default_str()->check(finite_at_least(0));
  fit->add_option("--out", f->out, "fitted profile to write")->capture_default_str();
  cmds.on(fit, [f] { return commands::cmd_fit(*f); });
}

void add_commands(Commands& cmds) {
  auto* host =
      cmds.app.add_subcommand("host", "intra-node copy paths of this host: calibrate, ring, simulate, predict, fit");
  host->require_subcommand(1);
  add_calibrate(host, cmds);
  add_ring(host, cmds);
  add_simulate(host, cmds);
  add_predict(host, cmds);
  add_fit(host, cmds);
}

// The ring program of `hopsim run` (commands::run_ring_scenario runs it).
const ProgramInfo& ring_program() {
  static const bool once = [] {
    register_program({"ring",
                      "host",
                      "hpcc-style ring bandwidth: each process sends to its right neighbour and receives from its "
                      "left (two-way: then to its left and from its right), over double copy, CMA or zero copy",
                      {{"procs", nlohmann::json::array({2, 4}), "ring sizes (processes)", 2, 64, {}, false},
                       {"sizes", nlohmann::json::array({"64KiB", "1MiB"}), "message sizes", 0, 0, {}, false},
                       {"transports",
                        nlohmann::json::array({"double-copy", "cma", "zero-copy"}),
                        "copy paths",
                        0,
                        0,
                        {"double-copy", "cma", "zero-copy"},
                        false},
                       {"reps", 3, "timed repetitions per cell; the fastest counts", 1, 1000, {}, false},
                       {"bytes", "16MiB", "data each process receives per repetition", 0, 0, {}, false},
                       {"min_steps", 16, "at least this many timed steps per repetition", 1, 1000000, {}, false},
                       {"two_way",
                        false,
                        "hpcc's two-way ring: each step a message each way (bandwidth counts both)",
                        0,
                        0,
                        {},
                        false},
                       {"order",
                        "natural",
                        "ring order: natural, random (a permutation seeded by the scenario's seed, as hpcc's "
                        "randomly ordered ring) or both",
                        0,
                        0,
                        {"natural", "random", "both"},
                        false}}});
    return true;
  }();
  (void)once;
  return find_program("ring");
}
[[maybe_unused]] const ProgramInfo& registered_ring = ring_program();

// A host profile's parameters (tables over `sizes`), read as strictly as
// `host simulate` reads it.
void print_profile_params(const std::string& preset, std::ostream& out) {
  const auto j = model::load_profile(preset).to_json();
  if (j.contains("system"))
    out << fmt::format("{:<20} {}  [the reference CSVs' system its figures are validated under]\n", "system",
                       j["system"].get<std::string>());
  for (const auto& [name, v] : j["params"].items()) {
    std::string value;
    if (v["value"].is_array()) {
      std::vector<std::string> parts;
      for (const auto& x : v["value"]) parts.push_back(fmt::format("{:.4g}", x.get<double>()));
      value = fmt::format("[{}]", fmt::join(parts, " "));
    } else {
      value = v["value"].is_boolean() ? (v["value"].get<bool>() ? "true" : "false")
                                      : fmt::format("{:.4g}", v["value"].get<double>());
    }
    out << fmt::format("{:<20} {} {}  [{}]\n", name, value, v["unit"].get<std::string>(),
                       v["source"].get<std::string>());
  }
}

const FamilyRegistrar registrar{{
    .name = "host",
    .summary = "this machine's intra-node copy paths (double copy, CMA, zero copy): native ring, SystemC host model",
    .run = commands::run_ring_scenario,
    .print_params = print_profile_params,
    .print_programs = {},
    .commands = add_commands,
}};

}  // namespace
}  // namespace hopsim::host
