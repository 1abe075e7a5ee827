#include "screenshot.hpp"

#include <QApplication>

#include "main_window.hpp"

namespace hopsim::gui {

QImage render_screenshot(MainWindow& window, const ScreenshotOptions& options, QString* error) {
  window.resize(options.width, options.height);
  window.setMetric(options.metric);
  window.setScale(options.scale);
  // The trace is opened unless only a curve is asked for.
  const bool open_trace = !options.trace.isEmpty() || options.curve.isEmpty();
  if ((open_trace && !window.openTrace(options.trace)) ||
      (!options.curve.isEmpty() && !window.openCurve(options.curve))) {
    if (error) *error = window.lastError();
    return {};
  }
  if (options.time) window.setTime(*options.time);
  window.show();
  QApplication::processEvents();
  if (window.size() != QSize(options.width, options.height)) {
    if (error)
      *error = QString("the window cannot be %1x%2; it needs at least %3x%4")
                   .arg(options.width)
                   .arg(options.height)
                   .arg(window.minimumSizeHint().width())
                   .arg(window.minimumSizeHint().height());
    return {};
  }
  return window.grab().toImage();
}

}  // namespace hopsim::gui
