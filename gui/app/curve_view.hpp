// The latency vs offered load panel: one Qt Chart of a `hopsim curve --csv` file (average
// total, average network and p99 latency; or hopsim against a reference), in the style of
// hopsim's report charts (hopsim/traces/chart_style.hpp).
#pragma once

#include <optional>

#include "chart_view.hpp"
#include "curve.hpp"

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace hopsim::gui {

class CurveView : public ChartView {
  Q_OBJECT
 public:
  explicit CurveView(QWidget* parent = nullptr);
  void setCurve(std::optional<Curve> c);
  const std::optional<Curve>& curve() const noexcept { return curve_; }
  /// The chart on show; null without a curve. Owned by the view's scene.
  QChart* chart() const noexcept { return chart_; }
  QSize sizeHint() const override { return {700, 320}; }

 protected:
  bool hasData() const override;
  void layoutCharts(QSizeF size) const override;
  QString emptyText() const override;

 private:
  std::optional<Curve> curve_;
  QChart* chart_ = nullptr;  ///< owned by the scene
};

}  // namespace hopsim::gui
