#include "hopsim/core/family.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/preset.hpp"

namespace hopsim {
namespace {
std::map<std::string, Family>& registry() {
  static std::map<std::string, Family> r;
  return r;
}
}  // namespace

void register_family(Family f) {
  const auto name = f.name;
  if (registry().count(name)) throw std::logic_error("family '" + name + "' registered twice");
  registry().emplace(name, std::move(f));
}

const Family& find_family(const std::string& name, const std::string& what) {
  const auto it = registry().find(name);
  if (it != registry().end()) return it->second;
  std::string known;
  for (const auto& [n, f] : registry()) known += (known.empty() ? "" : ", ") + n;
  throw ConfigError(fmt::format("{}: unknown family '{}' (known: {})", what, name, known));
}

const Family& runner_of(const Scenario& sc) {
  const auto preset = load_preset(sc.machine_preset);
  const auto& f = find_family(preset.family, "machine.preset " + sc.machine_preset);
  if (!f.run)
    throw ConfigError(fmt::format("machine.preset: {} is a {} machine, which `hopsim run` does not run yet ({})",
                                  sc.machine_preset, f.name, f.summary));
  if (std::find(f.compute_models.begin(), f.compute_models.end(), sc.compute) == f.compute_models.end()) {
    std::string known;
    for (const ComputeModel m : f.compute_models) known += (known.empty() ? "" : ", ") + to_string(m);
    throw ConfigError(fmt::format("compute.model: {} machines do not follow the {} compute model (they follow: {})",
                                  f.name, to_string(sc.compute), known));
  }
  return f;
}

std::vector<const Family*> families() {
  std::vector<const Family*> out;
  for (const auto& [n, f] : registry()) out.push_back(&f);
  return out;
}

}  // namespace hopsim
