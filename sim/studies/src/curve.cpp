// hopsim curve: latency versus offered load of synthetic traffic, from a
// traffic scenario file and/or options (docs/traffic.md).

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hopsim/studies/curve.hpp"

#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/progress.hpp"
#include "hopsim/core/strict_json.hpp"
#include "hopsim/network/model/scenario.hpp"
#include "hopsim/network/model/traffic.hpp"
#include "hopsim/studies/plot.hpp"
#include "stats.hpp"

namespace hopsim::studies {

namespace {

// A reference latency curve: another simulator's (tests/bench/booksim_reference.sh
// writes BookSim2's) or an earlier hopsim curve. Columns (any order, others
// ignored): `offered` and the average total latency, `packet_latency` or
// `avg_latency`. A row with an empty latency, or (hopsim's own curves) a
// non-zero `saturated` or `saturated_seeds`, is a load the reference could
// not finish (saturated).
struct ReferencePoint {
  double offered;
  std::optional<double> latency;
  std::optional<double> accepted;  // the `accepted` column, when there is one
};

struct Reference {
  std::vector<ReferencePoint> points;  // by increasing offered load
  std::optional<double> saturation;    // the lowest load the reference could not finish
};

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out(1);
  for (char ch : line) {
    if (ch == ',') {
      out.emplace_back();
    } else if (ch != '\r') {
      out.back() += ch;
    }
  }
  return out;
}

Reference read_reference(const std::string& path) {
  std::ifstream is(path);
  if (!is) throw ConfigError(fmt::format("--reference {}: cannot open the file", path));
  std::string line;
  int lineno = 0, c_offered = -1, c_latency = -1, c_accepted = -1, c_saturated = -1;
  std::size_t columns = 0;
  Reference ref;
  auto number = [&](const std::string& text, const char* what) {
    try {
      std::size_t used = 0;
      const double v = std::stod(text, &used);
      if (used == text.size() && std::isfinite(v)) return v;
    } catch (const std::exception&) {
    }
    throw ConfigError(fmt::format("--reference {}:{}: {} '{}' is not a number", path, lineno, what, text));
  };
  while (std::getline(is, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    const auto cells = split_csv_line(line);
    if (c_offered < 0) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i] == "offered") c_offered = static_cast<int>(i);
        if (cells[i] == "accepted") c_accepted = static_cast<int>(i);
        if (cells[i] == "saturated" || cells[i] == "saturated_seeds") c_saturated = static_cast<int>(i);
        if ((cells[i] == "packet_latency" || cells[i] == "avg_latency") && c_latency < 0)
          c_latency = static_cast<int>(i);
      }
      if (c_offered < 0 || c_latency < 0)
        throw ConfigError(
            fmt::format("--reference {}:{}: the header needs the columns 'offered' and 'packet_latency' "
                        "(or 'avg_latency'), got '{}'",
                        path, lineno, line));
      columns = cells.size();
      continue;
    }
    if (cells.size() != columns)
      throw ConfigError(
          fmt::format("--reference {}:{}: {} cells, the header has {}", path, lineno, cells.size(), columns));
    ReferencePoint p{number(cells[static_cast<std::size_t>(c_offered)], "offered load"), std::nullopt, std::nullopt};
    if (!(p.offered > 0 && p.offered <= 1))
      throw ConfigError(fmt::format("--reference {}:{}: offered load {} is outside (0, 1]", path, lineno, p.offered));
    if (!ref.points.empty() && p.offered <= ref.points.back().offered)
      throw ConfigError(fmt::format("--reference {}:{}: offered loads must increase", path, lineno));
    const auto& lat = cells[static_cast<std::size_t>(c_latency)];
    if (!lat.empty()) p.latency = number(lat, "latency");
    if (c_saturated >= 0 && !cells[static_cast<std::size_t>(c_saturated)].empty() &&
        number(cells[static_cast<std::size_t>(c_saturated)], "saturated") > 0)
      p.latency.reset();
    if (c_accepted >= 0 && p.latency && !cells[static_cast<std::size_t>(c_accepted)].empty())
      p.accepted = number(cells[static_cast<std::size_t>(c_accepted)], "accepted load");
    if (!p.latency && !ref.saturation) ref.saturation = p.offered;
    ref.points.push_back(p);
  }
  if (ref.points.empty()) throw ConfigError(fmt::format("--reference {}: no data rows", path));
  return ref;
}

nlohmann::json scenario_document(const CurveOptions& o) {
  nlohmann::json doc =
      o.scenario.empty() ? nlohmann::json::object() : read_json_file(find_data_file(o.scenario, "traffic scenario"));
  if (!doc.is_object()) throw ConfigError((o.scenario.empty() ? "scenario" : o.scenario) + ": expected a JSON object");
  // The scenario's section an option sets a key of: an object (made when missing).
  auto section = [&doc](const char* name) -> nlohmann::json& {
    auto& v = doc[name];
    if (!v.is_null() && !v.is_object())
      throw ConfigError(fmt::format("{}: expected an object, got {}", name, v.type_name()));
    return v;
  };
  if (o.machine) section("network")["preset"] = *o.machine;
  if (o.topology) section("network")["topology"] = *o.topology;
  if (o.routing) section("network")["routing"] = *o.routing;
  if (o.dims) section("network")["dims"] = *o.dims;
  if (o.rows > 0 || o.cols > 0) {
    if (o.rows <= 0 || o.cols <= 0) throw ConfigError("--rows and --cols: give both, each at least 1");
    section("network")["dims"] = {o.rows, o.cols};
  }
  if (o.pattern) section("traffic")["pattern"] = *o.pattern;
  if (o.injection) section("traffic")["injection"] = *o.injection;
  if (o.bytes) section("traffic")["packet_bytes"] = *o.bytes;
  if (o.step) section("curve")["step"] = *o.step;
  if (o.max_load) section("curve")["max"] = *o.max_load;
  if (o.threads) section("traffic")["threads"] = *o.threads;
  for (const auto& s : o.sets) apply_override(doc, "network.params." + s);
  for (const auto& k : o.keys) apply_override(doc, k, "--key");
  return doc;
}

// Checks the output and comparison options; the reference curve when one is named.
std::optional<Reference> checked_reference(const CurveOptions& o) {
  if (!o.png.empty()) {
    const auto ext = std::filesystem::path(o.png).extension().string();
    if (ext != ".png" && ext != ".svg")
      throw ConfigError(fmt::format("--png {}: unknown image format '{}' (use .png or .svg)", o.png, ext));
    check_writable(o.png, "--png");
  }
  if (!o.csv.empty()) check_writable(o.csv, "--csv");
  if (!o.reference.empty()) {
    if (!(o.below > 0 && o.below <= 1)) throw ConfigError(fmt::format("--below {}: must be in (0, 1]", o.below));
    return read_reference(o.reference);
  }
  if (o.max_error) throw ConfigError("--max-error: needs --reference");
  if (o.max_saturation_error) throw ConfigError("--max-saturation-error: needs --reference");
  return std::nullopt;
}

// The curve's points: at the reference's own loads up to hopsim's
// saturation, else by the scenario's step.
// Loads a curve runs at most (it stops at saturation).
std::size_t max_loads(const network::model::TrafficScenario& sc, const std::optional<Reference>& ref) {
  if (ref) return ref->points.size();
  return static_cast<std::size_t>(std::max(1.0, std::floor(sc.curve_max / sc.curve_step + 1e-9)));
}

// `each` after every load (progress).
std::vector<network::model::TrafficResult> run_points(const network::model::TrafficScenario& sc,
                                                      const std::optional<Reference>& ref, std::uint64_t seed,
                                                      const std::function<void(double load)>& each) {
  std::vector<network::model::TrafficResult> results;
  auto base = sc.config;
  base.seed = seed;
  try {
    if (!ref)
      return network::model::latency_curve(base, sc.curve_step, sc.curve_max,
                                           [&](const network::model::TrafficResult& r) { each(r.offered); });
    for (const auto& p : ref->points) {
      auto c = base;
      c.offered_load = p.offered;
      results.push_back(network::model::run_traffic(c));
      each(p.offered);
      if (results.back().saturated) break;
    }
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  } catch (const network::model::NetworkDeadlock& e) {
    throw DeadlockError(e.what());
  }
  return results;
}

std::string sizes_text(const network::model::TrafficConfig& cfg) {
  if (cfg.packet_sizes.empty()) return fmt::format("{} B", cfg.packet_bytes);
  std::string sizes;
  for (const auto& s : cfg.packet_sizes)
    sizes += fmt::format("{}{} B x{}", sizes.empty() ? "" : ", ", s.bytes, s.weight);
  return sizes;
}

// "latency vs offered load: uniform traffic (bernoulli) on a 8x8 mesh (...), packets of 8 B, step 0.05"
std::string heading(const network::model::TrafficScenario& sc, bool at_reference) {
  const auto& cfg = sc.config;
  return fmt::format("latency vs offered load: {} traffic ({}) on a {} ({}), packets of {}, {}",
                     network::model::to_string(cfg.pattern), cfg.bursty ? "bursty" : "bernoulli",
                     network::model::describe(cfg), sc.preset, sizes_text(cfg),
                     at_reference ? "at the reference's loads" : fmt::format("step {}", sc.curve_step));
}

// The units of both tables' columns.
constexpr const char* kUnits =
    "(offered, accepted: packets per node per cycle; latencies: cycles; hops: links per packet; max util: the "
    "busiest link's busy share of the window)\n";

// Prints the curve's table and returns it as CSV.
std::string print_curve(const network::model::TrafficScenario& sc,
                        const std::vector<network::model::TrafficResult>& results, bool at_reference) {
  std::cout << heading(sc, at_reference) << "\n" << kUnits;
  std::cout << fmt::format("{:>8} {:>9} {:>10} {:>10} {:>10} {:>10} {:>6} {:>8} {}\n", "offered", "accepted", "avg lat",
                           "p50", "p99", "net lat", "hops", "max util", "");
  std::string csv =
      "offered,accepted,avg_latency,p50_latency,p99_latency,avg_network_latency,avg_hops,max_link_utilisation,"
      "saturated\n";
  for (const auto& r : results) {
    const auto j = network::model::result_json(r);
    const double max_u = j["max_link_utilisation"].get<double>();
    std::cout << fmt::format("{:>8.3f} {:>9.4f} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>6.2f} {:>8.3f} {}\n",
                             r.offered, r.accepted, r.avg_latency, r.p50_latency, r.p99_latency, r.avg_network_latency,
                             r.avg_hops, max_u, r.saturated ? "SATURATED" : "");
    csv += fmt::format("{},{},{},{},{},{},{},{},{}\n", r.offered, r.accepted, r.avg_latency, r.p50_latency,
                       r.p99_latency, r.avg_network_latency, r.avg_hops, max_u, r.saturated ? 1 : 0);
  }
  if (!at_reference && !results.empty() && !results.back().saturated)
    std::cout << fmt::format("not saturated up to load {} (raise --max)\n", results.back().offered);
  return csv;
}

// Over every seed's run.
void print_host_time(const std::vector<std::vector<network::model::TrafficResult>>& runs, double host_s) {
  std::uint64_t simulated = 0;
  double setup_s = 0, run_s = 0;
  unsigned threads = 1;
  for (const auto& results : runs)
    for (const auto& r : results) {
      simulated += r.packets_simulated;
      setup_s += r.host_setup_seconds;
      run_s += r.host_run_seconds;
      threads = std::max(threads, r.host_threads);
    }
  std::cout << fmt::format(
      "host: {} packets simulated in {:.3f} s, {:.0f} packets per host second{}; network set-up {:.3f} s; {:.3f} s "
      "in all\n",
      simulated, run_s, run_s > 0 ? static_cast<double>(simulated) / run_s : 0.0,
      threads > 1 ? fmt::format(" ({} threads)", threads) : std::string(), setup_s, host_s);
}

// The curve against the reference: every load below `below` x its
// saturation (all its loads when it never saturated) is compared.
struct Against {
  std::string csv;
  plot::Series reference{"reference", {}, {}};
  int compared = 0, off = 0;
  double worst = 0;
  std::optional<double> saturation_error;  // percent: saturation throughput against the reference's
};

// Saturation throughput: the accepted load at the highest load each side
// finished (the reference's rows with a latency; hopsim's unsaturated runs,
// at the same loads). Needs the reference's `accepted` column and its
// saturation inside its loads.
void compare_saturation(const Reference& ref, const std::vector<network::model::TrafficResult>& results, Against& a) {
  const ReferencePoint* last_ref = nullptr;
  for (const auto& p : ref.points)
    if (p.latency && p.accepted) last_ref = &p;
  const network::model::TrafficResult* last = nullptr;
  for (const auto& r : results)
    if (!r.saturated) last = &r;
  if (!ref.saturation || last_ref == nullptr || last == nullptr) return;
  const bool open = !results.back().saturated;
  a.saturation_error = 100.0 * (last->accepted - *last_ref->accepted) / *last_ref->accepted;
  std::cout << fmt::format(
      "saturation throughput (accepted at the highest load finished): hopsim {:.4f} at offered {:g}{}, reference "
      "{:.4f} at offered {:g}: {:+.2f}%\n",
      last->accepted, last->offered, open ? " (hopsim finished every load: a lower bound)" : "", *last_ref->accepted,
      last_ref->offered, *a.saturation_error);
}

// One reference load: its table row and CSV row; counts it in `a`.
void compare_point(const CurveOptions& o, const ReferencePoint& p, const network::model::TrafficResult* r, double limit,
                   Against& a, std::optional<double> ci) {
  if (p.latency) {
    a.reference.x.push_back(p.offered);
    a.reference.y.push_back(*p.latency);
  }
  const bool ok_h = r != nullptr && !r->saturated;
  const bool in = p.offered <= limit + 1e-12 && p.latency.has_value();
  std::string err_text = "-", note;
  double err = 0;
  if (ok_h && p.latency) {
    err = 100.0 * (r->avg_latency - *p.latency) / *p.latency;
    err_text = fmt::format("{:+.2f}%", err);
  }
  if (in) {
    ++a.compared;
    if (!ok_h) {
      note = "hopsim saturated";
      ++a.off;
      a.worst = std::numeric_limits<double>::infinity();
    } else {
      a.worst = std::max(a.worst, std::abs(err));
      if (o.max_error && std::abs(err) > *o.max_error) {
        note = fmt::format("beyond {:g}%", *o.max_error);
        ++a.off;
      }
    }
  } else {
    note = "not compared";
  }
  std::cout << fmt::format(
      "{:>8.3f} {:>16} {:>10} {:>8} {}\n", p.offered,
      ok_h ? fmt::format("{:.2f}{}", r->avg_latency,
                         ci ? (std::isnan(*ci) ? std::string(" +--") : fmt::format(" +-{:.2f}", *ci)) : std::string())
           : std::string(r ? "saturated" : "-"),
      p.latency ? fmt::format("{:.2f}", *p.latency) : std::string("saturated"), err_text, note);
  a.csv += fmt::format("{},{},{},{},{}{}\n", p.offered, ok_h ? fmt::format("{}", r->avg_latency) : std::string(),
                       p.latency ? fmt::format("{}", *p.latency) : std::string(),
                       ok_h && p.latency ? fmt::format("{}", err) : std::string(), in ? 1 : 0,
                       ci ? (ok_h && !std::isnan(*ci) ? fmt::format(",{}", *ci) : std::string(",")) : std::string());
}

// `ci`: with seeds, each load's 95% interval half-width (results are the means).
Against compare_with(const CurveOptions& o, const Reference& ref,
                     const std::vector<network::model::TrafficResult>& results, const std::vector<double>& ci = {}) {
  const double limit = ref.saturation ? o.below * *ref.saturation : 2.0;
  std::cout << fmt::format("\nagainst {}: {}\n", o.reference,
                           ref.saturation ? fmt::format("saturated at offered {:g}; compared below {:g} x that = {:g}",
                                                        *ref.saturation, o.below, limit)
                                          : std::string("never saturated; every load compared"));
  std::cout << fmt::format("{:>8} {:>16} {:>10} {:>8} {}\n", "offered", ci.empty() ? "hopsim" : "hopsim (95%)",
                           "reference", "error", "");
  Against a;
  a.csv = std::string("offered,avg_latency,reference_latency,error_percent,compared") +
          (ci.empty() ? "\n" : ",avg_latency_ci95\n");
  for (std::size_t i = 0; i < ref.points.size(); ++i)
    compare_point(o, ref.points[i], i < results.size() ? &results[i] : nullptr, limit, a,
                  i < ci.size() ? std::optional<double>(ci[i]) : std::nullopt);
  if (results.back().saturated)
    std::cout << fmt::format("hopsim saturated at offered {:g}{}\n", results.back().offered,
                             ref.saturation
                                 ? fmt::format(" ({:+.0f}% from the reference's {:g})",
                                               100.0 * (results.back().offered / *ref.saturation - 1), *ref.saturation)
                                 : std::string());
  compare_saturation(ref, results, a);
  std::cout << fmt::format("{} loads compared, largest |error| {:.2f}%\n", a.compared, a.worst);
  if (a.compared == 0)
    throw ConfigError(
        fmt::format("--reference {}: no load to compare below {:g} x its saturation", o.reference, o.below));
  return a;
}

// The chart: latency below saturation (the saturated point's latency only
// says "unbounded"); against a reference, hopsim's average and the reference's.
void plot_curve(const CurveOptions& o, const network::model::TrafficScenario& sc,
                const std::vector<network::model::TrafficResult>& results, const std::optional<Against>& against) {
  const auto& cfg = sc.config;
  plot::LineChart chart;
  chart.title = fmt::format("{} traffic on a {} ({})", network::model::to_string(cfg.pattern),
                            network::model::describe(cfg), sc.preset);
  if (!results.empty() && results.back().saturated)
    chart.title += fmt::format(", saturated at offered {:g}", results.back().offered);
  chart.x_label = "offered load (packets per node per cycle)";
  chart.y_label = "latency (cycles)";
  plot::Series avg{"average total latency", {}, {}}, p99{"p99 total latency", {}, {}},
      net{"average network latency", {}, {}};
  for (const auto& r : results) {
    if (r.saturated) continue;
    for (auto* sr : {&avg, &p99, &net}) sr->x.push_back(r.offered);
    avg.y.push_back(r.avg_latency);
    p99.y.push_back(r.p99_latency);
    net.y.push_back(r.avg_network_latency);
  }
  if (avg.x.empty()) throw ConfigError("--png: no load below saturation to plot (lower --step)");
  chart.series = {avg, net, p99};
  if (against) {
    avg.name = "hopsim";
    chart.series = {avg, against->reference};
    chart.title += " vs " + std::filesystem::path(o.reference).stem().string();
  }
  plot::save(chart, o.png);
  std::cout << "wrote " << o.png << "\n";
}

// One load over the seeds: statistics over the seeds that did not saturate there.
struct SeededPoint {
  double offered = 0;
  std::size_t ran = 0, saturated = 0;  // seeds that reached this load; of them, saturated at it
  Interval accepted, avg, p99, net;
};

// Seed k's curve is runs[k]; each stops at its own first saturated load.
std::vector<SeededPoint> aggregate(const std::vector<std::vector<network::model::TrafficResult>>& runs) {
  std::vector<SeededPoint> out;
  for (std::size_t i = 0;; ++i) {
    SeededPoint p;
    std::vector<double> acc, avg, p99, net;
    for (const auto& r : runs) {
      if (i >= r.size()) continue;
      p.offered = r[i].offered;
      ++p.ran;
      if (r[i].saturated) {
        ++p.saturated;
        continue;
      }
      acc.push_back(r[i].accepted);
      avg.push_back(r[i].avg_latency);
      p99.push_back(r[i].p99_latency);
      net.push_back(r[i].avg_network_latency);
    }
    if (p.ran == 0) return out;
    p.accepted = interval(acc);
    p.avg = interval(avg);
    p.p99 = interval(p99);
    p.net = interval(net);
    out.push_back(p);
  }
}

// The table over the seeds; returns its CSV.
std::string print_seeded(const network::model::TrafficScenario& sc, const std::vector<SeededPoint>& points,
                         const std::vector<std::vector<network::model::TrafficResult>>& runs, bool at_reference) {
  const auto& cfg = sc.config;
  std::cout << heading(sc, at_reference)
            << fmt::format(
                   ", {} seeds from {} (mean and 95% interval over the seeds that did not saturate at a load)\n",
                   runs.size(), cfg.seed)
            << kUnits;
  std::cout << fmt::format("{:>8} {:>6} {:>9} {:>10} {:>8} {:>10} {:>10} {:>8} {}\n", "offered", "seeds", "accepted",
                           "avg lat", "+-95%", "p99", "net lat", "+-95%", "");
  std::string csv =
      "offered,seeds,saturated_seeds,accepted,avg_latency,avg_latency_ci95,p99_latency,avg_network_latency,"
      "avg_network_latency_ci95\n";
  for (const auto& p : points) {
    const std::string note = p.saturated ? fmt::format("SATURATED in {} of {}", p.saturated, p.ran) : "";
    if (p.avg.n == 0) {
      std::cout << fmt::format("{:>8.3f} {:>6} {:>9} {:>10} {:>8} {:>10} {:>10} {:>8} {}\n", p.offered, p.ran, "-", "-",
                               "-", "-", "-", "-", note);
      csv += fmt::format("{},{},{},,,,,,\n", p.offered, p.ran, p.saturated);
      continue;
    }
    // One seed left at this load: no interval ("-", an empty CSV cell).
    const bool one = p.avg.n < 2;
    auto half = [&](double h, const char* spec) { return one ? std::string("-") : fmt::format(fmt::runtime(spec), h); };
    std::cout << fmt::format("{:>8.3f} {:>6} {:>9.4f} {:>10.2f} {:>8} {:>10.2f} {:>10.2f} {:>8} {}\n", p.offered, p.ran,
                             p.accepted.mean, p.avg.mean, half(p.avg.half, "{:.2f}"), p.p99.mean, p.net.mean,
                             half(p.net.half, "{:.2f}"), note);
    csv += fmt::format("{},{},{},{},{},{},{},{},{}\n", p.offered, p.ran, p.saturated, p.accepted.mean, p.avg.mean,
                       one ? std::string() : fmt::format("{}", p.avg.half), p.p99.mean, p.net.mean,
                       one ? std::string() : fmt::format("{}", p.net.half));
  }
  // The saturation point: each seed's first saturated load.
  std::vector<double> sat;
  for (const auto& r : runs)
    if (!r.empty() && r.back().saturated) sat.push_back(r.back().offered);
  if (!sat.empty()) {
    const auto iv = interval(sat);
    std::cout << fmt::format(
        "saturation: offered {:.3f} +-{:.3f} (95%, {} seeds; from {:g} to {:g}){}\n", iv.mean, iv.half, sat.size(),
        *std::min_element(sat.begin(), sat.end()), *std::max_element(sat.begin(), sat.end()),
        sat.size() < runs.size() ? fmt::format("; {} seeds did not saturate", runs.size() - sat.size())
                                 : std::string());
  } else if (!at_reference && !points.empty()) {
    std::cout << fmt::format("not saturated up to load {} in any seed (raise --max)\n", points.back().offered);
  }
  return csv;
}

// The means as curve points for the comparison and the chart: a load where
// any seed saturated counts as saturated.
std::vector<network::model::TrafficResult> means(const std::vector<SeededPoint>& points) {
  std::vector<network::model::TrafficResult> out;
  for (const auto& p : points) {
    network::model::TrafficResult r;
    r.offered = p.offered;
    r.accepted = p.accepted.mean;
    r.avg_latency = p.avg.mean;
    r.p99_latency = p.p99.mean;
    r.avg_network_latency = p.net.mean;
    r.saturated = p.saturated > 0;
    out.push_back(r);
    if (r.saturated) break;
  }
  return out;
}

}  // namespace

std::span<const ScenarioKey> traffic_scenario_keys() { return network::model::traffic_scenario_keys(); }

int run_curve(const CurveOptions& o) {
  if (o.seeds < 1 || o.seeds > 1000) throw ConfigError(fmt::format("--seeds {}: must be in 1..1000", o.seeds));
  const auto sc =
      network::model::load_traffic_scenario(scenario_document(o), o.scenario.empty() ? "options" : o.scenario);
  const auto ref = checked_reference(o);
  if (!ref && sc.curve_step > sc.curve_max + 1e-9)
    throw ConfigError(fmt::format(
        "curve.max {:g} is below curve.step {:g}: the curve's loads are step, 2 x step, ... up to max (lower --step or "
        "raise --max)",
        sc.curve_max, sc.curve_step));
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::vector<network::model::TrafficResult>> runs;
  // At most this many loads: a seed that saturates skips the rest of its share.
  const std::size_t per_seed = max_loads(sc, ref);
  Progress progress("curve: load", per_seed * static_cast<std::size_t>(o.seeds));
  for (int k = 0; k < o.seeds; ++k) {
    std::size_t load_index = 0;
    runs.push_back(run_points(sc, ref, sc.config.seed + static_cast<std::uint64_t>(k), [&](double load) {
      progress.update(
          static_cast<std::size_t>(k) * per_seed + ++load_index,
          o.seeds > 1 ? fmt::format("({:.3f}, seed {}/{})", load, k + 1, o.seeds) : fmt::format("({:.3f})", load));
    }));
    progress.update(static_cast<std::size_t>(k + 1) * per_seed,
                    o.seeds > 1 ? fmt::format("(seed {}/{} done)", k + 1, o.seeds) : std::string("(done)"));
  }
  const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<network::model::TrafficResult> results;
  std::vector<double> ci;
  std::string csv;
  if (o.seeds == 1) {
    results = runs.front();
    csv = print_curve(sc, results, ref.has_value());
  } else {
    const auto points = aggregate(runs);
    csv = print_seeded(sc, points, runs, ref.has_value());
    results = means(points);
    for (const auto& p : points) ci.push_back(p.avg.n < 2 ? std::nan("") : p.avg.half);
  }
  print_host_time(runs, host_s);
  std::optional<Against> against;
  if (ref) {
    against = compare_with(o, *ref, results, ci);
    csv = against->csv;
  }
  if (!o.csv.empty()) {
    write_file_atomic(o.csv, csv);
    std::cout << "wrote " << o.csv << "\n";
  }
  if (!o.png.empty()) plot_curve(o, sc, results, against);
  if (o.max_error && against->off > 0) {
    std::cerr << fmt::format("hopsim curve: {} of {} compared loads are more than {:g}% from {}\n", against->off,
                             against->compared, *o.max_error, o.reference);
    return 3;
  }
  if (o.max_saturation_error) {
    if (!against->saturation_error)
      throw ConfigError(
          fmt::format("--max-saturation-error: {} gives no saturation throughput (it needs an "
                      "'accepted' column and a load it could not finish)",
                      o.reference));
    if (std::abs(*against->saturation_error) > *o.max_saturation_error) {
      std::cerr << fmt::format("hopsim curve: the saturation throughput is {:+.2f}% from {}'s (limit {:g}%)\n",
                               *against->saturation_error, o.reference, *o.max_saturation_error);
      return 3;
    }
  }
  return 0;
}

}  // namespace hopsim::studies
