#include "hopsim/xeonphi/run.hpp"

#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/process.hpp"
#include "hopsim/core/program.hpp"
#include "hopsim/traces/import.hpp"
#include "hopsim/xeonphi/model/model.hpp"

namespace hopsim::xeonphi {
namespace fs = std::filesystem;
namespace {

// The benchmark's tests: argument name, its flag, the experiment it prints.
struct Test {
  const char* name;
  const char* flag;
};
constexpr std::array kTests{Test{"call", "-c"}, Test{"call-mul", "-m"}, Test{"copy-in", "-i"}, Test{"copy-out", "-o"},
                            Test{"allocate", "-a"}};

struct ModeRun {
  Mode mode{};
  int exit_code = 0;
  double wall_seconds = 0;
  std::string output;  // the program's own output file
  std::vector<traces::ResultRow> rows;
};

}  // namespace

std::string locate_program(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    if (!fs::exists(program)) throw ConfigError(fmt::format("kernel.args.program: {} does not exist", program));
    return program;
  }
  for (const auto& d : {executable_dir(), std::string(HOPSIM_BUILD_XEONPHI_DIR)}) {
    const auto p = fs::path(d) / program;
    if (!d.empty() && fs::exists(p)) return p.string();
  }
  return program;  // PATH
}

namespace {

std::string param_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::vector<std::string> command(const Scenario& sc, const nlohmann::json& args, Mode mode, const std::string& exe) {
  std::vector<std::string> c = {exe};
  for (const auto& t : args["tests"]) {
    for (const auto& k : kTests)
      if (t == k.name) c.emplace_back(k.flag);
  }
  c.insert(c.end(),
           {"-r", std::to_string(args["runs"].get<long long>()), "--warmup-runs",
            std::to_string(args["warmup_runs"].get<long long>()), "-s", std::to_string(args["size"].get<long long>())});
  if (args["async"].get<bool>()) c.emplace_back("-y");
  c.insert(c.end(), {"--ham-mode", mode == Mode::sim ? "sim" : "native", "--ham-preset", sc.machine_preset});
  for (const auto& [k, v] : sc.machine_params.items()) c.insert(c.end(), {"--ham-set", k + "=" + param_text(v)});
  if (args["host_core"].get<long long>() >= 0)
    c.insert(c.end(), {"--ham-cpu-affinity", std::to_string(args["host_core"].get<long long>())});
  if (mode == Mode::native && args["target_core"].get<long long>() >= 0)
    c.insert(c.end(), {"--ham-target-cpu-affinity", std::to_string(args["target_core"].get<long long>())});
  if (mode == Mode::sim && !sc.outputs.trace.empty())
    c.insert(c.end(),
             {"--ham-trace", sc.outputs.trace, "--ham-trace-detail", sc.outputs.trace_detail, "--ham-trace-window",
              sc.outputs.trace_window, "--ham-trace-max-size", fmt::format("{:.0f}", sc.outputs.trace_max_size)});
  return c;
}

ModeRun run_mode(const Scenario& sc, const nlohmann::json& args, Mode mode, const std::string& exe) {
  ModeRun m;
  m.mode = mode;
  m.output = sc.outputs.dir + "/ham-" + to_string(mode) + ".txt";
  const auto partial = partial_path(m.output).string();
  const auto t0 = std::chrono::steady_clock::now();
  const auto child = run_child(command(sc, args, mode, exe), partial, false);
  m.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  commit_partial(partial, m.output);  // kept whatever the outcome, for the user to read
  m.exit_code = child.exit_code;
  if (m.exit_code == 2)
    throw ConfigError(fmt::format("{} ({}) refused its arguments (see above)", exe, to_string(mode)));
  if (m.exit_code != 0 && m.exit_code != 3)
    throw Error(fmt::format("{} ({}) exited with {}; its output: {}", exe, to_string(mode), m.exit_code, m.output));
  m.rows = traces::import_ham_offload(m.output, sc.machine_preset);
  return m;
}

// average ns of each test, in the order printed.
std::vector<std::pair<std::string, double>> averages(const ModeRun& m) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& r : m.rows)
    if (r.metric == "average" && r.unit == "ns")
      out.emplace_back(r.experiment.substr(std::string("ham-offload-").size()), r.value);
  return out;
}

// The published figures name the host process pinned near the card; the
// model's unpinned host runs on socket 0, near the card, too.
std::vector<Metric> metrics(const ModeRun& m, const std::string& preset) {
  std::vector<Metric> out;
  const std::string system = preset == "knc-7120p" ? "xeonphi-knc" : preset;
  for (const auto& r : m.rows)
    if (r.unit == "ns" && (r.metric == "average" || r.metric == "median" || r.metric == "min"))
      out.push_back({system, r.experiment, "scif host pinned near the card", r.metric, r.value, r.unit});
  return out;
}

RunReport report(const Scenario& sc, const nlohmann::json& args, const std::vector<ModeRun>& modes) {
  RunReport c;
  c.family = "xeonphi";
  c.kernel = sc.kernel;
  c.machine = sc.machine_preset;
  c.machine_summary = "offload over PCIe";
  c.per = "call";
  c.results_dir = sc.outputs.dir;
  std::map<std::string, std::size_t> index;
  bool all_pass = true;
  for (const auto& m : modes) {
    const bool sim = m.mode == Mode::sim;
    (sim ? c.sim : c.native) = true;
    (sim ? c.sim_wall_seconds : c.native_wall_seconds) = m.wall_seconds;
    all_pass &= m.exit_code == 0;
    for (const auto& [name, ns] : averages(m)) {
      if (!index.count(name)) {
        index[name] = c.timings.size();
        Timing t;
        t.name = t.group = name;
        t.labels = {{"test", name}};
        c.timings.push_back(std::move(t));
      }
      auto& t = c.timings[index[name]];
      (sim ? t.sim_seconds : t.native_seconds) = ns * 1e-9;
      if (name == "copy-in" || name == "copy-out")
        (sim ? t.sim_bytes_per_s : t.native_bytes_per_s) = args["size"].get<double>() / (ns * 1e-9);
      (sim ? t.sim_check : t.native_check) = m.exit_code == 0 ? "ok" : "FAIL:1";
    }
  }
  if (modes.size() == 2) {
    c.data_equal = all_pass;
    for (auto& t : c.timings) t.data = all_pass ? "equal" : "DIFFER";
  }
  c.exit_code = all_pass ? 0 : 3;
  return c;
}

void write_outputs(const Scenario& sc, const nlohmann::json& args, const nlohmann::json& machine,
                   const std::vector<ModeRun>& modes, const RunReport& r) {
  nlohmann::json j;
  j["machine"] = machine;
  j["kernel"] = {{"name", sc.kernel}, {"args", args}};
  std::string csv = "mode,experiment,configuration,metric,value,unit\n";
  for (const auto& m : modes) {
    nlohmann::json mj = {{"wall_seconds", m.wall_seconds}, {"exit_code", m.exit_code}, {"output", m.output}};
    for (const auto& [name, ns] : averages(m)) mj["timings"][name] = ns;
    mj["metrics"] = metrics_json(metrics(m, sc.machine_preset));
    if (m.mode == Mode::sim && !sc.outputs.trace.empty()) mj["trace"] = sc.outputs.trace;
    j[to_string(m.mode)] = mj;
    for (const auto& row : m.rows)
      csv += fmt::format("{},{},{},{},{},{}\n", to_string(m.mode), csv_field(row.experiment),
                         csv_field(row.configuration), row.metric, row.value, row.unit);
  }
  j["data_equal"] = r.data_equal ? nlohmann::json(*r.data_equal) : nlohmann::json(nullptr);
  write_results(sc, r, j, csv);
}

void print(const Scenario& sc, const std::vector<ModeRun>& modes, std::ostream& out) {
  out << fmt::format("hopsim {} | {} | machine {} | program {} | mode {}\n", version(), sc.origin, sc.machine_preset,
                     sc.kernel, to_string(sc.mode));
  for (const auto& m : modes) {
    out << fmt::format("{}: ", to_string(m.mode));
    for (const auto& [name, ns] : averages(m)) out << fmt::format("{} {:.1f} ns  ", name, ns);
    out << fmt::format("| data {} | {:.2f} s host | output {}\n", m.exit_code == 0 ? "checked correct" : "CHECK FAILED",
                       m.wall_seconds, m.output);
  }
}

}  // namespace

void register_programs() {
  register_program(
      {"benchmark_ham_offload",
       "xeonphi",
       "HAM-Offload benchmark (noma/ham): empty call, call with arguments, copy in/out, allocation, "
       "timed per operation",
       {{"program",
         "benchmark_ham_offload",
         "the executable: a name (next to hopsim, the build tree, PATH) "
         "or a path",
         0,
         0,
         {},
         false},
        {"tests",
         nlohmann::json::array({"call"}),
         "benchmarks to run",
         0,
         0,
         {"call", "call-mul", "copy-in", "copy-out", "allocate"},
         false},
        {"runs", 1000, "measured runs per benchmark", 1, 100000000, {}, false},
        {"warmup_runs", 1, "runs before measuring", 0, 100000000, {}, false},
        {"size", 1048576, "bytes per copy (copy-in, copy-out, allocate)", 1, 1LL << 30, {}, false},
        {"async", false, "asynchronous calls (async + get)", 0, 0, {}, false},
        {"host_core", -1, "pin the host process to this CPU (-1: not pinned)", -1, 4095, {}, false},
        {"target_core", -1, "native: pin the card process to this CPU (-1: not pinned)", -1, 4095, {}, false}}});
  register_program(
      {"ham",
       "xeonphi",
       "any HAM-Offload program built with hopsim-c++, run in each mode; its standard output compared",
       {{"program", "", "the executable (a path; relative: to the scenario file's folder)", 0, 0, {}, false},
        {"args", nlohmann::json::array(), "its own arguments", 0, 0, {}, true},
        {"targets", 1, "target nodes (--ham-targets)", 1, 64, {}, false}}});
}

RunReport run(const Scenario& sc) {
  const auto& prog = find_program(sc.kernel);
  if (prog.family != "xeonphi")
    throw ConfigError(fmt::format("kernel.name: {} runs on {} machines", sc.kernel, prog.family));
  const auto args = resolve_args(prog, sc.kernel_args);
  if (sc.kernel == "ham") return run_ham(sc, args);
  nlohmann::json machine;
  machine["preset"] = sc.machine_preset;
  machine["params"] =
      ParamSet::resolve(model::param_decls(), load_preset(sc.machine_preset), sc.machine_params, "machine").to_json();
  const auto exe = locate_program(args["program"].get<std::string>());
  std::error_code ec;
  fs::create_directories(sc.outputs.dir, ec);
  if (ec) throw ConfigError(fmt::format("outputs.dir: cannot create {}: {}", sc.outputs.dir, ec.message()));
  std::vector<ModeRun> modes;
  if (sc.mode != Mode::sim) modes.push_back(run_mode(sc, args, Mode::native, exe));
  if (sc.mode != Mode::native) modes.push_back(run_mode(sc, args, Mode::sim, exe));
  auto r = report(sc, args, modes);
  print(sc, modes, std::cout);
  write_outputs(sc, args, machine, modes, r);
  std::cout << fmt::format("results: {}/results.json, {}/results.csv\n", sc.outputs.dir, sc.outputs.dir);
  return r;
}

}  // namespace hopsim::xeonphi
