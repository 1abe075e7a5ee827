#include "hopsim/core/scenario.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/strict_json.hpp"
#include "hopsim/core/units.hpp"

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
constexpr std::array<ScenarioKey, 24> kKeys = {{
    {"description", "string", "\"\"", "free text, shown nowhere else"},
    {"machine", "object", "required", "the machine: a preset and parameter overrides"},
    {"machine.preset", "string", "required", "a file of presets/ or $HOPSIM_PRESET_PATH (hopsim list machines)"},
    {"machine.*", "quantity", "the preset's",
     "one model parameter, a number in the base unit or a string with units (hopsim list keys PRESET)"},
    {"kernel", "object", "required", "what runs"},
    {"kernel.name", "string", "required", "a kernel package (hopsim list kernels)"},
    {"kernel.library", "path", "\"\"",
     "a kernel library built with hopsim-cc (its package name must equal kernel.name)"},
    {"kernel.args", "object", "{}", "the kernel's arguments"},
    {"kernel.args.*", "per argument", "the kernel's",
     "one argument, checked against the package's declaration (hopsim list kernels)"},
    {"mode", "string", "\"sim\"", "sim, native or both (native first, then simulated, then the data compared)"},
    {"compute", "object", "{}", "how simulated compute time is charged"},
    {"compute.model", "string", "\"annotated\"",
     "annotated (each device-API call costs api_call cycles), measured (host time) or counted (the program's "
     "instructions priced by the eCore's cost table; programs built by e-gcc or hopsim-cc)"},
    {"compute.speed_factor", "number > 0", "1", "measured: host time x clock ratio x this"},
    {"seed", "integer >= 0", "1", "recorded with the results; simulated runs are deterministic"},
    {"outputs", "object", "{}", "where results go"},
    {"outputs.dir", "path", "\"out/NAME\"",
     "the results folder (--out); NAME is the scenario file's name without .json, in the current folder"},
    {"outputs.json", "boolean", "true", "write results.json"},
    {"outputs.csv", "boolean", "true", "write results.csv"},
    {"outputs.trace", "path", "\"\"", "an SQLite trace of the run (--trace; docs/traces.md)"},
    {"outputs.trace_detail", "string", "\"transactions\"", "counters, transactions or hops (--trace-detail)"},
    {"outputs.trace_window", "string", "\"\"",
     "BEGIN:END: record transactions, hops and PE states only there; cycles or times (\"2 us:5 us\"), either end "
     "may be left out (--trace-window)"},
    {"outputs.trace_max_size", "bytes", "\"1 GiB\"",
     "stop recording detail once the trace holds this much; 0: no limit (--trace-max-size)"},
    {"log", "object", "{}", "logging"},
    {"log.level", "string", "\"info\"", "trace, debug, info, warn, error, critical or off (--log-level)"},
}};
}  // namespace

std::span<const ScenarioKey> scenario_keys() { return kKeys; }

std::vector<std::string_view> scenario_key_names(std::string_view section) { return key_names(kKeys, section); }

std::vector<std::string_view> key_names(std::span<const ScenarioKey> keys, std::string_view section) {
  std::vector<std::string_view> out;
  for (const auto& k : keys) {
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

void print_keys(std::ostream& out, std::span<const ScenarioKey> keys) {
  std::size_t wk = 3, wt = 4, wd = 7;
  for (const auto& k : keys) {
    wk = std::max(wk, k.key.size());
    wt = std::max(wt, k.type.size());
    wd = std::max(wd, k.default_value.size());
  }
  out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "key", wk, "type", wt, "default", wd, "meaning");
  for (const auto& k : keys)
    out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", k.key, wk, k.type, wt, k.default_value, wd, k.meaning);
}

std::string to_string(ComputeModel m) {
  switch (m) {
    case ComputeModel::annotated:
      return "annotated";
    case ComputeModel::measured:
      return "measured";
    case ComputeModel::counted:
      return "counted";
  }
  return "annotated";
}

std::optional<ComputeModel> parse_compute_model(std::string_view name) {
  for (const ComputeModel m : {ComputeModel::annotated, ComputeModel::measured, ComputeModel::counted})
    if (to_string(m) == name) return m;
  return std::nullopt;
}

namespace {
// compute: the model and its speed factor.
void parse_compute(const nlohmann::json& c, Scenario& sc) {
  require_known_keys(c, "compute", scenario_key_names("compute"));
  const auto model = get_string(c, "model", "compute", "annotated");
  const auto parsed = parse_compute_model(model);
  if (!parsed)
    throw ConfigError(
        fmt::format("compute.model: unknown compute model '{}' (expected annotated, measured or counted)", model));
  sc.compute = *parsed;
  if (c.contains("speed_factor")) {
    if (!c["speed_factor"].is_number() || c["speed_factor"].get<double>() <= 0.0)
      throw ConfigError("compute.speed_factor: expected a positive number");
    sc.measured_speed_factor = c["speed_factor"].get<double>();
  }
}
}  // namespace

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

  if (doc.contains("compute")) parse_compute(doc["compute"], sc);

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
    sc.outputs.trace_window = get_string(o, "trace_window", "outputs", "");
    (void)parse_trace_window(sc.outputs.trace_window, 1e9, "outputs.trace_window");  // the syntax; the clock later
    if (o.contains("trace_max_size")) {
      sc.outputs.trace_max_size = parse_quantity(o["trace_max_size"], Dim::bytes, "outputs.trace_max_size");
      if (!(sc.outputs.trace_max_size >= 0) || sc.outputs.trace_max_size > 1e18)
        throw ConfigError("outputs.trace_max_size: expected a size from 0 (no limit) to 1 EB");
    }
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

namespace {
double window_end_point(std::string_view side, double clock_hz, std::string_view key) {
  try {
    return parse_quantity(side, Dim::cycles, key);
  } catch (const ConfigError&) {
  }
  double seconds = 0;
  try {
    seconds = parse_quantity(side, Dim::seconds, key);
  } catch (const ConfigError&) {
    throw ConfigError(fmt::format("{}: '{}' is neither cycles (5000, 5000 cycles) nor a time (2 us)", key, side));
  }
  if (!(clock_hz > 0))
    throw ConfigError(fmt::format("{}: '{}' is a time, and this machine's clock is unknown", key, side));
  return seconds * clock_hz;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}
}  // namespace

CycleWindow parse_trace_window(std::string_view text, double clock_hz, std::string_view key) {
  CycleWindow w;
  if (trim(text).empty()) return w;
  const auto colon = text.find(':');
  if (colon == std::string_view::npos)
    throw ConfigError(fmt::format("{}: '{}' is not BEGIN:END (e.g. 10000:20000, \"2 us:5 us\", :5000)", key, text));
  const auto first = trim(text.substr(0, colon));
  const auto second = trim(text.substr(colon + 1));
  if (!first.empty()) w.begin = window_end_point(first, clock_hz, key);
  if (!second.empty()) w.end = window_end_point(second, clock_hz, key);
  if (!(w.begin >= 0) || !std::isfinite(w.begin) || std::isnan(w.end))
    throw ConfigError(fmt::format("{}: '{}': the window starts before cycle 0", key, text));
  if (!(w.end > w.begin)) throw ConfigError(fmt::format("{}: '{}': the window ends before it begins", key, text));
  return w;
}

namespace {
// The keys that name files or folders. Written in a scenario file they are
// relative to the file's folder; given on the command line (--set, --out,
// --trace) relative to the current folder. `kernel` limits a key to the
// kernel that reads it; machine.preset is a path only when it ends in .json
// (else a preset's name), kernel.args.program only when it holds a '/'
// (else a program found on PATH or among hopsim's own).
struct PathKey {
  std::string_view kernel, section, key;
};
constexpr std::array<PathKey, 7> kPathKeys = {{
    {"", "outputs", "dir"},
    {"", "outputs", "trace"},
    {"", "kernel", "library"},
    {"", "machine", "preset"},
    {"esdk", "kernel.args", "host"},
    {"esdk", "kernel.args", "dir"},
    {"ham", "kernel.args", "program"},
}};

nlohmann::json* find_section(nlohmann::json& doc, std::string_view section) {
  nlohmann::json* at = &doc;
  std::size_t start = 0;
  while (start <= section.size()) {
    const auto dot = section.find('.', start);
    const auto part = std::string(section.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (!at->is_object() || !at->contains(part)) return nullptr;
    at = &(*at)[part];
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return at->is_object() ? at : nullptr;
}

// Rewrites the relative paths a scenario file holds to paths relative to the
// current folder (the file's folder joined in front).
void rebase_file_paths(nlohmann::json& doc, const std::filesystem::path& folder) {
  if (folder.empty() || !doc.is_object()) return;
  const auto* kernel = find_section(doc, "kernel");
  const std::string kernel_name =
      kernel && kernel->contains("name") && (*kernel)["name"].is_string() ? (*kernel)["name"].get<std::string>() : "";
  for (const auto& k : kPathKeys) {
    if (!k.kernel.empty() && k.kernel != kernel_name) continue;
    auto* section = find_section(doc, k.section);
    if (!section || !section->contains(k.key)) continue;
    auto& value = (*section)[std::string(k.key)];
    if (!value.is_string()) continue;  // the loader names the wrong type
    const auto text = value.get<std::string>();
    if (text.empty() || std::filesystem::path(text).is_absolute()) continue;
    if (k.key == "preset" && !text.ends_with(".json")) continue;
    if (k.key == "program" && text.find('/') == std::string::npos) continue;
    value = (folder / text).lexically_normal().string();
  }
}
}  // namespace

Scenario load_scenario(const std::string& given, const std::vector<std::string>& overrides,
                       const std::optional<std::string>& mode) {
  const auto path = find_data_file(given, "scenario");
  auto doc = read_json_file(path);
  if (!doc.is_object()) throw ConfigError(path + ": a scenario must be a JSON object");
  rebase_file_paths(doc, std::filesystem::path(path).parent_path());
  // Results go to out/NAME in the current folder unless the file or the
  // command line says otherwise (NAME: the file's name without .json).
  if (!doc.contains("outputs") || !doc["outputs"].is_object() || !doc["outputs"].contains("dir")) {
    if (!doc.contains("outputs")) doc["outputs"] = nlohmann::json::object();
    if (doc["outputs"].is_object()) doc["outputs"]["dir"] = "out/" + std::filesystem::path(path).stem().string();
  }
  for (const auto& o : overrides) apply_override(doc, o);
  if (mode) doc["mode"] = *mode;
  return scenario_from_json(std::move(doc), path);
}

}  // namespace hopsim
