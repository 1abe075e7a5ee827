#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "hopsim/core/error.hpp"
#include "hopsim/core/family.hpp"
#include "hopsim/core/program.hpp"

namespace {
hopsim::Family family(const std::string& name) {
  hopsim::Family f;
  f.name = name;
  f.summary = "a test family";
  return f;
}
}  // namespace

TEST_CASE("families are registered once and found by name", "[family]") {
  hopsim::register_family(family("testfam-b"));
  hopsim::register_family(family("testfam-a"));
  CHECK(hopsim::find_family("testfam-a").summary == "a test family");
  CHECK_THROWS_AS(hopsim::register_family(family("testfam-a")), std::logic_error);
  const auto all = hopsim::families();
  REQUIRE(all.size() == 2);
  CHECK(all[0]->name == "testfam-a");  // sorted
  try {
    (void)hopsim::find_family("nosuch", "machine.preset x");
    FAIL("no error");
  } catch (const hopsim::ConfigError& e) {
    const std::string m = e.what();
    CHECK(m.find("machine.preset x: unknown family 'nosuch'") != std::string::npos);
    CHECK(m.find("known: testfam-a, testfam-b") != std::string::npos);
  }
}

TEST_CASE("programs of every family share one list and one argument check", "[program]") {
  hopsim::register_program({"prog", "testfam", "a program", {{"reps", 3, "repetitions", 1, 10, {}, false}}});
  CHECK(hopsim::find_program("prog").family == "testfam");
  CHECK(hopsim::resolve_args(hopsim::find_program("prog"), nullptr)["reps"] == 3);
  CHECK(hopsim::resolve_args(hopsim::find_program("prog"), {{"reps", 7}})["reps"] == 7);
  CHECK_THROWS_WITH(hopsim::resolve_args(hopsim::find_program("prog"), {{"reps", 11}}),
                    Catch::Contains("kernel.args.reps: 11 is out of range [1, 10]"));
  CHECK_THROWS_WITH(hopsim::resolve_args(hopsim::find_program("prog"), {{"rounds", 1}}),
                    Catch::Contains("kernel.args.rounds: unknown argument of kernel prog (known: reps)"));
  CHECK_THROWS_WITH(hopsim::find_program("other"),
                    Catch::Contains("kernel.name: unknown kernel 'other' (known: prog)"));
}
