#pragma once
// Kernel packages: a host program plus the kernels it launches, with the
// arguments a scenario may give (typed, with defaults and ranges). The
// shipped kernels register here; `hopsim list kernels` prints them.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hopsim/core/program.hpp"

namespace hopsim::epiphany {

class HostContext;
class Device;

using KernelFn = void (*)();  // a kernel entry, type-erased (called with its real signature)

struct KernelSymbol {
  std::string name;
  KernelFn fn = nullptr;  // built-in packages; library packages resolve per core
};

struct LaunchRecord;

using hopsim::ArgDecl;
using hopsim::Metric;

// An Epiphany program: its name, family ("epiphany"), description and
// arguments (ProgramInfo), the host program and the kernels it launches.
struct KernelPackage : ProgramInfo {
  std::vector<KernelSymbol> symbols;
  std::function<void(HostContext&)> host_main;
  // Kernel `name` as core `core` must call it (each core of a library
  // package has its own copy, with its own globals); nullptr if absent.
  // Empty for built-in packages: every core calls symbols[].fn.
  std::function<KernelFn(const std::string& name, std::uint32_t core)> resolve;
  std::string library;  // the shared object it came from, if any
  // Libraries built through the device pass (hopsim-cc): copies each core's
  // globals into its memory, sets up its device stack and has the device
  // run kernels on host stacks. Called once per run, before the first
  // launch (HostContext does). Empty for built-in packages.
  std::function<void(Device&)> prepare;
  // Derives published-style figures from a simulated run's launches (may be empty).
  std::function<std::vector<Metric>(const std::vector<LaunchRecord>&, const nlohmann::json& args,
                                    const std::string& machine)>
      metrics;
};

// The entry point a kernel library (built with hopsim-cc) exports; it fills
// in name, family, description, args, symbol names and host_main.
using PackageEntry = void (*)(KernelPackage&);
inline constexpr const char* kPackageEntry = "hopsim_package";

// Loads a kernel library: one private copy per core (each eCore loads its
// own .data/.bss) plus one for the host program, registers its package and
// returns it. Throws ConfigError naming `key` if it cannot be loaded.
const KernelPackage& load_kernel_library(const std::string& path, std::uint32_t cores, const std::string& key);
// Folders searched for NAME.hopsim.so: $HOPSIM_KERNEL_PATH, the installed
// kernel folder, the build tree's kernel folder.
std::vector<std::string> kernel_dirs();
// Path of NAME.hopsim.so in kernel_dirs(), or "" if there is none.
std::string find_kernel_library(const std::string& name);

// Registers the package here and its ProgramInfo in hopsim's program list.
void register_package(KernelPackage pkg);
// Throws ConfigError naming kernel.name: with the known names, or the
// family a program of another family runs on.
const KernelPackage& find_package(const std::string& name);
std::vector<const KernelPackage*> all_packages();

}  // namespace hopsim::epiphany
