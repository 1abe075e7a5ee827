// The GUI's model/view layer: everything the widgets show, computed from a trace
// without Qt (link metrics per time window, colour ranking, scales, packets in
// flight, the PE timeline), so tests can check it without a display.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hopsim/traces/reader.hpp"
#include "topology.hpp"

namespace hopsim::gui {

/// What the link colours show.
enum class Metric { bytes, packets, utilisation, stall };
/// "bytes", "packets", "utilisation", "stall".
const char* to_string(Metric m) noexcept;
/// Inverse of to_string (also "util", "stall_cycles"); nullopt otherwise.
std::optional<Metric> parse_metric(std::string_view s) noexcept;
/// Unit of the metric's values ("B", "packets", "%", "cycles").
const char* unit(Metric m) noexcept;

enum class Scale { linear, log };

/// An 8-bit colour.
struct Rgb {
  int r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

/// Maps metric values to [0, 1] ("heat") and heat to colours: idle links grey,
/// then blue, teal, yellow, orange, and the hottest red.
struct ColourScale {
  double max = 0;  ///< value drawn in the hottest colour
  Scale scale = Scale::linear;

  /// 0 for value <= 0, 1 for value >= max; monotonic in between (log: log(1+v)/log(1+max)).
  double heat(double value) const noexcept;
  /// Colour of a heat in [0, 1] (clamped).
  static Rgb colour(double heat) noexcept;
  /// Colour of a value: idle() for value <= 0, else colour(heat(value)).
  Rgb colour_of(double value) const noexcept { return value > 0 ? colour(heat(value)) : idle(); }
  /// The colour of heat 1.
  static Rgb hottest() noexcept { return colour(1.0); }
  /// Links that carried nothing.
  static Rgb idle() noexcept { return {190, 190, 190}; }
  /// About `count` round values from 0 to max for the legend (value, heat).
  std::vector<std::pair<double, double>> ticks(int count = 5) const;
};

/// Counters of a drawn edge or vertex over the current window.
struct Counters {
  double bytes = 0;
  double packets = 0;
  double busy = 0;        ///< cycles transferring, summed over the links
  double stall = 0;       ///< cycles senders waited
  std::size_t links = 0;  ///< trace links summed
};

/// A packet in flight at the current time.
struct PacketDot {
  std::size_t edge = 0;  ///< edge it travels on
  double fraction = 0;   ///< 0 at the source end, 1 at the destination end
  std::int64_t txn = 0;
};

/// A PE's row in the timeline: for each of `bins` equal slices of the window, the recorded
/// state it spent most of that slice in (-1: none recorded) and the share of the slice
/// spent in recorded states (0..1).
struct TimelineRow {
  std::int64_t pe = 0;
  std::string name;
  std::vector<int> bins;                      ///< traces::PeState as int, or -1
  std::vector<float> filled;                  ///< recorded share of each slice
  std::optional<std::uint64_t> instructions;  ///< counted compute: the instructions it ran
};

/// An open trace and the current view settings.
class TraceModel {
 public:
  /// Opens `path` (throws traces::TraceError with a clear message for bad files).
  explicit TraceModel(const std::filesystem::path& path);

  const traces::TraceReader& reader() const noexcept { return *reader_; }
  const std::vector<traces::Node>& nodes() const noexcept { return nodes_; }
  const std::vector<traces::Link>& links() const noexcept { return links_; }
  const Topology& topology() const noexcept { return topology_; }
  /// Networks present in the links (e.g. cmesh, rmesh, xmesh), sorted.
  const std::vector<std::string>& networks() const noexcept { return networks_; }
  /// First and last cycle of the recorded activity.
  double begin() const noexcept { return begin_; }
  double end() const noexcept { return end_; }
  /// Whether the run counted its PEs' instructions (counted compute).
  bool counted() const noexcept { return counted_; }
  /// One-line description: machine, mode, detail, counts.
  std::string summary() const;
  /// Cycles as text: "1234 cycles (2.06 us)" when the clock is known.
  std::string format_time(double cycles) const;
  /// Parses a time: plain number = cycles; suffix "ns", "us", "ms", "s" needs the clock.
  /// nullopt when malformed.
  std::optional<double> parse_time(std::string_view text) const;

  /// Re-lays out a torus onto other dimensions, or slices it.
  void set_projection(const ProjectionOptions& options);
  const ProjectionOptions& projection() const noexcept { return projection_; }

  /// The time window [t0, t1) for counters; whole run when unset.
  void set_window(double t0, double t1);
  void clear_window();
  bool has_window() const noexcept { return window_.has_value(); }
  /// The window actually summed: counters come in whole buckets, so it is widened to them.
  std::pair<double, double> effective_window() const;

  void set_metric(Metric m);
  Metric metric() const noexcept { return metric_; }
  void set_scale(Scale s);
  Scale scale() const noexcept { return scale_; }
  /// Only links of this network (empty: all).
  void set_network(std::string net);
  const std::string& network() const noexcept { return network_; }
  /// Only the traffic of transactions from or to this node (needs a hops trace); nullopt = all.
  void set_node_filter(std::optional<std::size_t> node);
  std::optional<std::size_t> node_filter() const noexcept { return node_filter_; }
  /// Why the node filter shows nothing (empty when it works).
  std::string node_filter_note() const;

  /// Per edge, counters over the window (recomputed lazily).
  const std::vector<Counters>& edge_counters() const;
  /// Per vertex, the counters of its self links (injection, ejection, aggregated).
  const std::vector<Counters>& vertex_counters() const;
  /// The current metric of a set of counters (utilisation in percent of the window).
  double value(const Counters& c) const;
  /// Per edge, the current metric.
  std::vector<double> edge_values() const;
  /// The colour scale for the current values (max = hottest edge).
  ColourScale colour_scale() const;
  /// Edge indices from hottest to coldest (ties by index).
  std::vector<std::size_t> ranking() const;
  /// Text for a tooltip: names and counters.
  std::string describe_edge(std::size_t edge) const;
  std::string describe_vertex(std::size_t vertex) const;

  /// Packets on a link at time t (at most `limit`); empty below Detail::hops.
  std::vector<PacketDot> packets_at(double t, std::size_t limit = 20000) const;
  /// The PE timeline over [t0, t1) in `bins` slices.
  std::vector<TimelineRow> timeline(double t0, double t1, int bins) const;

 private:
  bool counted_ = false;
  void invalidate() noexcept { dirty_ = true; }
  void recompute() const;

  std::unique_ptr<traces::TraceReader> reader_;
  std::vector<traces::Node> nodes_;
  std::vector<traces::Link> links_;
  std::vector<std::string> networks_;
  Topology topology_;
  ProjectionOptions projection_;
  double begin_ = 0, end_ = 0;
  std::optional<std::pair<double, double>> window_;
  Metric metric_ = Metric::bytes;
  Scale scale_ = Scale::linear;
  std::string network_;
  std::optional<std::size_t> node_filter_;

  mutable bool dirty_ = true;
  mutable std::vector<Counters> edge_counters_;
  mutable std::vector<Counters> vertex_counters_;
  mutable double window_cycles_ = 0;
};

}  // namespace hopsim::gui
