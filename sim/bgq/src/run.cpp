#include "hopsim/bgq/run.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/log.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/resources.hpp"
#include "hopsim/traces/run_options.hpp"
#include "machine.hpp"

namespace fs = std::filesystem;

namespace hopsim::bgq {

namespace {
std::map<std::string, BgqKernel>& kernels() {
  static std::map<std::string, BgqKernel> k;
  return k;
}
}  // namespace

void register_kernel(BgqKernel k) {
  k.package.family = "bgq";
  register_program(k.package);
  kernels()[k.package.name] = std::move(k);
}

const BgqKernel* find_kernel(const std::string& name) {
  const auto it = kernels().find(name);
  return it == kernels().end() ? nullptr : &it->second;
}

std::string to_string(NativeTransport t) {
  switch (t) {
    case NativeTransport::threads:
      return "threads";
    case NativeTransport::double_copy:
      return "double";
    case NativeTransport::cma:
      return "cma";
  }
  return "?";
}

namespace {
// machine keys that choose how native runs execute, not model parameters.
constexpr const char* kTransportKey = "transport";
constexpr const char* kDenyCmaKey = "deny_cma";
}  // namespace

NativeOptions native_options(const Scenario& sc) {
  NativeOptions o;
  const auto& m = sc.machine_params;
  if (m.contains(kTransportKey)) {
    const auto& v = m[kTransportKey];
    const std::string name = v.is_string() ? v.get<std::string>() : v.dump();
    if (name == "threads")
      o.transport = NativeTransport::threads;
    else if (name == "double" || name == "double-copy")
      o.transport = NativeTransport::double_copy;
    else if (name == "cma")
      o.transport = NativeTransport::cma;
    else if (name == "zero" || name == "zero-copy")
      throw ConfigError(
          "machine.transport: zero copy cannot carry BG/Q direct puts: they land in the kernel's own buffers (any heap "
          "or "
          "stack address its base address table names), which are private to each rank's process, not in a shared "
          "pool; use double or cma");
    else
      throw ConfigError(
          fmt::format("machine.transport: unknown transport '{}' (expected threads, double or cma)", name));
  }
  if (m.contains(kDenyCmaKey)) {
    if (!m[kDenyCmaKey].is_boolean()) throw ConfigError("machine.deny_cma: expected true or false");
    o.deny_cma = m[kDenyCmaKey].get<bool>();
  }
  return o;
}

model::Params resolve_params(const Scenario& sc, nlohmann::json* resolved) {
  const Preset preset = load_preset(sc.machine_preset);
  if (preset.family != "bgq")
    throw ConfigError(fmt::format("machine.preset: {} is a {} machine, not a bgq one", preset.name, preset.family));
  auto overrides = sc.machine_params;
  overrides.erase(kTransportKey);
  overrides.erase(kDenyCmaKey);
  const auto set = ParamSet::resolve(model::param_decls(), preset, overrides, "machine");
  if (resolved) {
    const auto o = native_options(sc);
    *resolved = {{"preset", preset.name},
                 {"description", preset.description},
                 {"params", set.to_json()},
                 {"transport", to_string(o.transport)}};
    if (o.deny_cma) (*resolved)["deny_cma"] = true;
  }
  return model::params_from(set);
}

namespace {

ModeOutcome run_mode(Mode mode, const BgqKernel& k, const model::Params& p, const nlohmann::json& args,
                     const Scenario& sc, const NativeOptions& native) {
  ModeOutcome out;
  out.mode = mode;
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<model::MuTiming> mu;
  std::unique_ptr<traces::TraceWriter> trace;
  std::unique_ptr<Machine> m;
  if (mode == Mode::sim) {
    mu = std::make_unique<model::MuTiming>(p);
    if (!sc.outputs.trace.empty()) {
      auto meta = traces::run_meta("bgq", sc.resolved.dump(), sc.machine_preset, "sim", sc.seed, p.clock_hz);
      meta.extra["kernel"] = k.package.name;
      meta.extra["torus"] = fmt::format("{}x{}x{}x{}x{}", p.dims[0], p.dims[1], p.dims[2], p.dims[3], p.dims[4]);
      const auto detail = traces::parse_detail(sc.outputs.trace_detail);
      if (!detail)
        throw ConfigError(
            fmt::format("outputs.trace_detail: '{}' is not counters, transactions or hops", sc.outputs.trace_detail));
      trace = std::make_unique<traces::TraceWriter>(
          sc.outputs.trace, meta, *detail,
          traces::run_writer_options(sc.outputs.trace_window, sc.outputs.trace_max_size, p.clock_hz));
    }
    m = make_sim_machine(p, args, *mu, trace.get());
    m->set_counted(sc.compute == ComputeModel::counted);
  } else if (native.transport == NativeTransport::threads) {
    m = make_native_machine(p, args);
  } else {
    m = make_process_machine(p, args, native);
  }
  log::get("bgq")->info("{}: {} on {} ranks", to_string(mode), k.package.name, m->size());
  m->run(k.entry);
  out.end_cycles = m->end_cycles();
  out.transport = m->transport_use();
  if (!out.transport.fallback.empty())
    log::get("bgq")->warn("native: {} requested, {} used: {}", out.transport.requested, out.transport.used,
                          out.transport.fallback);
  if (m->counted()) {
    // Counted: each rank's instructions, by node id (`hopsim trace stats`).
    nlohmann::json per_node = nlohmann::json::object();
    for (int r = 0; r < m->size(); ++r) {
      out.instructions.push_back(m->rank(r).instructions);
      per_node[std::to_string(r)] = m->rank(r).instructions;
    }
    if (trace) trace->set_meta("instructions", per_node.dump());
  }
  if (trace) {
    mu->network().set_observer(nullptr);
    out.trace = trace->finish().string();
  }
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (int r = 0; r < m->size(); ++r) {
    auto& st = m->rank(r);
    out.timings.push_back(st.timings);
    out.digests.push_back(st.digest);
    for (const auto& c : st.checks) {
      out.checked += c.checked;
      out.wrong += c.wrong;
      if (c.wrong)
        out.checks.insert(out.checks.begin(), {fmt::format("rank {} {}", r, c.what), c.checked, c.wrong, c.example});
    }
    out.descriptors += st.descriptors;
    out.packets += st.packets;
    out.bytes += st.bytes;
  }
  if (mu) out.packet_hops = m->packet_hops();
  return out;
}

// Mean over ranks and iterations of each timing, in first-seen order.
std::vector<Timing> mean_timings(const ModeOutcome& o) {
  std::vector<Timing> order;
  std::map<std::string, std::pair<double, int>> acc;
  for (const auto& rank : o.timings)
    for (const auto& t : rank) {
      if (!acc.count(t.what)) order.push_back({t.what, 0, 0});
      acc[t.what].first += t.cycles;
      acc[t.what].second += 1;
    }
  for (auto& t : order) t.cycles = acc[t.what].first / acc[t.what].second;
  return order;
}

}  // namespace

BgqReport run(const Scenario& sc) {
  BgqReport r;
  r.scenario = sc;
  r.params = resolve_params(sc, &r.machine);
  // What the simulator keeps per rank, before the program's own memory:
  // calibrated, the growth of the peak resident memory of the gibarrier
  // kernel from 4096 ranks (85 MB) to 16384 (281 MB). Refused before
  // anything is built.
  constexpr double kBytesPerRank = 16 * 1024;
  const auto& d = r.params.dims;
  require_memory("machine.torus_a..torus_e", fmt::format("a {}x{}x{}x{}x{} torus", d[0], d[1], d[2], d[3], d[4]),
                 r.params.num_nodes() * kBytesPerRank,
                 fmt::format("{} ranks of at least {:.0f} KiB each, before the program's own memory",
                             r.params.num_nodes(), kBytesPerRank / 1024));
  const BgqKernel* k = find_kernel(sc.kernel);
  if (!k) {
    std::string names;
    for (const auto& [n, _] : kernels()) names += (names.empty() ? "" : ", ") + n;
    throw ConfigError(fmt::format("kernel.name: '{}' is not a bgq kernel (known: {})", sc.kernel, names));
  }
  if (sc.compute == ComputeModel::counted && !k->counted_code)
    throw ConfigError(fmt::format(
        "compute.model: counted needs code the hopsim-bgq-poll pass counted; the built-in kernel '{}' was compiled "
        "without it (counted runs: the halo kernel, programs built with hopsim-mpicc)",
        sc.kernel));
  r.args = resolve_args(k->package, sc.kernel_args);
  const NativeOptions native = native_options(sc);
  std::error_code ec;
  fs::create_directories(sc.outputs.dir, ec);
  if (ec) throw ConfigError(fmt::format("outputs.dir: cannot create {}: {}", sc.outputs.dir, ec.message()));
  if (sc.mode == Mode::native || sc.mode == Mode::both)
    r.modes.push_back(run_mode(Mode::native, *k, r.params, r.args, sc, native));
  if (sc.mode == Mode::sim || sc.mode == Mode::both) {
    r.modes.push_back(run_mode(Mode::sim, *k, r.params, r.args, sc, native));
    if (k->metrics) r.modes.back().metrics = k->metrics(mean_timings(r.modes.back()), r.args);
  }
  if (r.modes.size() == 2) {
    r.compared = true;
    for (std::size_t i = 0; i < r.modes[0].digests.size(); ++i)
      if (r.modes[0].digests[i] != r.modes[1].digests[i]) r.differing_ranks.push_back(static_cast<int>(i));
  }
  return r;
}

int exit_code(const BgqReport& r) {
  if (!r.differing_ranks.empty()) return 4;
  for (const auto& m : r.modes)
    if (m.wrong) return 3;
  return 0;
}

void print(const BgqReport& r, std::ostream& out) {
  const auto& d = r.params.dims;
  out << fmt::format("hopsim {} | {} | machine {} ({}x{}x{}x{}x{} torus, {} nodes, {:g} GHz) | kernel {} | mode {}\n",
                     version(), r.scenario.origin, r.scenario.machine_preset, d[0], d[1], d[2], d[3], d[4],
                     r.params.num_nodes(), r.params.clock_hz / 1e9, r.scenario.kernel, to_string(r.scenario.mode));
  out << fmt::format("args: {}\n", r.args.dump());
  const ModeOutcome* sim = nullptr;
  const ModeOutcome* nat = nullptr;
  for (const auto& m : r.modes) (m.mode == Mode::sim ? sim : nat) = &m;
  std::vector<Timing> ts = sim ? mean_timings(*sim) : std::vector<Timing>{};
  std::vector<Timing> tn = nat ? mean_timings(*nat) : std::vector<Timing>{};
  const auto& keys = sim ? ts : tn;
  out << fmt::format("\n{:<44} {:>14} {:>12} {:>14}\n", "timing (mean over ranks and iterations)", "sim cycles",
                     "sim us", "native us");
  for (const auto& t : keys) {
    double nv = -1;
    for (const auto& x : tn)
      if (x.what == t.what) nv = x.cycles;
    double sv = -1;
    for (const auto& x : ts)
      if (x.what == t.what) sv = x.cycles;
    out << fmt::format("{:<44} {:>14} {:>12} {:>14}\n", t.what, sv >= 0 ? fmt::format("{:.0f}", sv) : "-",
                       sv >= 0 ? fmt::format("{:.2f}", sv / r.params.clock_hz * 1e6) : "-",
                       nv >= 0 ? fmt::format("{:.2f}", nv / r.params.clock_hz * 1e6) : "-");
  }
  if (sim && !sim->metrics.empty()) {
    out << "\nfigures for `hopsim validate`:\n";
    for (const auto& m : sim->metrics) out << fmt::format("  {:<50} {:>12.0f} {}\n", m.configuration, m.value, m.unit);
  }
  for (const auto* m : {sim, nat}) {
    if (!m) continue;
    out << fmt::format("\n{}: {} of {} values checked {} | {} descriptors, {} packets{} | {:.2f} s host\n",
                       to_string(m->mode), m->wrong ? m->wrong : m->checked, m->checked, m->wrong ? "WRONG" : "correct",
                       m->descriptors, m->packets,
                       m->mode == Mode::sim ? fmt::format(", {} packet-hops", m->packet_hops) : "", m->wall_seconds);
    if (!m->instructions.empty()) {
      std::uint64_t total = 0;
      for (const auto n : m->instructions) total += n;
      out << fmt::format("counted compute: {} instructions on {} ranks (mean {:.0f} per rank)\n", total,
                         m->instructions.size(),
                         static_cast<double>(total) / static_cast<double>(m->instructions.size()));
    }
    if (!m->transport.requested.empty())
      out << fmt::format(
          "native: ranks as {}{}\n",
          m->transport.used == "threads" ? "host threads (transport threads)"
                                         : fmt::format("a process each, data moved by {}", m->transport.used),
          m->transport.fallback.empty()
              ? ""
              : fmt::format(" (FALLBACK: {} requested; {})", m->transport.requested, m->transport.fallback));
    for (std::size_t i = 0; i < m->checks.size() && i < 5; ++i)
      out << fmt::format("  CHECK FAILED {}: {} of {} wrong; e.g. {}\n", m->checks[i].what, m->checks[i].wrong,
                         m->checks[i].checked, m->checks[i].example);
  }
  for (const auto& m : r.modes)
    if (!m.trace.empty()) out << fmt::format("trace: {}\n", m.trace);
  if (r.compared)
    out << (r.differing_ranks.empty()
                ? "data: native and simulated runs produced identical data on every rank\n"
                : fmt::format("data: DIFFER between native and simulated runs on {} ranks (first: rank {})\n",
                              r.differing_ranks.size(), r.differing_ranks.front()));
}

void write_outputs(const BgqReport& r, const hopsim::RunReport& common) {
  nlohmann::json j;
  j["machine"] = r.machine;
  j["kernel"] = {{"name", r.scenario.kernel}, {"args", r.args}};
  std::string csv = "mode,rank,timing,iteration,cycles\n";
  for (const auto& m : r.modes) {
    nlohmann::json mj;
    mj["wall_seconds"] = m.wall_seconds;
    mj["checked"] = m.checked;
    mj["wrong"] = m.wrong;
    mj["descriptors"] = m.descriptors;
    mj["packets"] = m.packets;
    mj["payload_bytes"] = m.bytes;
    if (m.mode == Mode::sim) mj["packet_hops"] = m.packet_hops;
    if (!m.instructions.empty()) mj["instructions"] = m.instructions;
    if (!m.transport.requested.empty())
      mj["transport"] = {
          {"requested", m.transport.requested},
          {"used", m.transport.used},
          {"processes", m.transport.used != "threads"},
          {"fallback", m.transport.fallback.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.transport.fallback)}};
    if (!m.trace.empty()) mj["trace"] = m.trace;
    for (const auto& t : mean_timings(m)) mj["timings"][t.what] = t.cycles;
    mj["metrics"] = metrics_json(m.metrics);
    for (const auto d : m.digests) mj["digests"].push_back(fmt::format("{:016x}", d));
    j[to_string(m.mode)] = mj;
    for (std::size_t rk = 0; rk < m.timings.size(); ++rk)
      for (const auto& t : m.timings[rk])
        csv += fmt::format("{},{},{},{},{:.0f}\n", to_string(m.mode), rk, t.what, t.iter, t.cycles);
  }
  j["data_equal"] = r.compared ? nlohmann::json(r.differing_ranks.empty()) : nlohmann::json(nullptr);
  write_results(r.scenario, common, j, csv);
}

hopsim::RunReport common_report(const BgqReport& r) {
  hopsim::RunReport c;
  c.family = "bgq";
  c.kernel = r.scenario.kernel;
  c.machine = r.scenario.machine_preset;
  c.machine_summary = fmt::format("{} nodes, {:g} MHz", r.params.num_nodes(), r.params.clock_hz / 1e6);
  c.per = "iteration and rank";
  c.results_dir = r.scenario.outputs.dir;
  c.exit_code = exit_code(r);
  if (r.compared) c.data_equal = r.differing_ranks.empty();
  std::map<std::string, std::size_t> index;
  for (const auto& m : r.modes) {
    const bool sim = m.mode == Mode::sim;
    (sim ? c.sim : c.native) = true;
    (sim ? c.sim_wall_seconds : c.native_wall_seconds) = m.wall_seconds;
    const auto check = m.wrong == 0 ? std::string("ok") : fmt::format("FAIL:{}", m.wrong);
    for (const auto& t : mean_timings(m)) {
      if (!index.count(t.what)) {
        index[t.what] = c.timings.size();
        hopsim::Timing x;
        x.name = x.group = t.what;
        x.labels = {{"timing", t.what}};
        c.timings.push_back(std::move(x));
      }
      auto& x = c.timings[index[t.what]];
      (sim ? x.sim_cycles : x.native_cycles) = t.cycles;
      (sim ? x.sim_seconds : x.native_seconds) = t.cycles / r.params.clock_hz;
      (sim ? x.sim_check : x.native_check) = check;
    }
  }
  if (c.data_equal)
    for (auto& x : c.timings) x.data = *c.data_equal ? "equal" : "DIFFER";
  return c;
}

}  // namespace hopsim::bgq
