// The Xeon Phi family: knc presets (PCIe link, two-socket host, card DMA and
// SCIF), HAM-Offload programs run through ham::offload natively (a host and
// a "card" process) or on the offload-path model.
#include "hopsim/core/family.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/xeonphi/model/model.hpp"
#include "hopsim/xeonphi/run.hpp"

namespace hopsim::xeonphi {
namespace {

[[maybe_unused]] const bool programs = (register_programs(), true);

const FamilyRegistrar registrar{{
    .name = "xeonphi",
    .summary = "Intel Xeon Phi offload over PCIe: HAM-Offload programs; native host + card process, simulated "
               "PCIe/host/card model",
    .run = run,
    .print_params = [](const std::string& preset,
                       std::ostream& out) { print_params(model::param_decls(), preset, out); },
    .print_programs = {},
    .commands = {},
}};

}  // namespace
}  // namespace hopsim::xeonphi
