#include "hopsim/core/scenario.hpp"

#include <array>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/strict_json.hpp"

namespace hopsim {

std::string to_string(Mode m) {
  switch (m) {
    case Mode::sim:
      return "sim";
    case Mode::native:
      return "native";
    case Mode::both:
      return "both";
  }
  return "?";
}

Mode parse_mode(const std::string& s, const std::string& key) {
  if (s == "sim") return Mode::sim;
  if (s == "native") return Mode::native;
  if (s == "both") return Mode::both;
  throw ConfigError(fmt::format("{}: unknown mode '{}' (expected sim, native or both)", key, s));
}

namespace {
constexpr std::array<ScenarioKey, 22> kKeys = {{
    {"description", "string", "\"\"", "free text, shown nowhere else"},
    {"machine", "object", "required", "the machine: a preset and parameter overrides"},
    {"machine.preset", "string", "required", "a file of presets/ or $HOPSIM_PRESET_PATH (hopsim list machines)"},
    {"machine.*", "quantity", "the preset's",
     "one model parameter, a number in the base unit or a string with units (hopsim list keys PRESET)"},
    {"kernel", "object", "required", "what runs"},
    {"kernel.name", "string", "required", "a kernel package (hopsim list kernels)"},
    {"kernel.library", "string", "\"\"",
     "a kernel library built with hopsim-cc (its package name must equal kernel.name)"},
    {"kernel.args", "object", "{}", "the kernel's arguments"},
    {"kernel.args.*", "per argument", "the kernel's",
     "one argument, checked against the package's declaration (hopsim list kernels)"},
    {"mode", "string", "\"sim\"", "sim, native or both (native first, then simulated, then the data compared)"},
    {"compute", "object", "{}", "how simulated compute time is charged"},
    {"compute.model", "string", "\"annotated\"",
     "annotated (each device-API call costs api_call cycles) or measured (host time)"},
    {"compute.speed_factor", "number > 0", "1", "measured: host time x clock ratio x this"},
    {"seed", "integer >= 0", "1", "recorded with the results; simulated runs are deterministic"},
    {"outputs", "object", "{}", "where results go"},
    {"outputs.dir", "string", "\"out/KERNEL\"", "the results folder (--out); relative to the current folder"},
    {"outputs.json", "boolean", "true", "write results.json"},
    {"outputs.csv", "boolean", "true", "write results.csv"},
    {"outputs.trace", "string", "\"\"", "an SQLite trace of the run (--trace; docs/traces.md)"},
    {"outputs.trace_detail", "string", "\"transactions\"", "counters, transactions or hops (--trace-detail)"},
    {"log", "object", "{}", "logging"},
    {"log.level", "string", "\"info\"", "trace, debug, info, warn, error, critical or off (--log-level)"},
}};
}  // namespace

std::span<const ScenarioKey> scenario_keys() { return kKeys; }

std::vector<std::string_view> scenario_key_names(std::string_view section) {
  std::vector<std::string_view> out;
  for (const auto& k : kKeys) {
    std::string_view rest = k.key;
    if (!section.empty()) {
      if (rest.size() <= section.size() + 1 || rest.substr(0, section.size()) != section || rest[section.size()] != '.')
        continue;
      rest.remove_prefix(section.size() + 1);
    }
    if (rest.find('.') != std::string_view::npos || rest == "*") continue;
    out.push_back(rest);
  }
  return out;
}

std::string to_string(ComputeModel m) { return m == ComputeModel::annotated ? "annotated" : "measured"; }

Scenario scenario_from_json(nlohmann::json doc, const std::string& origin) {
  Scenario sc;
  sc.origin = origin;
  require_known_keys(doc, "", scenario_key_names(""));

  if (!doc.contains("machine")) throw ConfigError("machine: missing (a machine preset is required)");
  const auto& machine = doc["machine"];
  if (!machine.is_object()) throw ConfigError("machine: expected an object with a preset");
  sc.machine_preset = get_string(machine, "preset", "machine", "");
  if (sc.machine_preset.empty()) throw ConfigError("machine.preset: missing");
  sc.machine_params = nlohmann::json::object();
  for (const auto& [k, v] : machine.items())
    if (k != "preset") sc.machine_params[k] = v;

  if (!doc.contains("kernel")) throw ConfigError("kernel: missing");
  const auto& kernel = doc["kernel"];
  require_known_keys(kernel, "kernel", scenario_key_names("kernel"));
  sc.kernel = get_string(kernel, "name", "kernel", "");
  sc.kernel_library = get_string(kernel, "library", "kernel", "");
  if (sc.kernel.empty()) throw ConfigError("kernel.name: missing");
  sc.kernel_args = kernel.value("args", nlohmann::json::object());
  if (!sc.kernel_args.is_object()) throw ConfigError("kernel.args: expected an object");

  sc.mode = parse_mode(get_string(doc, "mode", "", "sim"), "mode");

  if (doc.contains("compute")) {
    const auto& c = doc["compute"];
    require_known_keys(c, "compute", scenario_key_names("compute"));
    const auto model = get_string(c, "model", "compute", "annotated");
    if (model == "annotated") {
      sc.compute = ComputeModel::annotated;
    } else if (model == "measured") {
      sc.compute = ComputeModel::measured;
    } else {
      throw ConfigError(
          fmt::format("compute.model: unknown compute model '{}' (expected annotated or measured)", model));
    }
    if (c.contains("speed_factor")) {
      if (!c["speed_factor"].is_number() || c["speed_factor"].get<double>() <= 0.0)
        throw ConfigError("compute.speed_factor: expected a positive number");
      sc.measured_speed_factor = c["speed_factor"].get<double>();
    }
  }

  if (doc.contains("seed")) {
    if (!doc["seed"].is_number_unsigned() && !(doc["seed"].is_number_integer() && doc["seed"].get<long long>() >= 0))
      throw ConfigError(fmt::format("seed: expected a non-negative integer, got {}", doc["seed"].dump()));
    sc.seed = doc["seed"].get<std::uint64_t>();
  }

  sc.outputs.dir = "out/" + sc.kernel;
  if (doc.contains("outputs")) {
    const auto& o = doc["outputs"];
    require_known_keys(o, "outputs", scenario_key_names("outputs"));
    sc.outputs.dir = get_string(o, "dir", "outputs", sc.outputs.dir);
    sc.outputs.json = get_bool(o, "json", "outputs", true);
    sc.outputs.csv = get_bool(o, "csv", "outputs", true);
    sc.outputs.trace = get_string(o, "trace", "outputs", "");
    sc.outputs.trace_detail = get_string(o, "trace_detail", "outputs", "transactions");
    if (sc.outputs.trace_detail != "counters" && sc.outputs.trace_detail != "transactions" &&
        sc.outputs.trace_detail != "hops")
      throw ConfigError(
          fmt::format("outputs.trace_detail: unknown detail '{}' (expected counters, transactions or hops)",
                      sc.outputs.trace_detail));
    if (sc.outputs.dir.empty()) throw ConfigError("outputs.dir: must not be empty");
  }
  if (doc.contains("log")) {
    const auto& l = doc["log"];
    require_known_keys(l, "log", scenario_key_names("log"));
    sc.log_level = get_string(l, "level", "log", "info");
  }
  sc.resolved = std::move(doc);
  return sc;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides,
                       const std::optional<std::string>& mode) {
  auto doc = read_json_file(path);
  if (!doc.is_object()) throw ConfigError(path + ": a scenario must be a JSON object");
  for (const auto& o : overrides) apply_override(doc, o);
  if (mode) doc["mode"] = *mode;
  return scenario_from_json(std::move(doc), path);
}

}  // namespace hopsim
