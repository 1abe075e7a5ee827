#include "comparison.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>
#include <tuple>

namespace hopsim::gui {

namespace fs = std::filesystem;

namespace {

// Pairs launches by (method, n): the simulated ones that also ran natively, by method in
// first-seen order, then n.
Comparison pair_launches(const std::map<std::pair<std::string, int>, double>& native,
                         const std::vector<std::tuple<std::string, int, double>>& sim) {
  Comparison c;
  for (const auto& [method, n, seconds] : sim) {
    const auto it = native.find({method, n});
    if (it == native.end()) continue;
    if (std::find(c.methods.begin(), c.methods.end(), method) == c.methods.end()) c.methods.push_back(method);
    c.points.push_back({method, n, it->second, seconds});
  }
  std::stable_sort(c.points.begin(), c.points.end(), [&](const TimingPoint& a, const TimingPoint& b) {
    const auto ia = std::find(c.methods.begin(), c.methods.end(), a.method);
    const auto ib = std::find(c.methods.begin(), c.methods.end(), b.method);
    return ia != ib ? ia < ib : a.n < b.n;
  });
  return c;
}

}  // namespace

std::optional<Comparison> comparison_from_trace(const traces::TraceReader& trace, std::string* why) {
  std::map<std::pair<std::string, int>, double> native;
  std::vector<std::tuple<std::string, int, double>> sim;
  for (const auto& l : trace.launches()) {
    if (l.mode == "native") native[{l.method, static_cast<int>(l.n)}] = l.seconds;
    if (l.mode == "sim") sim.emplace_back(l.method, static_cast<int>(l.n), l.seconds);
  }
  auto c = pair_launches(native, sim);
  if (c.points.empty()) {
    if (why) *why = trace.path().string() + ": the trace holds no launch of both modes (run with --mode both)";
    return std::nullopt;
  }
  c.source = trace.path();
  return c;
}

std::optional<Comparison> load_comparison(const fs::path& results, std::string* why) {
  auto fail = [&](const std::string& w) -> std::optional<Comparison> {
    if (why) *why = results.string() + ": " + w;
    return std::nullopt;
  };
  std::ifstream in(results);
  if (!in) return fail("cannot open");
  const auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("not JSON");
  for (const char* mode : {"native", "sim"})
    if (!j.contains(mode) || !j[mode].is_object() || !j[mode].contains("launches") || !j[mode]["launches"].is_array())
      return fail(std::string("no ") + mode + " launches (run with --mode both)");
  std::map<std::pair<std::string, int>, double> native;
  for (const auto& l : j["native"]["launches"]) {
    if (!l.contains("method") || !l.contains("n") || !l.contains("seconds"))
      return fail("launch without method, n or seconds");
    native[{l["method"].get<std::string>(), l["n"].get<int>()}] = l["seconds"].get<double>();
  }
  std::vector<std::tuple<std::string, int, double>> sim;
  for (const auto& l : j["sim"]["launches"]) {
    if (!l.contains("method") || !l.contains("n") || !l.contains("seconds"))
      return fail("launch without method, n or seconds");
    sim.emplace_back(l["method"].get<std::string>(), l["n"].get<int>(), l["seconds"].get<double>());
  }
  auto c = pair_launches(native, sim);
  if (c.points.empty()) return fail("no launch appears in both runs");
  c.source = results;
  return c;
}

fs::path find_results_for(const traces::TraceReader& trace) {
  const auto scenario = nlohmann::json::parse(trace.meta_value("scenario").value_or("{}"), nullptr, false);
  if (!scenario.is_object() || !scenario.contains("outputs") || !scenario["outputs"].is_object()) return {};
  const auto& out = scenario["outputs"];
  if (!out.contains("dir") || !out["dir"].is_string()) return {};
  const fs::path dir = out["dir"].get<std::string>();
  std::vector<fs::path> candidates{dir / "results.json"};
  if (dir.is_relative()) candidates.push_back(trace.path().parent_path() / dir / "results.json");
  for (const auto& c : candidates) {
    std::error_code ec;
    if (!fs::is_regular_file(c, ec)) continue;
    std::ifstream in(c);
    const auto j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.contains("sim") || !j["sim"].contains("trace") || !j["sim"]["trace"].is_string())
      continue;
    fs::path named = j["sim"]["trace"].get<std::string>();
    if (fs::equivalent(named, trace.path(), ec)) return c;
  }
  return {};
}

}  // namespace hopsim::gui
