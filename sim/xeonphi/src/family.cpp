// The Xeon Phi family: knc presets (PCIe link, two-socket host, card DMA and
// SCIF), HAM-Offload programs run through ham::offload natively (a host and
// a "card" process) or on the offload-path model; `hopsim xeonphi pcie`
// (the model's prediction of a PCIe device's copies and doorbell, against a
// real device's probe).
#include <iostream>

#include "hopsim/core/commands.hpp"
#include "hopsim/core/family.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/xeonphi/model/model.hpp"
#include "hopsim/xeonphi/pcie.hpp"
#include "hopsim/xeonphi/run.hpp"

namespace hopsim::xeonphi {
namespace {

[[maybe_unused]] const bool programs = (register_programs(), true);

void add_commands(Commands& c) {
  auto* top = c.app.add_subcommand("xeonphi", "Xeon Phi / PCIe offload: the model against a real PCIe device");
  top->require_subcommand(1);
  static PcieOptions o;
  auto* pcie = top->add_subcommand(
      "pcie",
      "the offload-path model's copies (4 KiB .. --max-bytes), small-copy latency and flag round trip, in the rows "
      "of kernels/xeonphi/pcie-probe; with --against, side by side with a measurement");
  pcie->add_option("--machine", o.machine, "xeonphi preset")->capture_default_str();
  pcie->add_option("--set", o.sets, "override a preset parameter, NAME=VALUE (repeatable)");
  pcie->add_option("--max-bytes", o.max_bytes, "largest copy in bytes")
      ->capture_default_str()
      ->check(finite_at_least(1));
  pcie->add_option("--system", o.system, "system name of the predicted rows (default: the preset's name)");
  pcie->add_option("--out", o.out, "write the prediction as a reference CSV (default: standard output)");
  pcie->add_option("--against", o.against,
                   "reference CSV of a measurement (`hopsim import probe.csv --format pcie`): print model, "
                   "measured and error per row");
  pcie->add_option("--csv", o.csv,
                   "with --against: write the comparison as CSV (experiment, configuration, model and measured ns, "
                   "error, GB/s) for plotting");
  pcie->add_option("--tolerance", o.tolerance, "error in percent beyond which a row fails (exit 3; default 25)")
      ->check(finite_at_least(0));
  c.on(pcie, [] { return pcie_command(o, std::cout); });
}

const FamilyRegistrar registrar{{
    .name = "xeonphi",
    .summary = "Intel Xeon Phi offload over PCIe: HAM-Offload programs; native host + card process, simulated "
               "PCIe/host/card model",
    .run = run,
    .print_params = [](const std::string& preset,
                       std::ostream& out) { print_params(model::param_decls(), preset, out); },
    .print_programs = {},
    .commands = add_commands,
}};

}  // namespace
}  // namespace hopsim::xeonphi
