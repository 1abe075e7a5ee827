#pragma once
// Small charts for hopsim's reports: latency-load curves, native-versus-
// simulated bars, sweep results. A chart is plain data; save() draws it with
// Qt Charts (a QApplication on the offscreen platform is created on first use
// when the process has none) and renders the one laid-out chart to PNG or to
// SVG (QSvgGenerator), by the file's extension, so both look the same. The
// style (colours, fonts, sizes) is hopsim/traces/chart_style.hpp, which
// hopsim-gui's comparison panel uses too. Files are written to PATH.partial
// and renamed into place, so a failed render never leaves a truncated image
// over a good one.
#include <string>
#include <vector>

namespace hopsim::studies::plot {

struct Series {
  std::string name;
  std::vector<double> x, y;  // same length; points with a non-finite y are skipped
};

struct LineChart {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;  // log axes need positive values (others are skipped)
  std::vector<Series> series;
};

// Groups of bars: one group per category, one bar per series in each group.
struct BarChart {
  std::string title, y_label;
  std::vector<std::string> categories;
  std::vector<Series> series;  // y[i] is the bar of categories[i]; x is unused
  bool log_y = false;
};

// Renders to PNG or SVG according to the extension of `path` (.png, .svg).
// Throws hopsim::ConfigError for an unknown extension or a chart without
// drawable points, hopsim::Error when the file cannot be written.
void save(const LineChart& chart, const std::string& path, int width = 960, int height = 600);
void save(const BarChart& chart, const std::string& path, int width = 960, int height = 600);

// "Nice" axis ticks covering [lo, hi] (about `target` of them; decades on a
// log axis): the ticks of a linear axis. Exposed for tests.
std::vector<double> ticks(double lo, double hi, bool log_scale, int target = 6);

}  // namespace hopsim::studies::plot
