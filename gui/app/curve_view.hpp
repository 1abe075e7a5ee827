// The latency vs offered load panel: one Qt Chart of a `hopsim curve --csv` file (average
// total, average network and p99 latency; or hopsim against a reference), in the style of
// hopsim's report charts (hopsim/traces/chart_style.hpp).
#pragma once

#include <QGraphicsView>
#include <optional>

#include "curve.hpp"

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace hopsim::gui {

class CurveView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit CurveView(QWidget* parent = nullptr);
  void setCurve(std::optional<Curve> c);
  const std::optional<Curve>& curve() const noexcept { return curve_; }
  /// The chart on show; null without a curve. Owned by the view's scene.
  QChart* chart() const noexcept { return chart_; }
  /// The chart rendered into an image of the widget's size.
  QImage toImage() const;
  QSize sizeHint() const override { return {700, 320}; }

 protected:
  void resizeEvent(QResizeEvent* e) override;
  void drawForeground(QPainter* p, const QRectF& rect) override;

 private:
  /// Lays the chart out over (0, 0, size).
  void layoutChart(QSizeF size) const;

  std::optional<Curve> curve_;
  QGraphicsScene* scene_ = nullptr;
  QChart* chart_ = nullptr;  ///< owned by scene_
};

}  // namespace hopsim::gui
