#include "hopsim/core/report.hpp"

#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"

namespace hopsim {
namespace {
nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
}  // namespace

nlohmann::json to_json(const RunReport& r) {
  nlohmann::json timings = nlohmann::json::array();
  for (const auto& t : r.timings)
    timings.push_back({{"name", t.name},
                       {"group", t.group},
                       {"labels", t.labels},
                       {"native_seconds", num(t.native_seconds)},
                       {"sim_seconds", num(t.sim_seconds)},
                       {"native_bytes_per_s", num(t.native_bytes_per_s)},
                       {"sim_bytes_per_s", num(t.sim_bytes_per_s)},
                       {"native_cycles", num(t.native_cycles)},
                       {"sim_cycles", num(t.sim_cycles)},
                       {"native_check", t.native_check},
                       {"sim_check", t.sim_check},
                       {"data", t.data}});
  return {{"machine", r.machine},
          {"machine_summary", r.machine_summary},
          {"per", r.per},
          {"operations", r.operations},
          {"timings", timings},
          {"native_wall_seconds", r.native ? nlohmann::json(r.native_wall_seconds) : nlohmann::json(nullptr)},
          {"sim_wall_seconds", r.sim ? nlohmann::json(r.sim_wall_seconds) : nlohmann::json(nullptr)},
          {"data_equal", r.data_equal ? nlohmann::json(*r.data_equal) : nlohmann::json(nullptr)},
          {"exit_code", r.exit_code}};
}

void write_results(const Scenario& sc, const RunReport& r, nlohmann::json doc, const std::string& csv) {
  doc["schema"] = kResultsSchema;
  doc["hopsim"] = {{"version", version()}, {"git", git_revision()}};
  doc["scenario"] = sc.resolved;
  doc["family"] = r.family;
  doc["mode"] = to_string(sc.mode);
  doc["report"] = to_json(r);
  const auto& o = sc.outputs;
  if (o.json) write_file_atomic(o.dir + "/results.json", doc.dump(2) + "\n");
  if (o.csv) write_file_atomic(o.dir + "/results.csv", csv);
}

}  // namespace hopsim
