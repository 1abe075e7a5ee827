// Headless rendering: hopsim-gui --screenshot.
#pragma once

#include <QImage>
#include <QString>
#include <optional>
#include <string>

#include "trace_model.hpp"

namespace hopsim::gui {

class MainWindow;

struct ScreenshotOptions {
  QString trace;               ///< empty: no trace (a curve only)
  QString curve;               ///< a `hopsim curve --csv` file for the latency vs load panel; empty: none
  std::optional<double> time;  ///< cycles; nullopt = whole run
  Metric metric = Metric::bytes;
  Scale scale = Scale::linear;
  int width = 1280;
  int height = 900;
};

/// Opens the trace and the curve in `window` (not interactive), applies the options and
/// renders it. Returns a null image and sets `error` when either cannot be opened.
QImage render_screenshot(MainWindow& window, const ScreenshotOptions& options, QString* error);

}  // namespace hopsim::gui
