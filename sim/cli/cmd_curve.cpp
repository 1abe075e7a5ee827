// hopsim curve: latency versus offered load of synthetic traffic, from a
// traffic scenario file and/or options (docs/traffic.md).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "hopsim/common/error.hpp"
#include "hopsim/common/strict_json.hpp"
#include "hopsim/plot/plot.hpp"
#include "hopsim/traffic/scenario.hpp"
#include "hopsim/traffic/traffic.hpp"

namespace hopsim::cli {

namespace {

struct CurveOptions {
  std::string scenario;
  std::optional<std::string> machine, pattern, topology, dims, injection;
  std::optional<double> step, max_load;
  std::optional<int> bytes;
  int rows = 0, cols = 0;
  std::vector<std::string> sets, keys;
  std::string csv, png;
};

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".partial";
  {
    std::ofstream os(tmp, std::ios::binary);
    if (!os) throw Error("cannot write " + path);
    os << text;
    if (!os.flush()) throw Error("cannot write " + path);
  }
  std::filesystem::rename(tmp, path);
}

int run_curve(const CurveOptions& o) {
  nlohmann::json doc = o.scenario.empty() ? nlohmann::json::object() : read_json_file(o.scenario);
  if (!doc.is_object()) throw ConfigError((o.scenario.empty() ? "scenario" : o.scenario) + ": expected a JSON object");
  if (o.machine) doc["network"]["preset"] = *o.machine;
  if (o.topology) doc["network"]["topology"] = *o.topology;
  if (o.dims) doc["network"]["dims"] = *o.dims;
  if (o.rows > 0 || o.cols > 0) {
    if (o.rows <= 0 || o.cols <= 0) throw ConfigError("--rows and --cols: give both");
    doc["network"]["dims"] = {o.rows, o.cols};
  }
  if (o.pattern) doc["traffic"]["pattern"] = *o.pattern;
  if (o.injection) doc["traffic"]["injection"] = *o.injection;
  if (o.bytes) doc["traffic"]["packet_bytes"] = *o.bytes;
  if (o.step) doc["curve"]["step"] = *o.step;
  if (o.max_load) doc["curve"]["max"] = *o.max_load;
  for (const auto& s : o.sets) apply_override(doc, "network.params." + s);
  for (const auto& k : o.keys) apply_override(doc, k);
  const auto sc = traffic::load_traffic_scenario(doc, o.scenario.empty() ? "options" : o.scenario);
  const auto& cfg = sc.config;

  if (!o.png.empty()) {
    const auto ext = std::filesystem::path(o.png).extension().string();
    if (ext != ".png" && ext != ".svg")
      throw ConfigError(fmt::format("--png {}: unknown image format '{}' (use .png or .svg)", o.png, ext));
  }
  std::vector<traffic::TrafficResult> results;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    results = traffic::latency_curve(cfg, sc.curve_step, sc.curve_max);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  }
  const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::uint64_t simulated = 0;
  double setup_s = 0, run_s = 0;
  for (const auto& r : results) {
    simulated += r.packets_simulated;
    setup_s += r.host_setup_seconds;
    run_s += r.host_run_seconds;
  }
  std::string sizes;
  if (cfg.packet_sizes.empty()) {
    sizes = fmt::format("{} B", cfg.packet_bytes);
  } else {
    for (const auto& s : cfg.packet_sizes) sizes += fmt::format("{}{} B x{}", sizes.empty() ? "" : ", ", s.bytes, s.weight);
  }
  std::cout << fmt::format("latency vs offered load: {} traffic ({}) on a {} ({}), packets of {}, step {}\n",
                           traffic::to_string(cfg.pattern), cfg.bursty ? "bursty" : "bernoulli", traffic::describe(cfg),
                           sc.preset, sizes, sc.curve_step);
  std::cout << fmt::format("{:>8} {:>9} {:>10} {:>10} {:>10} {:>10} {:>6} {:>8} {}\n", "offered", "accepted", "avg lat",
                           "p50", "p99", "net lat", "hops", "max util", "");
  std::string csv =
      "offered,accepted,avg_latency,p50_latency,p99_latency,avg_network_latency,avg_hops,max_link_utilisation,"
      "saturated\n";
  for (const auto& r : results) {
    const auto j = traffic::result_json(r);
    const double max_u = j["max_link_utilisation"].get<double>();
    std::cout << fmt::format("{:>8.3f} {:>9.4f} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>6.2f} {:>8.3f} {}\n",
                             r.offered, r.accepted, r.avg_latency, r.p50_latency, r.p99_latency,
                             r.avg_network_latency, r.avg_hops, max_u, r.saturated ? "SATURATED" : "");
    csv += fmt::format("{},{},{},{},{},{},{},{},{}\n", r.offered, r.accepted, r.avg_latency, r.p50_latency,
                       r.p99_latency, r.avg_network_latency, r.avg_hops, max_u, r.saturated ? 1 : 0);
  }
  if (!results.empty() && !results.back().saturated)
    std::cout << fmt::format("not saturated up to load {} (raise --max)\n", results.back().offered);
  std::cout << fmt::format(
      "host: {} packets simulated in {:.3f} s, {:.0f} packets per host second; network set-up {:.3f} s; {:.3f} s in "
      "all\n",
      simulated, run_s, run_s > 0 ? static_cast<double>(simulated) / run_s : 0.0, setup_s, host_s);
  if (!o.csv.empty()) {
    write_file_atomic(o.csv, csv);
    std::cout << "wrote " << o.csv << "\n";
  }
  if (!o.png.empty()) {
    // Latency below saturation (the saturated point's latency only says "unbounded").
    plot::LineChart chart;
    chart.title = fmt::format("{} traffic on a {} ({})", traffic::to_string(cfg.pattern), traffic::describe(cfg), sc.preset);
    if (!results.empty() && results.back().saturated)
      chart.title += fmt::format(", saturated at offered {:g}", results.back().offered);
    chart.x_label = "offered load (packets per node per cycle)";
    chart.y_label = "latency (cycles)";
    plot::Series avg{"average total latency", {}, {}}, p99{"p99 total latency", {}, {}}, net{"average network latency", {}, {}};
    for (const auto& r : results) {
      if (r.saturated) continue;
      for (auto* sr : {&avg, &p99, &net}) sr->x.push_back(r.offered);
      avg.y.push_back(r.avg_latency);
      p99.y.push_back(r.p99_latency);
      net.y.push_back(r.avg_network_latency);
    }
    if (avg.x.empty()) throw ConfigError("--png: no load below saturation to plot (lower --step)");
    chart.series = {avg, net, p99};
    plot::save(chart, o.png);
    std::cout << "wrote " << o.png << "\n";
  }
  return 0;
}

}  // namespace

void add_curve_commands(Commands& c) {
  auto o = std::make_shared<CurveOptions>();
  auto* cmd = c.app.add_subcommand("curve", "latency vs offered load of synthetic traffic on a mesh or torus");
  cmd->add_option("scenario", o->scenario, "traffic scenario file (JSON, see docs/traffic.md); options override it");
  cmd->add_option("--machine", o->machine,
                  "network preset: an Epiphany preset (default e64g401, the 8x8 eMesh) or unit-network (generic)");
  cmd->add_option("--topology", o->topology, "mesh or torus (torus: network presets only)")
      ->check(CLI::IsMember({"mesh", "torus"}));
  cmd->add_option("--dims", o->dims, "extents, e.g. 4x4x4 (default: the preset's, 8x8 for unit-network)");
  cmd->add_option("--rows", o->rows, "mesh rows (with --cols; same as --dims RxC)");
  cmd->add_option("--cols", o->cols, "mesh columns (with --rows)");
  cmd->add_option("--pattern", o->pattern,
                  "uniform, transpose, bit_complement, bit_reverse, shuffle, tornado, neighbor or hotspot");
  cmd->add_option("--injection", o->injection, "bernoulli or bursty");
  cmd->add_option("--bytes", o->bytes, "packet size in bytes (eMesh 1..8)");
  cmd->add_option("--set", o->sets, "override a network parameter, e.g. --set mesh_buffer=1e6");
  cmd->add_option("--key", o->keys, "override any scenario key, e.g. --key phases.measure=20000");
  cmd->add_option("--step", o->step, "load step in packets per node per cycle (default 0.05)");
  cmd->add_option("--max", o->max_load, "highest load (default 1; the curve stops at saturation)");
  cmd->add_option("--csv", o->csv, "also write the curve as CSV");
  cmd->add_option("--png", o->png, "also plot latency vs offered load (PNG, or SVG by the .svg extension)");
  c.on(cmd, [o] { return run_curve(*o); });
}

}  // namespace hopsim::cli
