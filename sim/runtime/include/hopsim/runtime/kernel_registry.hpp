#pragma once
// Kernel packages: a host program plus the kernels it launches, with the
// arguments a scenario may give (typed, with defaults and ranges). The
// shipped kernels register here; `hopsim list kernels` prints them.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hopsim::runtime {

class HostContext;

struct KernelSymbol {
  std::string name;
  void (*fn)();  // the kernel entry, type-erased (called with its real signature)
};

struct ArgDecl {
  std::string name;
  nlohmann::json default_value;  // also fixes the type (integer, string, array of strings)
  std::string help;
  long long min = 0, max = 0;  // integers: allowed range
  std::vector<std::string> choices;  // strings / arrays of strings: allowed values
  bool allow_empty = false;          // arrays: whether [] is allowed
};

struct KernelPackage {
  std::string name;
  std::string family;  // machine family it runs on ("epiphany")
  std::string description;
  std::vector<ArgDecl> args;
  std::vector<KernelSymbol> symbols;
  std::function<void(HostContext&)> host_main;
};

void register_package(KernelPackage pkg);
// Throws ConfigError naming kernel.name with the known names.
const KernelPackage& find_package(const std::string& name);
std::vector<const KernelPackage*> all_packages();
// Defaults filled in, unknown names and bad values rejected (ConfigError naming kernel.args.X).
nlohmann::json resolve_args(const KernelPackage& pkg, const nlohmann::json& given);

}  // namespace hopsim::runtime
