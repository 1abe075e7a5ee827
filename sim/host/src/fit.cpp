// hopsim host fit: a described machine's two unpublished parameters from
// two measured ring cells of one path: the path's rate at the message size
// (from the cell with fewer processes) and the coherence's load
// (coherence_bw, from how much the cell with more processes falls). The
// fitted profile is written whole or not at all.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/host/model/report.hpp"
#include "hopsim/traces/error.hpp"
#include "hopsim/traces/import.hpp"

namespace hopsim::host::commands {

namespace {

// A cell as the reference CSV names it (cell_configuration).
struct Cell {
  Kind kind = Kind::zero_copy;
  int procs = 0;
  std::size_t size = kHpccRingMessage;
  bool two_way = true;
  double mbps = 0;  // published
};

Cell parse_cell(const std::string& config, const char* option) {
  std::istringstream in(config);
  std::vector<std::string> w;
  for (std::string t; in >> t;) w.push_back(t);
  const auto bad = [&](const std::string& why) {
    return ConfigError(fmt::format("{}: '{}' {} (expected e.g. 'zero-copy 4 procs', 'cma 8 procs 64 KiB one-way')",
                                   option, config, why));
  };
  if (w.size() < 3 || w[2] != "procs") throw bad("is not a ring cell's name");
  Cell c;
  if (w[0] == "zero-copy")
    c.kind = Kind::zero_copy;
  else if (w[0] == "cma")
    c.kind = Kind::cma;
  else if (w[0] == "base")
    throw bad("is double copy, which moves a message in chunks: fit a zero-copy or cma cell");
  else
    throw bad("names no path (zero-copy or cma)");
  try {
    std::size_t used = 0;
    c.procs = std::stoi(w[1], &used);
    if (used != w[1].size() || c.procs < 2) throw std::invalid_argument("procs");
  } catch (const std::exception&) {
    throw bad("has no process count of 2 or more");
  }
  std::size_t i = 3;
  if (w.size() > i && w.back() == "one-way") {
    c.two_way = false;
    w.pop_back();
  }
  if (w.size() > i) {
    std::string size;
    for (; i < w.size(); ++i) size += w[i];
    try {
      c.size = parse_sizes({size}).front();
    } catch (const ConfigError&) {
      throw bad("has no message size after 'procs'");
    }
  }
  // Only the names the model's own figures take (validate matches them).
  if (cell_configuration(c.kind, c.procs, c.size, c.two_way) != config)
    throw bad(fmt::format("is not how hopsim names that cell ('{}')",
                          cell_configuration(c.kind, c.procs, c.size, c.two_way)));
  return c;
}

// The published bandwidth of `config` for the profile's system.
Cell find_cell(const std::vector<traces::ResultRow>& rows, const std::string& system, const std::string& experiment,
               const std::string& config, const std::string& csv, const char* option) {
  Cell c = parse_cell(config, option);
  for (const auto& r : rows)
    if (r.system == system && r.experiment == experiment && r.configuration == config && r.metric == "bandwidth") {
      if (r.unit != "MB/s")
        throw ConfigError(fmt::format("{}: {}'s row '{}' is in {}, not MB/s", option, csv, config, r.unit));
      if (!(r.value > 0) || !std::isfinite(r.value))
        throw ConfigError(
            fmt::format("{}: {}'s row '{}' has {} MB/s (a bandwidth is above 0)", option, csv, config, r.value));
      c.mbps = r.value;
      return c;
    }
  throw ConfigError(fmt::format("{}: {} has no bandwidth row for system '{}', experiment '{}', configuration '{}'",
                                option, csv, system, experiment, config));
}

// The rate tables of a path, scaled together at one size.
std::vector<std::vector<double>*> tables_of(model::Profile& p, Kind k) {
  if (k == Kind::cma) return {&p.cma_bw, &p.xcma_bw};
  return {&p.read_bw};
}
const char* table_name(Kind k) { return k == Kind::cma ? "cma_bw" : "read_bw"; }

// The two cells, checked against the profile; `at` is the message size's
// entry in the profile's tables.
struct Problem {
  Cell lo, hi;
  std::size_t at = 0;
  std::string system;
};

Problem read_problem(const FitArgs& f, const model::Profile& p) {
  if (p.chip_count() < 2)
    throw ConfigError(fmt::format("--profile: '{}' has one chip: the coherence joins chips (give 'chips')", p.name));
  check_writable(f.out, "--out");
  if (f.experiment != "hpcc-ring-natural" && f.experiment != "hpcc-ring-random")
    throw ConfigError(fmt::format("--experiment: '{}' (expected hpcc-ring-natural or hpcc-ring-random)", f.experiment));
  std::vector<traces::ResultRow> rows;
  try {
    rows = traces::import_reference_csv(f.against);
  } catch (const traces::ImportError& e) {
    throw ConfigError(e.what());
  }
  Problem q;
  q.system = p.system.empty() ? p.name : p.system;
  q.lo = find_cell(rows, q.system, f.experiment, f.low, f.against, "--low");
  q.hi = find_cell(rows, q.system, f.experiment, f.high, f.against, "--high");
  if (q.lo.kind != q.hi.kind || q.lo.size != q.hi.size || q.lo.two_way != q.hi.two_way)
    throw ConfigError(fmt::format("--high: '{}' is not the ring of '{}' with more processes", f.high, f.low));
  if (q.hi.procs <= q.lo.procs)
    throw ConfigError(fmt::format("--high: {} processes, not more than --low's {}", q.hi.procs, q.lo.procs));
  if (q.hi.procs > p.cores) throw ConfigError(fmt::format("--high: {} processes on {} cores", q.hi.procs, p.cores));
  q.at = p.sizes.size();
  for (std::size_t i = 0; i < p.sizes.size(); ++i)
    if (p.sizes[i] == static_cast<double>(q.lo.size)) q.at = i;
  if (q.at == p.sizes.size())
    throw ConfigError(fmt::format("--low: {} is not one of the profile's table sizes", model::size_text(q.lo.size)));
  return q;
}

// The model at the two cells as the path's rate and the coherence vary.
class Solver {
 public:
  Solver(const model::Profile& p, const Problem& q, const FitArgs& f) : p_(p), q_(q) {
    a_.procs = {q.lo.procs, q.hi.procs};
    a_.sizes = {std::to_string(q.lo.size) + "B"};
    a_.transports = {std::string(host::kind_name(q.lo.kind))};
    a_.two_way = q.lo.two_way;
    a_.order = f.experiment == "hpcc-ring-random" ? "random" : "natural";
    a_.seed = f.seed;
    a_.reps = 1;
    keys_ = ring_keys(a_, "--bytes");
    rate0_ = rate_ = (q.lo.kind == Kind::cma ? p.cma_bw : p.read_bw)[q.at];
  }

  // The model's MB/s at both cells with the path's rate r and coherence c.
  [[nodiscard]] std::pair<double, double> at(double r, double c) const {
    auto p = p_;
    for (auto* t : tables_of(p, q_.lo.kind)) (*t)[q_.at] = r;
    p.coherence_bw = c;
    const auto res = simulate(p, keys_, a_);
    return {res[0].bandwidth / 1e6, res[1].bandwidth / 1e6};
  }

  // For a coherence c: the rate that gives the low cell (a secant on
  // log-log from the last rate found, steps within a factor of 4 and the
  // rate within 1000 of the profile's), then the ratio of the high cell to
  // it, which grows with c (a lighter load slows less).
  double ratio(double c) {
    const double want = q_.lo.mbps;
    double r0 = rate_, r1 = rate_ * 1.01;
    auto m0 = at(r0, c), m1 = at(r1, c);
    for (int i = 0; i < 40 && std::abs(m1.first / want - 1) > 1e-7 && r1 != r0; ++i) {
      const double slope = std::clamp(std::log(m1.first / m0.first) / std::log(r1 / r0), 0.05, 2.0);
      const double step = std::clamp(std::log(want / m1.first) / slope, -std::log(4.0), std::log(4.0));
      r0 = r1;
      m0 = m1;
      r1 = std::clamp(r1 * std::exp(step), rate0_ / 1e3, rate0_ * 1e3);
      m1 = at(r1, c);
    }
    if (std::abs(m1.first / want - 1) > 1e-4)
      throw ConfigError(fmt::format("cannot fit: no {} rate gives {} MB/s at {} processes", table_name(q_.lo.kind),
                                    want, q_.lo.procs));
    rate_ = r1;
    return m1.second / m1.first;
  }

  // The coherence that gives the published fall (and the rate with it).
  double coherence() {
    const double want = q_.hi.mbps / q_.lo.mbps;
    // No load first: the model must fall less than the measurement there.
    double hi_c = 1e16;
    const double most = ratio(hi_c);
    if (most < want)
      throw ConfigError(fmt::format(
          "cannot fit: even with no coherence load the model has {} at {} processes fall to {:.3f} of {} (published "
          "{:.3f}): something else slows it more than the measurement",
          host::kind_name(q_.lo.kind), q_.hi.procs, most, q_.lo.procs, want));
    // Then heavier loads, a factor of 4 at a time, until it falls more
    // (ratio() refuses a load under which the low cell cannot be had).
    double lo_c = hi_c;
    for (int i = 0; i < 40; ++i) {
      lo_c = hi_c / 4;
      if (ratio(lo_c) < want) break;
      hi_c = lo_c;
    }
    // Bisection on log(coherence_bw) to 1e-6 of the ratio, from the
    // profile's own rate again.
    rate_ = rate0_;
    double c = hi_c;
    for (int i = 0; i < 80; ++i) {
      c = std::sqrt(lo_c * hi_c);
      const double g = ratio(c);
      if (std::abs(g / want - 1) < 1e-6) break;
      (g < want ? lo_c : hi_c) = c;
    }
    return c;
  }
  [[nodiscard]] double rate() const { return rate_; }
  [[nodiscard]] const std::string& order() const { return a_.order; }

 private:
  const model::Profile& p_;
  const Problem& q_;
  RingArgs a_;
  std::vector<Key> keys_;
  double rate0_ = 0, rate_ = 0;
};

}  // namespace

int cmd_fit(const FitArgs& f) {
  auto p = model::load_profile(f.profile);
  const Problem q = read_problem(f, p);
  Solver solve(p, q, f);
  const double c = solve.coherence();
  const double rate = solve.rate();
  const auto m = solve.at(rate, c);

  // The fitted profile, each fitted value's source naming what it was fitted to.
  const std::string csv = std::filesystem::path(f.against).filename().string();
  const std::string name = table_name(q.lo.kind);
  const std::string was = p.sources.count(name) ? p.sources[name] : std::string("none");
  for (auto* t : tables_of(p, q.lo.kind)) (*t)[q.at] = rate;
  p.coherence_bw = c;
  p.sources[name] = fmt::format("at {}: fitted by hopsim host fit to {} '{}' {} MB/s (other entries: {})",
                                model::size_text(q.lo.size), csv, f.low, q.lo.mbps, was);
  if (q.lo.kind == Kind::cma) p.sources["xcma_bw"] = p.sources[name];
  p.sources["coherence_bw"] =
      fmt::format("fitted by hopsim host fit to {} '{}' {} MB/s, with {}", csv, f.high, q.hi.mbps, name);
  model::save_profile(p, f.out);
  std::cout << fmt::format("fitted '{}' ({}) to {} ({} ring{}):\n", p.name, q.system, f.against, solve.order(),
                           q.lo.two_way ? ", two-way" : ", one-way");
  std::cout << fmt::format("  {} at {}: {:.3g} B/s\n", name, model::size_text(q.lo.size), rate);
  std::cout << fmt::format("  coherence_bw: {:.3g} B/s\n", c);
  std::cout << fmt::format("  {:<24} {:>10} {:>10} {:>8}\n", "cell", "model MB/s", "published", "error");
  for (const auto& [cell, mbps, model_mbps] :
       {std::tuple{f.low, q.lo.mbps, m.first}, std::tuple{f.high, q.hi.mbps, m.second}})
    std::cout << fmt::format("  {:<24} {:>10.0f} {:>10.0f} {:>+7.2f}%\n", cell, model_mbps, mbps,
                             100 * (model_mbps / mbps - 1));
  std::cout << "profile written to " << f.out << "\n";
  return 0;
}

}  // namespace hopsim::host::commands
