#pragma once
// Machine presets are data files (presets/NAME.json): a family, a
// description and parameter values, each with the source it came from.
// A model declares its parameters (name, unit, range, meaning); the
// preset and the scenario's overrides are resolved against that list, so
// an unknown or out-of-range parameter is an error naming the key.
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hopsim/core/units.hpp"

namespace hopsim {

struct ParamDecl {
  std::string name;
  Dim dim;
  double min;
  double max;
  bool integer;
  std::string meaning;
};

// NOLINTNEXTLINE(bugprone-exception-escape): the implicit moves are noexcept (nlohmann::json moves are)
struct Preset {
  std::string name;
  std::string family;
  std::string description;
  std::string file;
  nlohmann::json params;  // name -> {"value": ..., "source": "..."}
  // Network presets: default shape, {"topology", "dims", "routing"} (a
  // traffic scenario's network.* keys override them; docs/traffic.md).
  nlohmann::json network = nlohmann::json::object();
};

// Folders to search for data files: those of the colon-separated
// environment variable `env` (if set), then PREFIX/`installed` for the
// prefix this executable runs from (PREFIX/bin/hopsim), then `fallbacks`.
std::vector<std::string> search_dirs(const char* env, const std::string& installed,
                                     const std::vector<std::string>& fallbacks);

// Directories searched for presets, in order: $HOPSIM_PRESET_PATH (colon
// separated), the installed share folder, the source tree's presets/.
std::vector<std::string> preset_dirs();
// A data file named on the command line (a scenario, a traffic scenario, a
// sweep file): `path` itself if it exists, else, for a relative path, the
// same path under $HOPSIM_DATA_PATH (colon separated), the installed
// share/hopsim folder and the source tree, so that `hopsim run
// kernels/NAME.json` works from any folder. Throws ConfigError naming
// `what`, the path and the folders searched if none has it.
std::string find_data_file(const std::string& path, const std::string& what);
// Every preset found (first wins on duplicate names), sorted by name.
std::vector<Preset> list_presets();
// Loads preset `name` (or a file NAME.json in preset format, e.g. a host
// profile); throws ConfigError naming `key` if it is not found or malformed.
Preset load_preset(const std::string& name, const std::string& key = "machine.preset");

class ParamSet {
 public:
  // Resolves every declared parameter from the preset, then `overrides`
  // (an object of name -> value). Throws ConfigError naming `path.name` for
  // unknown names, bad units, values out of range or missing values.
  static ParamSet resolve(const std::vector<ParamDecl>& decls, const Preset& preset, const nlohmann::json& overrides,
                          const std::string& path);

  double get(const std::string& name) const;  // value in the base unit
  int get_int(const std::string& name) const;
  const std::string& source(const std::string& name) const;
  // {name: {"value": "600 MHz", "source": "..."}} for the run's echo.
  nlohmann::json to_json() const;

 private:
  struct Value {
    double value = 0;
    Dim dim{};
    std::string source;
  };
  std::map<std::string, Value> values_;
};

// `hopsim list params PRESET` for a family whose parameters are declared:
// one line per parameter with its resolved value, meaning and source.
void print_params(const std::vector<ParamDecl>& decls, const std::string& preset, std::ostream& out);

}  // namespace hopsim
