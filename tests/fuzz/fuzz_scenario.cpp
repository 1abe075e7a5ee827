// Harness: a run scenario as `hopsim run` reads it. The input is the JSON
// document, optionally followed by a line "----" and `--set` assignments,
// one per line. The machine preset it names is resolved against its
// family's declared parameters with the scenario's overrides.
#include <utility>

#include "fuzz.hpp"
#include "hopsim/bgq/model/params.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/core/strict_json.hpp"
#include "hopsim/epiphany/model/params.hpp"
#include "hopsim/network/model/scenario.hpp"
#include "hopsim/xeonphi/model/model.hpp"

namespace {
const std::vector<hopsim::ParamDecl>* decls_of(const std::string& family) {
  if (family == "epiphany") return &hopsim::epiphany::model::param_decls();
  if (family == "bgq") return &hopsim::bgq::model::param_decls();
  if (family == "xeonphi") return &hopsim::xeonphi::model::param_decls();
  if (family == "network") return &hopsim::network::model::network_param_decls();
  return nullptr;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto in = hopsim::fuzz::split_doc(data, size);
  hopsim::fuzz::expect_clean([&] {
    auto doc = hopsim::parse_json_text(in.doc, "fuzz.json");
    for (const auto& line : in.lines) hopsim::apply_override(doc, line);
    const hopsim::Scenario s = hopsim::scenario_from_json(std::move(doc), "fuzz.json");
    if (s.machine_preset.empty()) return;
    const hopsim::Preset preset = hopsim::load_preset(s.machine_preset);
    if (const auto* decls = decls_of(preset.family))
      (void)hopsim::ParamSet::resolve(*decls, preset, s.machine_params, "machine").to_json();
  });
  return 0;
}
