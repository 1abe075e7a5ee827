// The base of hopsim-gui's chart panels (ComparisonView, CurveView): Qt
// Charts in one scene with the report charts' background, resized with the
// widget, a hint text while there is nothing to draw, and export of what is
// shown as an image or SVG.
#pragma once

#include <QGraphicsView>
#include <QString>

namespace hopsim::gui {

class ChartView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit ChartView(QWidget* parent = nullptr);

  /// The charts rendered into an image of the widget's size (the background
  /// alone without data).
  QImage toImage() const;

 protected:
  /// Whether the panel has data to show.
  virtual bool hasData() const = 0;
  /// Lays the charts out over (0, 0, size); the scene rect becomes that area.
  virtual void layoutCharts(QSizeF size) const = 0;
  /// Shown in the middle of the panel while it has no data.
  virtual QString emptyText() const = 0;

  /// The charts at the widget's size as an SVG document (empty without data).
  QString svgOf(const QString& title, const QString& description) const;

  QGraphicsScene* chartScene() const noexcept { return scene_; }

  void resizeEvent(QResizeEvent* e) override;
  void drawForeground(QPainter* p, const QRectF& rect) override;

 private:
  QGraphicsScene* scene_ = nullptr;  ///< owned by the view
};

}  // namespace hopsim::gui
