#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"

namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
fs::path scratch(const std::string& name) {
  const auto d = fs::temp_directory_path() / ("hopsim-core-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
}  // namespace

TEST_CASE("an atomic file replaces the old one only when committed", "[file_output]") {
  const auto d = scratch("commit");
  const auto path = d / "results.json";
  hopsim::write_file_atomic(path, "old\n");
  {
    hopsim::AtomicFile f(path);
    f.stream() << "new, half";
    CHECK(fs::exists(hopsim::partial_path(path)));
    CHECK(slurp(path) == "old\n");  // not yet committed
  }
  // Abandoned (an exception between open and commit): the old file stays, no partial is left.
  CHECK(slurp(path) == "old\n");
  CHECK_FALSE(fs::exists(hopsim::partial_path(path)));
  {
    hopsim::AtomicFile f(path);
    f.stream() << "new\n";
    f.commit();
  }
  CHECK(slurp(path) == "new\n");
  CHECK_FALSE(fs::exists(hopsim::partial_path(path)));
}

// In a child (this test's process must not take the handlers): one file
// committed, one open, then `sig`.
static void die_writing(const fs::path& d, int sig) {
  hopsim::crash::install();
  hopsim::crash::remove_partials_on_termination();
  hopsim::write_file_atomic(d / "done.csv", "whole\n");
  hopsim::AtomicFile f(d / "open.csv");
  f.stream() << "half";
  f.stream().flush();
  ::raise(sig);
  ::_exit(0);  // not reached
}

TEST_CASE("SIGINT, SIGTERM and SIGHUP remove open atomic files and end the process by the signal", "[file_output]") {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    const auto d = scratch("signal-" + std::to_string(sig));
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) die_writing(d, sig);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    CHECK(slurp(d / "done.csv") == "whole\n");  // committed: untouched
    CHECK_FALSE(fs::exists(hopsim::partial_path(d / "open.csv")));
    CHECK_FALSE(fs::exists(d / "open.csv"));
  }
}

TEST_CASE("a unique atomic file names its partial by process", "[file_output]") {
  const auto d = scratch("unique");
  hopsim::AtomicFile f(d / "p.json", true);
  CHECK(f.partial() != hopsim::partial_path(d / "p.json"));
  CHECK(f.partial().string().starts_with(hopsim::partial_path(d / "p.json").string() + "."));
}

TEST_CASE("an atomic file that cannot be created names the file", "[file_output]") {
  try {
    hopsim::write_file_atomic("/nonexistent-dir/x/results.csv", "a\n");
    FAIL("no error");
  } catch (const hopsim::Error& e) {
    CHECK(std::string(e.what()).find("cannot write /nonexistent-dir/x/results.csv") != std::string::npos);
  }
}

TEST_CASE("CSV fields are quoted only when they need it (RFC 4180)", "[file_output]") {
  CHECK(hopsim::csv_field("plain") == "plain");
  CHECK(hopsim::csv_field("") == "");
  CHECK(hopsim::csv_field("a,b") == "\"a,b\"");
  CHECK(hopsim::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(hopsim::csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(hopsim::csv_field("cr\r") == "\"cr\r\"");
  const std::vector<std::string> row{"x", "1,5", "", "q\""};
  CHECK(hopsim::csv_row(row) == "x,\"1,5\",,\"q\"\"\"\n");
}
