// Chart layout is done once, in pixel coordinates, against an abstract
// Canvas; the PNG and SVG back ends only draw primitives.
#include "hopsim/studies/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include <QColor>
#include <QFont>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QPen>

#include <fmt/format.h>

#include "hopsim/core/file_output.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/log.hpp"

namespace hopsim::plot {
namespace {

struct Rgb {
  std::uint8_t r, g, b;
};

// Colour-blind-safe palette (Okabe and Ito).
constexpr Rgb kPalette[] = {{0, 114, 178},  {213, 94, 0},  {0, 158, 115}, {204, 121, 167},
                            {230, 159, 0},  {86, 180, 233}, {0, 0, 0},    {240, 228, 66}};
Rgb colour(std::size_t i) { return kPalette[i % std::size(kPalette)]; }
constexpr Rgb kBlack{0, 0, 0}, kGrid{225, 225, 225}, kAxis{90, 90, 90};

enum class Align { left, centre, right };

class Canvas {
 public:
  virtual ~Canvas() = default;
  virtual void line(double x1, double y1, double x2, double y2, Rgb c, double width) = 0;
  virtual void polyline(const std::vector<std::pair<double, double>>& pts, Rgb c, double width) = 0;
  virtual void rect(double x, double y, double w, double h, Rgb fill) = 0;
  virtual void circle(double x, double y, double r, Rgb fill) = 0;
  // Text vertically centred on y; `vertical` rotates it a quarter turn anticlockwise around (x, y).
  virtual void text(double x, double y, const std::string& s, double size, Align a, bool bold = false,
                    bool vertical = false) = 0;
};

// ---- PNG: Qt's raster painter ---------------------------------------------

void ensure_gui_application() {
  if (QGuiApplication::instance()) return;
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  // Qt's own messages (fonts, runtime dirs) go to hopsim's log at debug level.
  qInstallMessageHandler([](QtMsgType, const QMessageLogContext&, const QString& msg) {
    hopsim::log::get("plot")->debug("qt: {}", msg.toStdString());
  });
  static int argc = 1;
  static char name[] = "hopsim";
  static char* argv[] = {name, nullptr};
  // Never destroyed: it must outlive every painter, including at exit.
  new QGuiApplication(argc, argv);
}

QColor qcolour(Rgb c) { return QColor(c.r, c.g, c.b); }

class QtCanvas final : public Canvas {
 public:
  QtCanvas(int w, int h) : image_(w, h, QImage::Format_RGB32) {
    image_.fill(Qt::white);
    painter_ = std::make_unique<QPainter>(&image_);
    painter_->setRenderHint(QPainter::Antialiasing);
    painter_->setRenderHint(QPainter::TextAntialiasing);
  }
  void line(double x1, double y1, double x2, double y2, Rgb c, double width) override {
    painter_->setPen(QPen(qcolour(c), width));
    painter_->drawLine(QPointF(x1, y1), QPointF(x2, y2));
  }
  void polyline(const std::vector<std::pair<double, double>>& pts, Rgb c, double width) override {
    if (pts.size() < 2) return;
    QPainterPath path(QPointF(pts[0].first, pts[0].second));
    for (std::size_t i = 1; i < pts.size(); ++i) path.lineTo(pts[i].first, pts[i].second);
    painter_->setPen(QPen(qcolour(c), width, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter_->setBrush(Qt::NoBrush);
    painter_->drawPath(path);
  }
  void rect(double x, double y, double w, double h, Rgb fill) override {
    painter_->setPen(Qt::NoPen);
    painter_->setBrush(qcolour(fill));
    painter_->drawRect(QRectF(x, y, w, h));
  }
  void circle(double x, double y, double r, Rgb fill) override {
    painter_->setPen(Qt::NoPen);
    painter_->setBrush(qcolour(fill));
    painter_->drawEllipse(QPointF(x, y), r, r);
  }
  void text(double x, double y, const std::string& s, double size, Align a, bool bold, bool vertical) override {
    QFont f("DejaVu Sans");
    f.setPixelSize(static_cast<int>(std::lround(size)));
    f.setBold(bold);
    painter_->setFont(f);
    painter_->setPen(qcolour(kBlack));
    painter_->save();
    painter_->translate(x, y);
    if (vertical) painter_->rotate(-90);
    const double w = 2000;
    const QRectF box(a == Align::left ? 0 : a == Align::centre ? -w / 2 : -w, -size, w, 2 * size);
    const int h = a == Align::left ? Qt::AlignLeft : a == Align::centre ? Qt::AlignHCenter : Qt::AlignRight;
    painter_->drawText(box, h | Qt::AlignVCenter, QString::fromStdString(s));
    painter_->restore();
  }
  void save(const std::string& path) {
    painter_->end();
    if (!image_.save(QString::fromStdString(path), "PNG")) throw Error("cannot write " + path);
  }

 private:
  QImage image_;
  std::unique_ptr<QPainter> painter_;
};

// ---- SVG: written directly -------------------------------------------------

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string svg_colour(Rgb c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

class SvgCanvas final : public Canvas {
 public:
  SvgCanvas(int w, int h) {
    out_ << fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"DejaVu Sans, sans-serif\">\n<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
        w, h);
  }
  void line(double x1, double y1, double x2, double y2, Rgb c, double width) override {
    out_ << fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"{}\" stroke-width=\"{:g}\"/>\n",
                        x1, y1, x2, y2, svg_colour(c), width);
  }
  void polyline(const std::vector<std::pair<double, double>>& pts, Rgb c, double width) override {
    if (pts.size() < 2) return;
    out_ << "<polyline fill=\"none\" stroke-linejoin=\"round\" stroke=\"" << svg_colour(c) << "\" stroke-width=\""
         << fmt::format("{:g}", width) << "\" points=\"";
    for (const auto& [x, y] : pts) out_ << fmt::format("{:.2f},{:.2f} ", x, y);
    out_ << "\"/>\n";
  }
  void rect(double x, double y, double w, double h, Rgb fill) override {
    out_ << fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"/>\n", x, y, w,
                        h, svg_colour(fill));
  }
  void circle(double x, double y, double r, Rgb fill) override {
    out_ << fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"{:g}\" fill=\"{}\"/>\n", x, y, r, svg_colour(fill));
  }
  void text(double x, double y, const std::string& s, double size, Align a, bool bold, bool vertical) override {
    const char* anchor = a == Align::left ? "start" : a == Align::centre ? "middle" : "end";
    out_ << fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"{:g}\" text-anchor=\"{}\" "
                        "dominant-baseline=\"middle\"{}{}>{}</text>\n",
                        x, y, size, anchor, bold ? " font-weight=\"bold\"" : "",
                        vertical ? fmt::format(" transform=\"rotate(-90 {:.2f} {:.2f})\"", x, y) : "",
                        xml_escape(s));
  }
  void save(const std::string& path) {
    out_ << "</svg>\n";
    std::ofstream os(path);
    os << out_.str();
    os.close();
    if (!os) throw Error("cannot write " + path);
  }

 private:
  std::ostringstream out_;
};

// ---- layout ----------------------------------------------------------------

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double px_lo = 0, px_hi = 1;  // pixel positions of lo and hi
  double to_px(double v) const {
    const double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return px_lo + t * (px_hi - px_lo);
  }
};

bool drawable(double v, bool log_scale) { return std::isfinite(v) && (!log_scale || v > 0); }

// Widens [lo, hi] to a range an axis can show: non-empty, decades on log.
void settle_range(double& lo, double& hi, bool log_scale, bool include_zero) {
  if (log_scale) {
    lo = std::pow(10.0, std::floor(std::log10(lo)));
    hi = std::pow(10.0, std::ceil(std::log10(hi)));
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

std::string tick_label(double v) {
  if (v == 0) return "0";
  const double a = std::abs(v);
  if (a >= 1e6 || a < 1e-3) return fmt::format("{:.0e}", v);
  return fmt::format("{:g}", v);
}

struct Frame {
  double left, top, right, bottom;  // plot area in pixels
};

Frame frame_for(int w, int h, bool legend) { return {82, 52, w - (legend ? 190.0 : 30.0), h - 62.0}; }

void draw_axes(Canvas& c, const Frame& f, const Axis* x, const Axis& y, const std::string& title,
               const std::string& x_label, const std::string& y_label) {
  for (double t : ticks(y.lo, y.hi, y.log)) {
    if (t < y.lo * (1 - 1e-9) - 1e-12 || t > y.hi * (1 + 1e-9) + 1e-12) continue;
    const double py = y.to_px(t);
    c.line(f.left, py, f.right, py, kGrid, 1);
    c.text(f.left - 8, py, tick_label(t), 12, Align::right);
  }
  if (x) {
    for (double t : ticks(x->lo, x->hi, x->log)) {
      if (t < x->lo * (1 - 1e-9) - 1e-12 || t > x->hi * (1 + 1e-9) + 1e-12) continue;
      const double px = x->to_px(t);
      c.line(px, f.top, px, f.bottom, kGrid, 1);
      c.text(px, f.bottom + 14, tick_label(t), 12, Align::centre);
    }
  }
  c.line(f.left, f.bottom, f.right, f.bottom, kAxis, 1.5);
  c.line(f.left, f.top, f.left, f.bottom, kAxis, 1.5);
  c.text((f.left + f.right) / 2, 24, title, 16, Align::centre, true);
  if (!x_label.empty()) c.text((f.left + f.right) / 2, f.bottom + 40, x_label, 13, Align::centre);
  c.text(22, (f.top + f.bottom) / 2, y_label, 13, Align::centre, false, true);
}

void draw_legend(Canvas& c, const Frame& f, const std::vector<Series>& series, bool bars) {
  double y = f.top + 10;
  for (std::size_t i = 0; i < series.size(); ++i, y += 22) {
    if (bars)
      c.rect(f.right + 16, y - 6, 18, 12, colour(i));
    else
      c.line(f.right + 14, y, f.right + 36, y, colour(i), 2.5);
    c.text(f.right + 42, y, series[i].name, 12, Align::left);
  }
}

template <typename Chart>
void render(const Chart& chart, const std::string& path, int width, int height,
            void (*draw)(const Chart&, Canvas&, int, int)) {
  if (width < 200 || height < 150) throw ConfigError(fmt::format("plot {}: {}x{} pixels is too small", path, width, height));
  const auto ext = std::filesystem::path(path).extension().string();
  if (ext != ".png" && ext != ".svg")
    throw ConfigError("plot " + path + ": unknown image format '" + ext + "' (use .png or .svg)");
  const auto tmp = partial_path(path).string();
  if (ext == ".png") {
    ensure_gui_application();
    QtCanvas c(width, height);
    draw(chart, c, width, height);
    c.save(tmp);
  } else {
    SvgCanvas c(width, height);
    draw(chart, c, width, height);
    c.save(tmp);
  }
  commit_partial(tmp, path);
}

void draw_line_chart(const LineChart& chart, Canvas& c, int w, int h) {
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
  const Frame f = frame_for(w, h, true);
  const Axis x{xlo, xhi, chart.log_x, f.left, f.right}, y{ylo, yhi, chart.log_y, f.bottom, f.top};
  draw_axes(c, f, &x, y, chart.title, chart.x_label, chart.y_label);
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const auto& s = chart.series[k];
    std::vector<std::pair<double, double>> pts;
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i)
      if (drawable(s.x[i], chart.log_x) && drawable(s.y[i], chart.log_y)) pts.emplace_back(x.to_px(s.x[i]), y.to_px(s.y[i]));
    c.polyline(pts, colour(k), 2.5);
    for (const auto& [px, py] : pts) c.circle(px, py, 3.5, colour(k));
  }
  draw_legend(c, f, chart.series, false);
}

void draw_bar_chart(const BarChart& chart, Canvas& c, int w, int h) {
  if (chart.categories.empty() || chart.series.empty()) throw ConfigError("plot '" + chart.title + "': no bars");
  double ylo = std::numeric_limits<double>::infinity(), yhi = -ylo;
  for (const auto& s : chart.series)
    for (double v : s.y)
      if (drawable(v, chart.log_y)) ylo = std::min(ylo, v), yhi = std::max(yhi, v);
  if (!std::isfinite(ylo)) throw ConfigError("plot '" + chart.title + "': no drawable bars");
  settle_range(ylo, yhi, chart.log_y, !chart.log_y);
  const Frame f = frame_for(w, h, true);
  const Axis y{ylo, yhi, chart.log_y, f.bottom, f.top};
  draw_axes(c, f, nullptr, y, chart.title, "", chart.y_label);
  const double group = (f.right - f.left) / static_cast<double>(chart.categories.size());
  const double bar = group * 0.8 / static_cast<double>(chart.series.size());
  const double base = chart.log_y ? f.bottom : y.to_px(0);
  for (std::size_t g = 0; g < chart.categories.size(); ++g) {
    const double gx = f.left + group * static_cast<double>(g) + group * 0.1;
    for (std::size_t k = 0; k < chart.series.size(); ++k) {
      const auto& s = chart.series[k];
      if (g >= s.y.size() || !drawable(s.y[g], chart.log_y)) continue;
      const double top = y.to_px(s.y[g]);
      c.rect(gx + bar * static_cast<double>(k), std::min(top, base), bar * 0.95, std::abs(base - top), colour(k));
    }
    // Category names alternate between two rows when groups are narrow.
    const double row = (group < 110 && g % 2) ? 30 : 14;
    c.text(f.left + group * (static_cast<double>(g) + 0.5), f.bottom + row, chart.categories[g], 11, Align::centre);
  }
  draw_legend(c, f, chart.series, true);
}

}  // namespace

std::vector<double> ticks(double lo, double hi, bool log_scale, int target) {
  std::vector<double> t;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {lo};
  if (log_scale) {
    if (lo <= 0) return {};
    const int a = static_cast<int>(std::floor(std::log10(lo) + 1e-9)), b = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
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
  for (double v = std::floor(lo / step) * step; v <= hi + step * 0.999; v += step) t.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  return t;
}

void save(const LineChart& chart, const std::string& path, int width, int height) {
  render(chart, path, width, height, &draw_line_chart);
}

void save(const BarChart& chart, const std::string& path, int width, int height) {
  render(chart, path, width, height, &draw_bar_chart);
}

}  // namespace hopsim::plot
