// `hopsim run` of an eSDK program (kernel.name "esdk"): the program's host
// executable, built against hopsim's e-hal, runs as a child process once
// per mode (HOPSIM_MODE), reading the scenario's machine, compute model and
// trace from HOPSIM_SCENARIO and writing its timing to HOPSIM_REPORT. A
// mode passes when the program exits 0; native and simulated data are
// equal when the program printed the same standard output.
#include "esdk_run.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/process.hpp"
#include "hopsim/core/program_run.hpp"
#include "hopsim/epiphany/run.hpp"

namespace hopsim::epiphany {
namespace fs = std::filesystem;

namespace {

struct EsdkArgs {
  std::string host;               // the host executable
  std::vector<std::string> argv;  // its arguments
  std::string dir;                // where it runs (default: the executable's folder)
};

// kernel.args: {"host": PATH, "args": [...], "dir": PATH}; relative paths
// are relative to the scenario file's folder when the file holds them, to
// the current folder when given with --set.
EsdkArgs parse_args(const Scenario& sc) {
  const auto& a = sc.kernel_args;
  if (!a.is_object())
    throw ConfigError("kernel.args: the esdk kernel takes {\"host\": ..., \"args\": [...], \"dir\": ...}");
  for (const auto& [k, v] : a.items()) {
    if (k != "host" && k != "args" && k != "dir")
      throw ConfigError(fmt::format("kernel.args.{}: unknown key (the esdk kernel takes host, args, dir)", k));
  }
  if (!a.contains("host") || !a["host"].is_string())
    throw ConfigError("kernel.args.host: the eSDK program's host executable (a path) is required");
  std::error_code ec;
  // A path the scenario file held is already relative to the current folder (load_scenario).
  const fs::path base = fs::current_path();
  auto resolve = [&](const std::string& p) { return fs::path(p).is_absolute() ? fs::path(p) : base / p; };
  EsdkArgs r;
  const fs::path host = resolve(a["host"].get<std::string>());
  if (!fs::is_regular_file(host, ec))
    throw ConfigError(fmt::format("kernel.args.host: {}: no such program", host.string()));
  r.host = fs::absolute(host).string();
  if (a.contains("args")) {
    if (!a["args"].is_array()) throw ConfigError("kernel.args.args: a list of strings");
    for (const auto& x : a["args"]) {
      if (!x.is_string()) throw ConfigError("kernel.args.args: a list of strings");
      r.argv.push_back(x.get<std::string>());
    }
  }
  if (a.contains("dir")) {
    if (!a["dir"].is_string()) throw ConfigError("kernel.args.dir: a folder");
    const fs::path d = resolve(a["dir"].get<std::string>());
    if (!fs::is_directory(d, ec)) throw ConfigError(fmt::format("kernel.args.dir: {}: no such folder", d.string()));
    r.dir = fs::absolute(d).string();
  } else {
    r.dir = fs::path(r.host).parent_path().string();
  }
  return r;
}

ProgramModeRun run_mode(const Scenario& sc, const EsdkArgs& a, Mode mode, const fs::path& out) {
  ProgramModeRun m;
  m.mode = mode;
  const std::string tag = to_string(mode);
  // The child's scenario: this one, its trace only where this mode fills it.
  nlohmann::json doc = sc.resolved;
  const bool traced = !sc.outputs.trace.empty() && (mode == Mode::sim || sc.mode == Mode::native);
  doc["outputs"]["trace"] = traced ? fs::absolute(sc.outputs.trace).string() : std::string();
  const fs::path scenario = out / fmt::format("esdk-{}.scenario.json", tag);
  const fs::path report = out / fmt::format("esdk-{}.report.json", tag);
  write_file_atomic(scenario, doc.dump(2) + "\n");
  fs::remove(report);
  m.out = (out / fmt::format("{}.stdout", tag)).string();
  m.err = (out / fmt::format("{}.stderr", tag)).string();
  std::vector<std::string> argv{a.host};
  argv.insert(argv.end(), a.argv.begin(), a.argv.end());
  ChildOptions opt;
  opt.stdout_path = m.out;
  opt.stderr_path = m.err;
  opt.cwd = a.dir;
  opt.env = {"HOPSIM_MODE=" + tag, "HOPSIM_SCENARIO=" + fs::absolute(scenario).string(),
             "HOPSIM_REPORT=" + fs::absolute(report).string(), "HOPSIM_QUIET=1"};
  std::cout << fmt::format("[{}] {} {}\n", tag, a.host, fmt::join(a.argv, " ")) << std::flush;
  const auto t0 = std::chrono::steady_clock::now();
  m.exit_code = run_child(argv, opt).exit_code;
  m.host_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::error_code ec;
  if (fs::exists(report, ec)) m.report = nlohmann::json::parse(read_text(report.string()), nullptr, false);
  return m;
}

}  // namespace

hopsim::RunReport run_esdk(const Scenario& sc) {
  const EsdkArgs a = parse_args(sc);
  const auto params = resolve_epiphany(sc, nullptr);
  // Absolute: the program runs in its own folder (kernel.args.dir) and
  // writes its output there.
  const fs::path out = fs::absolute(sc.outputs.dir.empty() ? fs::path("out/esdk") : fs::path(sc.outputs.dir));
  fs::create_directories(out);
  std::vector<ProgramModeRun> runs;
  if (sc.mode == Mode::native || sc.mode == Mode::both) runs.push_back(run_mode(sc, a, Mode::native, out));
  if (sc.mode == Mode::sim || sc.mode == Mode::both) runs.push_back(run_mode(sc, a, Mode::sim, out));

  hopsim::RunReport c;
  c.family = "epiphany";
  c.kernel = "esdk";
  c.machine = sc.machine_preset;
  c.machine_summary = fmt::format("{}x{} cores, {:g} MHz", params.rows, params.cols, params.clock_hz / 1e6);
  c.per = "run of the program";
  c.results_dir = out.string();
  hopsim::Timing t;
  t.name = fs::path(a.host).filename().string();
  t.group = t.name;
  t.labels = {{"program", a.host}};
  summarise_program_runs(runs, c, t);
  c.timings.push_back(t);

  std::cout << fmt::format("{} | machine {} ({}) | kernel esdk ({}) | mode {}\n", sc.origin, sc.machine_preset,
                           c.machine_summary, t.name, to_string(sc.mode));
  std::cout << fmt::format("{:<7} {:>5} {:>14} {:>14} {:>12}  {}\n", "mode", "exit", "device s", "cycles", "host s",
                           "output");
  nlohmann::json doc = {{"machine", sc.machine_preset}, {"kernel", "esdk"}, {"host", a.host}, {"args", a.argv}};
  std::string csv = "mode,exit,device_seconds,cycles,host_seconds\n";
  for (const auto& m : runs) {
    const std::string tag = to_string(m.mode);
    std::cout << fmt::format("{:<7} {:>5} {:>14.9f} {:>14.0f} {:>12.3f}  {}\n", tag, m.exit_code,
                             report_value(m, "seconds"), report_value(m, "cycles"), m.host_wall, m.out);
    doc[tag] = {{"exit_code", m.exit_code},
                {"host_wall_seconds", m.host_wall},
                {"stdout", m.out},
                {"stderr", m.err},
                {"report", m.report}};
    csv += fmt::format("{},{},{},{},{}\n", tag, m.exit_code, report_value(m, "seconds"), report_value(m, "cycles"),
                       m.host_wall);
    if (m.exit_code != 0) print_last_words(m, std::cout);
  }
  if (c.data_equal) {
    std::cout << (*c.data_equal ? "native and simulated: identical data (the program's standard output)\n"
                                : "native and simulated: DIFFERENT output (diff the .stdout files)\n");
  }
  hopsim::write_results(sc, c, doc, csv);
  std::cout << fmt::format("results: {}/results.json, {}/results.csv\n", out.string(), out.string());
  return c;
}

}  // namespace hopsim::epiphany
