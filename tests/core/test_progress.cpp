// hopsim/core/progress.hpp: what each mode writes to stderr, the ETA, the note, and bad modes.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include "hopsim/core/error.hpp"
#include "hopsim/core/progress.hpp"

using namespace hopsim;

namespace {

// Captures std::cerr while alive.
class CaptureCerr {
 public:
  CaptureCerr() : old_(std::cerr.rdbuf(buf_.rdbuf())) {}
  ~CaptureCerr() { std::cerr.rdbuf(old_); }
  CaptureCerr(const CaptureCerr&) = delete;
  CaptureCerr& operator=(const CaptureCerr&) = delete;
  std::string text() const { return buf_.str(); }

 private:
  std::ostringstream buf_;
  std::streambuf* old_;
};

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("progress lines: one per eighth of the work and the last, with done/total, what and an ETA", "[progress]") {
  CaptureCerr cap;
  {
    Progress p("[sim]", 16, ProgressMode::lines);
    for (std::size_t i = 1; i <= 16; ++i) p.update(i, "launch " + std::to_string(i));
    p.update(16, "again");  // after the end: nothing
  }
  const auto s = cap.text();
  CHECK(count(s, "\n") == 8);
  CHECK(s.find("[sim] 2/16 launch 2, 0 s elapsed, ETA ") != std::string::npos);
  CHECK(s.find("[sim] 16/16 launch 16, 0 s elapsed\n") != std::string::npos);  // no ETA at the end
  CHECK(s.find("launch 3,") == std::string::npos);
  CHECK(s.find('\r') == std::string::npos);
  CHECK(s.find("again") == std::string::npos);
}

TEST_CASE("progress off and auto off a terminal write nothing, yet the note is asked for on every update",
          "[progress]") {
  for (auto mode : {ProgressMode::off, ProgressMode::automatic}) {
    CaptureCerr cap;
    int notes = 0;
    std::vector<double> fractions;
    {
      Progress p("run", 4, mode);
      p.set_note([&](double f) {
        ++notes;
        fractions.push_back(f);
        return std::string("note");
      });
      for (std::size_t i = 1; i <= 4; ++i) p.update(i);
    }
    // ctest runs with stderr not a terminal: auto is quiet there.
    CHECK(cap.text().empty());
    CHECK(notes == 4);
    CHECK(fractions == std::vector<double>{0.25, 0.5, 0.75, 1.0});
  }
}

TEST_CASE("progress bar: a self-overwriting line, the work's fraction in the bar, a newline at the end", "[progress]") {
  CaptureCerr cap;
  {
    Progress p("sweep:", 4, ProgressMode::bar);
    p.set_note([](double f) { return "at " + std::to_string(static_cast<int>(f * 100)); });
    p.update(1, "a", 0.5);  // unequal units: half the work in the first of four
    p.update(4, "d");
  }
  const auto s = cap.text();
  CHECK(s.find("\r[##########..........] sweep: 1/4 a, 0 s elapsed, ETA 0 s; at 50\033[K") != std::string::npos);
  CHECK(s.find("\r[####################] sweep: 4/4 d, 0 s elapsed; at 100\033[K\n") != std::string::npos);
  CHECK(count(s, "\n") == 1);
}

TEST_CASE("end_progress_line clears an open bar line once", "[progress]") {
  CaptureCerr cap;
  Progress p("x", 2, ProgressMode::bar);
  p.update(1);
  end_progress_line();
  end_progress_line();
  CHECK(count(cap.text(), "\r\033[K") == 1);
}

TEST_CASE("progress modes: the four names, anything else named in a ConfigError, HOPSIM_PROGRESS read when unset",
          "[progress]") {
  CHECK(parse_progress_mode("auto") == ProgressMode::automatic);
  CHECK(parse_progress_mode("bar") == ProgressMode::bar);
  CHECK(parse_progress_mode("lines") == ProgressMode::lines);
  CHECK(parse_progress_mode("off") == ProgressMode::off);
  CHECK_THROWS_WITH(parse_progress_mode("loud"), "--progress loud: expected auto, bar, lines or off");
  ::setenv("HOPSIM_PROGRESS", "lines", 1);
  CHECK(progress_mode() == ProgressMode::lines);
  ::setenv("HOPSIM_PROGRESS", "quiet", 1);
  CHECK_THROWS_AS(progress_mode(), ConfigError);
  set_progress_mode(ProgressMode::off);  // an option given wins over the environment
  CHECK(progress_mode() == ProgressMode::off);
  ::unsetenv("HOPSIM_PROGRESS");
}
