#include "curve.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <istream>
#include <limits>
#include <utility>

namespace hopsim::gui {

namespace {

using Field = std::optional<double> CurvePoint::*;

// The optional numeric columns, by header name.
constexpr std::array<std::pair<const char*, Field>, 9> kFields{{
    {"accepted", &CurvePoint::accepted},
    {"avg_latency", &CurvePoint::avg_latency},
    {"p50_latency", &CurvePoint::p50_latency},
    {"p99_latency", &CurvePoint::p99_latency},
    {"avg_network_latency", &CurvePoint::avg_network_latency},
    {"avg_hops", &CurvePoint::avg_hops},
    {"max_link_utilisation", &CurvePoint::max_link_utilisation},
    {"reference_latency", &CurvePoint::reference_latency},
    {"error_percent", &CurvePoint::error_percent},
}};

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  for (const char ch : line) {
    if (ch == ',')
      cells.emplace_back();
    else
      cells.back() += ch;
  }
  for (auto& c : cells) c = trimmed(c);
  return cells;
}

// A whole cell as a finite number, independent of the C locale.
std::optional<double> to_number(const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string format_g(double v) {
  std::array<char, 32> buf{};
  std::snprintf(buf.data(), buf.size(), "%g", v);
  return buf.data();
}

// Reads the rows of a curve CSV against its header; the first failure is kept in `error`.
class CurveParser {
 public:
  explicit CurveParser(std::string name) : name_(std::move(name)) {}

  // Takes one line (1-based `lineno`); false once a problem was found.
  bool take(const std::string& line, int lineno) {
    lineno_ = lineno;
    if (trimmed(line).empty() || line.front() == '#') return true;
    const auto cells = split_cells(line);
    if (curve_.columns.empty()) return header(line, cells);
    return row(cells);
  }

  std::optional<Curve> finish() {
    if (curve_.columns.empty()) return fail_file("empty file: no header line");
    if (curve_.points.empty()) return fail_file("no data rows after the header");
    curve_.source = name_;
    return std::move(curve_);
  }

  const std::string& error() const noexcept { return error_; }

 private:
  bool header(const std::string& line, const std::vector<std::string>& cells) {
    const auto has = [&](const char* c) { return std::find(cells.begin(), cells.end(), c) != cells.end(); };
    if (!has("offered") || !has("avg_latency")) {
      fail_line("the header needs the columns 'offered' and 'avg_latency', got '" + trimmed(line) + "'");
      return false;
    }
    curve_.columns = cells;
    curve_.layout = has("reference_latency") ? CurveLayout::reference : CurveLayout::plain;
    return true;
  }

  bool row(const std::vector<std::string>& cells) {
    if (cells.size() != curve_.columns.size()) {
      fail_line(std::to_string(cells.size()) + " cells, the header has " + std::to_string(curve_.columns.size()));
      return false;
    }
    CurvePoint p;
    for (std::size_t i = 0; i < cells.size(); ++i)
      if (!cell(curve_.columns[i], cells[i], p)) return false;
    curve_.points.push_back(p);
    return true;
  }

  // Stores one cell of column `column` in `p`; unknown columns are ignored.
  bool cell(const std::string& column, const std::string& text, CurvePoint& p) {
    const bool known = column == "offered" || column == "saturated" || column == "compared" ||
                       std::any_of(kFields.begin(), kFields.end(), [&](const auto& f) { return column == f.first; });
    if (!known) return true;
    if (text.empty() && column != "offered") return true;
    const auto v = to_number(text);
    if (!v) {
      fail_line("column '" + column + "': '" + text + "' is not a number");
      return false;
    }
    if (column == "offered") p.offered = *v;
    if (column == "saturated") p.saturated = *v != 0;
    if (column == "compared") p.compared = *v != 0;
    for (const auto& [name, field] : kFields)
      if (column == name) p.*field = v;
    return true;
  }

  void fail_line(const std::string& what) { error_ = name_ + ":" + std::to_string(lineno_) + ": " + what; }

  std::optional<Curve> fail_file(const std::string& what) {
    error_ = name_ + ": " + what;
    return std::nullopt;
  }

  std::string name_;
  int lineno_ = 0;
  Curve curve_;
  std::string error_;
};

std::optional<double> lowest_offered(const Curve& c, bool (*pick)(const CurvePoint&)) {
  std::optional<double> lo;
  for (const auto& p : c.points)
    if (pick(p) && (!lo || p.offered < *lo)) lo = p.offered;
  return lo;
}

}  // namespace

std::optional<double> Curve::saturation() const {
  if (layout == CurveLayout::plain) return lowest_offered(*this, [](const CurvePoint& p) { return p.saturated; });
  return lowest_offered(*this, [](const CurvePoint& p) { return !p.avg_latency.has_value(); });
}

std::optional<double> Curve::reference_saturation() const {
  if (layout != CurveLayout::reference) return std::nullopt;
  return lowest_offered(*this, [](const CurvePoint& p) { return !p.reference_latency.has_value(); });
}

bool Curve::has_column(const std::string& name) const {
  return std::find(columns.begin(), columns.end(), name) != columns.end();
}

std::optional<Curve> parse_curve(std::istream& in, const std::string& name, std::string* why) {
  CurveParser parser(name);
  std::string line;
  std::optional<Curve> curve;
  bool ok = true;
  for (int lineno = 1; ok && std::getline(in, line); ++lineno) ok = parser.take(line, lineno);
  if (ok) curve = parser.finish();
  if (!curve && why) *why = parser.error();
  return curve;
}

std::optional<Curve> load_curve(const std::filesystem::path& path, std::string* why) {
  std::ifstream in(path);
  if (!in) {
    if (why) *why = path.string() + ": cannot open the file";
    return std::nullopt;
  }
  auto curve = parse_curve(in, path.string(), why);
  if (curve) curve->source = path;
  return curve;
}

std::vector<CurveSeries> curve_series(const Curve& c) {
  using Pick = std::pair<const char*, Field>;
  std::vector<Pick> picks;
  if (c.layout == CurveLayout::reference) {
    picks = {{"hopsim", &CurvePoint::avg_latency}, {"reference", &CurvePoint::reference_latency}};
  } else {
    picks = {{"average total latency", &CurvePoint::avg_latency}};
    if (c.has_column("avg_network_latency"))
      picks.emplace_back("average network latency", &CurvePoint::avg_network_latency);
    if (c.has_column("p99_latency")) picks.emplace_back("p99 total latency", &CurvePoint::p99_latency);
  }
  std::vector<CurveSeries> out;
  for (const auto& [name, field] : picks) {
    CurveSeries s{name, {}, {}};
    for (const auto& p : c.points) {
      if (p.saturated || !(p.*field)) continue;
      s.x.push_back(p.offered);
      s.y.push_back(*(p.*field));
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string curve_title(const Curve& c) {
  const std::string file = c.source.filename().string();
  std::string title = c.layout == CurveLayout::reference ? "hopsim vs reference" : "latency vs offered load";
  if (!file.empty()) title += " (" + file + ")";
  if (const auto s = c.saturation())
    title += c.layout == CurveLayout::reference ? ", hopsim saturated at offered " + format_g(*s)
                                                : ", saturated at offered " + format_g(*s);
  if (const auto r = c.reference_saturation()) title += ", reference saturated at offered " + format_g(*r);
  return title;
}

std::vector<double> curve_ticks(double lo, double hi, int target) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {lo};
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> t;
  const double first = std::floor(lo / step) * step;
  for (int i = 0; first + i * step <= hi + step * 0.999; ++i) {
    const double v = first + i * step;
    t.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  }
  return t;
}

std::pair<double, double> curve_axis_range(double lo, double hi, bool include_zero) {
  if (include_zero) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
  if (hi <= lo) {
    const double d = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= d, hi += d;
  }
  const auto t = curve_ticks(lo, hi);
  return {std::min(lo, t.front()), std::max(hi, t.back())};
}

}  // namespace hopsim::gui
