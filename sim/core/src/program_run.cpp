#include "hopsim/core/program_run.hpp"

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

namespace hopsim {

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

double report_value(const ProgramModeRun& m, const char* key) {
  return m.report.is_object() && m.report.contains(key) && m.report[key].is_number() ? m.report[key].get<double>()
                                                                                     : NAN;
}

void summarise_program_runs(const std::vector<ProgramModeRun>& runs, RunReport& c, Timing& t) {
  bool failed = false;
  for (const auto& m : runs) {
    const bool sim = m.mode == Mode::sim;
    (sim ? c.sim : c.native) = true;
    (sim ? c.sim_wall_seconds : c.native_wall_seconds) = m.host_wall;
    (sim ? t.sim_seconds : t.native_seconds) = report_value(m, "seconds");
    (sim ? t.sim_cycles : t.native_cycles) = report_value(m, "cycles");
    (sim ? t.sim_check : t.native_check) = m.exit_code == 0 ? "ok" : fmt::format("FAIL:exit {}", m.exit_code);
    failed = failed || m.exit_code != 0;
  }
  if (runs.size() == 2) {
    c.data_equal = read_text(runs[0].out) == read_text(runs[1].out);
    t.data = *c.data_equal ? "equal" : "DIFFER";
  }
  c.exit_code = failed ? 3 : (c.data_equal && !*c.data_equal ? 4 : 0);
}

void print_last_words(const ProgramModeRun& m, std::ostream& out) {
  const std::string err = read_text(m.err);
  const std::string& from = err.empty() ? m.out : m.err;
  out << fmt::format("{}: the program exited {}; its last words ({}):\n", to_string(m.mode), m.exit_code, from);
  std::istringstream lines(err.empty() ? read_text(m.out) : err);
  std::vector<std::string> tail;
  for (std::string l; std::getline(lines, l);) tail.push_back(l);
  for (std::size_t i = tail.size() > 5 ? tail.size() - 5 : 0; i < tail.size(); ++i) out << "  " << tail[i] << "\n";
}

}  // namespace hopsim
