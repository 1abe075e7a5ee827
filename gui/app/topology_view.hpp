// The machine drawn from the trace: nodes, links coloured by the current metric,
// a legend, packets in flight; pan (drag), zoom (wheel), hover for counters, click a
// node to show only its traffic.
#pragma once

#include <QPointF>
#include <QWidget>
#include <optional>
#include <vector>

#include "trace_model.hpp"

class QPainter;

namespace hopsim::gui {

class TopologyView : public QWidget {
  Q_OBJECT
 public:
  explicit TopologyView(QWidget* parent = nullptr);

  /// The model to draw (not owned; nullptr shows a hint).
  void setModel(TraceModel* model);
  /// Packets in flight at this time are drawn (nullopt: none).
  void setPacketTime(std::optional<double> t);
  /// Forget pan and zoom.
  void resetView();
  /// Redraw after the model changed.
  void refresh();

  /// Widget coordinates of a layout point (with the current pan and zoom).
  QPointF toWidget(Point p) const;
  /// Where the middle of an edge's first piece is drawn, in widget coordinates.
  QPointF edgeMidpoint(std::size_t edge) const;
  /// The edge or vertex under a widget point.
  std::optional<std::size_t> edgeAt(QPointF p) const;
  std::optional<std::size_t> vertexAt(QPointF p) const;

  QSize sizeHint() const override { return {900, 640}; }

 signals:
  /// A node (vertex) was clicked; nullopt when the click hit empty space.
  void vertexClicked(std::optional<std::size_t> vertex);

 protected:
  void paintEvent(QPaintEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;

 private:
  QRectF drawArea() const;
  double unitPixels() const;
  double penWidth() const;
  void paintEdges(QPainter& p) const;
  void paintNodes(QPainter& p) const;
  void paintPackets(QPainter& p) const;
  void paintLegend(QPainter& p, const QRectF& area) const;

  TraceModel* model_ = nullptr;
  std::optional<double> packetTime_;
  std::vector<PacketDot> dots_;
  double zoom_ = 1;
  QPointF pan_;
  QPointF pressPos_;
  QPointF lastPos_;
  bool dragging_ = false;
  bool pressed_ = false;
};

/// QColor of an Rgb.
class QColor toQColor(const Rgb& c);

}  // namespace hopsim::gui
