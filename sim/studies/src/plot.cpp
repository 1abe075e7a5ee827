// Charts through Qt Charts: a chart is built as a QChart (series, axes,
// legend; Qt lays them out), put in a QGraphicsScene and that one scene is
// rendered either into a QImage (PNG) or into a QSvgGenerator (SVG), so the
// two formats look the same. The look comes from hopsim/traces/chart_style.hpp,
// shared with hopsim-gui's comparison panel.
#include "hopsim/studies/plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

#include <QApplication>
#include <QColor>
#include <QFile>
#include <QFont>
#include <QFontMetrics>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QPen>
#include <QSvgGenerator>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/log.hpp"
#include "hopsim/traces/chart_qt.hpp"
#include "hopsim/traces/chart_style.hpp"

namespace hopsim::studies::plot {
namespace {

namespace style = hopsim::traces::chart_style;

// ---- Qt set-up ---------------------------------------------------------------

// Qt Charts draws QGraphicsWidgets, which need a QApplication (QtWidgets), not
// just a QGuiApplication. Created on first use, on the offscreen platform
// unless QT_QPA_PLATFORM says otherwise.
void ensure_application() {
  if (QCoreApplication* app = QCoreApplication::instance()) {
    if (!qobject_cast<QApplication*>(app))
      throw Error(
          fmt::format("plot: Qt Charts needs a QApplication, this process has a {}", app->metaObject()->className()));
    return;
  }
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  // Qt's own messages (fonts, runtime dirs) go to hopsim's log at debug level.
  qInstallMessageHandler([](QtMsgType, const QMessageLogContext&, const QString& msg) {
    hopsim::log::get("plot")->debug("qt: {}", msg.toStdString());
  });
  static int argc = 1;
  static std::string name = "hopsim";
  static std::array<char*, 2> argv{name.data(), nullptr};
  // Never destroyed: it must outlive every painter and scene, including at exit.
  new QApplication(argc, argv.data());
}

// ---- style -------------------------------------------------------------------

using traces::chart_qt::font;
using traces::chart_qt::qcolour;

// Qt Charts shows titles, names and labels as rich text: "<" must stay a "<".
QString text(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

QChart* new_chart(const std::string& title) {
  auto* chart = traces::chart_qt::new_chart(text(title));
  chart->legend()->setVisible(true);
  return chart;
}

void style_axis(QAbstractAxis* a, const std::string& title) { traces::chart_qt::style_axis(a, text(title)); }

// `s` as rich text broken into lines at spaces, each at most `width` pixels
// wide in `fm` where the words allow.
QString wrapped(const std::string& s, const QFontMetricsF& fm, double width) {
  const QStringList words = QString::fromStdString(s).split(' ', Qt::SkipEmptyParts);
  QStringList lines;
  QString line;
  for (const QString& w : words) {
    const QString longer = line.isEmpty() ? w : line + ' ' + w;
    if (!line.isEmpty() && fm.horizontalAdvance(longer) > width) {
      lines << line.toHtmlEscaped();
      line = w;
    } else {
      line = longer;
    }
  }
  if (!line.isEmpty() || lines.isEmpty()) lines << line.toHtmlEscaped();
  return lines.join("<br>");
}

// ---- axes --------------------------------------------------------------------

bool drawable(double v, bool log_scale) { return std::isfinite(v) && (!log_scale || v > 0); }

// Widens [lo, hi] to a range an axis can show: non-empty, whole decades on a
// log axis, whole ticks on a linear one.
void settle_range(double& lo, double& hi, bool log_scale, bool include_zero) {
  if (log_scale) {
    lo = std::pow(10.0, std::floor(std::log10(lo) + 1e-9));
    hi = std::pow(10.0, std::ceil(std::log10(hi) - 1e-9));
    if (hi <= lo) hi = lo * 10;
    return;
  }
  if (include_zero) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
  if (hi <= lo) {
    const double d = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= d, hi += d;
  }
  const auto t = ticks(lo, hi, false);
  lo = std::min(lo, t.front());
  hi = std::max(hi, t.back());
}

// A value axis over a settled [lo, hi]: decades with minor ticks between them
// on a log axis, ticks() on a linear one.
QAbstractAxis* value_axis(double lo, double hi, bool log_scale, const std::string& title) {
  QAbstractAxis* axis = nullptr;
  if (log_scale) {
    auto* a = new QLogValueAxis;
    a->setBase(10);
    // A hair below the lowest decade: Qt places a log axis' first label at the
    // decade at or above its minimum, which rounding can push one decade up.
    a->setRange(lo * (1 - 1e-9), hi);
    a->setLabelFormat("%g");
    // Minor lines at 2..9 of each decade while there is room for them.
    const double decades = std::log10(hi / lo);
    a->setMinorTickCount(decades <= 6 ? 8 : 0);
    a->setMinorGridLineVisible(decades <= 6);
    axis = a;
  } else {
    auto* a = new QValueAxis;
    const auto t = ticks(lo, hi, false);
    a->setRange(t.front(), t.back());
    a->setTickCount(static_cast<int>(t.size()));
    a->setLabelFormat("%g");
    a->setMinorTickCount(0);
    axis = a;
  }
  style_axis(axis, title);
  return axis;
}

// ---- rendering -----------------------------------------------------------------

void check_request(const std::string& path, int width, int height) {
  if (width < 200 || height < 150)
    throw ConfigError(fmt::format("plot {}: {}x{} pixels is too small", path, width, height));
  const auto ext = std::filesystem::path(path).extension().string();
  if (ext != ".png" && ext != ".svg")
    throw ConfigError("plot " + path + ": unknown image format '" + ext + "' (use .png or .svg)");
}

// Removes PATH.partial unless released (a render that failed half-way).
struct PartialGuard {
  std::filesystem::path partial;
  bool armed = true;
  explicit PartialGuard(std::filesystem::path p) : partial(std::move(p)) {}
  PartialGuard(const PartialGuard&) = delete;
  PartialGuard(PartialGuard&&) = delete;
  PartialGuard& operator=(const PartialGuard&) = delete;
  PartialGuard& operator=(PartialGuard&&) = delete;
  ~PartialGuard() {
    std::error_code ec;
    if (armed) std::filesystem::remove(partial, ec);
  }
};

// Lays `chart` out at width x height and renders it to `path` (PNG or SVG by
// extension), through PATH.partial.
void render(std::unique_ptr<QChart> owned, const std::string& title, const std::string& path, int width, int height) {
  const QRectF area(0, 0, width, height);
  QGraphicsScene scene;
  QChart* chart = owned.release();
  scene.addItem(chart);  // the scene owns it now
  scene.setSceneRect(area);
  // The legend as wide as its longest entry: offscreen, Qt sizes it from a default that cuts long names.
  if (QLegend* legend = chart->legend(); legend != nullptr && legend->isVisible()) {
    const QFontMetrics fm(legend->font());
    int widest = 0;
    for (const auto* s : chart->series()) widest = std::max(widest, fm.horizontalAdvance(s->name()));
    legend->setMinimumWidth(widest + 56);  // the marker, its spacing and the legend's margins
  }
  chart->setGeometry(area);
  if (QGraphicsLayout* l = chart->layout()) l->activate();

  const auto tmp = partial_path(path);
  PartialGuard guard{tmp};
  const QString qtmp = QString::fromStdString(tmp.string());
  if (std::filesystem::path(path).extension() == ".png") {
    QImage image(width, height, QImage::Format_RGB32);
    image.fill(qcolour(style::kBackground));
    {
      QPainter p(&image);
      p.setRenderHint(QPainter::Antialiasing);
      p.setRenderHint(QPainter::TextAntialiasing);
      scene.render(&p, area, area);
    }
    if (!image.save(qtmp, "PNG")) throw Error("cannot write " + path);
  } else {
    QFile file(qtmp);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
      throw Error("cannot write " + path + ": " + file.errorString().toStdString());
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(QSize(width, height));
    svg.setViewBox(area);
    svg.setResolution(96);                                        // the size in mm is then the size in CSS pixels
    svg.setTitle(QString::fromStdString(title).toHtmlEscaped());  // written as is
    svg.setDescription("hopsim chart");
    QPainter p;
    if (!p.begin(&svg)) throw Error("cannot write " + path);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(area, qcolour(style::kBackground));
    scene.render(&p, area, area);
    p.end();
    file.close();
    if (file.error() != QFileDevice::NoError)
      throw Error("cannot write " + path + ": " + file.errorString().toStdString());
  }
  commit_partial(tmp, path);
  guard.armed = false;
}

std::unique_ptr<QChart> build(const LineChart& chart) {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const auto& s : chart.series)
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i)
      if (drawable(s.x[i], chart.log_x) && drawable(s.y[i], chart.log_y)) {
        xlo = std::min(xlo, s.x[i]), xhi = std::max(xhi, s.x[i]);
        ylo = std::min(ylo, s.y[i]), yhi = std::max(yhi, s.y[i]);
      }
  if (!std::isfinite(xlo)) throw ConfigError("plot '" + chart.title + "': no drawable points");
  settle_range(xlo, xhi, chart.log_x, false);
  settle_range(ylo, yhi, chart.log_y, !chart.log_y);

  std::unique_ptr<QChart> c(new_chart(chart.title));
  QAbstractAxis* x = value_axis(xlo, xhi, chart.log_x, chart.x_label);
  QAbstractAxis* y = value_axis(ylo, yhi, chart.log_y, chart.y_label);
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const auto& s = chart.series[k];
    auto* line = new QLineSeries;
    line->setName(text(s.name));
    const QColor colour = qcolour(style::series_colour(k));
    line->setPen(QPen(colour, style::kLineWidth, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    line->setColor(colour);
    line->setPointsVisible(true);
    line->setMarkerSize(style::kMarkerSize);
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i)
      if (drawable(s.x[i], chart.log_x) && drawable(s.y[i], chart.log_y)) line->append(s.x[i], s.y[i]);
    c->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
  }
  return c;
}

std::unique_ptr<QChart> build(const BarChart& chart, int width) {
  if (chart.categories.empty() || chart.series.empty()) throw ConfigError("plot '" + chart.title + "': no bars");
  double ylo = std::numeric_limits<double>::infinity(), yhi = -ylo;
  for (const auto& s : chart.series)
    for (double v : s.y)
      if (drawable(v, chart.log_y)) ylo = std::min(ylo, v), yhi = std::max(yhi, v);
  if (!std::isfinite(ylo)) throw ConfigError("plot '" + chart.title + "': no drawable bars");
  settle_range(ylo, yhi, chart.log_y, !chart.log_y);

  std::unique_ptr<QChart> c(new_chart(chart.title));
  // Category names wrap onto more lines where they would not fit side by side
  // (the plot area is about the chart less the y axis and the legend).
  const QFontMetricsF ticks_fm(font(style::kTickPx)), legend_fm(font(style::kLegendPx));
  double legend = 0;
  for (const auto& s : chart.series)
    legend = std::max(legend, legend_fm.horizontalAdvance(QString::fromStdString(s.name)));
  const double plot_width = width - 2 * style::kMargin - 90 - (legend + 45);
  const double group = 0.95 * std::max(40.0, plot_width / static_cast<double>(chart.categories.size()));
  auto* x = new QBarCategoryAxis;
  QStringList names;
  for (const auto& cat : chart.categories) names << wrapped(cat, ticks_fm, group);
  x->append(names);
  style_axis(x, "");
  x->setGridLineVisible(false);
  x->setTruncateLabels(false);
  QAbstractAxis* y = value_axis(ylo, yhi, chart.log_y, chart.y_label);
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);

  c->legend()->setMarkerShape(QLegend::MarkerShapeRectangle);
  auto* bars = new QBarSeries;
  bars->setBarWidth(0.8);
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const auto& s = chart.series[k];
    auto* set = new QBarSet(text(s.name));
    set->setColor(qcolour(style::series_colour(k)));
    set->setBorderColor(qcolour(style::series_colour(k)));
    set->setPen(Qt::NoPen);
    for (std::size_t g = 0; g < chart.categories.size(); ++g) {
      const double v = g < s.y.size() ? s.y[g] : std::numeric_limits<double>::quiet_NaN();
      // A bar that cannot be drawn stays at the axis' base: no height.
      set->append(drawable(v, chart.log_y) ? v : chart.log_y ? ylo : 0.0);
    }
    bars->append(set);
  }
  c->addSeries(bars);
  bars->attachAxis(x);
  bars->attachAxis(y);
  return c;
}

}  // namespace

std::vector<double> ticks(double lo, double hi, bool log_scale, int target) {
  std::vector<double> t;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {lo};
  if (log_scale) {
    if (lo <= 0) return {};
    const int a = static_cast<int>(std::floor(std::log10(lo) + 1e-9)),
              b = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
    const int stride = std::max(1, (b - a + target - 1) / std::max(1, target));
    for (int e = a; e <= b; e += stride) t.push_back(std::pow(10.0, e));
    return t;
  }
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double v = std::floor(lo / step) * step; v <= hi + step * 0.999; v += step)
    t.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  return t;
}

void save(const LineChart& chart, const std::string& path, int width, int height) {
  check_request(path, width, height);
  ensure_application();
  render(build(chart), chart.title, path, width, height);
}

void save(const BarChart& chart, const std::string& path, int width, int height) {
  check_request(path, width, height);
  ensure_application();
  render(build(chart, width), chart.title, path, width, height);
}

}  // namespace hopsim::studies::plot
