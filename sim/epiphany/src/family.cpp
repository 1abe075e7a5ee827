// The Epiphany family: E16G301/E64G401 presets, kernel packages (built in
// or NAME.hopsim.so libraries), run natively on host threads or simulated
// on the eMesh model.
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include <fmt/format.h>

#include "esdk_run.hpp"
#include "hopsim/core/family.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/epiphany/model/params.hpp"
#include "hopsim/epiphany/run.hpp"

namespace hopsim::epiphany {
namespace {

std::string check_of(const LaunchRecord& r) {
  if (r.mismatch_count == 0) return "ok";
  return fmt::format("{}{}", r.known_faulty ? "faulty:" : "FAIL:", r.mismatch_count);
}

// Launches paired by (method, n) in the order the host program ran them;
// one operation is one repetition of the kernel's timed loop where the
// kernel has one (kernel.args.repeat), else one launch.
hopsim::RunReport common_report(const RunReport& r) {
  hopsim::RunReport c;
  c.family = "epiphany";
  c.kernel = r.scenario.kernel;
  c.machine = r.scenario.machine_preset;
  c.machine_summary = fmt::format("{}x{} cores, {:g} MHz", r.params.rows, r.params.cols, r.params.clock_hz / 1e6);
  c.operations =
      r.kernel_args.is_object() && r.kernel_args.contains("repeat") ? r.kernel_args["repeat"].get<double>() : 1.0;
  c.per = "operation";
  c.native = r.native.has_value();
  c.sim = r.sim.has_value();
  if (r.native) c.native_wall_seconds = r.native->wall_seconds;
  if (r.sim) c.sim_wall_seconds = r.sim->wall_seconds;
  if (r.compared) c.data_equal = r.data_diffs.empty();
  c.results_dir = r.scenario.outputs.dir;
  c.exit_code = exit_code(r);
  std::map<std::pair<std::string, int>, std::size_t> index;
  for (const auto* m : {&r.native, &r.sim}) {
    if (!*m) continue;
    const bool sim = (*m)->mode == Mode::sim;
    for (const auto& rec : (*m)->records) {
      const auto key = std::make_pair(rec.method, rec.n);
      if (!index.count(key)) {
        index[key] = c.timings.size();
        hopsim::Timing t;
        t.name = fmt::format("{} n={}", rec.method, rec.n);
        t.group = rec.method;
        t.labels = {{"method", rec.method}, {"n", rec.n}};
        c.timings.push_back(std::move(t));
      }
      auto& t = c.timings[index[key]];
      const double bw = rec.bytes && rec.seconds > 0 ? static_cast<double>(rec.bytes) / rec.seconds : NAN;
      (sim ? t.sim_seconds : t.native_seconds) = rec.seconds / c.operations;
      (sim ? t.sim_bytes_per_s : t.native_bytes_per_s) = bw;
      (sim ? t.sim_cycles : t.native_cycles) = rec.cycles / c.operations;
      (sim ? t.sim_check : t.native_check) = check_of(rec);
    }
  }
  // Data equality per launch: the digests of both modes.
  if (r.native && r.sim) {
    std::map<std::pair<std::string, int>, std::uint64_t> native_digest;
    for (const auto& rec : r.native->records) native_digest[{rec.method, rec.n}] = rec.digest;
    for (const auto& rec : r.sim->records) {
      const auto it = native_digest.find({rec.method, rec.n});
      if (it != native_digest.end()) c.timings[index[it->first]].data = it->second == rec.digest ? "equal" : "DIFFER";
    }
  }
  return c;
}

hopsim::RunReport run(const Scenario& sc) {
  if (sc.kernel == "esdk") return run_esdk(sc);
  const auto report = run_scenario(sc);
  print_report(report, std::cout);
  auto common = common_report(report);
  write_outputs(report, common);
  std::cout << fmt::format("results: {}/results.json, {}/results.csv\n", sc.outputs.dir, sc.outputs.dir);
  return common;
}

// Kernel libraries run by name (loaded only when a run asks for them).
void print_libraries(std::ostream& out) {
  std::map<std::string, std::string> libs;
  for (const auto& d : kernel_dirs()) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(d, ec)) {
      const auto f = e.path().filename().string();
      const std::string suffix = ".hopsim.so";
      if (f.size() > suffix.size() && f.ends_with(suffix))
        libs.emplace(f.substr(0, f.size() - suffix.size()), e.path().string());
    }
  }
  for (const auto& [name, path] : libs) out << fmt::format("{:<12} {:<10} kernel library {}\n", name, "library", path);
  out << fmt::format("{:<12} {:<10} an eSDK program built with hopsim's e-gcc (kernel.args: host, args, dir)\n", "esdk",
                     "program");
}

const FamilyRegistrar registrar{{
    .name = "epiphany",
    .summary = "Adapteva Epiphany eCore mesh: e-lib/stdcl kernels; native host threads, simulated eMesh (SystemC)",
    .run = run,
    .compute_models = {ComputeModel::annotated, ComputeModel::measured, ComputeModel::counted},
    .print_params = [](const std::string& preset,
                       std::ostream& out) { print_params(epiphany::model::param_decls(), preset, out); },
    .print_programs = print_libraries,
    .commands = {},
}};

}  // namespace
}  // namespace hopsim::epiphany
