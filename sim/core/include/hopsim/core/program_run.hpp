#pragma once
// A user's program run by `hopsim run` as a child process once per mode
// (a family's program scenario kernel): what each run left and how
// the runs become the common report. A mode passes when the program exits
// 0; native and simulated data are equal when it printed the same standard
// output.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hopsim/core/report.hpp"
#include "hopsim/core/scenario.hpp"

namespace hopsim {

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's default constructor is not noexcept
struct ProgramModeRun {
  Mode mode = Mode::sim;
  int exit_code = 0;
  double host_wall = 0;   // seconds the child took on this machine
  nlohmann::json report;  // what it wrote to HOPSIM_REPORT (null when it did not)
  std::string out, err;   // its stdout and stderr files
};

// A whole file as text ("" when it cannot be read).
std::string read_text(const std::string& path);

// The number `key` of the run's report, NaN when absent.
double report_value(const ProgramModeRun& m, const char* key);

// Fills c's and t's per-mode fields from the runs (t's seconds and cycles
// from the reports' "seconds" and "cycles"), t.data and c.data_equal from
// the two standard outputs, and c.exit_code: 3 when a mode failed, 4 when
// both passed and printed differently, else 0.
void summarise_program_runs(const std::vector<ProgramModeRun>& runs, RunReport& c, Timing& t);

// "MODE: the program exited N; its last words (FILE):" and the last five
// lines of its stderr, or of its stdout when stderr is empty.
void print_last_words(const ProgramModeRun& m, std::ostream& out);

}  // namespace hopsim
