// `hopsim run` of any HAM-Offload program (kernel.name "ham"): the program,
// built against ham::offload (hopsim-c++), runs as a child process once per
// mode with --ham-mode, --ham-targets, the scenario's preset and overrides
// and, simulated, --ham-trace; it writes its run time (HOPSIM_REPORT: the
// host's clock from the runtime's start to its end, simulated or wall). A
// mode passes when the program exits 0; native and simulated data are equal
// when it printed the same standard output.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/process.hpp"
#include "hopsim/core/program.hpp"
#include "hopsim/core/program_run.hpp"
#include "hopsim/xeonphi/model/model.hpp"
#include "hopsim/xeonphi/run.hpp"

namespace hopsim::xeonphi {
namespace fs = std::filesystem;
namespace {

struct HamArgs {
  std::string program;            // absolute path
  std::vector<std::string> argv;  // its own arguments
  int targets = 1;
};

// kernel.args.program: a path (relative to the scenario file's folder when
// the file holds it, to the current folder when given with --set), or a name
// alone (found as locate_program finds it).
HamArgs parse_args(const nlohmann::json& args) {
  HamArgs a;
  std::string given = args["program"].get<std::string>();
  if (given.empty()) throw ConfigError("kernel.args.program: the HAM-Offload program to run (a path) is required");
  if (given.find('/') == std::string::npos) given = locate_program(given);
  std::error_code ec;
  // A path the scenario file held is already relative to the current folder (load_scenario).
  const fs::path base = fs::current_path();
  const fs::path p = fs::path(given).is_absolute() ? fs::path(given) : base / given;
  if (!fs::is_regular_file(p, ec))
    throw ConfigError(fmt::format("kernel.args.program: {}: no such program", p.string()));
  a.program = fs::absolute(p).lexically_normal().string();
  for (const auto& x : args["args"]) a.argv.push_back(x.get<std::string>());
  a.targets = args["targets"].get<int>();
  return a;
}

std::string param_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

ProgramModeRun run_mode(const Scenario& sc, const HamArgs& a, Mode mode, const fs::path& out) {
  ProgramModeRun m;
  m.mode = mode;
  const std::string tag = to_string(mode);
  const fs::path report = out / fmt::format("ham-{}.report.json", tag);
  fs::remove(report);
  m.out = (out / fmt::format("{}.stdout", tag)).string();
  m.err = (out / fmt::format("{}.stderr", tag)).string();
  std::vector<std::string> argv{a.program};
  argv.insert(argv.end(), a.argv.begin(), a.argv.end());
  argv.insert(argv.end(), {"--ham-mode", tag, "--ham-targets", std::to_string(a.targets)});
  if (mode == Mode::sim) {
    argv.insert(argv.end(), {"--ham-preset", sc.machine_preset});
    for (const auto& [k, v] : sc.machine_params.items())
      argv.insert(argv.end(), {"--ham-set", k + "=" + param_text(v)});
    if (!sc.outputs.trace.empty())
      argv.insert(argv.end(), {"--ham-trace", fs::absolute(sc.outputs.trace).string(), "--ham-trace-detail",
                               sc.outputs.trace_detail, "--ham-trace-window", sc.outputs.trace_window,
                               "--ham-trace-max-size", fmt::format("{:.0f}", sc.outputs.trace_max_size)});
  }
  ChildOptions opt;
  opt.stdout_path = m.out;
  opt.stderr_path = m.err;
  opt.env = {"HOPSIM_REPORT=" + report.string()};
  std::cout << fmt::format("[{}] {}\n", tag, fmt::join(argv, " ")) << std::flush;
  const auto t0 = std::chrono::steady_clock::now();
  m.exit_code = run_child(argv, opt).exit_code;
  m.host_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (m.exit_code == 2)
    throw ConfigError(fmt::format("{} ({}) refused its arguments: {}", a.program, tag, read_text(m.err)));
  std::error_code ec;
  if (fs::exists(report, ec)) m.report = nlohmann::json::parse(read_text(report.string()), nullptr, false);
  return m;
}

RunReport report(const Scenario& sc, const HamArgs& a, const std::vector<ProgramModeRun>& runs, const fs::path& out) {
  RunReport c;
  c.family = "xeonphi";
  c.kernel = "ham";
  c.machine = sc.machine_preset;
  c.machine_summary = fmt::format("{} target(s), offload over PCIe", a.targets);
  c.per = "run of the program";
  c.results_dir = out.string();
  Timing t;
  t.name = t.group = fs::path(a.program).filename().string();
  t.labels = {{"program", a.program}};
  summarise_program_runs(runs, c, t);
  c.timings.push_back(t);
  return c;
}

}  // namespace

RunReport run_ham(const Scenario& sc, const nlohmann::json& args) {
  const HamArgs a = parse_args(args);
  (void)model::load_machine(sc.machine_preset, sc.machine_params);  // a bad preset or override: exit 2 before running
  const fs::path out = fs::absolute(sc.outputs.dir.empty() ? fs::path("out/ham") : fs::path(sc.outputs.dir));
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw ConfigError(fmt::format("outputs.dir: cannot create {}: {}", out.string(), ec.message()));
  std::vector<ProgramModeRun> runs;
  if (sc.mode != Mode::sim) runs.push_back(run_mode(sc, a, Mode::native, out));
  if (sc.mode != Mode::native) runs.push_back(run_mode(sc, a, Mode::sim, out));
  RunReport c = report(sc, a, runs, out);

  std::cout << fmt::format("{} | machine {} ({}) | kernel ham ({}) | mode {}\n", sc.origin, sc.machine_preset,
                           c.machine_summary, c.timings.front().name, to_string(sc.mode));
  std::cout << fmt::format("{:<7} {:>5} {:>14} {:>12}  {}\n", "mode", "exit", "run s", "host s", "output");
  nlohmann::json doc = {
      {"machine", sc.machine_preset}, {"kernel", {{"name", "ham"}, {"args", args}}}, {"program", a.program}};
  std::string csv = "mode,exit,run_seconds,host_seconds\n";
  for (const auto& m : runs) {
    const std::string tag = to_string(m.mode);
    std::cout << fmt::format("{:<7} {:>5} {:>14.9f} {:>12.3f}  {}\n", tag, m.exit_code, report_value(m, "seconds"),
                             m.host_wall, m.out);
    doc[tag] = {{"exit_code", m.exit_code},
                {"host_wall_seconds", m.host_wall},
                {"stdout", m.out},
                {"stderr", m.err},
                {"report", m.report}};
    if (m.mode == Mode::sim && !sc.outputs.trace.empty()) doc[tag]["trace"] = sc.outputs.trace;
    csv += fmt::format("{},{},{},{}\n", tag, m.exit_code, report_value(m, "seconds"), m.host_wall);
    if (m.exit_code != 0) print_last_words(m, std::cout);
  }
  if (c.data_equal)
    std::cout << (*c.data_equal ? "native and simulated: identical data (the program's standard output)\n"
                                : "native and simulated: DIFFERENT output (diff the .stdout files)\n");
  write_results(sc, c, doc, csv);
  std::cout << fmt::format("results: {}/results.json, {}/results.csv\n", out.string(), out.string());
  return c;
}

}  // namespace hopsim::xeonphi
