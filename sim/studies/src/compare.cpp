#include "hopsim/studies/compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hopsim/core/error.hpp"
#include "hopsim/core/family.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/studies/plot.hpp"

namespace hopsim::studies {
namespace {

nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
std::string cell(double v, const char* f) { return std::isfinite(v) ? fmt::format(fmt::runtime(f), v) : "-"; }

bool any(const RunReport& r, double Timing::*a, double Timing::*b) {
  for (const auto& t : r.timings)
    if (std::isfinite(t.*a) || std::isfinite(t.*b)) return true;
  return false;
}

std::size_t differing(const RunReport& r) {
  std::size_t n = 0;
  for (const auto& t : r.timings) n += t.data == "DIFFER";
  return n;
}

}  // namespace

std::string compare_table(const RunReport& r) {
  const bool bytes = any(r, &Timing::native_bytes_per_s, &Timing::sim_bytes_per_s);
  const bool cycles = any(r, &Timing::native_cycles, &Timing::sim_cycles);
  std::string out =
      fmt::format("hopsim compare | kernel {} | machine {} ({}) | native: this machine, sim: the model | per {}{}\n",
                  r.kernel, r.machine, r.machine_summary, r.per,
                  r.operations != 1 ? fmt::format(", {:g} operations per launch", r.operations) : std::string());
  std::size_t w = 24;
  for (const auto& t : r.timings) w = std::max(w, t.name.size());
  std::string head = fmt::format("{:<{}} {:>13} {:>13} {:>10}", "timing", w, "native us/op", "sim us/op", "sim/native");
  if (bytes) head += fmt::format(" {:>12} {:>12}", "native MB/s", "sim MB/s");
  if (cycles) head += fmt::format(" {:>14} {:>14}", "native cycles", "sim cycles");
  out += head + fmt::format(" {:>10} {:>10} {:>7}\n", "native chk", "sim chk", "data");
  for (const auto& t : r.timings) {
    std::string line =
        fmt::format("{:<{}} {:>13} {:>13} {:>10}", t.name, w, cell(t.native_seconds * 1e6, "{:.3f}"),
                    cell(t.sim_seconds * 1e6, "{:.3f}"), cell(t.sim_seconds / t.native_seconds, "{:.3g}"));
    if (bytes)
      line += fmt::format(" {:>12} {:>12}", cell(t.native_bytes_per_s / 1e6, "{:.1f}"),
                          cell(t.sim_bytes_per_s / 1e6, "{:.1f}"));
    if (cycles) line += fmt::format(" {:>14} {:>14}", cell(t.native_cycles, "{:.0f}"), cell(t.sim_cycles, "{:.0f}"));
    out += line + fmt::format(" {:>10} {:>10} {:>7}\n", t.native_check, t.sim_check, t.data);
  }
  const auto differ = differing(r);
  if (!r.data_equal)
    out += "\ndata: not compared between the modes (the model moves no payload; checks per mode above)\n";
  else if (differ || !*r.data_equal)
    out += fmt::format("\ndata: DIFFER between native and simulated runs for {} timings\n", differ);
  else
    out += fmt::format("\ndata: identical in both modes ({} timings)\n", r.timings.size());
  out += fmt::format("host time: native {:.2f} s, simulated {:.2f} s\n", r.native_wall_seconds, r.sim_wall_seconds);
  return out;
}

std::string compare_json(const RunReport& r, const std::string& scenario) {
  // The report's timings (hopsim/core/report.hpp), each with its ratio.
  nlohmann::json rows = to_json(r)["timings"];
  for (std::size_t k = 0; k < rows.size(); ++k)
    rows[k]["sim_over_native"] = num(r.timings[k].sim_seconds / r.timings[k].native_seconds);
  const nlohmann::json j = {{"schema", "hopsim-compare/1"},
                            {"scenario", scenario},
                            {"family", r.family},
                            {"kernel", r.kernel},
                            {"machine", r.machine},
                            {"per", r.per},
                            {"operations_per_launch", r.operations},
                            {"rows", rows},
                            {"data_identical", differing(r) == 0 && r.data_equal.value_or(false)},
                            {"exit_code", r.exit_code}};
  return j.dump(2) + "\n";
}

std::string compare_csv(const RunReport& r) {
  std::string csv =
      "timing,native_seconds_per_op,sim_seconds_per_op,sim_over_native,native_bytes_per_s,"
      "sim_bytes_per_s,native_cycles,sim_cycles,native_check,sim_check,data\n";
  for (const auto& t : r.timings)
    csv += fmt::format("{},{:.9g},{:.9g},{:.6g},{:.6g},{:.6g},{:.9g},{:.9g},{},{},{}\n", csv_field(t.name),
                       t.native_seconds, t.sim_seconds, t.sim_seconds / t.native_seconds, t.native_bytes_per_s,
                       t.sim_bytes_per_s, t.native_cycles, t.sim_cycles, t.native_check, t.sim_check, t.data);
  return csv;
}

int compare(const Scenario& sc, const std::optional<std::string>& png) {
  if (png) {
    const auto ext = std::filesystem::path(*png).extension().string();
    if (ext != ".png" && ext != ".svg")
      throw ConfigError("--png " + *png + ": unknown image format '" + ext + "' (use .png or .svg)");
    // Before both runs; the results folder itself is made by the run.
    const auto folder = std::filesystem::absolute(*png).parent_path().lexically_normal();
    if (folder != std::filesystem::absolute(sc.outputs.dir).lexically_normal()) check_writable(*png, "--png");
  }
  const auto r = runner_of(sc).run(sc);
  if (!r.native || !r.sim) throw Error("compare: the run did not produce both modes");
  std::cout << "\n" << compare_table(r);
  const std::string dir = sc.outputs.dir;
  std::filesystem::create_directories(dir);
  write_file_atomic(dir + "/compare.json", compare_json(r, sc.origin));
  write_file_atomic(dir + "/compare.csv", compare_csv(r));

  // One bar per group and mode: the mean time per operation over the group.
  plot::BarChart chart;
  chart.title = fmt::format("{} on {}: time per {}", r.kernel, r.machine, r.per);
  chart.y_label = "microseconds per operation";
  chart.log_y = true;
  chart.series = {{"native (this machine)", {}, {}}, {"simulated (model)", {}, {}}};
  std::map<std::string, std::pair<double, double>> sum;
  std::map<std::string, int> count;
  for (const auto& t : r.timings) {
    if (!std::isfinite(t.native_seconds) || !std::isfinite(t.sim_seconds)) continue;
    if (!count[t.group]++) chart.categories.push_back(t.group);
    sum[t.group].first += t.native_seconds * 1e6;
    sum[t.group].second += t.sim_seconds * 1e6;
  }
  for (const auto& g : chart.categories) {
    chart.series[0].y.push_back(sum[g].first / count[g]);
    chart.series[1].y.push_back(sum[g].second / count[g]);
  }
  const std::string chart_path = png ? *png : dir + "/compare.png";
  if (!chart.categories.empty()) plot::save(chart, chart_path);
  std::cout << fmt::format("wrote {0}/compare.json, {0}/compare.csv, {1}, {0}/results.json\n", dir, chart_path);
  return r.exit_code;
}

}  // namespace hopsim::studies
