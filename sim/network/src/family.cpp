// The network family: synthetic traffic on meshes and tori (the eMesh
// timing model, generic N-D meshes and tori, BookSim2's input-queued
// router); run through `hopsim curve` and `hopsim sweep`.
#include "hopsim/core/family.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/network/model/scenario.hpp"

namespace hopsim::network {
namespace {

const FamilyRegistrar registrar{{
    .name = "network",
    .summary = "synthetic traffic on any mesh or torus: latency against offered load (hopsim curve, hopsim sweep)",
    .run = {},
    .print_params = [](const std::string& preset,
                       std::ostream& out) { print_params(model::network_param_decls(), preset, out); },
    .print_programs = {},
    .commands = {},
}};

}  // namespace
}  // namespace hopsim::network
