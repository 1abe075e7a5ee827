// Latency against offered load, as `hopsim curve --csv FILE` writes it, in either of its
// two layouts:
//   plain:     offered,accepted,avg_latency,p50_latency,p99_latency,avg_network_latency,
//              avg_hops,max_link_utilisation,saturated
//   reference: offered,avg_latency,reference_latency,error_percent,compared
//              (an empty cell where that side saturated)
// Columns are found by name in the header, so any order works; `offered` and
// `avg_latency` are required. Blank lines and lines starting with '#' are skipped.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace hopsim::gui {

enum class CurveLayout {
  plain,     ///< one hopsim curve with its latency percentiles and saturation flags
  reference  ///< hopsim against a reference curve (BookSim2 or an earlier hopsim run)
};

/// One offered load; a latency is absent where its cell is empty (that side saturated)
/// or its column is not in the file.
struct CurvePoint {
  double offered = 0;
  std::optional<double> accepted;
  std::optional<double> avg_latency;
  std::optional<double> p50_latency;
  std::optional<double> p99_latency;
  std::optional<double> avg_network_latency;
  std::optional<double> avg_hops;
  std::optional<double> max_link_utilisation;
  bool saturated = false;  ///< plain: saturated = 1
  std::optional<double> reference_latency;
  std::optional<double> error_percent;
  bool compared = false;  ///< reference: compared = 1
};

struct Curve {
  std::filesystem::path source;
  CurveLayout layout = CurveLayout::plain;
  std::vector<std::string> columns;  ///< the header's cells
  std::vector<CurvePoint> points;    ///< in file order

  /// The lowest offered load that saturated: plain, a row with saturated = 1; reference,
  /// a row whose hopsim latency is empty.
  std::optional<double> saturation() const;
  /// The lowest offered load the reference could not finish (reference layout only).
  std::optional<double> reference_saturation() const;
  bool has_column(const std::string& name) const;
};

/// One line of the chart: a name and its points, saturated loads left out.
struct CurveSeries {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;
};

/// Reads a curve CSV; nullopt with `why` ("FILE: cannot open the file",
/// "FILE:LINE: ...") for a missing file, a header without offered/avg_latency, a row
/// whose cell count differs from the header's, or a cell that is not a number.
std::optional<Curve> load_curve(const std::filesystem::path& path, std::string* why = nullptr);
/// The same from a stream; `name` stands for the file in messages.
std::optional<Curve> parse_curve(std::istream& in, const std::string& name, std::string* why = nullptr);

/// The lines to draw. Plain: average total latency, average network latency and p99
/// latency (those whose column is present), rows with saturated = 1 left out.
/// Reference: hopsim and reference, each where its latency is present.
std::vector<CurveSeries> curve_series(const Curve& c);

/// The chart title, for example "latency vs offered load (c.csv), saturated at offered 0.4".
std::string curve_title(const Curve& c);

/// "Nice" linear axis ticks covering [lo, hi], about `target` of them (steps of 1, 2,
/// 2.5 or 5 times a power of ten), as the report charts place them.
std::vector<double> curve_ticks(double lo, double hi, int target = 6);

/// The axis range for values in [lo, hi]: non-empty, zero included when asked, widened to
/// whole ticks.
std::pair<double, double> curve_axis_range(double lo, double hi, bool include_zero);

}  // namespace hopsim::gui
