#include "hopsim/network/model/scenario.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/resources.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/core/strict_json.hpp"
#include "hopsim/epiphany/model/params.hpp"

namespace hopsim::network::model {

namespace {

// Every key of a traffic scenario (docs/traffic.md); the loader accepts exactly these.
constexpr std::array<ScenarioKey, 27> kTrafficKeys = {{
    {"network", "object", "{}", "the network: a preset, its shape and parameter overrides"},
    {"network.preset", "string", "\"e64g401\"",
     "an epiphany preset (its eMesh) or a network preset (unit-network, booksim-iq, bgq-torus); hopsim list "
     "machines"},
    {"network.topology", "string", "the preset's, else \"mesh\"", "mesh or torus (torus: network presets only)"},
    {"network.dims", "extents", "the preset's (8x8)", "\"4x4x4\" or [4, 4, 4]; the eMesh is 2-D, at most 64x64"},
    {"network.routing", "string", "the preset's, else \"dor\"",
     "dor (dimension order) or min_adapt (minimal adaptive with escape VCs; network presets with flow_control=1)"},
    {"network.params", "object", "{}", "parameter overrides (hopsim list params PRESET)"},
    {"network.params.*", "quantity", "the preset's", "one network parameter, a number or a string with units"},
    {"traffic", "object", "{}", "the synthetic traffic"},
    {"traffic.pattern", "string", "\"uniform\"",
     "uniform, transpose, bit_complement, bit_reverse, shuffle, tornado, neighbor or hotspot"},
    {"traffic.hotspot", "object", "-", "with pattern hotspot: the hot node and its share of the packets"},
    {"traffic.hotspot.node", "integer >= 0", "0", "the hot node's index"},
    {"traffic.hotspot.fraction", "number", "0.1", "share of packets sent to the hot node"},
    {"traffic.injection", "string", "\"bernoulli\"", "bernoulli or bursty (on/off)"},
    {"traffic.burst_mean", "number >= 1", "8", "bursty: mean packets per burst"},
    {"traffic.load", "number in (0, 1]", "0.1", "offered load, packets per node per cycle"},
    {"traffic.packet_bytes", "integer", "8 (eMesh), one flit", "packet size in bytes"},
    {"traffic.packet_sizes", "list", "-", "[{\"bytes\": B, \"weight\": W}, ...] instead of packet_bytes"},
    {"traffic.seed", "integer >= 0", "1", "random seed of the traffic"},
    {"traffic.threads", "integer 0..64", "0",
     "host threads simulating a network with flow_control=1, each a band of its routers (0: one below 256 routers, "
     "else up to the host's, at most 8 and one per 128 routers); results do not depend on it"},
    {"phases", "object", "{}", "warm-up, measurement window and drain limit"},
    {"phases.warmup", "cycles", "1000", "cycles before the measurement window (each phase at most 1e9)"},
    {"phases.measure", "cycles", "10000", "cycles of the measurement window"},
    {"phases.drain", "cycles", "20000", "cycles the measured packets may take to arrive after the window"},
    {"phases.saturation_latency", "cycles", "0",
     "saturated when the last quarter's packets average more latency than this (BookSim2's latency_thres is 500); "
     "0: 10x their zero-load latency"},
    {"curve", "object", "{}", "hopsim curve: loads step, 2 step, ... up to max"},
    {"curve.step", "number in [0.001, 1]", "0.05", "load step of hopsim curve"},
    {"curve.max", "number in (0, 1]", "1", "highest load of hopsim curve (it stops at saturation)"},
}};

}  // namespace

namespace {

double get_number(const nlohmann::json& obj, std::string_view key, std::string_view path, double fallback) {
  const auto it = obj.find(std::string(key));
  if (it == obj.end()) return fallback;
  if (!it->is_number())
    throw ConfigError(fmt::format("{}: expected a number, got {}", join_path(path, key), it->dump()));
  const double v = it->get<double>();
  if (!std::isfinite(v)) throw ConfigError(fmt::format("{}: expected a finite number", join_path(path, key)));
  return v;
}

// A duration in cycles: a number or a quantity string ("1000 cycles").
double get_cycles(const nlohmann::json& obj, std::string_view key, std::string_view path, double fallback) {
  const auto it = obj.find(std::string(key));
  if (it == obj.end()) return fallback;
  return parse_quantity(*it, Dim::cycles, join_path(path, key));
}

std::vector<int> get_dims(const nlohmann::json& v, const std::string& path) {
  std::vector<int> dims;
  if (v.is_string()) {  // "4x4x4"
    const auto s = v.get<std::string>();
    std::size_t pos = 0;
    while (pos <= s.size()) {
      const auto x = s.find('x', pos);
      const auto part = s.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
      try {
        std::size_t used = 0;
        const int d = std::stoi(part, &used);
        if (used != part.size()) throw std::invalid_argument(part);
        dims.push_back(d);
      } catch (const std::exception&) {
        throw ConfigError(fmt::format("{}: expected extents like \"4x4x4\" or [4, 4, 4], got \"{}\"", path, s));
      }
      if (x == std::string::npos) break;
      pos = x + 1;
    }
  } else if (v.is_array()) {
    for (const auto& e : v) {
      if (!e.is_number_integer())
        throw ConfigError(fmt::format("{}: expected integer extents, got {}", path, v.dump()));
      dims.push_back(e.get<int>());
    }
  } else {
    throw ConfigError(fmt::format("{}: expected extents like \"4x4x4\" or [4, 4, 4], got {}", path, v.dump()));
  }
  if (dims.empty() || dims.size() > 8) throw ConfigError(fmt::format("{}: need 1 to 8 extents", path));
  for (int d : dims)
    if (d < 1 || d > 65536) throw ConfigError(fmt::format("{}: every extent must be 1..65536, got {}", path, v.dump()));
  return dims;
}

}  // namespace

const std::vector<ParamDecl>& network_param_decls() {
  static const std::vector<ParamDecl> decls{
      {"hop_latency", Dim::cycles, 0, 1000, false, "cycles per hop (router + link), multiples of 0.5"},
      {"endpoint_latency", Dim::cycles, 0, 1000, false,
       "cycles once per packet: source router pipeline + injection and ejection channels, multiples of 0.5"},
      {"link_width", Dim::bytes_per_cycle, 0.01, 1e6, false, "link bandwidth per direction (one flit per cycle)"},
      {"buffer", Dim::cycles, 0, 1e9, false,
       "contention delay the network absorbs before a source stalls (without flow_control)"},
      {"flow_control", Dim::count, 0, 1, true,
       "1: input-queued virtual-channel routers with credits, simulated event by event; 0: link calendars"},
      {"vcs", Dim::count, 1, 64, true, "virtual channels per input port (flow_control)"},
      {"vc_buffer", Dim::count, 1, 4096, true, "flits of buffer per virtual channel (flow_control)"},
      {"credit_delay", Dim::cycles, 0, 1000, true,
       "cycles before a credit leaves the router that freed the buffer slot (flow_control)"},
      {"wait_for_tail_credit", Dim::count, 0, 1, true,
       "1: an output VC is held until its tail's credit returns; 0: until its tail is sent (flow_control)"},
      {"routing_delay", Dim::cycles, 0, 1000, true, "router pipeline: route computation (flow_control)"},
      {"vc_alloc_delay", Dim::cycles, 0, 1000, true, "router pipeline: VC allocation (flow_control)"},
      {"sw_alloc_delay", Dim::cycles, 0, 1000, true, "router pipeline: switch allocation (flow_control)"},
      {"channel_latency", Dim::cycles, 1, 1000, true, "cycles on a channel, for flits and credits (flow_control)"},
      {"input_speedup", Dim::count, 1, 64, true,
       "flits an input port may send per cycle, its VCs split over that many crossbar inputs (flow_control)"},
      {"stay_on_escape", Dim::count, 0, 1, true,
       "min_adapt: 1 a packet on an escape VC stays there; 0 it may take adaptive VCs again at the next router "
       "(flow_control)"},
      {"adaptive_selection", Dim::count, 0, 1, true,
       "min_adapt: 0 the productive output with the most free adaptive VCs; 1 round-robin over (output, VC) pairs "
       "(flow_control)"},
      {"endpoint_channels", Dim::count, 1, 16, true,
       "injection and ejection channels per node, each a link wide; a packet ejects on the channel of the link it "
       "came in on (flow_control)"},
      {"dateline", Dim::count, 0, 3, true,
       "torus VC classes: 0 none (may deadlock), 1 dateline, 2 BookSim2's dim_order_torus partition, 3 bubble "
       "(flow_control)"},
  };
  return decls;
}

namespace {

nlohmann::json section(const nlohmann::json& doc, const char* key) {
  return doc.contains(key) ? doc[key] : nlohmann::json::object();
}

// network.* on an Epiphany preset: the eMesh.
void read_emesh(const nlohmann::json& net, const Preset& preset, const nlohmann::json& params,
                const std::string& topology, TrafficScenario& sc) {
  TrafficConfig& c = sc.config;
  const auto set = ParamSet::resolve(epiphany::model::param_decls(), preset, params, "network.params");
  c.network = NetworkKind::emesh;
  c.net = epiphany::model::params_from(set);
  c.rows = c.net.rows;
  c.cols = c.net.cols;
  if (topology != "mesh")
    throw ConfigError(
        fmt::format("network.topology: the {} eMesh is a mesh, not a torus (use a network preset such "
                    "as unit-network for a torus)",
                    sc.preset));
  if (net.contains("dims")) {
    const auto d = get_dims(net["dims"], "network.dims");
    if (d.size() != 2) throw ConfigError("network.dims: the eMesh is 2-D, give [rows, cols]");
    c.rows = d[0];
    c.cols = d[1];
    if (c.rows > 64 || c.cols > 64) throw ConfigError("network.dims: the eMesh model takes at most 64x64");
  }
  sc.echo = set.to_json();
}

// network.* on a network preset: the generic mesh or torus.
void read_generic(const nlohmann::json& net, const Preset& preset, const nlohmann::json& params,
                  const std::string& topology, TrafficScenario& sc) {
  TrafficConfig& c = sc.config;
  const auto set = ParamSet::resolve(network_param_decls(), preset, params, "network.params");
  c.network = NetworkKind::generic;
  c.generic.torus = topology == "torus";
  if (net.contains("dims"))
    c.generic.dims = get_dims(net["dims"], "network.dims");
  else if (preset.network.contains("dims"))
    c.generic.dims = get_dims(preset.network["dims"], preset.file + ": network.dims");
  else
    c.generic.dims = {8, 8};
  // Calibrated: 6300 bytes per node, the growth of the resident memory of
  // `hopsim curve --machine unit-network` from a 64x64 mesh (50 MB) to
  // 256x256 (427 MB); with flow control 7700, `hopsim curve --machine
  // booksim-iq` at load 0.002 from 64x64 (56 MB) to 128x128 (150 MB).
  const double bytes_per_node = set.get_int("flow_control") != 0 ? 7700 : 6300;
  double nodes = 1;
  std::string shape;
  for (const int d : c.generic.dims) {
    nodes *= d;
    shape += (shape.empty() ? "" : "x") + std::to_string(d);
  }
  require_memory("network.dims", fmt::format("a {} {}", shape, topology), nodes * bytes_per_node,
                 fmt::format("{:.0f} nodes of about {:.0f} bytes each", nodes, bytes_per_node));
  c.generic.hop_latency = set.get("hop_latency");
  c.generic.endpoint_latency = set.get("endpoint_latency");
  c.generic.link_width = set.get("link_width");
  c.generic.buffer = set.get("buffer");
  c.generic.flow_control = set.get_int("flow_control") != 0;
  c.generic.vcs = set.get_int("vcs");
  c.generic.vc_buffer = set.get_int("vc_buffer");
  c.generic.credit_delay = set.get_int("credit_delay");
  c.generic.wait_for_tail_credit = set.get_int("wait_for_tail_credit") != 0;
  c.generic.routing_delay = set.get_int("routing_delay");
  c.generic.vc_alloc_delay = set.get_int("vc_alloc_delay");
  c.generic.sw_alloc_delay = set.get_int("sw_alloc_delay");
  c.generic.channel_latency = set.get_int("channel_latency");
  c.generic.input_speedup = set.get_int("input_speedup");
  c.generic.dateline = set.get_int("dateline");
  c.generic.stay_on_escape = set.get_int("stay_on_escape") != 0;
  c.generic.adaptive_selection = set.get_int("adaptive_selection");
  c.generic.endpoint_channels = set.get_int("endpoint_channels");
  for (const auto& [name, v] :
       {std::pair{"hop_latency", c.generic.hop_latency}, std::pair{"endpoint_latency", c.generic.endpoint_latency}})
    if (std::floor(v * 2) != v * 2)
      throw ConfigError(fmt::format("network.params.{}: must be a multiple of 0.5 cycles, got {}", name, v));
  sc.echo = set.to_json();
}

void read_network(const nlohmann::json& doc, TrafficScenario& sc) {
  const nlohmann::json net = section(doc, "network");
  require_known_keys(net, "network", key_names(kTrafficKeys, "network"));
  sc.preset = get_string(net, "preset", "network", "e64g401");
  const auto preset = load_preset(sc.preset, "network.preset");
  const nlohmann::json params = section(net, "params");
  if (!params.is_object()) throw ConfigError("network.params: expected an object of parameter overrides");
  // The preset's shape (network presets may carry one), then the scenario's.
  const auto shape_of = [&](const char* key, const std::string& fallback) -> std::pair<std::string, std::string> {
    if (net.contains(key)) return {get_string(net, key, "network", fallback), fmt::format("network.{}", key)};
    return {get_string(preset.network, key, preset.file + ": network", fallback),
            fmt::format("{}: network.{}", preset.file, key)};
  };
  const auto [topology, topology_key] = shape_of("topology", "mesh");
  if (topology != "mesh" && topology != "torus")
    throw ConfigError(fmt::format("{}: expected \"mesh\" or \"torus\", got \"{}\"", topology_key, topology));
  const auto [routing, routing_key] = shape_of("routing", "dor");
  if (routing != "dor" && routing != "min_adapt")
    throw ConfigError(fmt::format("{}: expected \"dor\" or \"min_adapt\", got \"{}\"", routing_key, routing));
  if (preset.family == "epiphany") {
    read_emesh(net, preset, params, topology, sc);
  } else if (preset.family == "network") {
    read_generic(net, preset, params, topology, sc);
  } else {
    throw ConfigError(fmt::format("network.preset: {} is a {} machine; traffic runs on epiphany or network presets",
                                  sc.preset, preset.family));
  }
  if (routing == "dor") return;
  if (sc.config.network != NetworkKind::generic)
    throw ConfigError(
        fmt::format("{}: the {} eMesh routes in dimension order only (min_adapt needs a "
                    "network preset such as booksim-iq)",
                    routing_key, sc.preset));
  if (!sc.config.generic.flow_control)
    throw ConfigError(routing_key + ": min_adapt needs flow_control=1 (the link calendars route in dimension order)");
  sc.config.generic.routing = GenericNetwork::Routing::min_adapt;
}

// traffic.packet_bytes or traffic.packet_sizes (default: one flit).
void read_packet_sizes(const nlohmann::json& tr, TrafficConfig& c) {
  c.packet_bytes = c.network == NetworkKind::emesh ? 8 : static_cast<int>(std::max(1.0, c.generic.link_width));
  if (tr.contains("packet_bytes") && tr.contains("packet_sizes"))
    throw ConfigError("traffic: give packet_bytes or packet_sizes, not both");
  c.packet_bytes = get_int(tr, "packet_bytes", "traffic", c.packet_bytes);
  if (!tr.contains("packet_sizes")) return;
  const auto& ps = tr["packet_sizes"];
  if (!ps.is_array() || ps.empty())
    throw ConfigError("traffic.packet_sizes: expected a non-empty list of {\"bytes\": B, \"weight\": W}");
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const std::string path = fmt::format("traffic.packet_sizes[{}]", i);
    require_known_keys(ps[i], path, {"bytes", "weight"});
    if (!ps[i].contains("bytes")) throw ConfigError(path + ".bytes: missing");
    c.packet_sizes.push_back({get_int(ps[i], "bytes", path, 0), get_number(ps[i], "weight", path, 1)});
  }
  c.packet_bytes = c.packet_sizes.front().bytes;
}

void read_injection(const nlohmann::json& tr, TrafficConfig& c) {
  const std::string inj = get_string(tr, "injection", "traffic", "bernoulli");
  if (inj != "bernoulli" && inj != "bursty")
    throw ConfigError(fmt::format("traffic.injection: expected \"bernoulli\" or \"bursty\", got \"{}\"", inj));
  c.bursty = inj == "bursty";
  c.burst_mean = get_number(tr, "burst_mean", "traffic", 8);
  if (c.burst_mean < 1) throw ConfigError(fmt::format("traffic.burst_mean: must be >= 1 packet, got {}", c.burst_mean));
  c.offered_load = get_number(tr, "load", "traffic", 0.1);
  if (!(c.offered_load > 0 && c.offered_load <= 1))
    throw ConfigError(fmt::format("traffic.load: the offered load must be in (0, 1] packets per node per cycle, got {}",
                                  c.offered_load));
  if (c.bursty && c.offered_load >= 1)
    throw ConfigError("traffic.load: bursty injection needs a load below 1 (there is no off period at full load)");
}

void read_traffic(const nlohmann::json& doc, TrafficConfig& c) {
  const nlohmann::json tr = section(doc, "traffic");
  require_known_keys(tr, "traffic", key_names(kTrafficKeys, "traffic"));
  try {
    c.pattern = parse_pattern(get_string(tr, "pattern", "traffic", "uniform"));
  } catch (const std::invalid_argument& e) {
    throw ConfigError(fmt::format("traffic.pattern: {}", e.what()));
  }
  if (tr.contains("hotspot")) {
    const auto& h = tr["hotspot"];
    require_known_keys(h, "traffic.hotspot", key_names(kTrafficKeys, "traffic.hotspot"));
    const int node = get_int(h, "node", "traffic.hotspot", 0);
    if (node < 0) throw ConfigError("traffic.hotspot.node: must be >= 0");
    c.hotspot_node = static_cast<std::uint32_t>(node);
    c.hotspot_fraction = get_number(h, "fraction", "traffic.hotspot", 0.1);
  }
  read_injection(tr, c);
  read_packet_sizes(tr, c);
  const int seed = get_int(tr, "seed", "traffic", 1);
  if (seed < 0) throw ConfigError("traffic.seed: must be >= 0");
  c.seed = static_cast<std::uint64_t>(seed);
  const int threads = get_int(tr, "threads", "traffic", 0);
  if (threads < 0 || threads > 64)
    throw ConfigError(fmt::format("traffic.threads: must be 0 (automatic) to 64, got {}", threads));
  c.threads = static_cast<unsigned>(threads);
}

void read_phases_and_curve(const nlohmann::json& doc, TrafficScenario& sc) {
  TrafficConfig& c = sc.config;
  const nlohmann::json ph = section(doc, "phases");
  require_known_keys(ph, "phases", key_names(kTrafficKeys, "phases"));
  c.warmup = get_cycles(ph, "warmup", "phases", 1000);
  c.measure = get_cycles(ph, "measure", "phases", 10000);
  c.drain_limit = get_cycles(ph, "drain", "phases", 20000);
  c.saturation_latency = get_cycles(ph, "saturation_latency", "phases", 0);
  if (c.measure <= 0) throw ConfigError("phases.measure: must be > 0 cycles");
  // Beyond a billion cycles a phase would not finish in any reasonable time.
  for (const auto& [name, v] :
       {std::pair{"warmup", c.warmup}, std::pair{"measure", c.measure}, std::pair{"drain", c.drain_limit},
        std::pair{"saturation_latency", c.saturation_latency}})
    if (!(v <= 1e9))
      throw ConfigError(fmt::format("phases.{}: {} cycles, more than the 1e9 a phase may last", name, v));
  if (c.warmup < 0 || c.drain_limit < 0)
    throw ConfigError(fmt::format("phases.{}: must be >= 0 cycles", c.warmup < 0 ? "warmup" : "drain"));
  if (c.saturation_latency < 0)
    throw ConfigError(fmt::format(
        "phases.saturation_latency: must be >= 0 cycles (0: 10x the zero-load latency), got {}", c.saturation_latency));

  const nlohmann::json cu = section(doc, "curve");
  require_known_keys(cu, "curve", key_names(kTrafficKeys, "curve"));
  sc.curve_step = get_number(cu, "step", "curve", 0.05);
  sc.curve_max = get_number(cu, "max", "curve", 1.0);
  if (!(sc.curve_step >= 1e-3 && sc.curve_step <= 1))
    throw ConfigError(
        fmt::format("curve.step: must be in [0.001, 1] (at most a thousand loads), got {}", sc.curve_step));
  if (!(sc.curve_max > 0 && sc.curve_max <= 1))
    throw ConfigError(fmt::format("curve.max: the highest offered load must be in (0, 1], got {}", sc.curve_max));
}

}  // namespace

std::span<const ScenarioKey> traffic_scenario_keys() { return kTrafficKeys; }

TrafficScenario load_traffic_scenario(const nlohmann::json& doc, const std::string& origin) {
  require_known_keys(doc, "", key_names(kTrafficKeys, ""));
  TrafficScenario sc;
  read_network(doc, sc);
  read_traffic(doc, sc.config);
  read_phases_and_curve(doc, sc);
  try {
    validate(sc.config);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(fmt::format("{}: {}", origin, e.what()));
  }
  return sc;
}

TrafficScenario load_traffic_scenario_file(const std::string& path, const std::vector<std::string>& overrides) {
  auto doc = read_json_file(path);
  for (const auto& o : overrides) apply_override(doc, o);
  return load_traffic_scenario(doc, path);
}

nlohmann::json result_json(const TrafficResult& r) {
  double max_u = 0, sum_u = 0;
  for (double u : r.link_utilisation) {
    max_u = std::max(max_u, u);
    sum_u += u;
  }
  return {{"offered", r.offered},
          {"accepted", r.accepted},
          {"avg_latency", r.avg_latency},
          {"p50_latency", r.p50_latency},
          {"p99_latency", r.p99_latency},
          {"avg_network_latency", r.avg_network_latency},
          {"avg_hops", r.avg_hops},
          {"avg_zero_load", r.avg_zero_load},
          {"max_link_utilisation", max_u},
          {"mean_link_utilisation",
           r.link_utilisation.empty() ? 0.0 : sum_u / static_cast<double>(r.link_utilisation.size())},
          {"packets", r.packets_measured},
          {"saturated", r.saturated}};
}

}  // namespace hopsim::network::model
