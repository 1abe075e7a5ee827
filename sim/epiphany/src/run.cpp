#include "hopsim/epiphany/run.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/log.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/epiphany/native_device.hpp"
#include "hopsim/epiphany/sim_device.hpp"
#include "hopsim/epiphany_package.hpp"
#include "hopsim/traces/run_options.hpp"
#include "hopsim/traces/writer.hpp"

namespace fs = std::filesystem;

namespace hopsim::epiphany {

epiphany::model::Params resolve_epiphany(const Scenario& sc, nlohmann::json* resolved) {
  const Preset preset = load_preset(sc.machine_preset);
  if (preset.family != "epiphany") {
    throw ConfigError(fmt::format("machine.preset: {} is a {} machine; hopsim models only epiphany machines so far",
                                  preset.name, preset.family));
  }
  const auto set = ParamSet::resolve(epiphany::model::param_decls(), preset, sc.machine_params, "machine");
  if (resolved) *resolved = {{"preset", preset.name}, {"description", preset.description}, {"params", set.to_json()}};
  return epiphany::model::params_from(set);
}

namespace {

// The run's trace (outputs.trace): the simulated run's detail when the
// scenario simulates, else what the native run observes; launches of every
// mode either way, so one file holds native and simulated timings.
std::unique_ptr<traces::TraceWriter> open_trace(const Scenario& sc, const epiphany::model::Params& p,
                                                const std::string& kernel) {
  if (sc.outputs.trace.empty()) return nullptr;
  auto meta = traces::run_meta("epiphany", sc.resolved.dump(), sc.machine_preset,
                               sc.mode == Mode::native ? "native" : "sim", sc.seed, p.clock_hz);
  meta.extra["kernel"] = kernel;
  meta.extra["launch_modes"] = sc.mode == Mode::both ? "native,sim" : to_string(sc.mode);
  return std::make_unique<traces::TraceWriter>(
      sc.outputs.trace, meta, *traces::parse_detail(sc.outputs.trace_detail),
      traces::run_writer_options(sc.outputs.trace_window, sc.outputs.trace_max_size, p.clock_hz));
}

ModeResult run_mode(Mode mode, const Scenario& sc, const epiphany::model::Params& p, const KernelPackage& pkg,
                    const nlohmann::json& args, MemoryWindows& windows, const std::string& dir,
                    traces::TraceWriter* trace) {
  windows.clear();
  auto log = log::get("run");
  log->info("{}: {} on {} ({}x{} cores)", to_string(mode), pkg.name, sc.machine_preset, p.rows, p.cols);
  ModeResult res;
  res.mode = mode;
  const auto t0 = std::chrono::steady_clock::now();
  auto collect = [&](Device& dev, HostContext& host) {
    res.records = host.records();
    res.cores = dev.counters();
    for (const auto& r : res.records) res.device_seconds += r.seconds;
    for (const auto& c : res.cores) res.remote_writes += c.writes;
  };
  if (mode == Mode::native) {
    NativeDevice dev(p, windows);
    DeviceScope scope(dev);
    // Native detail only when no simulated run fills the trace.
    if (trace && sc.mode == Mode::native) {
      epiphany::model::MeshTiming(p).declare_topology(*trace);
      dev.set_trace(trace);
    }
    HostContext host(pkg, args, dev, dir, mode);
    if (trace && sc.mode == Mode::native) host.set_progress_note(traces::size_projection(*trace));
    HostScope hs(host);
    pkg.host_main(host);
    host.commit_files();
    collect(dev, host);
  } else {
    SimDevice dev(p, windows, sc.compute, sc.measured_speed_factor);
    DeviceScope scope(dev);
    if (trace) dev.set_trace(trace);
    HostContext host(pkg, args, dev, dir, mode);
    if (trace) host.set_progress_note(traces::size_projection(*trace));
    HostScope hs(host);
    dev.run([&] { pkg.host_main(host); });
    host.commit_files();
    if (trace) dev.chip().mesh().set_trace(nullptr);  // hands over the last counter buckets
    collect(dev, host);
    auto& mesh = dev.chip().mesh();
    for (int k = 0; k < epiphany::model::kNets; ++k) {
      const auto net = static_cast<epiphany::model::Net>(k);
      for (std::size_t l = 0; l < mesh.links_per_net(); ++l) {
        const auto& st = mesh.stats(net, l);
        if (st.packets == 0) continue;
        res.links.push_back({{"net", epiphany::model::net_name(net)},
                             {"link", mesh.link_name(l)},
                             {"bytes", st.bytes},
                             {"packets", st.packets},
                             {"busy_cycles", st.busy()},
                             {"stall_cycles", st.stall()}});
      }
    }
  }
  res.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  log->info("{}: {} launches in {:.2f} s host", to_string(mode), res.records.size(), res.wall_seconds);
  return res;
}

}  // namespace

const KernelPackage& resolve_package(const Scenario& sc, std::uint32_t cores) {
  std::string lib = sc.kernel_library;
  if (lib.empty()) {
    // Built in, or NAME.hopsim.so in the kernel folders.
    for (const auto* p : all_packages())
      if (p->name == sc.kernel && p->library.empty()) return *p;
    lib = find_kernel_library(sc.kernel);
    if (lib.empty()) return find_package(sc.kernel);  // throws, naming the known kernels
  }
  const auto& pkg = load_kernel_library(lib, cores, sc.kernel_library.empty() ? "kernel.name" : "kernel.library");
  if (pkg.name != sc.kernel)
    throw ConfigError(
        fmt::format("kernel.name: '{}' does not match the package '{}' that {} provides", sc.kernel, pkg.name, lib));
  return pkg;
}

RunReport run_scenario(const Scenario& sc) {
  RunReport r;
  r.scenario = sc;
  r.params = resolve_epiphany(sc, &r.machine);
  const KernelPackage& pkg = resolve_package(sc, r.params.num_cores());
  if (sc.compute == ComputeModel::counted && pkg.library.empty())
    throw ConfigError(fmt::format(
        "compute.model: counted prices the instructions the hopsim-device pass counted, and the built-in kernel '{}' "
        "was compiled without it: build it with hopsim-cc and give the library as kernel.library",
        sc.kernel));
  if (pkg.family != "epiphany")
    throw ConfigError(
        fmt::format("kernel.name: {} runs on {} machines, not on {}", pkg.name, pkg.family, sc.machine_preset));
  r.kernel_args = resolve_args(pkg, sc.kernel_args);

  std::error_code ec;
  fs::create_directories(sc.outputs.dir, ec);
  if (ec) throw ConfigError(fmt::format("outputs.dir: cannot create {}: {}", sc.outputs.dir, ec.message()));

  MemoryWindows windows{epiphany::model::AddressMap(r.params)};
  // Destroyed without finish() when a mode throws: the trace is then kept,
  // marked incomplete.
  const auto trace = open_trace(sc, r.params, pkg.name);
  auto record_launches = [&](const ModeResult& m) {
    if (!trace) return;
    for (const auto& rec : m.records)
      trace->add_launch({to_string(m.mode), rec.method, rec.n, rec.seconds, rec.cycles,
                         static_cast<std::int64_t>(rec.bytes), rec.mismatch_count == 0 || rec.known_faulty,
                         rec.start >= 0 ? std::optional<double>(rec.start) : std::nullopt});
  };
  if (sc.mode == Mode::native || sc.mode == Mode::both) {
    r.native = run_mode(Mode::native, sc, r.params, pkg, r.kernel_args, windows, sc.outputs.dir, trace.get());
    record_launches(*r.native);
  }
  if (sc.mode == Mode::sim || sc.mode == Mode::both) {
    r.sim = run_mode(Mode::sim, sc, r.params, pkg, r.kernel_args, windows, sc.outputs.dir, trace.get());
    record_launches(*r.sim);
  }
  if (trace) (r.sim ? *r.sim : *r.native).trace = trace->finish().string();

  if (r.sim && pkg.metrics) r.sim->metrics = pkg.metrics(r.sim->records, r.kernel_args, sc.machine_preset);
  for (const auto* m : {&r.native, &r.sim}) {
    if (!*m) continue;
    for (const auto& rec : (*m)->records)
      if (rec.mismatch_count && !rec.known_faulty)
        r.check_failures.push_back(fmt::format("{} {} n={}: {} of {} values wrong", to_string((*m)->mode), rec.method,
                                               rec.n, rec.mismatch_count, rec.checked));
  }
  if (r.native && r.sim) {
    r.compared = true;
    std::map<std::pair<std::string, int>, std::uint64_t> native;
    for (const auto& rec : r.native->records) native[{rec.method, rec.n}] = rec.digest;
    for (const auto& rec : r.sim->records) {
      const auto it = native.find({rec.method, rec.n});
      if (it == native.end() || it->second != rec.digest)
        r.data_diffs.push_back(fmt::format("{} n={}", rec.method, rec.n));
    }
  }
  return r;
}

int exit_code(const RunReport& r) {
  if (!r.data_diffs.empty()) return 4;
  if (!r.check_failures.empty()) return 3;
  return 0;
}

namespace {
nlohmann::json mode_json(const ModeResult& m) {
  nlohmann::json j;
  j["wall_seconds"] = m.wall_seconds;
  j["device_seconds"] = m.device_seconds;
  j["remote_writes"] = m.remote_writes;
  for (const auto& r : m.records) {
    j["launches"].push_back({{"method", r.method},
                             {"n", r.n},
                             {"ticks", r.ticks},
                             {"seconds", r.seconds},
                             {"cycles", r.cycles},
                             {"checked", r.checked},
                             {"mismatches", r.mismatch_count},
                             {"mismatch_examples", r.mismatches},
                             {"known_faulty", r.known_faulty},
                             {"bytes", r.bytes},
                             {"digest", fmt::format("{:016x}", r.digest)}});
  }
  for (std::size_t i = 0; i < m.cores.size(); ++i) {
    const auto& c = m.cores[i];
    j["cores"].push_back({{"core", i},
                          {"compute_cycles", c.compute},
                          {"instructions", c.instructions},
                          {"waiting_cycles", c.waiting},
                          {"barrier_cycles", c.barrier},
                          {"stall_cycles", c.stall},
                          {"writes", c.writes},
                          {"write_bytes", c.write_bytes},
                          {"reads", c.reads},
                          {"read_bytes", c.read_bytes}});
  }
  j["links"] = m.links;
  if (!m.trace.empty()) j["trace"] = m.trace;
  j["metrics"] = metrics_json(m.metrics);
  return j;
}

}  // namespace

nlohmann::json to_json(const RunReport& r) {
  nlohmann::json j;
  j["machine"] = r.machine;
  j["kernel"] = {{"name", r.scenario.kernel}, {"args", r.kernel_args}};
  j["compute"] = to_string(r.scenario.compute);
  j["seed"] = r.scenario.seed;
  if (r.native) j["native"] = mode_json(*r.native);
  if (r.sim) j["sim"] = mode_json(*r.sim);
  j["data_equal"] = r.compared ? nlohmann::json(r.data_diffs.empty()) : nlohmann::json(nullptr);
  j["data_diffs"] = r.data_diffs;
  j["check_failures"] = r.check_failures;
  return j;
}

void write_outputs(const RunReport& r, const hopsim::RunReport& common) {
  std::string csv;
  if (r.scenario.outputs.csv) {
    csv = "method,n,mode,ticks,seconds,cycles,checked,mismatches,known_faulty,digest,bytes\n";
    for (const auto* m : {&r.native, &r.sim}) {
      if (!*m) continue;
      for (const auto& rec : (*m)->records)
        csv += fmt::format("{},{},{},{},{:.9g},{:.9g},{},{},{},{:016x},{}\n", rec.method, rec.n, to_string((*m)->mode),
                           rec.ticks, rec.seconds, rec.cycles, rec.checked, rec.mismatch_count,
                           rec.known_faulty ? 1 : 0, rec.digest, rec.bytes);
    }
  }
  write_results(r.scenario, common, to_json(r), csv);
}

void print_report(const RunReport& r, std::ostream& out) {
  const auto& p = r.params;
  out << fmt::format("hopsim {} | {} | machine {} ({}x{} cores, {:g} MHz) | kernel {} | mode {} | compute {}\n",
                     version(), r.scenario.origin, r.scenario.machine_preset, p.rows, p.cols, p.clock_hz / 1e6,
                     r.scenario.kernel, to_string(r.scenario.mode), to_string(r.scenario.compute));
  // Rows keyed by (method, n) in launch order.
  std::vector<std::pair<std::string, int>> keys;
  std::map<std::pair<std::string, int>, const LaunchRecord*> sim, nat;
  for (const auto* m : {&r.sim, &r.native}) {
    if (!*m) continue;
    for (const auto& rec : (*m)->records) {
      const auto k = std::make_pair(rec.method, rec.n);
      if (!sim.count(k) && !nat.count(k)) keys.push_back(k);
      ((*m)->mode == Mode::sim ? sim : nat)[k] = &rec;
    }
  }
  auto check = [](const LaunchRecord* rec) -> std::string {
    if (!rec) return "-";
    if (rec->mismatch_count == 0) return "ok";
    return fmt::format("{}{} bad", rec->known_faulty ? "faulty:" : "FAIL:", rec->mismatch_count);
  };
  out << fmt::format("{:<21} {:>3} {:>14} {:>12} {:>12} {:>14} {:>14} {:>8}\n", "method", "n", "sim cycles", "sim us",
                     "native us", "sim check", "native check", "data");
  std::map<std::string, std::vector<const LaunchRecord*>> by_method_sim, by_method_nat;
  for (const auto& k : keys) {
    const auto* s = sim.count(k) ? sim[k] : nullptr;
    const auto* n = nat.count(k) ? nat[k] : nullptr;
    if (s) by_method_sim[k.first].push_back(s);
    if (n) by_method_nat[k.first].push_back(n);
    std::string data = "-";
    if (s && n) data = s->digest == n->digest ? "equal" : "DIFFER";
    out << fmt::format("{:<21} {:>3} {:>14} {:>12} {:>12} {:>14} {:>14} {:>8}\n", k.first, k.second,
                       s ? fmt::format("{:.0f}", s->cycles) : "-", s ? fmt::format("{:.1f}", s->seconds * 1e6) : "-",
                       n ? fmt::format("{:.1f}", n->seconds * 1e6) : "-", check(s), check(n), data);
  }
  const int repeat = r.kernel_args.value("repeat", 1);
  out << "\nsummary per method (mean over n):\n";
  for (const auto& [method, recs] : (by_method_sim.empty() ? by_method_nat : by_method_sim)) {
    double sim_mean = 0, nat_mean = 0;
    for (const auto* rec : recs) sim_mean += rec->seconds;
    sim_mean /= static_cast<double>(recs.size());
    const auto& nrecs = by_method_nat[method];
    for (const auto* rec : nrecs) nat_mean += rec->seconds;
    if (!nrecs.empty()) nat_mean /= static_cast<double>(nrecs.size());
    std::string line = fmt::format("  {:<21}", method);
    if (!by_method_sim.empty()) {
      line += fmt::format(" sim {:>10.1f} us/launch", sim_mean * 1e6);
      if (r.kernel_args.contains("repeat"))
        line += fmt::format(" ({:.0f} cycles/repeat)", sim_mean * p.clock_hz / repeat);
    }
    if (!nrecs.empty()) line += fmt::format("  native {:>10.1f} us/launch", nat_mean * 1e6);
    out << line << "\n";
  }
  if (r.sim)
    out << fmt::format("\nsimulated: {} remote writes, {:.3f} s simulated in {:.2f} s host ({:.3g} writes/host s)\n",
                       r.sim->remote_writes, r.sim->device_seconds, r.sim->wall_seconds,
                       r.sim->remote_writes / std::max(1e-9, r.sim->wall_seconds));
  if (r.native) out << fmt::format("native: {:.2f} s host\n", r.native->wall_seconds);
  for (const auto* m : {&r.native, &r.sim})
    if (*m && !(*m)->trace.empty()) out << fmt::format("trace: {}\n", (*m)->trace);
  if (r.compared) {
    out << (r.data_diffs.empty()
                ? "data: native and simulated runs produced identical data\n"
                : fmt::format("data: DIFFER between native and simulated runs for {} launches (first: {})\n",
                              r.data_diffs.size(), r.data_diffs.front()));
  }
  for (const auto* m : {&r.sim, &r.native}) {
    if (!*m) continue;
    for (const auto& rec : (*m)->records) {
      if (!rec.mismatch_count) continue;
      out << fmt::format("{} check {} n={}: {} of {} values wrong{}; e.g. {}\n", to_string((*m)->mode), rec.method,
                         rec.n, rec.mismatch_count, rec.checked,
                         rec.known_faulty ? " (reproduces the original's known fault)" : "", rec.mismatches.front());
      break;
    }
  }
  for (const auto& f : r.check_failures) out << "CHECK FAILED: " << f << "\n";
}

}  // namespace hopsim::epiphany
