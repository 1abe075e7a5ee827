// `hopsim xeonphi pcie`: the offload-path model's prediction of a PCIe
// device's copies and doorbell, and its comparison with a measurement.
#include "hopsim/xeonphi/pcie.hpp"

#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/strict_json.hpp"
#include "hopsim/xeonphi/model/model.hpp"

namespace hopsim::xeonphi {
namespace {

using traces::ResultRow;

constexpr std::uint64_t kSmallCopy = 8;

std::string source_of(const PcieOptions& o) {
  std::string s = "hopsim xeonphi pcie --machine " + o.machine;
  for (const auto& set : o.sets) s += " --set " + set;
  return s;
}

std::string csv_text(const std::vector<ResultRow>& rows) {
  std::string csv = "system,experiment,configuration,metric,value,unit,source\n";
  for (const auto& r : rows)
    csv += csv_row(std::vector<std::string>{r.system, r.experiment, r.configuration, r.metric,
                                            fmt::format("{:.10g}", r.value), r.unit, r.source});
  return csv;
}

using Key = std::tuple<std::string, std::string, std::string>;  // experiment, configuration, metric

}  // namespace

std::vector<ResultRow> predict_pcie(const PcieOptions& o) {
  if (o.max_bytes < 4096)
    throw ConfigError(fmt::format("--max-bytes: {} B is below the smallest copy of 4096 B", o.max_bytes));
  if (o.max_bytes > (std::uint64_t{1} << 40))
    throw ConfigError(fmt::format("--max-bytes: {} B is over 1 TiB", o.max_bytes));
  const Preset preset = load_preset(o.machine, "--machine");
  if (preset.family != "xeonphi")
    throw ConfigError(
        fmt::format("--machine: {} is a {} machine, not a xeonphi (PCIe offload) one", o.machine, preset.family));
  nlohmann::json overrides = nlohmann::json::object();
  for (const auto& s : o.sets) apply_override(overrides, s);
  const ParamSet ps = ParamSet::resolve(model::param_decls(), preset, overrides, "--set");
  const model::OffloadModel m(model::machine_from(ps, preset.name), model::Placement{});

  const std::string system = o.system.empty() ? preset.name : o.system;
  const std::string source = source_of(o);
  std::vector<ResultRow> rows;
  auto add = [&](const char* experiment, const std::string& config, std::uint64_t bytes, double seconds) {
    const double ns = seconds * 1e9;
    rows.push_back({system, experiment, config, "median", ns, "ns", source});
    rows.push_back({system, experiment, config, "bandwidth", static_cast<double>(bytes) / ns, "GB/s", source});
  };
  for (std::uint64_t b = 4096; b <= o.max_bytes; b *= 2) {
    add("pcie-copy", fmt::format("h2d pinned {} B", b), b, m.copy_in(b));
    add("pcie-copy", fmt::format("d2h pinned {} B", b), b, m.copy_out(b));
  }
  add("pcie-latency", fmt::format("h2d pinned {} B", kSmallCopy), kSmallCopy, m.copy_in(kSmallCopy));
  add("pcie-latency", fmt::format("d2h pinned {} B", kSmallCopy), kSmallCopy, m.copy_out(kSmallCopy));
  const std::uint64_t flag = m.machine().scif.flag_bytes;
  add("pcie-flag-round-trip", fmt::format("host-device-host mapped {} B", flag), flag, m.scif_pingpong(flag));
  return rows;
}

namespace {

// The comparison of a prediction with a measurement: the table's text, its
// CSV and the counts.
struct Comparison {
  std::string text, csv;
  std::size_t compared = 0, beyond = 0, not_modelled = 0;
};

Comparison compare(const std::vector<ResultRow>& predicted, const std::vector<ResultRow>& measured,
                   const PcieOptions& o) {
  std::map<Key, const ResultRow*> by_key;
  for (const auto& r : measured) by_key.emplace(Key{r.experiment, r.configuration, r.metric}, &r);
  std::map<Key, const ResultRow*> model_by_key;
  for (const auto& r : predicted) model_by_key.emplace(Key{r.experiment, r.configuration, r.metric}, &r);
  Comparison c;
  c.csv = "experiment,configuration,model_ns,measured_ns,error_percent,model_GBps,measured_GBps,within\n";
  c.text = fmt::format("{:<22} {:<30} {:>13} {:>13} {:>9} {:>11} {:>11}\n", "experiment", "configuration", "model ns",
                       "measured ns", "error", "model GB/s", "meas. GB/s");
  for (const auto& p : predicted) {
    if (p.metric != "median") continue;
    const auto it = by_key.find(Key{p.experiment, p.configuration, "median"});
    if (it == by_key.end()) continue;
    const ResultRow& r = *it->second;
    if (r.unit != "ns")
      throw ConfigError(
          fmt::format("{}: {} {} median is in {}, not ns", o.against, r.experiment, r.configuration, r.unit));
    const double error = (p.value - r.value) / r.value * 100;
    const bool within = std::abs(error) <= o.tolerance;
    ++c.compared;
    c.beyond += within ? 0 : 1;
    const auto bandwidth = [&](const std::map<Key, const ResultRow*>& rows) {
      const auto b = rows.find(Key{p.experiment, p.configuration, "bandwidth"});
      return b == rows.end() ? std::string("-") : fmt::format("{:.3f}", b->second->value);
    };
    c.text +=
        fmt::format("{:<22} {:<30} {:>13.1f} {:>13.1f} {:>+8.1f}% {:>11} {:>11}{}\n", p.experiment, p.configuration,
                    p.value, r.value, error, bandwidth(model_by_key), bandwidth(by_key), within ? "" : "  BEYOND");
    c.csv += csv_row(std::vector<std::string>{p.experiment, p.configuration, fmt::format("{:.1f}", p.value),
                                              fmt::format("{:.1f}", r.value), fmt::format("{:.2f}", error),
                                              bandwidth(model_by_key), bandwidth(by_key), within ? "1" : "0"});
  }
  for (const auto& r : measured) {
    if (r.metric != "median" || model_by_key.count(Key{r.experiment, r.configuration, "median"})) continue;
    if (c.not_modelled++ == 0) c.text += "measured, not modelled:\n";
    c.text += fmt::format("{:<22} {:<30} {:>13} {:>13.1f}\n", r.experiment, r.configuration, "-", r.value);
  }
  return c;
}

}  // namespace

int pcie_command(const PcieOptions& o, std::ostream& out) {
  if (!o.csv.empty() && o.against.empty()) throw ConfigError("--csv: the comparison needs --against MEASURED.csv");
  const auto predicted = predict_pcie(o);
  if (!o.out.empty()) {
    write_file_atomic(o.out, csv_text(predicted));
    out << fmt::format("{} predicted rows of {} written to {}\n", predicted.size(), o.machine, o.out);
  } else if (o.against.empty()) {
    out << csv_text(predicted);
  }
  if (o.against.empty()) return 0;

  std::vector<ResultRow> measured;
  try {
    measured = traces::import_reference_csv(o.against);
  } catch (const traces::ImportError& e) {
    throw ConfigError(e.what());
  }
  const Comparison c = compare(predicted, measured, o);
  if (c.compared == 0)
    throw ConfigError(
        fmt::format("{}: no measured median matches a predicted row (import pcie_probe output with "
                    "`hopsim import FILE --format pcie`)",
                    o.against));
  out << fmt::format("{} (model) against {} (tolerance {}%)\n", o.machine, o.against, o.tolerance) << c.text;
  out << fmt::format("{} compared: {} within {}%, {} beyond; {} measured rows not modelled\n", c.compared,
                     c.compared - c.beyond, o.tolerance, c.beyond, c.not_modelled);
  if (!o.csv.empty()) {
    write_file_atomic(o.csv, c.csv);
    out << fmt::format("comparison written to {}\n", o.csv);
  }
  return c.beyond ? 3 : 0;
}

}  // namespace hopsim::xeonphi
