#pragma once
// Kernel packages: a host program plus the kernels it launches, with the
// arguments a scenario may give (typed, with defaults and ranges). The
// shipped kernels register here; `hopsim list kernels` prints them.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hopsim::runtime {

class HostContext;

using KernelFn = void (*)();  // a kernel entry, type-erased (called with its real signature)

struct KernelSymbol {
  std::string name;
  KernelFn fn = nullptr;  // built-in packages; library packages resolve per core
};

struct ArgDecl {
  std::string name;
  nlohmann::json default_value;  // also fixes the type (integer, string, array of strings)
  std::string help;
  long long min = 0, max = 0;  // integers: allowed range
  std::vector<std::string> choices;  // strings / arrays of strings: allowed values
  bool allow_empty = false;          // arrays: whether [] is allowed
};

struct LaunchRecord;

// A figure comparable with a published measurement (the columns of the
// reference CSV: system, experiment, configuration, metric, value, unit).
struct Metric {
  std::string system, experiment, configuration, metric;
  double value = 0;
  std::string unit;
};

struct KernelPackage {
  std::string name;
  std::string family;  // machine family it runs on ("epiphany")
  std::string description;
  std::vector<ArgDecl> args;
  std::vector<KernelSymbol> symbols;
  std::function<void(HostContext&)> host_main;
  // Kernel `name` as core `core` must call it (each core of a library
  // package has its own copy, with its own globals); nullptr if absent.
  // Empty for built-in packages: every core calls symbols[].fn.
  std::function<KernelFn(const std::string& name, std::uint32_t core)> resolve;
  std::string library;  // the shared object it came from, if any
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

void register_package(KernelPackage pkg);
// Throws ConfigError naming kernel.name with the known names.
const KernelPackage& find_package(const std::string& name);
std::vector<const KernelPackage*> all_packages();
// Defaults filled in, unknown names and bad values rejected (ConfigError naming kernel.args.X).
nlohmann::json resolve_args(const KernelPackage& pkg, const nlohmann::json& given);

}  // namespace hopsim::runtime
