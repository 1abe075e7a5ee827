#include "timeline_view.hpp"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace hopsim::gui {

namespace {
constexpr double kLabelWidth = 70;

// Calls text(r, y, line) for the rows that get a label, in a font that fits
// rows `rh` high below the chart's top `top` (rows too thin for one label
// each get one every few rows). Restores the painter's font `f`.
template <class Rows, class Text>
void forLabelledRows(QPainter& p, const QFont& f, double top, double rh, const Rows& rows, const Text& text) {
  QFont lf = f;
  lf.setPixelSize(static_cast<int>(std::clamp(rh - 1, 7.0, 11.0)));
  p.setFont(lf);
  const QFontMetricsF fm(lf);
  const double line = fm.height();
  const auto step = static_cast<std::size_t>(std::max(1.0, std::ceil(line / rh)));
  p.setPen(Qt::black);
  for (std::size_t r = 0; r < rows.size(); r += step)
    text(r, top + rh * static_cast<double>(r) + rh / 2 - line / 2, line, fm);
  p.setFont(f);
}

// Row labels left of the chart `a`: each node's name without its
// parenthesised detail ("core(1,2)").
template <class Rows>
void drawRowLabels(QPainter& p, const QFont& f, const QRectF& a, double rh, const Rows& rows) {
  forLabelledRows(p, f, a.top(), rh, rows, [&](std::size_t r, double y, double line, const QFontMetricsF& fm) {
    QString name = QString::fromStdString(rows[r].name);
    if (const auto open = name.indexOf(" ("); open > 0 && name.endsWith(')')) name = name.left(open);
    name = fm.elidedText(name, Qt::ElideRight, kLabelWidth - 6);
    p.drawText(QRectF(2, y, kLabelWidth - 6, line), Qt::AlignRight | Qt::AlignVCenter, name);
  });
}

// Counted compute: each row's instructions right of the chart `a`
// ("1.61k", "7.98M").
template <class Rows>
void drawInstructionCounts(QPainter& p, const QFont& f, const QRectF& a, double rh, const Rows& rows) {
  forLabelledRows(p, f, a.top(), rh, rows, [&](std::size_t r, double y, double line, const QFontMetricsF&) {
    if (!rows[r].instructions) return;
    const auto n = static_cast<double>(*rows[r].instructions);
    const QString text = n >= 1e9   ? QString::number(n / 1e9, 'f', 2) + "G"
                         : n >= 1e6 ? QString::number(n / 1e6, 'f', 2) + "M"
                         : n >= 1e3 ? QString::number(n / 1e3, 'f', 2) + "k"
                                    : QString::number(n, 'f', 0);
    p.drawText(QRectF(a.right() + 4, y, 56, line), Qt::AlignLeft | Qt::AlignVCenter, text);
  });
}
constexpr double kCountWidth = 62;  // right of the chart, when instructions were counted
constexpr double kLegendHeight = 22;
constexpr double kAxisHeight = 18;
}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) { setMinimumHeight(90); }

void TimelineView::setModel(TraceModel* model) {
  model_ = model;
  rows_.clear();
  rowsBins_ = 0;
  update();
}

void TimelineView::setCursor(std::optional<double> t, std::optional<std::pair<double, double>> window) {
  cursor_ = t;
  window_ = window;
  update();
}

QColor TimelineView::stateColour(int state) {
  switch (static_cast<traces::PeState>(state)) {
    case traces::PeState::compute:
      return {90, 170, 90};
    case traces::PeState::waiting:
      return {230, 150, 40};
    case traces::PeState::barrier:
      return {200, 60, 60};
    case traces::PeState::polling:
      return {150, 100, 200};
  }
  return Qt::lightGray;
}

QRectF TimelineView::chartArea() const {
  const double right = model_ && model_->counted() ? kCountWidth : 10;
  return {kLabelWidth, kLegendHeight, std::max(10.0, width() - kLabelWidth - right),
          std::max(10.0, height() - kLegendHeight - kAxisHeight)};
}

double TimelineView::timeAt(double x) const {
  const QRectF a = chartArea();
  const double f = std::clamp((x - a.left()) / a.width(), 0.0, 1.0);
  return model_->begin() + f * (model_->end() - model_->begin());
}

void TimelineView::resizeEvent(QResizeEvent*) { rowsBins_ = 0; }

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), QColor(252, 252, 252));
  if (!model_) return;
  const QRectF a = chartArea();
  const int bins = std::max(1, static_cast<int>(a.width()));
  if (rowsBins_ != bins) {
    rows_ = model_->timeline(model_->begin(), model_->end(), bins);
    rowsBins_ = bins;
    image_ = QImage(bins, std::max<int>(1, static_cast<int>(rows_.size())), QImage::Format_ARGB32);
    image_.fill(QColor(252, 252, 252));
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      auto* line = reinterpret_cast<QRgb*>(image_.scanLine(static_cast<int>(r)));
      for (std::size_t k = 0; k < rows_[r].bins.size() && k < static_cast<std::size_t>(bins); ++k) {
        if (rows_[r].bins[k] < 0) continue;
        // Blend onto the background by hand: the image is drawn opaque.
        const QColor c = stateColour(rows_[r].bins[k]);
        const double alpha = 0.25 + 0.75 * rows_[r].filled[k];
        auto mix = [alpha](int fg) { return static_cast<int>(fg * alpha + 252 * (1 - alpha)); };
        line[k] = qRgb(mix(c.red()), mix(c.green()), mix(c.blue()));
      }
    }
  }
  QFont f = font();
  f.setPixelSize(11);
  p.setFont(f);
  // Legend.
  double lx = 8;
  p.setPen(Qt::black);
  p.drawText(QPointF(lx, 15), tr("PE states:"));
  lx += 70;
  for (int s = 0; s < 4; ++s) {
    p.fillRect(QRectF(lx, 5, 12, 12), stateColour(s));
    const QString name = QString::fromUtf8(traces::to_string(static_cast<traces::PeState>(s)).data());
    p.drawText(QPointF(lx + 16, 15), name);
    lx += 30 + p.fontMetrics().horizontalAdvance(name);
  }
  p.drawText(QPointF(lx, 15),
             rows_.empty() ? tr("(none recorded: needs --trace-detail transactions or hops)")
                           : tr("(blank: computing or no state recorded; pale: the state filled part of the slice)") +
                                 (model_->counted() ? tr("; right: instructions counted") : QString()));
  if (!rows_.empty()) {
    const double rh = a.height() / static_cast<double>(rows_.size());
    drawRowLabels(p, f, a, rh, rows_);
    if (model_->counted()) drawInstructionCounts(p, f, a, rh, rows_);
    // One pixel per slice and PE, scaled onto the chart: the dominant recorded state,
    // paler when it filled less of the slice.
    p.drawImage(a, image_);
    if (rh > 4) {
      p.setPen(QPen(QColor(252, 252, 252), 1));
      for (std::size_t r = 1; r < rows_.size(); ++r) {
        const double y = a.top() + rh * static_cast<double>(r);
        p.drawLine(QPointF(a.left(), y), QPointF(a.right(), y));
      }
    }
  }
  p.setPen(QColor(120, 120, 120));
  p.setBrush(Qt::NoBrush);
  p.drawRect(a);
  // Axis: start and end times.
  p.setPen(Qt::black);
  p.drawText(QRectF(a.left(), a.bottom() + 2, a.width() / 2, kAxisHeight - 2), Qt::AlignLeft,
             QString::fromStdString(model_->format_time(model_->begin())));
  p.drawText(QRectF(a.center().x(), a.bottom() + 2, a.width() / 2, kAxisHeight - 2), Qt::AlignRight,
             QString::fromStdString(model_->format_time(model_->end())));
  const double span = model_->end() - model_->begin();
  auto xOf = [&](double t) { return a.left() + (span > 0 ? (t - model_->begin()) / span : 0) * a.width(); };
  if (window_) {
    const double x0 = std::max(a.left(), xOf(window_->first)), x1 = std::min(a.right(), xOf(window_->second));
    p.fillRect(QRectF(x0, a.top(), std::max(1.0, x1 - x0), a.height()), QColor(30, 90, 220, 50));
  }
  if (cursor_) {
    p.setPen(QPen(QColor(20, 60, 200), 2));
    p.drawLine(QPointF(xOf(*cursor_), a.top()), QPointF(xOf(*cursor_), a.bottom()));
  }
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
  if (model_ && chartArea().contains(e->position())) emit timeClicked(timeAt(e->position().x()));
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
  if (model_ && (e->buttons() & Qt::LeftButton)) emit timeClicked(timeAt(e->position().x()));
}

}  // namespace hopsim::gui
