#pragma once
// A scenario: one JSON file per run naming the machine preset and its
// overrides, the kernel and its arguments, the mode, the compute model,
// the seed and the outputs. Unknown keys and bad values are ConfigErrors
// naming the key. The resolved document is echoed into every output.
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hopsim {

enum class Mode { sim, native, both };
enum class ComputeModel { annotated, measured, counted };

struct Outputs {
  std::string dir;                            // folder for results; created if missing
  bool json = true;                           // results.json
  bool csv = true;                            // results.csv (+ the host program's own n,method,ticks files)
  std::string trace;                          // SQLite trace of the simulated run ("" = none)
  std::string trace_detail = "transactions";  // counters, transactions or hops
  std::string trace_window;                   // "BEGIN:END" (cycles or times); "" = the whole run
  double trace_max_size = 1073741824.0;       // bytes of detail rows a trace may hold; 0 = no limit
};

// The cycles [begin, end) a trace records in detail (outputs.trace_window).
struct CycleWindow {
  double begin = 0;
  double end = std::numeric_limits<double>::infinity();
};
// Parses "BEGIN:END": each a cycle count ("5000", "5000 cycles") or a time
// ("2 us", converted with `clock_hz`); either may be left out (":5000",
// "1 ms:"); "" is the whole run. Throws ConfigError naming `key` on a bad
// value, END <= BEGIN, or a time without a clock (clock_hz <= 0).
CycleWindow parse_trace_window(std::string_view text, double clock_hz, std::string_view key);

struct Scenario {
  std::string origin;             // file path, for messages
  nlohmann::json resolved;        // the document after --set overrides
  std::string machine_preset;     // machine.preset
  nlohmann::json machine_params;  // every other key of machine: parameter overrides
  std::string kernel;             // kernel.name
  std::string kernel_library;     // kernel.library: a kernel library built with hopsim-cc (optional)
  nlohmann::json kernel_args;     // kernel.args (validated by the kernel package)
  Mode mode = Mode::sim;
  ComputeModel compute = ComputeModel::annotated;
  double measured_speed_factor = 1.0;  // device cycles per host cycle for `measured`
  std::uint64_t seed = 1;
  Outputs outputs;
  std::string log_level = "info";
};

std::string to_string(Mode m);
Mode parse_mode(const std::string& s, const std::string& key);
std::string to_string(ComputeModel m);
// "annotated", "measured" or "counted"; nullopt for anything else.
std::optional<ComputeModel> parse_compute_model(std::string_view name);

// Loads `path`, applies each "a.b=c" of `overrides` in order, then `mode` if
// given, and validates. Throws ConfigError naming the first problem.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides,
                       const std::optional<std::string>& mode);
// Same from an already parsed document (tests, sweeps).
Scenario scenario_from_json(nlohmann::json doc, const std::string& origin);

// Every key of a run scenario: the one declaration the loader checks keys
// against and `hopsim list keys` prints. A key ending in ".*" stands for
// keys declared elsewhere (a preset's parameters, a kernel's arguments).
struct ScenarioKey {
  std::string_view key, type, default_value, meaning;
};
std::span<const ScenarioKey> scenario_keys();
// The names directly under `section` ("" for the top level, "outputs").
std::vector<std::string_view> scenario_key_names(std::string_view section);
// The same for any table of keys (traffic scenarios, sweep files): what require_known_keys checks.
std::vector<std::string_view> key_names(std::span<const ScenarioKey> keys, std::string_view section);
// Prints a table of keys: key, type, default, meaning, in aligned columns.
void print_keys(std::ostream& out, std::span<const ScenarioKey> keys);

}  // namespace hopsim
