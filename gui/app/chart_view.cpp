#include "chart_view.hpp"

#include <QBuffer>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QResizeEvent>
#include <QSvgGenerator>

#include "hopsim/traces/chart_qt.hpp"
#include "hopsim/traces/chart_style.hpp"

namespace hopsim::gui {

namespace style = hopsim::traces::chart_style;
using traces::chart_qt::qcolour;

ChartView::ChartView(QWidget* parent) : QGraphicsView(parent), scene_(new QGraphicsScene(this)) {
  setMinimumHeight(110);
  setScene(scene_);
  setFrameShape(QFrame::NoFrame);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setRenderHint(QPainter::Antialiasing);
  setRenderHint(QPainter::TextAntialiasing);
  setBackgroundBrush(qcolour(style::kBackground));
  setAlignment(Qt::AlignLeft | Qt::AlignTop);
}

void ChartView::resizeEvent(QResizeEvent* e) {
  QGraphicsView::resizeEvent(e);
  layoutCharts(viewport()->size());
}

void ChartView::drawForeground(QPainter* p, const QRectF& rect) {
  QGraphicsView::drawForeground(p, rect);
  if (hasData()) return;
  p->setPen(Qt::darkGray);
  p->drawText(sceneRect(), Qt::AlignCenter | Qt::TextWordWrap, emptyText());
}

QString ChartView::svgOf(const QString& title, const QString& description) const {
  if (!hasData()) return {};
  layoutCharts(size());
  const QRectF area(QPointF(0, 0), QSizeF(size()));
  QBuffer buffer;
  buffer.open(QIODevice::WriteOnly);
  {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size());
    svg.setViewBox(area);
    svg.setResolution(96);  // the size in mm is then the size in CSS pixels
    svg.setTitle(title);
    svg.setDescription(description);
    QPainter p(&svg);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(area, qcolour(style::kBackground));
    scene_->render(&p, area, area);
  }
  layoutCharts(viewport()->size());
  return QString::fromUtf8(buffer.data());
}

QImage ChartView::toImage() const {
  QImage img(size(), QImage::Format_ARGB32);
  img.fill(qcolour(style::kBackground));
  if (!hasData()) return img;
  layoutCharts(size());
  const QRectF area(QPointF(0, 0), QSizeF(size()));
  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  scene_->render(&p, area, area);
  p.end();
  layoutCharts(viewport()->size());
  return img;
}

}  // namespace hopsim::gui
