// The Blue Gene/Q family: bgq presets (5D torus and MU parameters), MU SPI
// kernels run on every rank, natively (host threads or a process per rank)
// or simulated on the timing core; `hopsim bgq sweep` (package size sweep
// of the halo exchange) and `hopsim bgq scale` (the scale benchmark of the
// timing core).
#include <iostream>

#include <fmt/format.h>

#include "hopsim/bgq/bench.hpp"
#include "hopsim/bgq/exec.hpp"
#include "hopsim/bgq/model/params.hpp"
#include "hopsim/bgq/run.hpp"
#include "hopsim/core/commands.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/family.hpp"
#include "hopsim/core/log.hpp"
#include "hopsim/core/preset.hpp"

namespace hopsim::bgq {
namespace {

void add_commands(Commands& c) {
  auto* top = c.app.add_subcommand(
      "bgq", "Blue Gene/Q: run a program built with hopsim-mpicc; package-size sweep, scale benchmark");
  top->require_subcommand(1);

  auto* exec = top->add_subcommand(
      "exec", "run a program built with hopsim-mpicc natively and simulated, and compare what they printed");
  static ExecOptions ex;
  exec->add_option("--machine", ex.machine, "bgq preset (default bgq)");
  exec->add_option("--torus", ex.torus, "torus AxBxCxDxE, one rank per node (default: the preset's 2x2x2x2x2)");
  // The values are checked by exec_program: a check here would pass a bad value on as the program's argument.
  exec->add_option("--mode", ex.mode, "sim, native or both (default both)");
  exec->add_option("--transport", ex.transport, "native ranks as threads (default), or a process each: double, cma");
  exec->add_option("--out", ex.out, "folder for each mode's stdout, stderr and report (default out/bgq-exec)");
  // Everything from the program on is the program's, options too (--halo-only ...).
  exec->prefix_command();
  exec->footer("PROGRAM [ARGS...]: the program built with hopsim-mpicc and its arguments, passed on as they are");
  c.on(exec, [exec] {
    ex.argv = exec->remaining();
    if (!ex.argv.empty() && ex.argv.front().starts_with("-"))  // an option of exec's own, mistyped
      throw ConfigError(fmt::format("The following argument was not expected: {} (try --help)", ex.argv.front()));
    return exec_program(ex, std::cout);
  });

  auto* sweep =
      top->add_subcommand("sweep", "halo exchange (simulated) for a list of package sizes: one table row each");
  static std::string scenario = "kernels/bgq/halo.json", csv;
  static std::vector<long> packages{512, 1024, 2048, 4096, 8192, 16384, 32768};
  static std::vector<std::string> sets;
  sweep->add_option("--scenario", scenario, "halo scenario (default kernels/bgq/halo.json)");
  sweep->add_option("--packages", packages, "package sizes in bytes (default 512 ... 32768)")->delimiter(',');
  sweep->add_option("--set", sets, "override a scenario key, e.g. --set kernel.args.threads=64");
  sweep->add_option("--csv", csv, "also write the table as CSV");
  c.on(sweep, [] { return package_sweep(scenario, packages, sets, csv, std::cout); });

  auto* scale =
      top->add_subcommand("scale", "halo exchange on growing tori with the timing core alone (no payload data)");
  static std::vector<std::string> tori{"2x2x2x2x2", "4x4x4x4x2", "8x8x8x8x2", "16x16x16x12x2"};
  static int iterations = 10;
  static long msg = 32768, package = 32768;
  static std::string machine = "bgq", scale_csv;
  static int neighbours = 10;
  scale->add_option("--tori", tori, "torus sizes AxBxCxDxE (default 2x2x2x2x2,4x4x4x4x2,8x8x8x8x2,16x16x16x12x2)")
      ->delimiter(',');
  scale->add_option("--iterations", iterations, "exchanges per torus (default 10)")->check(finite_at_least(1));
  scale->add_option("--msg", msg, "bytes per neighbour (default 32768)")->check(finite_at_least(1));
  scale->add_option("--package", package, "bytes per descriptor (default 32768: one per message)")
      ->check(finite_at_least(1));
  scale
      ->add_option("--neighbours", neighbours,
                   "8 (the halo kernel's 4-D grid {A*B,C,D,E}) or 10 (the 5-D torus neighbours)")
      ->check(CLI::IsMember({8, 10}));
  scale->add_option("--machine", machine, "bgq preset for the link and MU parameters (default bgq)");
  scale->add_option("--csv", scale_csv, "also write the table as CSV");
  add_progress_option(scale);
  c.on(scale, [] {
    return scale_benchmark(machine, tori, iterations, static_cast<std::uint64_t>(msg),
                           static_cast<std::uint64_t>(package), neighbours, scale_csv, std::cout);
  });
}

hopsim::RunReport run_family(const Scenario& sc) {
  const auto r = run(sc);
  print(r, std::cout);
  auto common = common_report(r);
  write_outputs(r, common);
  std::cout << fmt::format("results: {}/results.json, {}/results.csv\n", sc.outputs.dir, sc.outputs.dir);
  return common;
}

const FamilyRegistrar registrar{{
    .name = "bgq",
    .summary = "IBM Blue Gene/Q: MU SPI and MPI-subset programs; native threads or processes, simulated MU + 5D torus",
    .run = run_family,
    .compute_models = {ComputeModel::annotated, ComputeModel::counted},
    .print_params = [](const std::string& preset,
                       std::ostream& out) { print_params(model::param_decls(), preset, out); },
    .print_programs = {},
    .commands = add_commands,
}};

}  // namespace
}  // namespace hopsim::bgq
