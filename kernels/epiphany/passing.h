#pragma once
#include <string>
#include <utility>
#include <vector>

namespace hopsim::epiphany {
class HostContext;
struct KernelPackage;
}  // namespace hopsim::epiphany

namespace passing {
// Method name -> kernel symbol, in the original's launch order first.
const std::vector<std::pair<std::string, std::string>>& methods();
void host_main(hopsim::epiphany::HostContext& ctx);
// Family, arguments, host program and symbol names shared by the e-lib and raw packages.
void describe(hopsim::epiphany::KernelPackage& p);
}  // namespace passing

// Registers the Epiphany kernel packages (called once by the CLI and tests).
void hopsim_register_epiphany_kernels();
