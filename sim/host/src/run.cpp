// `hopsim run` of a host scenario: the ring program natively on this
// machine and on the host model of the scenario's machine (a host preset,
// or a profile written by `hopsim host calibrate`). Every message is
// checksummed by its receiver natively; the model moves no payload, so the
// data are not compared between the modes.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/program.hpp"
#include "hopsim/core/report.hpp"
#include "hopsim/host/model/profile.hpp"
#include "hopsim/host/model/report.hpp"

namespace hopsim::host::commands {
namespace {

namespace hh = hopsim::host;

// The ring options of the program's resolved arguments.
RingArgs ring_args_of(const nlohmann::json& args, std::uint64_t seed) {
  RingArgs a;
  a.order = args["order"].get<std::string>();
  a.two_way = args["two_way"].get<bool>();
  a.seed = seed;
  a.procs = args["procs"].get<std::vector<int>>();
  a.sizes = args["sizes"].get<std::vector<std::string>>();
  a.sizes_key = "kernel.args.sizes";
  a.transports = args["transports"].get<std::vector<std::string>>();
  a.reps = args["reps"].get<int>();
  a.bytes = args["bytes"].get<std::string>();
  a.min_steps = args["min_steps"].get<int>();
  return a;
}

// The report with one timing per cell, none measured yet.
RunReport report_of(const Scenario& sc, const hh::model::Profile& p, const std::vector<Key>& keys) {
  RunReport r;
  r.family = "host";
  r.kernel = sc.kernel;
  r.machine = p.name;
  r.machine_summary = fmt::format("{} cores", p.cores);
  r.per = "ring step";
  r.results_dir = sc.outputs.dir;
  auto name_of = [](const Key& k) {
    return fmt::format("{} procs {} {}{}", k.procs, host::kind_name(k.kind), model::size_text(k.size),
                       k.random ? " random" : "");
  };
  for (const auto& k : keys) {
    Timing t;
    t.name = name_of(k);
    t.group = std::string(host::kind_name(k.kind));
    t.labels = {{"procs", k.procs}, {"transport", host::kind_name(k.kind)}, {"size", k.size}, {"order", k.order()}};
    r.timings.push_back(std::move(t));
  }
  return r;
}

// The native ring into the report, results.json (`j`) and results.csv;
// each key takes what its native cell ran (the transport used after a CMA
// fallback, the iterations).
void run_native_cells(const RingArgs& a, std::vector<Key>& keys, RunReport& r, nlohmann::json& j, std::string& csv) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto cells = run_native(a);
  r.native = true;
  r.native_wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json cj = nlohmann::json::array();
  for (std::size_t i = 0; i < cells.size() && i < keys.size(); ++i) {
    const auto& c = cells[i];
    auto& t = r.timings[i];
    t.native_seconds = c.seconds / c.iters;
    t.native_bytes_per_s = c.bandwidth;
    t.native_check = "ok";  // a checksum mismatch throws DataMismatchError (exit 3)
    keys[i].kind = c.used;  // the model runs what the native ring used (a CMA fallback)
    keys[i].iters = c.iters;
    cj.push_back({{"procs", c.procs},
                  {"size", c.size},
                  {"order", c.order},
                  {"two_way", c.two_way},
                  {"requested", host::kind_name(c.requested)},
                  {"used", host::kind_name(c.used)},
                  {"fallback", c.fallback},
                  {"iters", c.iters},
                  {"seconds", c.seconds},
                  {"bandwidth_Bps", c.bandwidth},
                  {"messages_checked", c.messages_checked}});
    csv += fmt::format("native,{},{},{},{},{},{},{:.9g},{:.6g}\n", c.procs, c.order, host::kind_name(c.requested),
                       host::kind_name(c.used), c.size, c.iters, c.seconds, c.bandwidth);
  }
  j["native"] = {{"wall_seconds", r.native_wall_seconds}, {"cells", cj}};
}

// A simulated cell as a figure `hopsim validate` compares with published
// ones (traces/reference/*.csv): system the profile's (Profile::system, else
// its name), experiment hpcc's ring of that order, configuration as
// cell_configuration names it; MB/s (10^6 bytes) received per process.
Metric metric_of(const hh::model::Profile& p, const Key& k, bool two_way, double bytes_per_s) {
  return {p.system.empty() ? p.name : p.system,
          k.random ? "hpcc-ring-random" : "hpcc-ring-natural",
          cell_configuration(k.kind, k.procs, k.size, two_way),
          "bandwidth",
          bytes_per_s / 1e6,
          "MB/s"};
}

// The cells on the host model into the report, results.json and results.csv.
void run_sim_cells(const hh::model::Profile& p, const RingArgs& a, const std::vector<Key>& keys, RunReport& r,
                   nlohmann::json& j, std::string& csv) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto res = simulate(p, keys, a);
  r.sim = true;
  r.sim_wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json cj = nlohmann::json::array();
  std::vector<Metric> metrics;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    metrics.push_back(metric_of(p, keys[i], a.two_way, res[i].bandwidth));
    auto& t = r.timings[i];
    t.sim_seconds = res[i].seconds / keys[i].iters;
    t.sim_bytes_per_s = res[i].bandwidth;
    t.sim_check = "-";
    cj.push_back({{"procs", keys[i].procs},
                  {"size", keys[i].size},
                  {"transport", host::kind_name(keys[i].kind)},
                  {"order", keys[i].order()},
                  {"two_way", a.two_way},
                  {"iters", keys[i].iters},
                  {"seconds", res[i].seconds},
                  {"bandwidth_Bps", res[i].bandwidth},
                  {"yields_per_step", res[i].yields}});
    csv += fmt::format("sim,{},{},{},{},{},{},{:.9g},{:.6g}\n", keys[i].procs, keys[i].order(),
                       host::kind_name(keys[i].kind), host::kind_name(keys[i].kind), keys[i].size, keys[i].iters,
                       res[i].seconds, res[i].bandwidth);
  }
  j["sim"] = {{"wall_seconds", r.sim_wall_seconds}, {"cells", cj}, {"metrics", metrics_json(metrics)}};
}

// One line per cell: native and simulated MB/s ("-" for a mode not run).
void print_cells(const RunReport& r) {
  std::cout << fmt::format("{:<36} {:>12} {:>12}\n", "cell", "native MB/s", "sim MB/s");
  for (const auto& t : r.timings)
    std::cout << fmt::format(
        "{:<36} {:>12} {:>12}\n", t.name,
        std::isfinite(t.native_bytes_per_s) ? fmt::format("{:.0f}", t.native_bytes_per_s / 1e6) : "-",
        std::isfinite(t.sim_bytes_per_s) ? fmt::format("{:.0f}", t.sim_bytes_per_s / 1e6) : "-");
  if (r.native) std::cout << "native: every message checksummed by its receiver: all matched\n";
}

}  // namespace

RunReport run_ring_scenario(const Scenario& sc) {
  const auto& prog = find_program(sc.kernel);
  if (prog.family != "host")
    throw ConfigError(fmt::format("kernel.name: {} runs on {} machines", sc.kernel, prog.family));
  const auto args = resolve_args(prog, sc.kernel_args);
  if (!sc.outputs.trace.empty())
    throw ConfigError("outputs.trace: the host family writes no trace (hopsim run --trace is for the device families)");
  if (!sc.machine_params.empty())
    throw ConfigError(
        "machine: a host machine is its profile; it takes no overrides (edit the profile or recalibrate)");
  const auto p = hh::model::load_profile(sc.machine_preset);
  const RingArgs a = ring_args_of(args, sc.seed);
  auto keys = ring_keys(a, "kernel.args.bytes");
  std::error_code ec;
  std::filesystem::create_directories(sc.outputs.dir, ec);
  if (ec) throw ConfigError(fmt::format("outputs.dir: cannot create {}: {}", sc.outputs.dir, ec.message()));

  auto r = report_of(sc, p, keys);
  nlohmann::json j;
  j["machine"] = {{"preset", sc.machine_preset}, {"profile", p.to_json()}};
  j["kernel"] = {{"name", sc.kernel}, {"args", args}};
  std::string csv = "mode,procs,order,transport,used,size,iters,seconds,bandwidth_Bps\n";
  std::cout << fmt::format("hopsim {} | {} | machine {} ({} cores) | program ring | mode {}\n", version(), sc.origin,
                           p.name, p.cores, to_string(sc.mode));
  if (sc.mode != Mode::sim) run_native_cells(a, keys, r, j, csv);
  if (sc.mode != Mode::native) run_sim_cells(p, a, keys, r, j, csv);
  j["data_equal"] = nullptr;  // the model moves no payload
  print_cells(r);
  write_results(sc, r, j, csv);
  std::cout << fmt::format("results: {}/results.json, {}/results.csv\n", sc.outputs.dir, sc.outputs.dir);
  return r;
}

std::string cell_configuration(Kind kind, int procs, std::size_t size, bool two_way) {
  const std::string path = kind == Kind::double_copy ? "base" : std::string(host::kind_name(kind));
  std::string config = fmt::format("{} {} procs", path, procs);
  if (size != kHpccRingMessage) config += " " + model::size_text(size);
  if (!two_way) config += " one-way";
  return config;
}

}  // namespace hopsim::host::commands
