#include "comparison_view.hpp"

#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <array>
#include <cmath>

#include "hopsim/traces/chart_qt.hpp"
#include "hopsim/traces/chart_style.hpp"

namespace hopsim::gui {

namespace {

namespace style = hopsim::traces::chart_style;

using traces::chart_qt::font;
using traces::chart_qt::qcolour;

// The look of hopsim::studies::plot's charts (sim/studies/src/plot.cpp), from the shared style.
QChart* new_chart(const QString& title) { return traces::chart_qt::new_chart(title.toHtmlEscaped()); }

void style_axis(QAbstractAxis* a, const QString& title) { traces::chart_qt::style_axis(a, title.toHtmlEscaped()); }

// Seconds shown in the unit of the smallest time, so decade labels read 1, 10, 100.
struct Unit {
  double scale;
  const char* name;
};
Unit unit_for(double lo) {
  if (lo >= 1) return {1, "s"};
  if (lo >= 1e-3) return {1e3, "ms"};
  if (lo >= 1e-6) return {1e6, "\u00b5s"};
  return {1e9, "ns"};
}

// One panel: seconds per launch against n, one line per method.
QChart* panel(const Comparison& c, bool native, double ylo, double yhi, Unit unit, int n_min, int n_max) {
  QChart* chart = new_chart(native ? QObject::tr("native") : QObject::tr("simulated"));
  auto* x = new QValueAxis;
  if (n_max > n_min) {
    // Whole n: every one up to 9 ticks, else a step of 2, 5, 10, 20, 50 ... at its multiples.
    x->setRange(n_min, n_max);
    int step = 1;
    for (int mag = 1, i = 0; (n_max - n_min) / step > 8; ++i) {
      static constexpr std::array<int, 3> kSteps{1, 2, 5};
      if (i == 3) i = 0, mag *= 10;
      step = kSteps[i] * mag;
    }
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(step);
  } else {
    x->setRange(n_min - 1, n_min + 1);
    x->setTickCount(3);
  }
  x->setLabelFormat("%g");
  style_axis(x, "n");
  auto* y = new QLogValueAxis;
  y->setBase(10);
  y->setRange(ylo * (1 - 1e-9), yhi);  // a hair below: Qt labels the decades at or above the minimum
  y->setLabelFormat("%g");
  y->setMinorTickCount(8);
  y->setMinorGridLineVisible(true);
  style_axis(y, QObject::tr("time per launch (%1)").arg(QString::fromUtf8(unit.name)));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (std::size_t m = 0; m < c.methods.size(); ++m) {
    auto* line = new QLineSeries;
    line->setName(QString::fromStdString(c.methods[m]).toHtmlEscaped());
    const QColor colour = qcolour(style::series_colour(m));
    line->setPen(QPen(colour, style::kLineWidth, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    line->setColor(colour);
    line->setPointsVisible(true);
    line->setMarkerSize(style::kMarkerSize);
    for (const auto& p : c.points) {
      const double v = native ? p.native_s : p.sim_s;
      if (p.method == c.methods[m] && v > 0) line->append(p.n, v * unit.scale);
    }
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
  }
  chart->legend()->setVisible(!native);  // one legend, right of the simulated panel
  return chart;
}

}  // namespace

ComparisonView::ComparisonView(QWidget* parent) : ChartView(parent) {}

void ComparisonView::setComparison(std::optional<Comparison> c) {
  comparison_ = std::move(c);
  chartScene()->clear();  // deletes the charts
  native_ = sim_ = nullptr;
  if (comparison_) {
    double lo = 0, hi = 0;
    int n_min = 1 << 30, n_max = -(1 << 30);
    for (const auto& p : comparison_->points) {
      for (const double v : {p.native_s, p.sim_s})
        if (v > 0) lo = lo > 0 ? std::min(lo, v) : v, hi = std::max(hi, v);
      n_min = std::min(n_min, p.n);
      n_max = std::max(n_max, p.n);
    }
    if (hi > 0) {
      // Both panels share one log axis of whole decades.
      const Unit unit = unit_for(lo);
      const double e0 = std::floor(std::log10(lo * unit.scale) + 1e-9);
      const double e1 = std::max(e0 + 1, std::ceil(std::log10(hi * unit.scale) - 1e-9));
      native_ = panel(*comparison_, true, std::pow(10.0, e0), std::pow(10.0, e1), unit, n_min, n_max);
      sim_ = panel(*comparison_, false, std::pow(10.0, e0), std::pow(10.0, e1), unit, n_min, n_max);
      chartScene()->addItem(native_);
      chartScene()->addItem(sim_);
    }
  }
  layoutCharts(viewport()->size());
  viewport()->update();
}

void ComparisonView::layoutCharts(QSizeF size) const {
  chartScene()->setSceneRect(QRectF(QPointF(0, 0), size));
  if (!native_ || !sim_) return;
  // The simulated panel is wider by its legend, so both plot areas match.
  const double legend = sim_->legend()->effectiveSizeHint(Qt::PreferredSize).width();
  const double w = std::max(0.0, (size.width() - legend) / 2);
  native_->setGeometry(QRectF(0, 0, w, size.height()));
  sim_->setGeometry(QRectF(w, 0, size.width() - w, size.height()));
  for (QChart* c : {native_, sim_})
    if (QGraphicsLayout* l = c->layout()) l->activate();
}

bool ComparisonView::hasData() const { return comparison_.has_value(); }

QString ComparisonView::emptyText() const {
  return tr("No native run to compare: File > Open results for comparison (results.json of hopsim run --mode both)");
}

QString ComparisonView::toSvg() const { return svgOf(tr("native vs simulated"), "hopsim-gui comparison"); }

}  // namespace hopsim::gui
