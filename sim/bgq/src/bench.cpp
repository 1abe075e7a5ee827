#include "hopsim/bgq/bench.hpp"

#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "hopsim/bgq/model/network.hpp"
#include "hopsim/bgq/run.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/log.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/progress.hpp"

namespace hopsim::bgq {

namespace {
void write_file(const std::string& path, const std::string& text) {
  try {
    write_file_atomic(path, text);
  } catch (const Error& e) {
    throw ConfigError(fmt::format("--csv: {}", e.what()));
  }
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

std::array<int, model::kDims> parse_torus(const std::string& s) {
  std::array<int, model::kDims> d{};
  std::stringstream ss(s);
  std::string part;
  int i = 0;
  while (std::getline(ss, part, 'x')) {
    if (i >= model::kDims) {
      ++i;  // a sixth extent: refused below
      break;
    }
    try {
      std::size_t used = 0;
      d[static_cast<std::size_t>(i)] = std::stoi(part, &used);
      if (used != part.size()) throw std::invalid_argument(part);
    } catch (const std::exception&) {
      throw ConfigError(fmt::format("--tori: '{}' is not AxBxCxDxE (five positive integers)", s));
    }
    ++i;
  }
  if (i != model::kDims || std::getline(ss, part, 'x'))
    throw ConfigError(fmt::format("--tori: '{}' is not AxBxCxDxE (five positive integers)", s));
  for (int v : d)
    if (v < 1 || v > 64) throw ConfigError(fmt::format("--tori: '{}': every extent must be 1..64", s));
  if (d[4] > 2) throw ConfigError(fmt::format("--tori: '{}': E is 1 or 2 on a BG/Q", s));
  return d;
}
}  // namespace

int package_sweep(const std::string& path, const std::vector<long>& packages, const std::vector<std::string>& sets,
                  const std::string& csv, std::ostream& out) {
  if (packages.empty()) throw ConfigError("--packages: give at least one package size");
  std::string table =
      "package,descriptors_per_node,comm_cycles,comp_cycles,no_overlap_cycles,overlap_cycles,comm_us,node_GBps\n";
  bool header = false;
  int code = 0;
  for (long pkg : packages) {
    auto o = sets;
    o.emplace_back(fmt::format("kernel.args.package={}", pkg));
    o.emplace_back("outputs.json=false");
    o.emplace_back("outputs.csv=false");
    const auto sc = load_scenario(path, o, std::string("sim"));
    log::set_level(sc.log_level);
    if (!header) {
      out << fmt::format(
          "package sweep of {} (simulated, {} iterations; cycles of the mean iteration and rank, serial: computation "
          "then communication)\n",
          path, sc.kernel_args.value("iterations", 3));
      // Cycles of the mean iteration: communication only, computation only, both one after the
      // other, both overlapped (the halo kernel's four figures).
      out << fmt::format("{:>9} {:>10} {:>12} {:>12} {:>12} {:>12} {:>10} {:>10}\n", "package B", "desc/node",
                         "comm cyc", "comp cyc", "serial cyc", "overlap cyc", "comm us", "GB/s/node");
      header = true;
    }
    const auto r = run(sc);
    code = std::max(code, exit_code(r));
    std::map<std::string, double> t;
    for (const auto& rank : r.modes.back().timings) {
      // A rank records four timings per iteration: the mean over iterations and ranks.
      const std::size_t samples = rank.size() / 4 * r.modes.back().timings.size();
      for (const auto& x : rank) t[x.what] += x.cycles / static_cast<double>(samples);
    }
    const double comm = t["communication only"];
    const double us = comm / r.params.clock_hz * 1e6;
    const double bytes =
        static_cast<double>(r.modes.back().bytes) / r.params.num_nodes() / (3.0 * r.args["iterations"].get<double>());
    const double gbps = bytes / (us * 1e-6) / 1e9;
    const double desc = static_cast<double>(r.modes.back().descriptors) / r.params.num_nodes() /
                        (3.0 * r.args["iterations"].get<double>());
    out << fmt::format("{:>9} {:>10.0f} {:>12.0f} {:>12.0f} {:>12.0f} {:>12.0f} {:>10.2f} {:>10.2f}\n", pkg, desc, comm,
                       t["computation only"], t["computation + communication without overlap"],
                       t["computation + communication overlapped"], us, gbps);
    table += fmt::format("{},{:.0f},{:.0f},{:.0f},{:.0f},{:.0f},{:.3f},{:.3f}\n", pkg, desc, comm,
                         t["computation only"], t["computation + communication without overlap"],
                         t["computation + communication overlapped"], us, gbps);
    if (r.modes.back().wrong) out << "  (data check FAILED in this run)\n";
  }
  if (!csv.empty()) {
    write_file(csv, table);
    out << "wrote " << csv << "\n";
  }
  return code;
}

namespace {

// Each node's destinations, `neighbours` per node: the ten torus neighbours,
// or the halo kernel's grid {A*B, C, D, E} where t steps through (A, B)
// row-major.
std::vector<std::uint32_t> neighbour_list(const model::Torus& torus, const std::array<int, model::kDims>& d,
                                          int neighbours) {
  const std::uint32_t n = torus.nodes();
  std::vector<std::uint32_t> nbr;
  nbr.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(neighbours));
  for (std::uint32_t v = 0; v < n; ++v) {
    if (neighbours == 10) {
      for (int dim = 0; dim < model::kDims; ++dim)
        for (int dir : {+1, -1}) nbr.push_back(torus.neighbour(v, dim, dir));
      continue;
    }
    auto c = torus.coords(v);
    const int ab = d[1];
    const int t = c[0] * ab + c[1], tn = d[0] * d[1];
    for (int dir : {+1, -1}) {
      const int u = ((t + dir) % tn + tn) % tn;
      auto x = c;
      x[0] = u / ab;
      x[1] = u % ab;
      nbr.push_back(torus.node_at(x));
    }
    for (int dim = 2; dim < model::kDims; ++dim)
      for (int dir : {+1, -1}) nbr.push_back(torus.neighbour(v, dim, dir));
  }
  return nbr;
}

struct Exchange {
  int neighbours = 0, iterations = 0;
  std::uint64_t msg = 0, package = 0;
};

// Cycles of all iterations' exchanges, a GI barrier between them.
double exchange_cycles(model::MuTiming& mu, const model::Params& p, const std::vector<std::uint32_t>& nbr,
                       const Exchange& x) {
  const std::uint32_t n = mu.network().torus().nodes();
  const model::Tick inject = model::to_ticks(p.inject_cycles);
  const model::Tick barrier = model::to_ticks(p.gi_barrier_latency);
  const auto per_node = static_cast<std::size_t>(x.neighbours);
  model::Tick start = 0;
  double total = 0;
  for (int it = 0; it < x.iterations; ++it) {
    mu.set_horizon(start);
    model::Tick end = start;
    for (std::uint32_t v = 0; v < n; ++v) {
      model::Tick clk = start;
      for (std::size_t j = 0; j < per_node; ++j) {
        const std::uint32_t dst = nbr[static_cast<std::size_t>(v) * per_node + j];
        for (std::uint64_t off = 0; off < x.msg; off += x.package) {
          clk += inject;
          const auto r = mu.inject(v, static_cast<std::uint32_t>(j), dst, x.package, clk, true);
          end = std::max(end, r.arrival);
        }
      }
    }
    total += model::to_cycles(end - start);
    start = end + barrier;
  }
  return total;
}

}  // namespace

int scale_benchmark(const std::string& machine, const std::vector<std::string>& tori, int iterations, std::uint64_t msg,
                    std::uint64_t package, int neighbours, const std::string& csv, std::ostream& out) {
  if (iterations < 1) throw ConfigError("--iterations: must be at least 1");
  if (msg == 0 || package == 0 || msg % package != 0)
    throw ConfigError(
        fmt::format("--msg {} / --package {}: the message must be a whole number of packages", msg, package));
  std::vector<std::array<int, model::kDims>> dims;
  dims.reserve(tori.size());
  for (const auto& t : tori) dims.push_back(parse_torus(t));
  const Preset preset = load_preset(machine, "--machine");
  if (preset.family != "bgq") throw ConfigError(fmt::format("--machine: {} is not a bgq preset", machine));
  // Before any output: the preset's torus model (its extents do not change it).
  if (model::params_from(ParamSet::resolve(model::param_decls(), preset, nlohmann::json::object(), "machine"))
          .torus_flow_control)
    throw ConfigError(
        fmt::format("{}: torus_flow_control=1: bgq scale times the link-calendar torus alone; run "
                    "programs or kernels (hopsim run, hopsim bgq exec) on the flow-controlled torus",
                    preset.file));
  out << fmt::format(
      "scale benchmark: {} neighbours x {} bytes in {}-byte descriptors, {} exchanges, dynamic routing, "
      "timing core only (no payload data)\n",
      neighbours, msg, package, iterations);
  out << fmt::format("{:>16} {:>8} {:>12} {:>14} {:>10} {:>12} {:>14} {:>16} {:>10}\n", "torus", "nodes", "exchange us",
                     "packets", "packet-hops", "host s", "packets/s", "packet-hops/s", "peak MiB");
  std::string table =
      "torus,nodes,exchange_us,packets,packet_hops,host_seconds,packets_per_s,packet_hops_per_s,peak_rss_mib\n";
  const Exchange x{neighbours, iterations, msg, package};
  // Progress by nodes simulated: a torus's time grows with its nodes.
  double nodes_total = 0, nodes_done = 0;
  for (const auto& d : dims) nodes_total += static_cast<double>(d[0]) * d[1] * d[2] * d[3] * d[4];
  Progress progress("bgq scale: torus", dims.size());
  std::size_t tori_done = 0;
  for (const auto& d : dims) {
    nlohmann::json o = {{"torus_a", d[0]}, {"torus_b", d[1]}, {"torus_c", d[2]}, {"torus_d", d[3]}, {"torus_e", d[4]}};
    const model::Params p = model::params_from(ParamSet::resolve(model::param_decls(), preset, o, "machine"));
    const auto t0 = std::chrono::steady_clock::now();
    model::MuTiming mu(p);
    const std::uint32_t n = mu.network().torus().nodes();
    const double exchange_total = exchange_cycles(mu, p, neighbour_list(mu.network().torus(), d, neighbours), x);
    const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double ex_us = exchange_total / iterations / p.clock_hz * 1e6;
    const auto pk = mu.network().packets(), hops = mu.network().packet_hops();
    const double rss = peak_rss_mib();
    const std::string name = fmt::format("{}x{}x{}x{}x{}", d[0], d[1], d[2], d[3], d[4]);
    out << fmt::format("{:>16} {:>8} {:>12.2f} {:>14} {:>10} {:>12.2f} {:>14.3g} {:>16.3g} {:>10.0f}\n", name, n, ex_us,
                       pk, hops, host, pk / host, hops / host, rss);
    out.flush();
    table += fmt::format("{},{},{:.3f},{},{},{:.3f},{:.4g},{:.4g},{:.0f}\n", name, n, ex_us, pk, hops, host, pk / host,
                         hops / host, rss);
    nodes_done += n;
    progress.update(++tori_done, name, nodes_done / nodes_total);
  }
  out << "peak MiB is the process's peak resident memory so far (getrusage), so it only grows down the table\n";
  if (!csv.empty()) {
    write_file(csv, table);
    out << "wrote " << csv << "\n";
  }
  return 0;
}

}  // namespace hopsim::bgq
