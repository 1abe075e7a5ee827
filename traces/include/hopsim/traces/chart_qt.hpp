#pragma once
// The shared chart look (chart_style.hpp) applied to Qt Charts objects, for
// the report charts (sim/studies) and the GUI's panels alike. Header-only:
// only code that draws charts includes it and links Qt6::Charts; the traces
// library itself stays free of Qt.
#include <QAbstractAxis>
#include <QChart>
#include <QColor>
#include <QFont>
#include <QLegend>
#include <QMargins>
#include <QPen>
#include <QString>

#include "hopsim/traces/chart_style.hpp"

namespace hopsim::traces::chart_qt {

inline QColor qcolour(chart_style::Rgb c) { return {c.r, c.g, c.b}; }

inline QFont font(int px, bool bold = false) {
    QFont f(chart_style::kFontFamily);
    f.setPixelSize(px);
    f.setBold(bold);
    return f;
}

// A chart with the shared background, margins, title and legend; `title` is
// rich text (escape user text with QString::toHtmlEscaped).
inline QChart* new_chart(const QString& title) {
    namespace style = chart_style;
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setBackgroundRoundness(0);
    chart->setBackgroundBrush(qcolour(style::kBackground));
    chart->setBackgroundPen(Qt::NoPen);
    chart->setMargins(QMargins(style::kMargin, style::kMargin, style::kMargin, style::kMargin));
    chart->setTitle(title);
    chart->setTitleFont(font(style::kTitlePx, true));
    chart->setTitleBrush(qcolour(style::kText));
    QLegend* legend = chart->legend();
    legend->setAlignment(Qt::AlignRight);
    legend->setFont(font(style::kLegendPx));
    legend->setLabelColor(qcolour(style::kText));
    legend->setMarkerShape(QLegend::MarkerShapeFromSeries);
    return chart;
}

// An axis in the shared look; `title` is rich text, empty for none.
inline void style_axis(QAbstractAxis* a, const QString& title) {
    namespace style = chart_style;
    if (!title.isEmpty()) a->setTitleText(title);
    a->setTitleFont(font(style::kAxisTitlePx));
    a->setTitleBrush(qcolour(style::kText));
    a->setLabelsFont(font(style::kTickPx));
    a->setLabelsColor(qcolour(style::kText));
    a->setLinePen(QPen(qcolour(style::kAxis), style::kAxisWidth));
    a->setGridLinePen(QPen(qcolour(style::kGrid), 1));
    a->setMinorGridLinePen(QPen(qcolour(style::kMinorGrid), 1));
    a->setGridLineVisible(true);
}

}  // namespace hopsim::traces::chart_qt
