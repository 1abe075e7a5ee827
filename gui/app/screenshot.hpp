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
  QString trace;
  std::optional<double> time;  ///< cycles; nullopt = whole run
  Metric metric = Metric::bytes;
  Scale scale = Scale::linear;
  int width = 1280;
  int height = 900;
};

/// Opens the trace in `window` (not interactive), applies the options and renders it.
/// Returns a null image and sets `error` when the trace cannot be opened.
QImage render_screenshot(MainWindow& window, const ScreenshotOptions& options, QString* error);

}  // namespace hopsim::gui
