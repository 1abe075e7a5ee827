// hopsim host predict: the native ring `runs` times, the CPUs probed around
// every launch, and the host model of the profile for the same cells; per
// cell the median native bandwidth against the prediction.
#include <fmt/format.h>
#include <unistd.h>
#include <chrono>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "csv_file.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/progress.hpp"
#include "hopsim/host/calibrate.hpp"
#include "hopsim/host/model/model.hpp"
#include "hopsim/host/model/profile.hpp"
#include "hopsim/host/model/report.hpp"

namespace hopsim::host::commands {
namespace {

namespace hh = hopsim::host;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void check_predict_args(const RingArgs& a, const PredictArgs& o) {
  if (!a.profile) throw ConfigError("--profile: required (written by hopsim host calibrate)");
  if (o.runs < 1) throw ConfigError(fmt::format("--runs: {} (at least 1)", o.runs));
  if (!(o.max_error >= 0 && o.max_error < 1e6))
    throw ConfigError(fmt::format("--max-error: {} (a relative error >= 0, e.g. 0.25 for 25%)", o.max_error));
  if (o.cpu_speed != "calibrated" && o.cpu_speed != "probed")
    throw ConfigError(fmt::format("--cpu-speed: '{}' (expected calibrated or probed)", o.cpu_speed));
  if (o.placement != "calibrated" && o.placement != "probed")
    throw ConfigError(fmt::format("--placement: '{}' (expected calibrated or probed)", o.placement));
}

// The probe of the CPUs' speeds around every native launch, relative to
// the rate the profile's tables were measured at; none for a profile
// without that reference (a described machine), which cannot be compared
// with this one's CPUs.
Probe probe_for(const hh::model::Profile& p, const PredictArgs& o) {
  if (o.placement == "probed" && !p.has_apart())
    std::cerr << fmt::format(
        "hopsim host predict: --placement probed: profile '{}' has no exchange tables measured with the CPUs apart "
        "(its calibration did not meet that placement); every cell is simulated in the profile's placement\n",
        p.name);
  const bool probing = p.checksum_rate > 0;
  if (o.cpu_speed == "probed" && !probing)
    throw ConfigError(fmt::format(
        "--cpu-speed probed: profile '{}' has no checksum_rate (0), so probed CPU speeds have nothing to be relative "
        "to; recalibrate with hopsim host calibrate",
        p.name));
  Probe probe;
  if (probing) probe = [] { return hh::checksum_rates(0.05); };
  return probe;
}

// The native table `runs` times, and per cell what the runs give together.
struct NativeRuns {
  std::vector<std::vector<hh::RingCell>> all;           // per run, per cell
  std::vector<std::vector<std::vector<double>>> rates;  // per run, per cell, per CPU: probed rate, B/s
  std::vector<std::vector<double>> speed;               // per cell: the mean probed speed of each CPU
  std::vector<double> handover;                         // per cell: the median run's hand-over
  std::vector<char> apart;                              // per cell: that run had the CPUs apart
  [[nodiscard]] const std::vector<hh::RingCell>& first() const { return all.front(); }
};

// Per cell: the mean probed speed of each CPU over the runs.
void mean_speeds(NativeRuns& n, const hh::model::Profile& p, int runs) {
  const auto& native = n.first();
  n.speed.assign(native.size(), {});
  if (!(p.checksum_rate > 0)) return;  // not probed
  for (std::size_t i = 0; i < native.size(); ++i) {
    std::vector<double> s(static_cast<std::size_t>(p.cores), 0.0);
    for (const auto& run : n.rates)
      for (std::size_t c = 0; c < s.size() && c < run[i].size(); ++c)
        s[c] += run[i][c] / p.checksum_rate / static_cast<double>(runs);
    n.speed[i] = std::move(s);
  }
}

// Per cell: the hand-over of ranks 0 and 1 around the run whose bandwidth
// is the median (the lower middle one for an even count), and whether
// that run had the CPUs apart where the profile's tables are near.
void median_handovers(NativeRuns& n, const hh::model::Profile& p) {
  const std::size_t cells = n.first().size();
  n.handover.assign(cells, -1.0);
  n.apart.assign(cells, 0);
  for (std::size_t i = 0; i < cells; ++i) {
    std::vector<std::pair<double, double>> by_bw;  // (bandwidth, hand-over) per run
    by_bw.reserve(n.all.size());
    for (const auto& run : n.all) by_bw.emplace_back(run[i].bandwidth, run[i].handover);
    std::sort(by_bw.begin(), by_bw.end());
    n.handover[i] = by_bw[(by_bw.size() - 1) / 2].second;
    n.apart[i] = static_cast<char>(host::apart_from(n.handover[i], p.exchange_handover));
  }
}

NativeRuns run_native_runs(const RingArgs& a, const hh::model::Profile& p, const Probe& probe, int runs) {
  NativeRuns n;
  n.all.reserve(static_cast<std::size_t>(runs));
  n.rates.resize(static_cast<std::size_t>(runs));
  Progress progress("host predict: native run", static_cast<std::size_t>(runs));
  for (int k = 0; k < runs; ++k) {
    n.all.push_back(run_native(a, probe, &n.rates[static_cast<std::size_t>(k)]));
    progress.update(static_cast<std::size_t>(k) + 1);
  }
  mean_speeds(n, p, runs);
  median_handovers(n, p);
  return n;
}

// The model: each cell in the profile's placement, or (`by_placement`:
// --placement probed, with apart tables in the profile) the cells run
// apart on the profile's apart view.
std::vector<hh::model::SimResult> simulate_cells(const hh::model::Profile& p, const NativeRuns& n, const RingArgs& a,
                                                 bool by_placement, bool probed_speeds) {
  const auto& native = n.first();
  std::vector<hh::model::SimResult> sim(native.size());
  for (const bool in_apart : {false, true}) {
    std::vector<Key> keys;
    std::vector<std::vector<double>> sp;
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < native.size(); ++i) {
      if ((by_placement && n.apart[i] != 0) != in_apart) continue;
      const auto& c = native[i];
      keys.push_back({c.procs, c.used, c.size, c.iters, c.order == "random"});
      sp.push_back(n.speed[i]);
      idx.push_back(i);
    }
    if (keys.empty()) continue;
    const auto got =
        simulate(in_apart ? p.as_apart() : p, keys, a, probed_speeds ? sp : std::vector<std::vector<double>>{});
    for (std::size_t k = 0; k < idx.size(); ++k) sim[idx[k]] = got[k];
  }
  return sim;
}

// Cell i's row of the report.
hh::model::PredictRow predict_row(const hh::model::Profile& p, const NativeRuns& n, std::size_t i,
                                  const hh::model::SimResult& sim, bool by_placement) {
  const auto& c = n.first()[i];
  std::vector<double> bw;
  bw.reserve(n.all.size());
  std::string used = used_text(c);
  for (const auto& run : n.all) {
    bw.push_back(run[i].bandwidth);
    if (!run[i].fallback.empty()) used = used_text(run[i]);
  }
  hh::model::PredictRow r;
  r.procs = c.procs;
  r.size = c.size;
  r.order = c.order;
  r.requested = std::string(host::kind_name(c.requested));
  r.used = std::string(host::kind_name(c.used));
  r.used_text = used;
  r.native = median(bw);
  r.native_min = *std::min_element(bw.begin(), bw.end());
  r.native_max = *std::max_element(bw.begin(), bw.end());
  r.runs = static_cast<int>(n.all.size());
  r.predicted = sim.bandwidth;
  r.fraction = r.native / p.at(p.memcpy_bw, static_cast<double>(c.size));
  r.yields = sim.yields;
  r.background = sim.background;
  r.speed = n.speed[i];
  r.handover = n.handover[i];
  r.profile_handover = p.exchange_handover;
  // Simulated in its own placement: not a cell the profile missed.
  r.moved = host::placement_differs(r.handover, r.profile_handover) && !(by_placement && n.apart[i] != 0);
  r.modelled_apart = by_placement && n.apart[i] != 0;
  for (std::size_t k = 0; k < r.speed.size() && k < p.core_speed.size(); ++k)
    r.drift = std::max(r.drift, std::abs(r.speed[k] / p.core_speed[k] - 1));
  return r;
}

// The report's first line: the runs and what the model was given.
std::string predict_heading(const hh::model::Profile& p, const PredictArgs& o, bool by_placement) {
  const bool probed = o.cpu_speed == "probed";
  return fmt::format(
      "native ring (median of {} run{}, spread = max/min - 1) vs host model '{}' ({})\n", o.runs,
      o.runs == 1 ? "" : "s", p.name,
      probed || by_placement
          ? fmt::format("the profile, with {}{}{}",
                        probed ? "each cell's CPU speeds probed around its native runs (--cpu-speed "
                                 "probed)"
                               : "",
                        probed && by_placement ? " and " : "",
                        by_placement ? "the cells whose native run had the CPUs apart simulated on its tables "
                                       "measured apart (--placement probed; + marks them)"
                                     : "")
          : std::string("the profile is the model's only input"));
}

}  // namespace

int cmd_predict(RingArgs a, const PredictArgs& o) {
  check_predict_args(a, o);
  const auto p = hh::model::load_profile(*a.profile);
  auto csv = open_csv(a.csv);  // before measuring: a bad path fails at once
  const Probe probe = probe_for(p, o);
  // Per cell the median bandwidth of the runs counts.
  const auto n = run_native_runs(a, p, probe, o.runs);
  const auto& native = n.first();
  const bool by_placement = o.placement == "probed" && p.has_apart();
  const auto sim = simulate_cells(p, n, a, by_placement, o.cpu_speed == "probed");
  std::vector<hh::model::PredictRow> rows;
  rows.reserve(native.size());
  for (std::size_t i = 0; i < native.size(); ++i) rows.push_back(predict_row(p, n, i, sim[i], by_placement));
  const auto rep = hh::model::predict_report(rows, o.max_error);
  std::cout << predict_heading(p, o, by_placement);
  std::cout << rep.table;
  std::cout << placement_text(a) << "\n";
  std::cout << cma_text(a, native);
  if (csv) {
    csv->stream() << rep.csv;
    csv->commit();
    std::cout << "CSV written to " << *a.csv << "\n";
  }
  if (o.check && rep.within != rep.cells) {
    std::cerr << fmt::format("hopsim host predict: {} cell(s) off by more than {:.0f}%\n", rep.cells - rep.within,
                             100 * o.max_error);
    return 3;
  }
  return 0;
}

}  // namespace hopsim::host::commands
