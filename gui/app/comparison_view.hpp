// The simulated vs native panel: draws comparison_plot with QPainter.
#pragma once

#include <QWidget>
#include <optional>

#include "comparison.hpp"

namespace hopsim::gui {

class ComparisonView : public QWidget {
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
  void paintEvent(QPaintEvent*) override;

 private:
  std::optional<Comparison> comparison_;
};

}  // namespace hopsim::gui
