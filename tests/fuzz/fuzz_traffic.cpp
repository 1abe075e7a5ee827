// Harness: a traffic scenario as `hopsim traffic` reads it: the JSON
// document, optionally followed by "----" and `--set` assignments.
#include "fuzz.hpp"
#include "hopsim/core/strict_json.hpp"
#include "hopsim/network/model/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto in = hopsim::fuzz::split_doc(data, size);
  hopsim::fuzz::expect_clean([&] {
    auto doc = hopsim::parse_json_text(in.doc, "fuzz.json");
    for (const auto& line : in.lines) hopsim::apply_override(doc, line);
    const auto s = hopsim::network::model::load_traffic_scenario(doc, "fuzz.json");
    (void)s.echo.dump();
  });
  return 0;
}
