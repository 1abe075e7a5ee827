// `hopsim bgq exec`: runs a program built by hopsim-mpicc once per mode, as
// a child process (HOPSIM_MODE, HOPSIM_SCENARIO, HOPSIM_REPORT), and
// compares what the modes printed.
#include "hopsim/bgq/exec.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "hopsim/bgq/model/params.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/process.hpp"

namespace hopsim::bgq {
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// Five extents and nothing after them, each in the range of its machine parameter.
std::array<int, 5> parse_torus(const std::string& t) {
  std::array<int, 5> d{};
  std::array<char, 4> x{};
  int used = 0;
  if (std::sscanf(t.c_str(), "%d%c%d%c%d%c%d%c%d%n", &d[0], &x[0], &d[1], &x[1], &d[2], &x[2], &d[3], &x[3], &d[4],
                  &used) != 9 ||
      static_cast<std::size_t>(used) != t.size() || std::any_of(x.begin(), x.end(), [](char c) { return c != 'x'; }) ||
      std::any_of(d.begin(), d.end(), [](int v) { return v < 1; }))
    throw ConfigError(fmt::format("--torus: expected AxBxCxDxE (five positive extents), got '{}'", t));
  for (std::size_t i = 0; i < d.size(); ++i) {
    const std::string key = fmt::format("torus_{}", static_cast<char>('a' + i));
    for (const auto& p : model::param_decls())
      if (p.name == key && (d[i] < p.min || d[i] > p.max))
        throw ConfigError(
            fmt::format("--torus {}: {} {} is out of range [{}, {}] ({})", t, key, d[i], p.min, p.max, p.meaning));
  }
  return d;
}

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's default constructor is not noexcept
struct ModeRun {
  std::string mode;
  int exit_code = 0;
  nlohmann::json report;
  fs::path out, err;
};

// --torus as the machine's torus_a..torus_e overrides (none without it).
nlohmann::json torus_overrides(const ExecOptions& o) {
  nlohmann::json t = nlohmann::json::object();
  if (o.torus.empty()) return t;
  const auto d = parse_torus(o.torus);
  const std::array<const char*, 5> keys = {"torus_a", "torus_b", "torus_c", "torus_d", "torus_e"};
  for (std::size_t i = 0; i < keys.size(); ++i) t[keys[i]] = d[i];
  return t;
}

// The machine the runs will read, resolved as they will (a BG/Q preset,
// the torus within its limits) before --out is touched.
void check_machine(const ExecOptions& o) {
  const Preset preset = load_preset(o.machine, "--machine");
  if (preset.family != "bgq")
    throw ConfigError(fmt::format("--machine: {} is a {} machine, not a bgq one", preset.name, preset.family));
  (void)model::params_from(ParamSet::resolve(model::param_decls(), preset, torus_overrides(o), "--torus"));
}

// The scenario file the program's runs read (HOPSIM_SCENARIO).
fs::path write_scenario(const ExecOptions& o, const fs::path& dir) {
  nlohmann::json machine = torus_overrides(o);
  machine["preset"] = o.machine;
  if (!o.transport.empty()) machine["transport"] = o.transport;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw ConfigError(fmt::format("--out: cannot create {}: {}", dir.string(), ec.message()));
  fs::path scenario = dir / "exec.scenario.json";
  write_file_atomic(scenario, nlohmann::json{{"machine", machine}}.dump(2) + "\n");
  return scenario;
}

std::vector<ModeRun> run_modes(const ExecOptions& o, const fs::path& program, const fs::path& dir,
                               const fs::path& scenario, std::ostream& out) {
  std::error_code ec;
  std::vector<ModeRun> runs;
  runs.reserve(2);
  for (const char* mode : {"native", "sim"}) {
    if (o.mode != "both" && o.mode != mode) continue;
    ModeRun m;
    m.mode = mode;
    m.out = dir / fmt::format("{}.stdout", mode);
    m.err = dir / fmt::format("{}.stderr", mode);
    const fs::path report = dir / fmt::format("{}.report.json", mode);
    fs::remove(report, ec);
    ChildOptions opt;
    opt.stdout_path = m.out.string();
    opt.stderr_path = m.err.string();
    opt.env = {fmt::format("HOPSIM_MODE={}", mode), "HOPSIM_SCENARIO=" + scenario.string(),
               "HOPSIM_REPORT=" + report.string(), "HOPSIM_QUIET=1"};
    std::vector<std::string> argv = o.argv;
    argv.front() = program.string();
    out << fmt::format("[{}] {}\n", mode, fmt::join(o.argv, " ")) << std::flush;
    m.exit_code = run_child(argv, opt).exit_code;
    if (fs::exists(report, ec)) m.report = nlohmann::json::parse(slurp(report), nullptr, false);
    runs.push_back(std::move(m));
  }

  return runs;
}

// What the program printed: the simulated run's (the native one's when it ran alone).
void show_output(const ModeRun& shown, std::ostream& out) {
  std::istringstream text(slurp(shown.out));
  std::size_t n = 0;
  std::string line;
  out << fmt::format("--- {} run's output ---\n", shown.mode);
  while (std::getline(text, line)) {
    if (n++ < 100) out << line << "\n";
  }
  if (n > 100) out << fmt::format("... {} more lines in {}\n", n - 100, shown.out.string());
}

// The table of the runs; 3 when a mode's program failed, else 0.
int print_runs(const std::vector<ModeRun>& runs, std::ostream& out) {
  out << fmt::format("\n{:<8} {:>6} {:>7} {:>16} {:>10} {:>12}\n", "mode", "exit", "ranks", "cycles", "host s",
                     "descriptors");
  int worst = 0;
  for (const auto& m : runs) {
    const bool rep = m.report.is_object();
    out << fmt::format("{:<8} {:>6} {:>7} {:>16} {:>10} {:>12}\n", m.mode, m.exit_code,
                       rep ? fmt::format("{}", m.report.value("ranks", 0)) : "-",
                       rep ? fmt::format("{:.0f}", m.report.value("cycles", 0.0)) : "-",
                       rep ? fmt::format("{:.3f}", m.report.value("host_seconds", 0.0)) : "-",
                       rep ? fmt::format("{}", m.report.value("descriptors", 0)) : "-");
    if (m.exit_code != 0) {
      worst = worst ? worst : 3;
      const std::string err = slurp(m.err);
      out << fmt::format("  {} run failed (exit {}); its stderr ({}):\n{}", m.mode, m.exit_code, m.err.string(),
                         err.size() > 2000 ? err.substr(err.size() - 2000) : err);
      if (!err.empty() && err.back() != '\n') out << "\n";
    }
  }
  std::vector<std::string> files;
  files.reserve(runs.size());
  for (const auto& m : runs) files.push_back(m.out.string());
  out << fmt::format("output: {}\n", fmt::join(files, ", "));
  return worst;
}

// 4 when the two modes printed different lines, else 0.
int compare_output(const std::vector<ModeRun>& runs, std::ostream& out) {
  int worst = 0;
  if (runs.size() == 2) {
    const auto a = sorted_lines(slurp(runs[0].out)), b = sorted_lines(slurp(runs[1].out));
    if (a == b) {
      out << fmt::format("data: native and simulated runs printed the same {} lines (in any order)\n", a.size());
    } else {
      std::size_t i = 0;
      while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
      out << fmt::format(
          "data: native and simulated runs printed DIFFERENT output ({} and {} lines; sorted, line "
          "{} differs: native '{}', simulated '{}')\n",
          a.size(), b.size(), i + 1, i < a.size() ? a[i] : "", i < b.size() ? b[i] : "");
      worst = worst ? worst : 4;
    }
  }
  return worst;
}

// Whether `program` is an executable built by hopsim-mpicc: its launcher
// calls hopsim_bgq_program_main of libhopsim-bgq, whose name is in the file.
bool is_bgq_program(const fs::path& program) {
  std::ifstream in(program, std::ios::binary);
  std::array<char, 4> magic{};
  if (!in.read(magic.data(), magic.size()) || magic != std::array<char, 4>{'\x7f', 'E', 'L', 'F'}) return false;
  const std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return body.find("hopsim_bgq_program_main") != std::string::npos;
}

}  // namespace

int exec_program(const ExecOptions& o, std::ostream& out) {
  if (o.mode != "sim" && o.mode != "native" && o.mode != "both")
    throw ConfigError(fmt::format("--mode: unknown mode '{}' (expected sim, native or both)", o.mode));
  if (!o.transport.empty() && o.transport != "threads" && o.transport != "double" && o.transport != "cma")
    throw ConfigError(
        fmt::format("--transport: unknown transport '{}' (expected threads, double or cma)", o.transport));
  if (!o.torus.empty()) parse_torus(o.torus);
  if (o.argv.empty()) throw ConfigError("hopsim bgq exec: no program given");
  std::error_code ec;
  const fs::path program = fs::absolute(o.argv.front());
  if (!fs::is_regular_file(program, ec)) throw ConfigError(fmt::format("{}: no such program", o.argv.front()));
  if (!is_bgq_program(program))
    throw ConfigError(
        fmt::format("{}: not a BG/Q program (build it with hopsim-mpicc, which links it with "
                    "libhopsim-bgq)",
                    o.argv.front()));
  check_machine(o);
  const fs::path dir = fs::absolute(o.out);
  const fs::path scenario = write_scenario(o, dir);
  const auto runs = run_modes(o, program, dir, scenario, out);
  show_output(runs.back(), out);
  const int failed = print_runs(runs, out);
  const int differ = compare_output(runs, out);
  return failed ? failed : differ;
}

}  // namespace hopsim::bgq
