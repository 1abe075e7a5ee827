#include "comparison_view.hpp"

#include <QImage>
#include <QPainter>
#include <QPolygonF>

namespace hopsim::gui {

namespace {
void paint_items(QPainter& p, const std::vector<PlotItem>& items) {
  p.setRenderHint(QPainter::Antialiasing);
  QFont f = p.font();
  f.setPixelSize(11);
  p.setFont(f);
  for (const auto& it : items) {
    const QColor c(QString::fromStdString(it.colour));
    switch (it.kind) {
      case PlotItem::Kind::line:
        p.setPen(QPen(c, it.width));
        p.drawLine(QPointF(it.points[0].first, it.points[0].second), QPointF(it.points[1].first, it.points[1].second));
        break;
      case PlotItem::Kind::polyline: {
        QPolygonF poly;
        for (const auto& [x, y] : it.points) poly << QPointF(x, y);
        p.setPen(QPen(c, it.width));
        p.setBrush(Qt::NoBrush);
        p.drawPolyline(poly);
        break;
      }
      case PlotItem::Kind::rect:
        p.setPen(QPen(c, it.width));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(it.points[0].first, it.points[0].second, it.points[1].first, it.points[1].second));
        break;
      case PlotItem::Kind::text: {
        p.setPen(c);
        const QString text = QString::fromStdString(it.text);
        const double tw = p.fontMetrics().horizontalAdvance(text);
        const double x = it.align < 0   ? it.points[0].first
                         : it.align > 0 ? it.points[0].first - tw
                                        : it.points[0].first - tw / 2;
        p.drawText(QPointF(x, it.points[0].second), text);
        break;
      }
    }
  }
}
}  // namespace

ComparisonView::ComparisonView(QWidget* parent) : QWidget(parent) { setMinimumHeight(110); }

void ComparisonView::setComparison(std::optional<Comparison> c) {
  comparison_ = std::move(c);
  update();
}

QString ComparisonView::toSvg() const {
  if (!comparison_) return {};
  return QString::fromStdString(plot_svg(comparison_plot(*comparison_, width(), height()), width(), height()));
}

QImage ComparisonView::toImage() const {
  QImage img(size(), QImage::Format_ARGB32);
  img.fill(Qt::white);
  if (comparison_) {
    QPainter p(&img);
    paint_items(p, comparison_plot(*comparison_, width(), height()));
  }
  return img;
}

void ComparisonView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  if (!comparison_) {
    p.setPen(Qt::darkGray);
    p.drawText(
        rect(), Qt::AlignCenter,
        tr("No native run to compare: File > Open results for comparison (results.json of hopsim run --mode both)"));
    return;
  }
  paint_items(p, comparison_plot(*comparison_, width(), height()));
}

}  // namespace hopsim::gui
