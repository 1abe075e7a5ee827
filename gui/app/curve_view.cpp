#include "curve_view.hpp"

#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <limits>

#include "hopsim/traces/chart_qt.hpp"
#include "hopsim/traces/chart_style.hpp"

namespace hopsim::gui {

namespace {

namespace style = hopsim::traces::chart_style;

using traces::chart_qt::qcolour;

// The look of hopsim::studies::plot's line charts (hopsim curve --png), from the shared style.
QChart* new_chart(const QString& title) {
  QChart* chart = traces::chart_qt::new_chart(title.toHtmlEscaped());
  chart->legend()->setVisible(true);
  return chart;
}

// A linear axis over [lo, hi] at whole ticks, as the report charts place them.
QValueAxis* value_axis(double lo, double hi, bool include_zero, const QString& title) {
  const auto [a, b] = curve_axis_range(lo, hi, include_zero);
  const auto ticks = curve_ticks(a, b);
  auto* axis = new QValueAxis;
  axis->setRange(ticks.front(), ticks.back());
  axis->setTickCount(static_cast<int>(ticks.size()));
  axis->setLabelFormat("%g");
  axis->setMinorTickCount(0);
  traces::chart_qt::style_axis(axis, title.toHtmlEscaped());
  return axis;
}

QLineSeries* line_series(const CurveSeries& s, std::size_t index) {
  auto* line = new QLineSeries;
  line->setName(QString::fromStdString(s.name).toHtmlEscaped());
  const QColor colour = qcolour(style::series_colour(index));
  line->setPen(QPen(colour, style::kLineWidth, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
  line->setColor(colour);
  line->setPointsVisible(true);
  line->setMarkerSize(style::kMarkerSize);
  for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) line->append(s.x[i], s.y[i]);
  return line;
}

// The whole chart: one line per series, offered load across, latency up (from zero).
QChart* curve_chart(const Curve& c) {
  const auto series = curve_series(c);
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const auto& s : series) {
    for (const double x : s.x) xlo = std::min(xlo, x), xhi = std::max(xhi, x);
    for (const double y : s.y) ylo = std::min(ylo, y), yhi = std::max(yhi, y);
  }
  if (!(xlo <= xhi)) xlo = 0, xhi = 1, ylo = 0, yhi = 1;  // every load saturated: an empty frame
  QChart* chart = new_chart(QString::fromStdString(curve_title(c)));
  QValueAxis* x = value_axis(xlo, xhi, false, QObject::tr("offered load (packets per node per cycle)"));
  QValueAxis* y = value_axis(ylo, yhi, true, QObject::tr("latency (cycles)"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (std::size_t k = 0; k < series.size(); ++k) {
    QLineSeries* line = line_series(series[k], k);
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
  }
  return chart;
}

}  // namespace

CurveView::CurveView(QWidget* parent) : ChartView(parent) {}

void CurveView::setCurve(std::optional<Curve> c) {
  curve_ = std::move(c);
  chartScene()->clear();  // deletes the chart
  chart_ = nullptr;
  if (curve_) {
    chart_ = curve_chart(*curve_);
    chartScene()->addItem(chart_);
  }
  layoutCharts(viewport()->size());
  viewport()->update();
}

void CurveView::layoutCharts(QSizeF size) const {
  chartScene()->setSceneRect(QRectF(QPointF(0, 0), size));
  if (!chart_) return;
  chart_->setGeometry(QRectF(QPointF(0, 0), size));
  if (QGraphicsLayout* l = chart_->layout()) l->activate();
}

bool CurveView::hasData() const { return curve_.has_value(); }

QString CurveView::emptyText() const { return tr("No curve: File > Open curve (the CSV of hopsim curve --csv)"); }

}  // namespace hopsim::gui
