// Units, strict JSON, presets and scenarios: parsing and the errors that name keys.
#include <catch2/catch.hpp>
#include <limits>

#include "hopsim/core/error.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/core/strict_json.hpp"
#include "hopsim/core/units.hpp"
#include "hopsim/epiphany/model/params.hpp"

using namespace hopsim;
using Catch::Matchers::Contains;

TEST_CASE("quantities parse with units into base units") {
  CHECK(parse_quantity(std::string_view("600 MHz"), Dim::frequency, "k") == Approx(600e6));
  CHECK(parse_quantity(std::string_view("1.5 cycles"), Dim::cycles, "k") == Approx(1.5));
  CHECK(parse_quantity(std::string_view("32 KiB"), Dim::bytes, "k") == Approx(32768));
  CHECK(parse_quantity(std::string_view("8 B/cycle"), Dim::bytes_per_cycle, "k") == Approx(8));
  CHECK(parse_quantity(std::string_view("39.4 GB/s"), Dim::bytes_per_second, "k") == Approx(39.4e9));
  CHECK(parse_quantity(std::string_view("500 MB/s"), Dim::bytes_per_second, "k") == Approx(5e8));
  CHECK_THROWS_WITH(parse_quantity(std::string_view("4 GB"), Dim::bytes_per_second, "k"),
                    Catch::Contains("unit 'GB' in '4 GB' does not measure B/s"));
  CHECK(format_quantity(16e9, Dim::bytes_per_second) == "16 GB/s");
  CHECK(parse_quantity(std::string_view("40 ns"), Dim::seconds, "k") == Approx(40e-9));
  CHECK(parse_quantity(std::string_view("0x8E000000"), Dim::count, "k") == Approx(2382364672.0));
  CHECK(parse_quantity(std::string_view("0x8E000000"), Dim::address, "k") == Approx(2382364672.0));
  CHECK(parse_quantity(std::string_view("2382364672"), Dim::address, "k") == Approx(2382364672.0));
  CHECK(hopsim::format_quantity(2382364672.0, Dim::address) == "0x8e000000");
  CHECK(parse_quantity(std::string_view("12"), Dim::cycles, "k") == Approx(12));
}

TEST_CASE("a quantity with the wrong unit names the key") {
  CHECK_THROWS_WITH(parse_quantity(std::string_view("600 parsecs"), Dim::frequency, "machine.clock"),
                    Contains("machine.clock") && Contains("parsecs"));
  CHECK_THROWS_WITH(parse_quantity(std::string_view("8 MHz"), Dim::bytes, "machine.local_mem"),
                    Contains("machine.local_mem"));
  CHECK_THROWS_AS(parse_quantity(std::string_view("fast"), Dim::cycles, "k"), ConfigError);
}

TEST_CASE("scenario overrides (--set) create nested keys and parse JSON values") {
  nlohmann::json doc = {{"kernel", {{"name", "passing"}}}};
  apply_override(doc, "kernel.args.repeat=7");
  apply_override(doc, "machine.clock=800 MHz");
  apply_override(doc, "kernel.args.methods=[\"unicast\"]");
  CHECK(doc["kernel"]["args"]["repeat"] == 7);
  CHECK(doc["machine"]["clock"] == "800 MHz");
  CHECK(doc["kernel"]["args"]["methods"][0] == "unicast");
  CHECK_THROWS_AS(apply_override(doc, "novalue"), ConfigError);
}

TEST_CASE("malformed JSON is reported with its line") {
  CHECK_THROWS_WITH(parse_json_text("{\n \"a\": 1,\n \"b\": }\n", "s.json"),
                    Contains("s.json") && Contains("malformed JSON") && Contains("line 3"));
}

TEST_CASE("scenario keys are checked at every level") {
  const nlohmann::json good = {{"machine", {{"preset", "e16g301"}}}, {"kernel", {{"name", "passing"}}}};
  const auto sc = scenario_from_json(good, "t");
  CHECK(sc.machine_preset == "e16g301");
  CHECK(sc.mode == Mode::sim);
  CHECK(sc.compute == ComputeModel::annotated);

  auto bad = good;
  bad["colour"] = "blue";
  CHECK_THROWS_WITH(scenario_from_json(bad, "t"), Contains("colour") && Contains("unknown key"));
  bad = good;
  bad["outputs"] = {{"dir", "x"}, {"pdf", true}};
  CHECK_THROWS_WITH(scenario_from_json(bad, "t"), Contains("outputs.pdf"));
  bad = good;
  bad["mode"] = "fast";
  CHECK_THROWS_WITH(scenario_from_json(bad, "t"), Contains("mode") && Contains("fast"));
  bad = good;
  bad["compute"] = {{"model", "guessed"}};
  CHECK_THROWS_WITH(scenario_from_json(bad, "t"), Contains("compute.model"));
  bad = good;
  bad.erase("kernel");
  CHECK_THROWS_WITH(scenario_from_json(bad, "t"), Contains("kernel"));
}

TEST_CASE("the e16g301 preset resolves every Epiphany parameter with a source") {
  const auto preset = load_preset("e16g301");
  CHECK(preset.family == "epiphany");
  const auto set = ParamSet::resolve(epiphany::model::param_decls(), preset, nullptr, "machine");
  const auto p = epiphany::model::params_from(set);
  CHECK(p.rows == 4);
  CHECK(p.cols == 4);
  CHECK(p.clock_hz == Approx(600e6));
  CHECK(p.local_mem == 32768);
  CHECK(p.hop_latency == Approx(1.5));
  CHECK(p.emem_base == 0x8E000000u);
  // Each from the preset's own source, not the loader's fallback for an entry without one.
  for (const auto& d : epiphany::model::param_decls()) {
    CHECK_FALSE(set.source(d.name).empty());
    CHECK(set.source(d.name) != "preset e16g301");
  }
}

TEST_CASE("every shipped preset's parameter has a source") {
  const auto presets = list_presets();
  REQUIRE(presets.size() >= 10);
  for (const auto& p : presets) {
    for (const auto& [name, entry] : p.params.items()) {
      INFO(p.file << ": params." << name);
      REQUIRE(entry.is_object());
      REQUIRE(entry.contains("source"));
      REQUIRE(entry["source"].is_string());
      CHECK(entry["source"].get<std::string>().find_first_not_of(" \t") != std::string::npos);
    }
  }
}

TEST_CASE("machine overrides are range-checked and unknown ones rejected") {
  const auto preset = load_preset("e16g301");
  CHECK_THROWS_WITH(ParamSet::resolve(epiphany::model::param_decls(), preset, {{"rows", 0}}, "machine"),
                    Contains("machine.rows") && Contains("out of range"));
  CHECK_THROWS_WITH(ParamSet::resolve(epiphany::model::param_decls(), preset, {{"hops", 3}}, "machine"),
                    Contains("machine.hops") && Contains("unknown parameter"));
  CHECK_THROWS_WITH(ParamSet::resolve(epiphany::model::param_decls(), preset, {{"rows", 2.5}}, "machine"),
                    Contains("whole number"));
  const auto set =
      ParamSet::resolve(epiphany::model::param_decls(), preset, {{"rows", 2}, {"clock", "1 GHz"}}, "machine");
  CHECK(set.get("rows") == 2);
  CHECK(set.get("clock") == Approx(1e9));
  CHECK(set.source("rows") == "scenario override");
}

TEST_CASE("an unknown preset lists the known ones") {
  CHECK_THROWS_WITH(load_preset("e99"), Contains("e99") && Contains("e16g301"));
}

TEST_CASE("a trace window takes cycles or times, either end open") {
  using hopsim::parse_trace_window;
  const auto inf = std::numeric_limits<double>::infinity();
  CHECK(parse_trace_window("", 1e9, "k").begin == 0);
  CHECK(parse_trace_window("", 1e9, "k").end == inf);
  const auto a = parse_trace_window("1000:2000", 1e9, "k");
  CHECK(a.begin == 1000);
  CHECK(a.end == 2000);
  const auto b = parse_trace_window("2 us:5 us", 600e6, "k");
  CHECK(b.begin == Approx(1200));
  CHECK(b.end == Approx(3000));
  CHECK(parse_trace_window(":5000 cycles", 1e9, "k").begin == 0);
  CHECK(parse_trace_window("1 ms:", 1e9, "k").end == inf);
  CHECK_THROWS_WITH(parse_trace_window("2000:1000", 1e9, "outputs.trace_window"),
                    Catch::Contains("outputs.trace_window") && Catch::Contains("ends before it begins"));
  CHECK_THROWS_WITH(parse_trace_window("5000", 1e9, "k"), Catch::Contains("is not BEGIN:END"));
  CHECK_THROWS_WITH(parse_trace_window("abc:5", 1e9, "k"), Catch::Contains("'abc' is neither cycles"));
  CHECK_THROWS_WITH(parse_trace_window("1 us:2 us", 0, "k"), Catch::Contains("clock is unknown"));
  CHECK_THROWS_WITH(parse_trace_window("-5:10", 1e9, "k"), Catch::Contains("k:"));
}
