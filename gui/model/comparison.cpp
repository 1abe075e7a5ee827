#include "comparison.hpp"

#include <algorithm>
#include <array>
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

namespace {

constexpr std::array<const char*, 8> kPalette{"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                              "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

std::string fmt_seconds(double s) {
  std::ostringstream os;
  os.precision(3);
  if (s >= 1)
    os << s << " s";
  else if (s >= 1e-3)
    os << s * 1e3 << " ms";
  else if (s >= 1e-6)
    os << s * 1e6 << " us";
  else
    os << s * 1e9 << " ns";
  return os.str();
}

}  // namespace

std::vector<PlotItem> comparison_plot(const Comparison& c, double w, double h) {
  std::vector<PlotItem> items;
  double lo = 0, hi = 0;
  int n_max = 1, n_min = 1 << 30;
  for (const auto& p : c.points) {
    for (const double v : {p.native_s, p.sim_s}) {
      if (!(v > 0)) continue;
      lo = lo > 0 ? std::min(lo, v) : v;
      hi = std::max(hi, v);
    }
    n_max = std::max(n_max, p.n);
    n_min = std::min(n_min, p.n);
  }
  if (!(hi > 0)) return items;
  const double e0 = std::floor(std::log10(lo));
  const double e1 = std::max(e0 + 1, std::ceil(std::log10(hi)));
  const double top = 34, bottom = h - 40, left_margin = 70, gap = 30, legend = 175;
  const double panel_w = (w - left_margin - gap - legend - 10) / 2;
  auto y_of = [&](double v) { return bottom - (std::log10(v) - e0) / (e1 - e0) * (bottom - top); };
  for (int panel = 0; panel < 2; ++panel) {
    const double x0 = left_margin + panel * (panel_w + gap), x1 = x0 + panel_w;
    auto x_of = [&](int n) { return n_max > n_min ? x0 + (n - n_min) * panel_w / (n_max - n_min) : (x0 + x1) / 2; };
    items.push_back(
        {PlotItem::Kind::text, {{(x0 + x1) / 2, top - 12}}, panel == 0 ? "native" : "simulated", "#000000", 1, 0});
    items.push_back({PlotItem::Kind::rect, {{x0, top}, {panel_w, bottom - top}}, "", "#808080", 1, 0});
    for (double e = e0; e <= e1; ++e) {
      const double y = y_of(std::pow(10.0, e));
      items.push_back({PlotItem::Kind::line, {{x0, y}, {x1, y}}, "", "#e0e0e0", 1, 0});
      if (panel == 0)
        items.push_back({PlotItem::Kind::text, {{x0 - 6, y + 4}}, fmt_seconds(std::pow(10.0, e)), "#000000", 1, 1});
    }
    for (const int n : {n_min, (n_min + n_max) / 2, n_max}) {
      items.push_back({PlotItem::Kind::text, {{x_of(n), bottom + 16}}, std::to_string(n), "#000000", 1, 0});
    }
    items.push_back({PlotItem::Kind::text, {{(x0 + x1) / 2, bottom + 32}}, "n", "#000000", 1, 0});
    for (std::size_t m = 0; m < c.methods.size(); ++m) {
      PlotItem line{PlotItem::Kind::polyline, {}, c.methods[m], kPalette[m % 8], 2, 0};
      for (const auto& p : c.points) {
        const double v = panel == 0 ? p.native_s : p.sim_s;
        if (p.method == c.methods[m] && v > 0) line.points.emplace_back(x_of(p.n), y_of(v));
      }
      if (!line.points.empty()) items.push_back(std::move(line));
    }
  }
  const double lx = w - legend + 5;
  items.push_back({PlotItem::Kind::text, {{lx, top}}, "seconds per launch", "#000000", 1, -1});
  for (std::size_t m = 0; m < c.methods.size(); ++m) {
    const double y = top + 22 + 18 * static_cast<double>(m);
    items.push_back({PlotItem::Kind::line, {{lx, y - 4}, {lx + 20, y - 4}}, "", kPalette[m % 8], 3, 0});
    items.push_back({PlotItem::Kind::text, {{lx + 26, y}}, c.methods[m], "#000000", 1, -1});
  }
  return items;
}

std::string plot_svg(const std::vector<PlotItem>& items, double w, double h) {
  std::ostringstream os;
  auto esc = [](const std::string& s) {
    std::string o;
    for (const char ch : s) {
      if (ch == '<')
        o += "&lt;";
      else if (ch == '>')
        o += "&gt;";
      else if (ch == '&')
        o += "&amp;";
      else if (ch == '"')
        o += "&quot;";
      else
        o += ch;
    }
    return o;
  };
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w
     << "\" height=\"" << h << "\" viewBox=\"0 0 " << w << " " << h
     << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  for (const auto& it : items) {
    switch (it.kind) {
      case PlotItem::Kind::line:
        os << "<line x1=\"" << it.points[0].first << "\" y1=\"" << it.points[0].second << "\" x2=\""
           << it.points[1].first << "\" y2=\"" << it.points[1].second << "\" stroke=\"" << it.colour
           << "\" stroke-width=\"" << it.width << "\"/>\n";
        break;
      case PlotItem::Kind::polyline:
        os << R"(<polyline fill="none" stroke=")" << it.colour << R"(" stroke-width=")" << it.width << R"(" points=")";
        for (const auto& [x, y] : it.points) os << x << "," << y << " ";
        os << "\"><title>" << esc(it.text) << "</title></polyline>\n";
        break;
      case PlotItem::Kind::rect:
        os << "<rect x=\"" << it.points[0].first << "\" y=\"" << it.points[0].second << "\" width=\""
           << it.points[1].first << R"(" height=")" << it.points[1].second << R"(" fill="none" stroke=")" << it.colour
           << "\"/>\n";
        break;
      case PlotItem::Kind::text:
        os << "<text x=\"" << it.points[0].first << "\" y=\"" << it.points[0].second << "\" text-anchor=\""
           << (it.align < 0   ? "start"
               : it.align > 0 ? "end"
                              : "middle")
           << "\" fill=\"" << it.colour << "\">" << esc(it.text) << "</text>\n";
        break;
    }
  }
  os << "</svg>\n";
  return os.str();
}

}  // namespace hopsim::gui
