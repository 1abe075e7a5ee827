// Harness: a machine preset file (presets/NAME.json format, as a user's own
// preset or a file given to machine.preset), resolved against every family's
// declared parameters.
#include "fuzz.hpp"
#include "hopsim/bgq/model/params.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/epiphany/model/params.hpp"
#include "hopsim/network/model/scenario.hpp"
#include "hopsim/xeonphi/model/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static hopsim::fuzz::ScratchFile file("preset.json");
  const auto& path = file.write(data, size);
  hopsim::fuzz::expect_clean([&] {
    const hopsim::Preset preset = hopsim::load_preset(path.string());
    for (const auto* decls : {&hopsim::epiphany::model::param_decls(), &hopsim::bgq::model::param_decls(),
                              &hopsim::xeonphi::model::param_decls(), &hopsim::network::model::network_param_decls()})
      hopsim::fuzz::expect_clean(
          [&] { (void)hopsim::ParamSet::resolve(*decls, preset, nlohmann::json::object(), "machine").to_json(); });
  });
  return 0;
}
