// The simulated vs native panel: two Qt Charts side by side (native left,
// simulated right, one line per method, the same log time axis), in the style
// of hopsim's report charts (hopsim/traces/chart_style.hpp).
#pragma once

#include <QGraphicsView>
#include <optional>

#include "comparison.hpp"

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace hopsim::gui {

class ComparisonView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit ComparisonView(QWidget* parent = nullptr);
  void setComparison(std::optional<Comparison> c);
  const std::optional<Comparison>& comparison() const noexcept { return comparison_; }
  /// The plot at the widget's size as SVG text (empty without data).
  QString toSvg() const;
  /// The plot rendered into an image of the widget's size.
  QImage toImage() const;
  QSize sizeHint() const override { return {700, 260}; }

 protected:
  void resizeEvent(QResizeEvent* e) override;
  void drawForeground(QPainter* p, const QRectF& rect) override;

 private:
  /// Lays the two charts out over (0, 0, size).
  void layoutCharts(QSizeF size) const;

  std::optional<Comparison> comparison_;
  QGraphicsScene* scene_ = nullptr;
  QChart* native_ = nullptr;  ///< owned by scene_
  QChart* sim_ = nullptr;     ///< owned by scene_, carries the legend
};

}  // namespace hopsim::gui
