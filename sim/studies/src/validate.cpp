#include "hopsim/studies/validate.hpp"

#include <cmath>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hopsim/core/error.hpp"
#include "hopsim/core/strict_json.hpp"

namespace hopsim::studies {

std::vector<Metric> load_result_metrics(const std::string& path) {
  const auto doc = read_json_file(path);
  if (!doc.is_object() || !doc.contains("sim") || !doc["sim"].contains("metrics"))
    throw ConfigError(
        fmt::format("{}: not a hopsim results.json with simulated metrics (run a simulated mode first)", path));
  std::vector<Metric> out;
  for (const auto& m : doc["sim"]["metrics"]) {
    try {
      out.push_back({m.at("system").get<std::string>(), m.at("experiment").get<std::string>(),
                     m.at("configuration").get<std::string>(), m.at("metric").get<std::string>(),
                     m.at("value").get<double>(), m.at("unit").get<std::string>()});
    } catch (const nlohmann::json::exception& e) {
      throw ConfigError(fmt::format("{}: malformed metric {}: {}", path, m.dump(), e.what()));
    }
  }
  if (out.empty())
    throw ConfigError(
        fmt::format("{}: the run produced no figures to validate (e.g. the passing kernels need n = 1..16 "
                    "on the e16g301)",
                    path));
  return out;
}

Validation validate(const std::vector<Metric>& sim, const std::vector<traces::ResultRow>& ref, double tolerance_pct) {
  Validation v;
  std::vector<bool> used(ref.size(), false);
  for (const auto& m : sim) {
    bool matched = false;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const auto& r = ref[i];
      if (r.system != m.system || r.experiment != m.experiment || r.configuration != m.configuration ||
          r.metric != m.metric)
        continue;
      if (r.unit != m.unit)
        throw ConfigError(fmt::format("{} / {}: hopsim gives {} but the reference gives {}", m.configuration, m.metric,
                                      m.unit, r.unit));
      ValidationRow row{m, r, 0, false};
      row.error_pct = r.value != 0 ? (m.value - r.value) / r.value * 100 : (m.value == 0 ? 0 : INFINITY);
      row.within = std::abs(row.error_pct) <= tolerance_pct;
      v.rows.push_back(row);
      used[i] = true;
      matched = true;
    }
    if (!matched) v.predictions.push_back(m);
  }
  for (bool u : used) v.unmatched_refs += u ? 0 : 1;
  return v;
}

}  // namespace hopsim::studies
