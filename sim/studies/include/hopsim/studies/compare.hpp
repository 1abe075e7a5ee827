#pragma once
// `hopsim compare`: the identical workload run natively on this machine and
// simulated on the model, through the scenario's family, side by side:
// time per operation, bandwidth, device cycles, data checks; the same as
// compare.json, compare.csv and a chart.
#include <optional>
#include <string>

#include "hopsim/core/report.hpp"
#include "hopsim/core/scenario.hpp"

namespace hopsim::studies {

// Runs `sc` (mode both) through its family, prints the table and writes
// OUT/compare.json, OUT/compare.csv and the chart (`png`, default
// OUT/compare.png; .png or .svg). Returns the run's exit code.
int compare(const Scenario& sc, const std::optional<std::string>& png);

// The table, JSON and CSV of a report (no run, no files): for tests.
std::string compare_table(const RunReport& r);
std::string compare_json(const RunReport& r, const std::string& scenario);
std::string compare_csv(const RunReport& r);

}  // namespace hopsim::studies
