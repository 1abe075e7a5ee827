#pragma once
// Machine families. Each family registers itself once, in its own
// sim/<family>/src/family.cpp: its name (the "family" of its presets), what it
// runs, how `hopsim run` runs its scenarios, the parameters of its presets
// and the subcommands of its own. The CLI knows the families only through
// this list: adding a family is adding a folder with a family.cpp.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "hopsim/core/commands.hpp"
#include "hopsim/core/report.hpp"
#include "hopsim/core/scenario.hpp"

namespace hopsim {

struct Family {
  std::string name;     // the "family" of its presets
  std::string summary;  // one line: what runs, in which modes
  // Runs a scenario of this family: prints its report, writes its outputs
  // (results.json, results.csv) and returns the common report. Throws the
  // hopsim errors. Empty: `hopsim run` refuses the family.
  std::function<RunReport(const Scenario&)> run;
  // The compute models (compute.model) its simulated runs follow; runner_of
  // refuses any other with a message naming them.
  std::vector<ComputeModel> compute_models = {ComputeModel::annotated};
  // Prints every parameter of a preset of this family: value, meaning, source.
  std::function<void(const std::string& preset, std::ostream& out)> print_params;
  // Prints programs not in the program list (e.g. kernel libraries on disk); may be empty.
  std::function<void(std::ostream& out)> print_programs;
  // Adds the family's own subcommands (`hopsim <family> ...`); may be empty.
  std::function<void(Commands&)> commands;
};

// Registers a family; a second family of the same name is a logic error.
void register_family(Family f);
// Throws ConfigError naming `what` with the known families.
const Family& find_family(const std::string& name, const std::string& what = "family");
std::vector<const Family*> families();  // sorted by name
// The family of the scenario's machine preset; ConfigError naming
// machine.preset when that family has no `hopsim run`, compute.model when
// the family does not follow that compute model.
const Family& runner_of(const Scenario& sc);

// For a static object in a family.cpp: registers the family at load time.
struct FamilyRegistrar {
  explicit FamilyRegistrar(Family f) { register_family(std::move(f)); }
};

}  // namespace hopsim
