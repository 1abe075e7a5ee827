#include "hopsim/core/program.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"

namespace hopsim {
namespace {
std::map<std::string, ProgramInfo>& registry() {
  static std::map<std::string, ProgramInfo> r;
  return r;
}
}  // namespace

void register_program(ProgramInfo info) {
  auto name = info.name;
  registry()[std::move(name)] = std::move(info);
}

const ProgramInfo* program(const std::string& name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

const ProgramInfo& find_program(const std::string& name) {
  if (const auto* p = program(name)) return *p;
  std::string known;
  for (const auto& [n, p] : registry()) known += (known.empty() ? "" : ", ") + n;
  throw ConfigError(fmt::format("kernel.name: unknown kernel '{}' (known: {})", name, known));
}

std::vector<const ProgramInfo*> programs() {
  std::vector<const ProgramInfo*> out;
  for (const auto& [n, p] : registry()) out.push_back(&p);
  return out;
}

nlohmann::json resolve_args(const ProgramInfo& pkg, const nlohmann::json& given) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& a : pkg.args) out[a.name] = a.default_value;
  if (given.is_null()) return out;
  if (!given.is_object()) throw ConfigError("kernel.args: expected an object");
  for (const auto& [k, v] : given.items()) {
    const auto key = "kernel.args." + k;
    const auto it = std::find_if(pkg.args.begin(), pkg.args.end(), [&k = k](const ArgDecl& a) { return a.name == k; });
    if (it == pkg.args.end()) {
      std::string known;
      for (const auto& a : pkg.args) known += (known.empty() ? "" : ", ") + a.name;
      throw ConfigError(fmt::format("{}: unknown argument of kernel {} (known: {})", key, pkg.name, known));
    }
    const auto& def = it->default_value;
    auto check_choice = [&](const std::string& s) {
      if (!it->choices.empty() && std::find(it->choices.begin(), it->choices.end(), s) == it->choices.end()) {
        std::string list;
        for (const auto& c : it->choices) list += (list.empty() ? "" : ", ") + c;
        throw ConfigError(fmt::format("{}: '{}' is not one of: {}", key, s, list));
      }
    };
    if (def.is_number_integer()) {
      if (!v.is_number_integer()) throw ConfigError(fmt::format("{}: expected an integer, got {}", key, v.dump()));
      const auto x = v.get<long long>();
      if (x < it->min || x > it->max)
        throw ConfigError(fmt::format("{}: {} is out of range [{}, {}]", key, x, it->min, it->max));
    } else if (def.is_string()) {
      if (!v.is_string()) throw ConfigError(fmt::format("{}: expected a string, got {}", key, v.dump()));
      check_choice(v.get<std::string>());
    } else if (def.is_array()) {
      if (!v.is_array() || (v.empty() && !it->allow_empty))
        throw ConfigError(fmt::format("{}: expected a non-empty list, got {}", key, v.dump()));
      // A list of integers (the default's elements are) within [min, max], or of strings.
      const bool integers = !def.empty() && def.front().is_number_integer();
      for (const auto& e : v) {
        if (integers) {
          if (!e.is_number_integer()) throw ConfigError(fmt::format("{}: expected integers, got {}", key, e.dump()));
          if (e.get<long long>() < it->min || e.get<long long>() > it->max)
            throw ConfigError(fmt::format("{}: {} is out of range [{}, {}]", key, e.dump(), it->min, it->max));
          continue;
        }
        if (!e.is_string()) throw ConfigError(fmt::format("{}: expected strings, got {}", key, e.dump()));
        check_choice(e.get<std::string>());
      }
    } else if (def.is_boolean()) {
      if (!v.is_boolean()) throw ConfigError(fmt::format("{}: expected true or false, got {}", key, v.dump()));
    }
    out[k] = v;
  }
  return out;
}

nlohmann::json metrics_json(const std::vector<Metric>& metrics) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& x : metrics)
    out.push_back({{"system", x.system},
                   {"experiment", x.experiment},
                   {"configuration", x.configuration},
                   {"metric", x.metric},
                   {"value", x.value},
                   {"unit", x.unit}});
  return out;
}

}  // namespace hopsim
