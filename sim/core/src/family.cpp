#include "hopsim/core/family.hpp"

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
  return f;
}

std::vector<const Family*> families() {
  std::vector<const Family*> out;
  for (const auto& [n, f] : registry()) out.push_back(&f);
  return out;
}

}  // namespace hopsim
