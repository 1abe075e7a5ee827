#include "trace_model.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace hopsim::gui {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string fmt_number(double v) {
  std::ostringstream os;
  if (v != 0 && (std::abs(v) >= 1e7 || std::abs(v) < 1e-2)) {
    os.precision(3);
    os << std::scientific << v;
  } else if (v == std::floor(v)) {
    os << static_cast<long long>(v);
  } else {
    os.precision(v >= 100 ? 0 : 2);
    os << std::fixed << v;
  }
  return os.str();
}

double nice_step(double raw) {
  if (!(raw > 0)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

}  // namespace

const char* to_string(Metric m) noexcept {
  switch (m) {
    case Metric::bytes:
      return "bytes";
    case Metric::packets:
      return "packets";
    case Metric::utilisation:
      return "utilisation";
    case Metric::stall:
      return "stall";
  }
  return "?";
}

std::optional<Metric> parse_metric(std::string_view s) noexcept {
  if (s == "bytes") return Metric::bytes;
  if (s == "packets") return Metric::packets;
  if (s == "utilisation" || s == "utilization" || s == "util") return Metric::utilisation;
  if (s == "stall" || s == "stall_cycles") return Metric::stall;
  return std::nullopt;
}

const char* unit(Metric m) noexcept {
  switch (m) {
    case Metric::bytes:
      return "B";
    case Metric::packets:
      return "packets";
    case Metric::utilisation:
      return "%";
    case Metric::stall:
      return "cycles";
  }
  return "";
}

double ColourScale::heat(double value) const noexcept {
  if (!(value > 0) || !(max > 0)) return 0;
  if (value >= max) return 1;
  if (scale == Scale::log) return std::log1p(value) / std::log1p(max);
  return value / max;
}

Rgb ColourScale::colour(double heat) noexcept {
  struct Stop {
    double at = 0;
    Rgb c;
  };
  static constexpr std::array<Stop, 5> kStops{
      {{0.0, {49, 78, 186}}, {0.3, {0, 160, 170}}, {0.6, {235, 200, 20}}, {0.8, {245, 125, 20}}, {1.0, {200, 0, 0}}}};
  if (!(heat > 0)) return kStops.front().c;
  if (heat >= 1) return kStops.back().c;
  for (std::size_t i = 1; i < kStops.size(); ++i) {
    if (heat <= kStops[i].at) {
      const auto& a = kStops[i - 1];
      const auto& b = kStops[i];
      const double f = (heat - a.at) / (b.at - a.at);
      auto mix = [f](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * f)); };
      return {mix(a.c.r, b.c.r), mix(a.c.g, b.c.g), mix(a.c.b, b.c.b)};
    }
  }
  return kStops.back().c;
}

std::vector<std::pair<double, double>> ColourScale::ticks(int count) const {
  std::vector<std::pair<double, double>> out;
  if (!(max > 0)) return out;
  out.emplace_back(0.0, 0.0);
  if (scale == Scale::log) {
    for (double v = 1; v < max; v *= 10) {
      if (v > 0) out.emplace_back(v, heat(v));
    }
  } else {
    const double step = nice_step(max / std::max(1, count - 1));
    for (double v = step; v < max * (1 - 1e-9); v += step) out.emplace_back(v, heat(v));
  }
  out.emplace_back(max, 1.0);
  return out;
}

TraceModel::TraceModel(const std::filesystem::path& path) : reader_(std::make_unique<traces::TraceReader>(path)) {
  nodes_ = reader_->nodes();
  links_ = reader_->links();
  std::set<std::string> nets;
  for (const auto& l : links_) nets.insert(l.net);
  networks_.assign(nets.begin(), nets.end());
  topology_ = build_topology(nodes_, links_, projection_);
  std::tie(begin_, end_) = reader_->time_range();
  counted_ = !reader_->instructions().empty();
}

std::string TraceModel::summary() const {
  std::ostringstream os;
  const auto& r = *reader_;
  os << r.meta_value("machine").value_or("?");
  if (auto k = r.meta_value("kernel")) os << ", " << *k;
  os << ", mode " << r.meta_value("mode").value_or("?") << ", detail " << traces::to_string(r.detail()) << ", "
     << nodes_.size() << " nodes, " << links_.size() << " links, " << to_string(topology_.kind) << " layout";
  if (!r.complete()) os << " (INCOMPLETE trace)";
  return os.str();
}

std::string TraceModel::format_time(double cycles) const {
  std::ostringstream os;
  os << fmt_number(cycles) << " cycles";
  const double hz = reader_->clock_hz();
  if (hz > 0) {
    const double s = cycles / hz;
    os << " (";
    if (s >= 1)
      os << fmt_number(s) << " s";
    else if (s >= 1e-3)
      os << fmt_number(s * 1e3) << " ms";
    else
      os << fmt_number(s * 1e6) << " us";
    os << ")";
  }
  return os.str();
}

std::optional<double> TraceModel::parse_time(std::string_view text) const {
  double scale = 1;
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.size() >= 6 && text.substr(text.size() - 6) == "cycles") {
    text.remove_suffix(6);
  } else {
    for (const auto& [suffix, seconds] :
         std::array<std::pair<std::string_view, double>, 4>{{{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}}}) {
      if (text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix) {
        if (!(reader_->clock_hz() > 0)) return std::nullopt;
        scale = seconds * reader_->clock_hz();
        text.remove_suffix(suffix.size());
        break;
      }
    }
  }
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v * scale;
}

void TraceModel::set_projection(const ProjectionOptions& options) {
  projection_ = options;
  topology_ = build_topology(nodes_, links_, projection_);
  invalidate();
}

void TraceModel::set_window(double t0, double t1) {
  window_ = std::pair{t0, t1};
  invalidate();
}

void TraceModel::clear_window() {
  window_.reset();
  invalidate();
}

std::pair<double, double> TraceModel::effective_window() const {
  if (!window_) return {begin_, end_};
  if (node_filter_) return *window_;  // hop-exact
  const auto [first, last] = reader_->bucket_window(window_->first, window_->second);
  if (first > last) return *window_;
  const double w = reader_->bucket_cycles();
  return {static_cast<double>(first) * w, static_cast<double>(last + 1) * w};
}

void TraceModel::set_metric(Metric m) { metric_ = m; }
void TraceModel::set_scale(Scale s) { scale_ = s; }

void TraceModel::set_network(std::string net) {
  network_ = std::move(net);
  invalidate();
}

void TraceModel::set_node_filter(std::optional<std::size_t> node) {
  node_filter_ = node;
  invalidate();
}

std::string TraceModel::node_filter_note() const {
  if (node_filter_ && reader_->detail() != traces::Detail::hops)
    return "filtering by node needs a trace recorded with --trace-detail hops";
  return {};
}

void TraceModel::recompute() const {
  if (!dirty_) return;
  edge_counters_.assign(topology_.edges.size(), Counters{});
  vertex_counters_.assign(topology_.vertices.size(), Counters{});
  std::vector<traces::LinkTotals> totals;
  const auto [t0, t1] = window_.value_or(std::pair{-kInf, kInf});
  if (node_filter_) {
    totals = reader_->node_link_totals(nodes_.at(*node_filter_).id, t0, t1);
  } else {
    totals = window_ ? reader_->link_totals(t0, t1) : reader_->link_totals();
  }
  const auto [w0, w1] = effective_window();
  window_cycles_ = std::max(0.0, w1 - w0);
  std::map<std::int64_t, std::size_t> link_index;
  for (std::size_t i = 0; i < links_.size(); ++i) link_index.emplace(links_[i].id, i);
  auto add = [](Counters& c, const traces::LinkTotals& t) {
    c.bytes += static_cast<double>(t.bytes);
    c.packets += static_cast<double>(t.packets);
    c.busy += t.busy;
    c.stall += t.stall;
  };
  for (const auto& t : totals) {
    const auto it = link_index.find(t.link);
    if (it == link_index.end()) continue;
    const auto& link = links_[it->second];
    if (!network_.empty() && link.net != network_) continue;
    const long e = topology_.link_edge[it->second];
    if (e >= 0) add(edge_counters_[static_cast<std::size_t>(e)], t);
  }
  // Link counts per edge and vertex (for utilisation), and the vertices' self links.
  for (std::size_t e = 0; e < topology_.edges.size(); ++e)
    for (const auto l : topology_.edges[e].links)
      if (network_.empty() || links_[l].net == network_) ++edge_counters_[e].links;
  std::map<std::int64_t, const traces::LinkTotals*> by_link;
  for (const auto& t : totals) by_link.emplace(t.link, &t);
  for (std::size_t v = 0; v < topology_.vertices.size(); ++v) {
    for (const auto l : topology_.vertices[v].self_links) {
      if (!network_.empty() && links_[l].net != network_) continue;
      ++vertex_counters_[v].links;
      const auto it = by_link.find(links_[l].id);
      if (it != by_link.end()) add(vertex_counters_[v], *it->second);
    }
  }
  dirty_ = false;
}

const std::vector<Counters>& TraceModel::edge_counters() const {
  recompute();
  return edge_counters_;
}

const std::vector<Counters>& TraceModel::vertex_counters() const {
  recompute();
  return vertex_counters_;
}

double TraceModel::value(const Counters& c) const {
  recompute();
  switch (metric_) {
    case Metric::bytes:
      return c.bytes;
    case Metric::packets:
      return c.packets;
    case Metric::utilisation:
      return window_cycles_ > 0 && c.links > 0 ? 100.0 * c.busy / (window_cycles_ * static_cast<double>(c.links)) : 0.0;
    case Metric::stall:
      return c.stall;
  }
  return 0;
}

std::vector<double> TraceModel::edge_values() const {
  const auto& ec = edge_counters();
  std::vector<double> out;
  out.reserve(ec.size());
  for (const auto& c : ec) out.push_back(value(c));
  return out;
}

ColourScale TraceModel::colour_scale() const {
  ColourScale s;
  s.scale = scale_;
  for (const double v : edge_values()) s.max = std::max(s.max, v);
  return s;
}

std::vector<std::size_t> TraceModel::ranking() const {
  const auto values = edge_values();
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] > values[b]; });
  return order;
}

namespace {
void describe_counters(std::ostringstream& os, const Counters& c) {
  os << "bytes: " << fmt_number(c.bytes) << "\npackets: " << fmt_number(c.packets) << "\nbusy: " << fmt_number(c.busy)
     << " cycles";
  os << "\nstall: " << fmt_number(c.stall) << " cycles";
}
}  // namespace

std::string TraceModel::describe_edge(std::size_t edge) const {
  const auto& e = topology_.edges.at(edge);
  const auto& c = edge_counters().at(edge);
  std::ostringstream os;
  os << topology_.vertices[e.from].label << " -> " << topology_.vertices[e.to].label << (e.wrap ? " (wrap-around)" : "")
     << "\n";
  std::size_t shown = 0;
  for (const auto l : e.links) {
    if (!network_.empty() && links_[l].net != network_) continue;
    if (shown++ < 4) os << "  " << links_[l].net << ": " << links_[l].name << "\n";
  }
  if (shown > 4) os << "  ... " << shown << " links in all\n";
  describe_counters(os, c);
  const double util =
      window_cycles_ > 0 && c.links ? 100.0 * c.busy / (window_cycles_ * static_cast<double>(c.links)) : 0;
  os << "\nutilisation: " << fmt_number(util) << " %";
  return os.str();
}

std::string TraceModel::describe_vertex(std::size_t vertex) const {
  const auto& v = topology_.vertices.at(vertex);
  std::ostringstream os;
  os << v.label;
  if (!v.sublabel.empty()) os << " (" << v.sublabel << ")";
  os << "\n";
  std::size_t shown = 0;
  for (const auto n : v.nodes) {
    if (shown++ < 4) os << "  node " << nodes_[n].id << ": " << nodes_[n].name << " " << nodes_[n].coords << "\n";
  }
  if (v.nodes.size() > 4) os << "  ... " << v.nodes.size() << " nodes\n";
  Counters out, in;
  const auto& ec = edge_counters();
  for (std::size_t e = 0; e < topology_.edges.size(); ++e) {
    auto acc = [&](Counters& c) {
      c.bytes += ec[e].bytes;
      c.packets += ec[e].packets;
      c.busy += ec[e].busy;
      c.stall += ec[e].stall;
    };
    if (topology_.edges[e].from == vertex) acc(out);
    if (topology_.edges[e].to == vertex) acc(in);
  }
  os << "out: " << fmt_number(out.bytes) << " B in " << fmt_number(out.packets) << " packets, stall "
     << fmt_number(out.stall) << " cycles\n";
  os << "in: " << fmt_number(in.bytes) << " B in " << fmt_number(in.packets) << " packets, stall "
     << fmt_number(in.stall) << " cycles";
  const auto& self = vertex_counters().at(vertex);
  if (self.links > 0)
    os << "\nlocal ports (" << self.links << " links): " << fmt_number(self.bytes) << " B, " << fmt_number(self.packets)
       << " packets, stall " << fmt_number(self.stall) << " cycles";
  os << "\n(click to show only this node's traffic)";
  return os.str();
}

std::vector<PacketDot> TraceModel::packets_at(double t, std::size_t limit) const {
  std::vector<PacketDot> out;
  if (reader_->detail() != traces::Detail::hops) return out;
  std::map<std::int64_t, std::size_t> link_index;
  for (std::size_t i = 0; i < links_.size(); ++i) link_index.emplace(links_[i].id, i);
  reader_->for_each_hop(t, std::nextafter(t, kInf), [&](const traces::Hop& h) {
    if (out.size() >= limit) return;
    const auto it = link_index.find(h.link);
    if (it == link_index.end()) return;
    if (!network_.empty() && links_[it->second].net != network_) return;
    const long e = topology_.link_edge[it->second];
    if (e < 0) return;
    const double f = h.leave > h.enter ? (t - h.enter) / (h.leave - h.enter) : 0.5;
    out.push_back({static_cast<std::size_t>(e), std::clamp(f, 0.0, 1.0), h.txn});
  });
  return out;
}

std::vector<TimelineRow> TraceModel::timeline(double t0, double t1, int bins) const {
  std::vector<TimelineRow> rows;
  if (bins <= 0 || !(t1 > t0)) return rows;
  std::map<std::int64_t, std::size_t> row_of;
  std::map<std::int64_t, std::string> names;
  for (const auto& n : nodes_) names.emplace(n.id, n.name.substr(0, n.name.find(" (")));
  // PEs with recorded states, and those that only counted instructions.
  const auto counted = reader_->instructions();
  std::set<std::int64_t> pes;
  for (const auto pe : reader_->pes()) pes.insert(pe);
  for (const auto& [pe, n] : counted) pes.insert(pe);
  for (const auto pe : pes) {
    row_of.emplace(pe, rows.size());
    TimelineRow r;
    r.pe = pe;
    r.name = names.count(pe) ? names[pe] : "PE " + std::to_string(pe);
    if (const auto it = counted.find(pe); it != counted.end()) r.instructions = it->second;
    rows.push_back(std::move(r));
  }
  const auto nb = static_cast<std::size_t>(bins);
  // Cycles per (row, bin, state), flat: time[(row * nb + bin) * 4 + state].
  std::vector<double> time(rows.size() * nb * 4, 0.0);
  const double w = (t1 - t0) / bins;
  reader_->for_each_pe_state(t0, t1, [&](const traces::PeStateSpan& s) {
    const auto it = row_of.find(s.pe);
    if (it == row_of.end()) return;
    const double a = std::max(s.start, t0), b = std::min(s.end, t1);
    if (!(b > a)) return;
    auto first = static_cast<std::size_t>(std::clamp((a - t0) / w, 0.0, bins - 1.0));
    auto last = static_cast<std::size_t>(std::clamp((b - t0) / w, 0.0, bins - 1.0));
    const auto st = static_cast<std::size_t>(s.state);
    for (std::size_t k = first; k <= last; ++k) {
      const double lo = t0 + static_cast<double>(k) * w, hi = lo + w;
      const double overlap = std::min(b, hi) - std::max(a, lo);
      if (overlap > 0) time[(it->second * nb + k) * 4 + st] += overlap;
    }
  });
  for (std::size_t r = 0; r < rows.size(); ++r) {
    rows[r].bins.assign(nb, -1);
    rows[r].filled.assign(nb, 0.0f);
    for (std::size_t k = 0; k < nb; ++k) {
      double recorded = 0, best = 0;
      for (int s = 0; s < 4; ++s) {
        const double spent = time[(r * nb + k) * 4 + static_cast<std::size_t>(s)];
        recorded += spent;
        if (spent > best) {
          best = spent;
          rows[r].bins[k] = s;
        }
      }
      rows[r].filled[k] = static_cast<float>(std::min(1.0, recorded / w));
    }
  }
  return rows;
}

}  // namespace hopsim::gui
