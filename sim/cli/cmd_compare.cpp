// `hopsim compare SCENARIO`: the identical workload run natively on this
// machine and simulated on the model, side by side: time per operation,
// bandwidth between PEs, data checks; the same as JSON, CSV and a chart.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/log.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/core/units.hpp"
#include "hopsim/epiphany/family.hpp"
#include "hopsim/studies/plot.hpp"
#include "hopsim/epiphany/run.hpp"

namespace hopsim::cli {
namespace {

struct Options {
  std::string scenario;
  std::vector<std::string> sets;
  std::optional<std::string> out_dir, png, level;
};

struct Row {
  std::string method;
  int n = 0;
  const runtime::LaunchRecord* native = nullptr;
  const runtime::LaunchRecord* sim = nullptr;
};

std::string check_of(const runtime::LaunchRecord* r) {
  if (!r) return "-";
  if (r->mismatch_count == 0) return "ok";
  return fmt::format("{}{}", r->known_faulty ? "faulty:" : "FAIL:", r->mismatch_count);
}

double per_op(const runtime::LaunchRecord* r, double ops) { return r ? r->seconds / ops : NAN; }
double bandwidth(const runtime::LaunchRecord* r) {
  return r && r->bytes && r->seconds > 0 ? static_cast<double>(r->bytes) / r->seconds : NAN;
}
nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
std::string cell(double v, const char* f) { return std::isfinite(v) ? fmt::format(fmt::runtime(f), v) : "-"; }


void write_chart(const plot::BarChart& chart, const std::string& path) {
  if (!chart.categories.empty()) plot::save(chart, path);
}

// Families with their own runner (bgq, ...) print their own report and
// write results.json with, per mode, "timings" (name -> mean cycles over
// iterations and ranks), "payload_bytes", "wrong" and "wall_seconds", and
// "data_equal" at the top. The comparison is built from that file.
int compare_family(const Scenario& sc, const Options& o, int rc) {
  const std::string dir = sc.outputs.dir;
  nlohmann::json res;
  {
    std::ifstream is(dir + "/results.json");
    if (!is) throw Error("compare: the run wrote no " + dir + "/results.json");
    res = nlohmann::json::parse(is);
  }
  if (!res.contains("native") || !res.contains("sim")) throw Error("compare: the run did not produce both modes");
  double clock = 0;
  if (res.contains("machine") && res["machine"].contains("params") && res["machine"]["params"].contains("clock"))
    clock = parse_quantity(std::string_view(res["machine"]["params"]["clock"]["value"].get_ref<const std::string&>()), Dim::frequency, "clock");
  if (!(clock > 0)) throw Error("compare: " + dir + "/results.json names no machine clock");
  const auto& nat = res["native"];
  const auto& sim = res["sim"];
  const bool equal = res.value("data_equal", false);
  auto check = [](const nlohmann::json& m) {
    const auto wrong = m.value("wrong", std::int64_t{0});
    return wrong == 0 ? std::string("ok") : fmt::format("FAIL:{}", wrong);
  };
  std::cout << fmt::format("\nhopsim compare | kernel {} | machine {} ({:g} MHz) | native: this machine, sim: the "
                           "model | mean per iteration and rank\n",
                           sc.kernel, sc.machine_preset, clock / 1e6);
  std::cout << fmt::format("{:<21} {:>13} {:>13} {:>10} {:>14} {:>14} {:>10} {:>10} {:>7}\n", "timing",
                           "native us", "sim us", "sim/native", "native cycles", "sim cycles", "native chk", "sim chk",
                           "data");
  nlohmann::json jrows = nlohmann::json::array();
  std::string csv = "timing,native_seconds,sim_seconds,sim_over_native,native_cycles,sim_cycles,native_check,"
                    "sim_check,data\n";
  plot::BarChart chart;
  chart.title = fmt::format("{} on {}: time per iteration", sc.kernel, sc.machine_preset);
  chart.y_label = "microseconds";
  chart.log_y = true;
  chart.series = {{"native (this machine)", {}, {}}, {"simulated (model)", {}, {}}};
  const std::string data = equal ? "equal" : "DIFFER";
  const nlohmann::json timings = sim.value("timings", nlohmann::json::object());
  for (const auto& [name, cycles] : timings.items()) {
    const double cs = cycles.get<double>();
    const double cn = nat.contains("timings") && nat["timings"].contains(name) ? nat["timings"][name].get<double>() : NAN;
    const double ts = cs / clock, tn = cn / clock;
    std::cout << fmt::format("{:<21} {:>13} {:>13} {:>10} {:>14} {:>14} {:>10} {:>10} {:>7}\n", name,
                             cell(tn * 1e6, "{:.3f}"), cell(ts * 1e6, "{:.3f}"), cell(ts / tn, "{:.3g}"),
                             cell(cn, "{:.0f}"), cell(cs, "{:.0f}"), check(nat), check(sim), data);
    jrows.push_back({{"timing", name}, {"native_seconds", num(tn)}, {"sim_seconds", num(ts)},
                     {"sim_over_native", num(ts / tn)}, {"native_cycles", num(cn)}, {"sim_cycles", num(cs)},
                     {"native_check", check(nat)}, {"sim_check", check(sim)}, {"data", data}});
    csv += fmt::format("{},{:.9g},{:.9g},{:.6g},{:.9g},{:.9g},{},{},{}\n", name, tn, ts, ts / tn, cn, cs, check(nat),
                       check(sim), data);
    chart.categories.push_back(name);
    chart.series[0].y.push_back(tn * 1e6);
    chart.series[1].y.push_back(ts * 1e6);
  }
  std::cout << fmt::format("\ndata: {}\n", equal ? "identical in both modes" : "DIFFER between native and simulated runs");
  std::cout << fmt::format("host time: native {:.2f} s, simulated {:.2f} s\n", nat.value("wall_seconds", 0.0),
                           sim.value("wall_seconds", 0.0));
  nlohmann::json j = {{"scenario", sc.origin}, {"kernel", sc.kernel}, {"machine", sc.machine_preset},
                      {"clock_hz", clock},     {"rows", jrows},       {"data_identical", equal},
                      {"exit_code", rc}};
  write_file_atomic(dir + "/compare.json", j.dump(2) + "\n");
  write_file_atomic(dir + "/compare.csv", csv);
  const std::string png = o.png ? *o.png : dir + "/compare.png";
  write_chart(chart, png);
  std::cout << fmt::format("wrote {0}/compare.json, {0}/compare.csv, {1}, {0}/results.json\n", dir, png);
  return rc;
}

int run_compare(const Options& o) {
  if (o.png) {
    const auto ext = std::filesystem::path(*o.png).extension().string();
    if (ext != ".png" && ext != ".svg")
      throw ConfigError("--png " + *o.png + ": unknown image format '" + ext + "' (use .png or .svg)");
  }
  auto overrides = o.sets;
  if (o.out_dir) overrides.push_back("outputs.dir=\"" + *o.out_dir + "\"");
  runtime::catch_interrupts();
  const auto sc = load_scenario(o.scenario, overrides, std::string("both"));
  log::set_level(o.level ? *o.level : sc.log_level);
  if (const auto* family = runtime::family_runner(load_preset(sc.machine_preset).family))
    return compare_family(sc, o, (*family)(sc));
  const auto report = runtime::run_scenario(sc);
  runtime::write_outputs(report);
  if (!report.native || !report.sim) throw Error("compare: the run did not produce both modes");

  // Launches paired by (method, n) in the order the host program ran them.
  std::vector<Row> rows;
  std::map<std::pair<std::string, int>, std::size_t> index;
  for (const auto* m : {&report.native, &report.sim})
    for (const auto& rec : (*m)->records) {
      const auto key = std::make_pair(rec.method, rec.n);
      if (!index.count(key)) {
        index[key] = rows.size();
        rows.push_back({rec.method, rec.n});
      }
      auto& row = rows[index[key]];
      ((*m)->mode == Mode::native ? row.native : row.sim) = &rec;
    }
  // An operation is one repetition of the kernel's timed loop where the
  // kernel has one (kernel.args.repeat), else one launch.
  const double ops = report.kernel_args.is_object() && report.kernel_args.contains("repeat")
                         ? report.kernel_args["repeat"].get<double>()
                         : 1.0;
  const auto& p = report.params;
  std::cout << fmt::format("hopsim compare | kernel {} | machine {} ({}x{} cores, {:g} MHz) | native: this machine, "
                           "sim: the model | {} {} per launch\n",
                           sc.kernel, sc.machine_preset, p.rows, p.cols, p.clock_hz / 1e6, ops,
                           ops == 1 ? "operation" : "operations");
  std::cout << fmt::format("{:<21} {:>3} {:>13} {:>13} {:>10} {:>12} {:>12} {:>10} {:>10} {:>7}\n", "method", "n",
                           "native us/op", "sim us/op", "sim/native", "native MB/s", "sim MB/s", "native chk",
                           "sim chk", "data");
  nlohmann::json jrows = nlohmann::json::array();
  std::string csv = "method,n,native_seconds_per_op,sim_seconds_per_op,sim_over_native,native_bytes_per_s,"
                    "sim_bytes_per_s,native_check,sim_check,data\n";
  std::map<std::string, std::pair<double, double>> mean;  // method -> (native, sim) sums of us/op
  std::map<std::string, int> count;
  std::vector<std::string> order;  // methods in the order they ran
  std::size_t differ = 0;
  for (const auto& r : rows) {
    const double tn = per_op(r.native, ops), ts = per_op(r.sim, ops);
    const double bn = bandwidth(r.native), bs = bandwidth(r.sim);
    std::string data = "-";
    if (r.native && r.sim) data = r.native->digest == r.sim->digest ? "equal" : "DIFFER";
    differ += data == "DIFFER";
    std::cout << fmt::format("{:<21} {:>3} {:>13} {:>13} {:>10} {:>12} {:>12} {:>10} {:>10} {:>7}\n", r.method, r.n,
                             cell(tn * 1e6, "{:.3f}"), cell(ts * 1e6, "{:.3f}"), cell(ts / tn, "{:.3g}"),
                             cell(bn / 1e6, "{:.1f}"), cell(bs / 1e6, "{:.1f}"), check_of(r.native), check_of(r.sim),
                             data);
    jrows.push_back({{"method", r.method}, {"n", r.n}, {"native_seconds_per_op", num(tn)},
                     {"sim_seconds_per_op", num(ts)}, {"sim_over_native", num(ts / tn)},
                     {"native_bytes_per_s", num(bn)}, {"sim_bytes_per_s", num(bs)},
                     {"native_check", check_of(r.native)}, {"sim_check", check_of(r.sim)}, {"data", data}});
    csv += fmt::format("{},{},{:.9g},{:.9g},{:.6g},{:.6g},{:.6g},{},{},{}\n", r.method, r.n, tn, ts, ts / tn, bn, bs,
                       check_of(r.native), check_of(r.sim), data);
    if (std::isfinite(tn) && std::isfinite(ts)) {
      mean[r.method].first += tn * 1e6;
      mean[r.method].second += ts * 1e6;
      if (!count[r.method]++) order.push_back(r.method);
    }
  }
  const int rc = runtime::exit_code(report);
  std::cout << fmt::format("\ndata: {}\n", differ ? fmt::format("DIFFER between native and simulated runs for {} "
                                                                 "launches",
                                                                 differ)
                                                   : fmt::format("identical in both modes ({} launches)", rows.size()));
  std::cout << fmt::format("host time: native {:.2f} s, simulated {:.2f} s\n", report.native->wall_seconds,
                           report.sim->wall_seconds);

  const std::string dir = sc.outputs.dir;
  std::filesystem::create_directories(dir);
  nlohmann::json j = {{"scenario", sc.origin},
                      {"kernel", sc.kernel},
                      {"machine", sc.machine_preset},
                      {"operations_per_launch", ops},
                      {"rows", jrows},
                      {"data_identical", differ == 0},
                      {"exit_code", rc}};
  write_file_atomic(dir + "/compare.json", j.dump(2) + "\n");
  write_file_atomic(dir + "/compare.csv", csv);

  plot::BarChart chart;
  chart.title = fmt::format("{} on {}: time per operation (mean over n)", sc.kernel, sc.machine_preset);
  chart.y_label = "microseconds per operation";
  chart.log_y = true;
  chart.series = {{"native (this machine)", {}, {}}, {"simulated (model)", {}, {}}};
  for (const auto& method : order) {
    chart.categories.push_back(method);
    chart.series[0].y.push_back(mean[method].first / count[method]);
    chart.series[1].y.push_back(mean[method].second / count[method]);
  }
  const std::string png = o.png ? *o.png : dir + "/compare.png";
  write_chart(chart, png);
  std::cout << fmt::format("wrote {0}/compare.json, {0}/compare.csv, {1}, {0}/results.json\n", dir, png);
  return rc;
}

}  // namespace

void add_compare_commands(Commands& c) {
  auto o = std::make_shared<Options>();
  auto* cmd = c.app.add_subcommand(
      "compare", "run a scenario natively and simulated on the identical workload and print them side by side");
  cmd->add_option("scenario", o->scenario, "scenario file")->required();
  cmd->add_option("--set", o->sets, "override a scenario key, e.g. --set kernel.args.repeat=100");
  cmd->add_option("--out", o->out_dir, "output folder (overrides outputs.dir)");
  cmd->add_option("--png", o->png, "chart file, .png or .svg (default OUT/compare.png)");
  cmd->add_option("--log-level", o->level, "trace, debug, info, warn, error, critical or off");
  c.on(cmd, [o] { return run_compare(*o); });
}

}  // namespace hopsim::cli
