#pragma once
// Traffic scenarios: a strict JSON description of one synthetic-traffic
// study (network preset and shape, pattern, injection process, load,
// packet sizes, phases, curve range). Every key is checked; errors are
// hopsim::ConfigError naming the key path. See docs/traffic.md.
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hopsim/core/preset.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/network/model/traffic.hpp"

namespace hopsim::network::model {

struct TrafficScenario {
  std::string preset;    // network preset name
  TrafficConfig config;  // fully resolved (validated)
  double curve_step = 0.05, curve_max = 1.0;
  nlohmann::json echo;  // the resolved parameters with their sources
};

// Every key of a traffic scenario with its type, default and meaning (hopsim list keys).
std::span<const ScenarioKey> traffic_scenario_keys();

// Parameters of the generic network presets (family "network").
const std::vector<ParamDecl>& network_param_decls();

// Resolves `doc` (already parsed). `origin` names the file in messages.
// Throws ConfigError for unknown keys, wrong types, unknown presets or
// patterns, loads outside (0, 1] and shapes a pattern cannot take.
TrafficScenario load_traffic_scenario(const nlohmann::json& doc, const std::string& origin = "traffic scenario");
// Reads `path`, applies "key=value" overrides (dotted paths), resolves.
TrafficScenario load_traffic_scenario_file(const std::string& path, const std::vector<std::string>& overrides = {});

// The headline numbers of a run as a flat JSON object (offered, accepted,
// avg_latency, p50_latency, p99_latency, avg_network_latency, avg_hops,
// avg_zero_load, max_link_utilisation, mean_link_utilisation, packets, saturated).
nlohmann::json result_json(const TrafficResult& r);

}  // namespace hopsim::network::model
