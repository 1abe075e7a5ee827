// Gantt chart of the PE states over the whole run, with the current time and
// window marked; clicking moves the time.
#pragma once

#include <QImage>
#include <QWidget>
#include <optional>
#include <vector>

#include "trace_model.hpp"

namespace hopsim::gui {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  void setModel(TraceModel* model);
  /// The cursor (current time) and the shaded window; nullopt hides them.
  void setCursor(std::optional<double> t, std::optional<std::pair<double, double>> window);
  QSize sizeHint() const override { return {900, 200}; }
  /// Colour of a PE state (traces::PeState as int).
  static QColor stateColour(int state);

 signals:
  void timeClicked(double t);

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;

 private:
  QRectF chartArea() const;
  double timeAt(double x) const;

  TraceModel* model_ = nullptr;
  std::vector<TimelineRow> rows_;
  QImage image_;  // rows_ as pixels: one column per slice, one row per PE
  int rowsBins_ = 0;
  std::optional<double> cursor_;
  std::optional<std::pair<double, double>> window_;
};

}  // namespace hopsim::gui
