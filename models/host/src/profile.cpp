#include "hopsim/host/model/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <utility>

#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/core/strict_json.hpp"

namespace hopsim::host::model {
namespace {

struct Field {
  const char* name = nullptr;
  const char* unit = nullptr;
  bool table = false;
  bool optional_zero = false;  // may be 0 (e.g. CMA unavailable)
  bool per_core = false;       // a list with one entry per core (else a table over `sizes`)
  bool optional = false;       // may be missing from the file (then 0)
};

// The parameters, their units and whether they are tables over `sizes`.
constexpr auto kFields = std::to_array<Field>({
    {"cores", "count", false, false},
    {"core_speed", "ratio", true, false, true},
    {"sizes", "B", true, false},
    {"memcpy_bw", "B/s", true, false},
    {"memcpy_bw_all", "B/s", true, false},
    {"read_bw", "B/s", true, false},
    {"cma_bw", "B/s", true, true},
    {"xwrite_bw", "B/s", true, false},
    {"xcopy_bw", "B/s", true, false},
    {"xcma_bw", "B/s", true, true},
    {"xread_bw", "B/s", true, false},
    {"step8_double", "s", false, true},
    {"step8_cma", "s", false, true},
    {"step8_zero", "s", false, true},
    {"c2c_latency", "s", false, false},
    {"syscall", "s", false, false},
    {"switch_cost", "s", false, true},
    {"cma_call", "s", false, true},
    {"cma_per_page", "s", false, true},
    {"remap_call", "s", false, true},
    {"remap_per_page", "s", false, false},
    {"spin_time", "s", false, true},
    {"yield_delay", "s", false, true},
    {"yield_delay_median", "s", false, true},
    {"preempt_slice", "s", false, true},
    {"background_load", "count", false, true},
    {"checksum_rate", "B/s", false, true},
    {"switch_cost_many", "s", false, true},
    {"exchange_handover", "s", false, true, false, true},
    {"xwrite_bw_apart", "B/s", true, false, false, true},
    {"xcopy_bw_apart", "B/s", true, false, false, true},
    {"xcma_bw_apart", "B/s", true, true, false, true},
    {"xread_bw_apart", "B/s", true, false, false, true},
    {"apart_handover", "s", false, true, false, true},
    {"chips", "count", false, false, false, true},
    {"nodes", "count", false, false, false, true},
    {"node_link_bw", "B/s", false, false, false, true},
    {"coherence_bw", "B/s", false, false, false, true},
});

// A time of a copy path is at most 1 s and a rate at least 1 kB/s: beyond
// them a run's simulated time would overflow the simulator's clock.
void check_scale(double d, std::string_view unit, const std::string& key) {
  if (unit == "s" && d > 1.0)
    throw ConfigError(fmt::format("{}: {} s is over 1 s, the longest time it may take", key, d));
  if (unit == "B/s" && d > 0 && d < 1e3)
    throw ConfigError(fmt::format("{}: {} B/s is below 1 kB/s, the slowest rate it may take", key, d));
}

// The table named `n` of `p` (Profile or const Profile), null if none.
template <class P>
auto table_of(P& p, std::string_view n) -> decltype(&p.sizes) {
  if (n == "sizes") return &p.sizes;
  if (n == "core_speed") return &p.core_speed;
  if (n == "memcpy_bw") return &p.memcpy_bw;
  if (n == "memcpy_bw_all") return &p.memcpy_bw_all;
  if (n == "read_bw") return &p.read_bw;
  if (n == "cma_bw") return &p.cma_bw;
  if (n == "xwrite_bw") return &p.xwrite_bw;
  if (n == "xcopy_bw") return &p.xcopy_bw;
  if (n == "xcma_bw") return &p.xcma_bw;
  if (n == "xread_bw") return &p.xread_bw;
  if (n == "xwrite_bw_apart") return &p.xwrite_bw_apart;
  if (n == "xcopy_bw_apart") return &p.xcopy_bw_apart;
  if (n == "xcma_bw_apart") return &p.xcma_bw_apart;
  if (n == "xread_bw_apart") return &p.xread_bw_apart;
  return nullptr;
}
// The scalar named `n` of `p` (Profile or const Profile), null if none.
template <class P>
auto scalar_of(P& p, std::string_view n) -> decltype(&p.c2c_latency) {
  if (n == "c2c_latency") return &p.c2c_latency;
  if (n == "step8_double") return &p.step8_double;
  if (n == "step8_cma") return &p.step8_cma;
  if (n == "step8_zero") return &p.step8_zero;
  if (n == "syscall") return &p.syscall;
  if (n == "switch_cost") return &p.switch_cost;
  if (n == "switch_cost_many") return &p.switch_cost_many;
  if (n == "cma_call") return &p.cma_call;
  if (n == "cma_per_page") return &p.cma_per_page;
  if (n == "remap_call") return &p.remap_call;
  if (n == "remap_per_page") return &p.remap_per_page;
  if (n == "background_load") return &p.background_load;
  if (n == "spin_time") return &p.spin_time;
  if (n == "preempt_slice") return &p.preempt_slice;
  if (n == "yield_delay") return &p.yield_delay;
  if (n == "yield_delay_median") return &p.yield_delay_median;
  if (n == "checksum_rate") return &p.checksum_rate;
  if (n == "exchange_handover") return &p.exchange_handover;
  if (n == "apart_handover") return &p.apart_handover;
  if (n == "chips") return &p.chips;
  if (n == "nodes") return &p.nodes;
  if (n == "node_link_bw") return &p.node_link_bw;
  if (n == "coherence_bw") return &p.coherence_bw;
  return nullptr;
}

// A CMA table may hold 0 only where CMA was refused (cma_ok false).
void check_cma_tables(const Profile& p, const std::string& base) {
  for (const char* name : {"cma_bw", "xcma_bw"}) {
    const auto* t = table_of(p, name);
    if (p.cma_ok && std::find(t->begin(), t->end(), 0.0) != t->end())
      throw ConfigError(
          fmt::format("{}.{}: 0 B/s while cma_ok is true (CMA ran: every entry must be positive; "
                      "cma_ok false marks a machine that refused CMA)",
                      base, name));
  }
}

// Chips divide the cores evenly and nodes the chips; a fabric needs nodes.
void check_topology(const Profile& p, const std::string& base) {
  for (const auto& [name, v] : {std::pair{"chips", p.chips}, std::pair{"nodes", p.nodes}})
    if (v != std::floor(v)) throw ConfigError(fmt::format("{}.{}.value: {} is not a whole number", base, name, v));
  if (p.cores % p.chip_count() != 0)
    throw ConfigError(fmt::format("{}.chips: {} chips do not split {} cores evenly", base, p.chip_count(), p.cores));
  if (p.chip_count() % p.node_count() != 0)
    throw ConfigError(
        fmt::format("{}.nodes: {} nodes do not split {} chips evenly", base, p.node_count(), p.chip_count()));
  if (p.node_link_bw > 0 && p.node_count() < 2)
    throw ConfigError(
        fmt::format("{}.node_link_bw: links between nodes, but the machine has one node (give 'nodes')", base));
  if (p.coherence_bw > 0 && p.chip_count() < 2)
    throw ConfigError(
        fmt::format("{}.coherence_bw: reads between chips, but the machine has one chip (give 'chips')", base));
}

// Sizes ascending, CMA's zeros only where CMA was refused, every table as
// long as `sizes` (or one entry per core).
void check_tables(const Profile& p, const std::string& base) {
  for (std::size_t i = 1; i < p.sizes.size(); ++i)
    if (p.sizes[i] <= p.sizes[i - 1]) throw ConfigError(fmt::format("{}.sizes: sizes must be ascending", base));
  check_cma_tables(p, base);
  for (const auto& f : kFields) {
    if (!f.table) continue;
    const auto* t = table_of(p, f.name);
    if (f.optional && t->empty()) continue;
    if (f.per_core) {
      if (t->size() != static_cast<std::size_t>(p.cores))
        throw ConfigError(
            fmt::format("{}.{}: {} entries but 'cores' is {} (one per core)", base, f.name, t->size(), p.cores));
      continue;
    }
    if (t->size() != p.sizes.size())
      throw ConfigError(fmt::format("{}.{}: {} entries but 'sizes' has {}", base, f.name, t->size(), p.sizes.size()));
  }
}

}  // namespace

bool Profile::has_apart() const {
  const std::size_t n = sizes.size();
  return apart_handover > 0 && n > 0 && xwrite_bw_apart.size() == n && xcopy_bw_apart.size() == n &&
         xcma_bw_apart.size() == n && xread_bw_apart.size() == n;
}

Profile Profile::as_apart() const {
  if (!has_apart())
    throw ConfigError(fmt::format("profile '{}' has no exchange tables measured with the CPUs apart", name));
  Profile q = *this;
  q.xwrite_bw = xwrite_bw_apart;
  q.xcopy_bw = xcopy_bw_apart;
  q.xcma_bw = xcma_bw_apart;
  q.xread_bw = xread_bw_apart;
  const double extra = std::max(0.0, apart_handover - c2c_latency);
  for (double* s : {&q.step8_double, &q.step8_cma, &q.step8_zero})
    if (*s > 0) *s += extra;
  q.c2c_latency = std::max(c2c_latency, apart_handover);
  return q;
}

double Profile::at(const std::vector<double>& t, double size) const {
  if (t.empty()) return 0;
  if (size <= sizes.front()) return t.front();
  if (size >= sizes.back()) return t.back();
  const auto it = std::upper_bound(sizes.begin(), sizes.end(), size);
  const std::size_t i = static_cast<std::size_t>(it - sizes.begin());
  const double x0 = std::log(sizes[i - 1]), x1 = std::log(sizes[i]), x = std::log(size);
  if (t[i - 1] <= 0 || t[i] <= 0) return std::max(0.0, t[i - 1] + (t[i] - t[i - 1]) * (x - x0) / (x1 - x0));
  return std::exp(std::log(t[i - 1]) + (std::log(t[i]) - std::log(t[i - 1])) * (x - x0) / (x1 - x0));
}

nlohmann::json Profile::to_json() const {
  nlohmann::json params = nlohmann::json::object();
  const Profile& self = *this;
  for (const auto& f : kFields) {
    nlohmann::json v;
    if (std::string_view(f.name) == "cores")
      v = cores;
    else if (auto* t = table_of(self, f.name))
      v = *t;
    else
      v = *scalar_of(self, f.name);
    const auto s = sources.find(f.name);
    // An optional parameter left unknown (0 or empty) is left out.
    if (f.optional && (f.table ? table_of(self, f.name)->empty() : v == 0)) continue;
    params[f.name] = {{"value", v}, {"unit", f.unit}, {"source", s == sources.end() ? "" : s->second}};
  }
  params["cma_ok"] = {
      {"value", cma_ok}, {"unit", "bool"}, {"source", sources.count("cma_ok") ? sources.at("cma_ok") : ""}};
  nlohmann::json j = {{"name", name}, {"family", "host"}, {"description", description}, {"params", params}};
  if (!system.empty()) j["system"] = system;
  return j;
}

Profile Profile::from_json(const nlohmann::json& j, const std::string& origin) {
  require_known_keys(j, origin, {"name", "family", "description", "system", "params"});
  Profile p;
  p.name = get_string(j, "name", origin, "");
  p.description = get_string(j, "description", origin, "");
  p.system = get_string(j, "system", origin, "");
  if (const auto family = get_string(j, "family", origin, "host"); family != "host")
    throw ConfigError(fmt::format("{}.family: '{}' is not a host profile (expected \"host\")", origin, family));
  if (!j.contains("params")) throw ConfigError(fmt::format("{}: missing key 'params'", origin));
  const auto& ps = j["params"];
  const std::string base = join_path(origin, "params");
  if (!ps.is_object()) throw ConfigError(fmt::format("{}: expected an object", base));
  for (const auto& [k, v] : ps.items()) {
    const bool known = k == "cma_ok" || std::any_of(std::begin(kFields), std::end(kFields),
                                                    [&k = k](const Field& f) { return k == f.name; });
    if (!known) {
      std::string names;
      for (const auto& f : kFields) names += std::string(names.empty() ? "" : ", ") + f.name;
      throw ConfigError(fmt::format("{}: unknown parameter (known: {}, cma_ok)", join_path(base, k), names));
    }
  }
  auto entry = [&](const std::string& name, const char* unit) -> const nlohmann::json& {
    const std::string key = join_path(base, name);
    if (!ps.contains(name)) throw ConfigError(fmt::format("{}: missing parameter", key));
    const auto& e = ps[name];
    require_known_keys(e, key, {"value", "unit", "source"});
    if (!e.contains("value")) throw ConfigError(fmt::format("{}: missing 'value'", key));
    const std::string u = get_string(e, "unit", key, unit);
    if (u != unit) throw ConfigError(fmt::format("{}.unit: '{}' but this parameter is in {}", key, u, unit));
    p.sources[name] = get_string(e, "source", key, "");
    if (p.sources[name].empty()) throw ConfigError(fmt::format("{}.source: every parameter needs a source", key));
    return e["value"];
  };
  for (const auto& f : kFields) {
    const std::string key = join_path(join_path(base, f.name), "value");
    if (f.optional && !ps.contains(f.name)) continue;
    const auto& v = entry(f.name, f.unit);
    if (std::string_view(f.name) == "cores") {
      if (!v.is_number_integer() || v.get<int>() < 1)
        throw ConfigError(fmt::format("{}: expected a whole number >= 1", key));
      p.cores = v.get<int>();
    } else if (f.table) {
      if (!v.is_array() || v.empty()) throw ConfigError(fmt::format("{}: expected a non-empty array of numbers", key));
      auto* t = table_of(p, f.name);
      for (const auto& x : v) {
        if (!x.is_number()) throw ConfigError(fmt::format("{}: {} is not a number", key, x.dump()));
        const double d = x.get<double>();
        if (d < 0 || (d == 0 && !f.optional_zero)) throw ConfigError(fmt::format("{}: {} must be positive", key, d));
        check_scale(d, f.unit, key);
        t->push_back(d);
      }
    } else {
      if (!v.is_number()) throw ConfigError(fmt::format("{}: expected a number", key));
      const double d = v.get<double>();
      if (d < 0 || (d == 0 && !f.optional_zero)) throw ConfigError(fmt::format("{}: {} must be positive", key, d));
      check_scale(d, f.unit, key);
      *scalar_of(p, f.name) = d;
    }
  }
  if (ps.contains("cma_ok")) {
    const auto& v = entry("cma_ok", "bool");
    if (!v.is_boolean())
      throw ConfigError(fmt::format("{}: expected true or false", join_path(join_path(base, "cma_ok"), "value")));
    p.cma_ok = v.get<bool>();
  }
  check_topology(p, base);
  check_tables(p, base);
  return p;
}

Profile load_profile(const std::string& path_or_preset) {
  std::string path = path_or_preset;
  if (!std::filesystem::exists(path) && path.find('/') == std::string::npos && !path.ends_with(".json")) {
    const auto preset = load_preset(path_or_preset, "--profile");
    path = preset.file;
  }
  return Profile::from_json(read_json_file(path), path);
}

void save_profile(const Profile& p, const std::string& path) {
  try {
    write_file_atomic(path, p.to_json().dump(2) + "\n");
  } catch (const Error& e) {
    throw ConfigError(fmt::format("cannot write profile '{}': {}", path, e.what()));
  }
}

}  // namespace hopsim::host::model
