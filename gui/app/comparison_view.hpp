// The simulated vs native panel: two Qt Charts side by side (native left,
// simulated right, one line per method, the same log time axis), in the style
// of hopsim's report charts (hopsim/traces/chart_style.hpp).
#pragma once

#include <optional>

#include "chart_view.hpp"
#include "comparison.hpp"

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace hopsim::gui {

class ComparisonView : public ChartView {
  Q_OBJECT
 public:
  explicit ComparisonView(QWidget* parent = nullptr);
  void setComparison(std::optional<Comparison> c);
  const std::optional<Comparison>& comparison() const noexcept { return comparison_; }
  /// The plot at the widget's size as SVG text (empty without data).
  QString toSvg() const;
  QSize sizeHint() const override { return {700, 260}; }

 protected:
  bool hasData() const override;
  /// Lays the two charts out over (0, 0, size).
  void layoutCharts(QSizeF size) const override;
  QString emptyText() const override;

 private:
  std::optional<Comparison> comparison_;
  QChart* native_ = nullptr;  ///< owned by the scene
  QChart* sim_ = nullptr;     ///< owned by the scene, carries the legend
};

}  // namespace hopsim::gui
