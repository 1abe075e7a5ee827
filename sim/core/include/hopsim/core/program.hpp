#pragma once
// Programs a scenario can name (`kernel.name`), for every family: the
// arguments a scenario may give them (typed, with defaults and ranges) and
// the figures a run derives for comparison with published measurements.
// Each family registers its programs here; `hopsim list kernels` prints
// them, and a scenario naming a program of another family is told which.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hopsim {

struct ArgDecl {
  std::string name;
  nlohmann::json default_value;  // also fixes the type (integer, string, boolean, array of strings)
  std::string help;
  long long min = 0, max = 0;        // integers: allowed range
  std::vector<std::string> choices;  // strings / arrays of strings: allowed values
  bool allow_empty = false;          // arrays: whether [] is allowed
};

// A figure comparable with a published measurement (the columns of the
// reference CSV: system, experiment, configuration, metric, value, unit).
struct Metric {
  std::string system, experiment, configuration, metric;
  double value = 0;
  std::string unit;
};

// [{system, experiment, configuration, metric, value, unit}], as results.json's
// sim.metrics holds them (hopsim validate reads them back).
nlohmann::json metrics_json(const std::vector<Metric>& metrics);

struct ProgramInfo {
  std::string name;
  std::string family;  // the machine family it runs on (a preset's "family")
  std::string description;
  std::vector<ArgDecl> args;
};

// Registers (or replaces) a program under its name.
void register_program(ProgramInfo info);
// Throws ConfigError naming kernel.name with the known names.
const ProgramInfo& find_program(const std::string& name);
// nullptr if no program has that name.
const ProgramInfo* program(const std::string& name);
std::vector<const ProgramInfo*> programs();  // sorted by name

// Defaults filled in, unknown names and bad values rejected (ConfigError naming kernel.args.X).
nlohmann::json resolve_args(const ProgramInfo& p, const nlohmann::json& given);

}  // namespace hopsim
