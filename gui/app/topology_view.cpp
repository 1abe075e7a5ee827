#include "topology_view.hpp"

#include <QFontMetrics>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace hopsim::gui {

namespace {
constexpr double kMargin = 0.75;      // layout units around the vertices
constexpr double kNodeHalf = 0.3;     // half a node box, layout units
constexpr double kLegendWidth = 170;  // pixels on the right
}  // namespace

QColor toQColor(const Rgb& c) { return {c.r, c.g, c.b}; }

TopologyView::TopologyView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(240, 160);
  setAutoFillBackground(false);
}

void TopologyView::setModel(TraceModel* model) {
  model_ = model;
  dots_.clear();
  resetView();
}

void TopologyView::setPacketTime(std::optional<double> t) {
  packetTime_ = t;
  refresh();
}

void TopologyView::resetView() {
  zoom_ = 1;
  pan_ = {};
  refresh();
}

void TopologyView::refresh() {
  dots_.clear();
  if (model_ && packetTime_) dots_ = model_->packets_at(*packetTime_);
  update();
}

QRectF TopologyView::drawArea() const {
  return {0, 0, std::max(50.0, width() - kLegendWidth), static_cast<qreal>(height())};
}

double TopologyView::unitPixels() const {
  if (!model_) return 1;
  const auto& t = model_->topology();
  const QRectF a = drawArea();
  const double s = std::min(a.width() / (t.width + 2 * kMargin), a.height() / (t.height + 2 * kMargin));
  return s * zoom_;
}

double TopologyView::penWidth() const { return std::clamp(unitPixels() * 0.07, 2.5, 16.0); }

QPointF TopologyView::toWidget(Point p) const {
  if (!model_) return {};
  const auto& t = model_->topology();
  const QRectF a = drawArea();
  const double s = unitPixels();
  const QPointF centre = a.center() + pan_;
  return {centre.x() + (p.x - t.width / 2) * s, centre.y() + (p.y - t.height / 2) * s};
}

QPointF TopologyView::edgeMidpoint(std::size_t edge) const {
  const auto seg = model_->topology().geometry(edge, kNodeHalf);
  const QPointF a = toWidget(seg.front().a), b = toWidget(seg.front().b);
  return (a + b) / 2;
}

std::optional<std::size_t> TopologyView::vertexAt(QPointF p) const {
  if (!model_) return std::nullopt;
  const auto& vs = model_->topology().vertices;
  const double half = kNodeHalf * unitPixels();
  for (std::size_t v = 0; v < vs.size(); ++v) {
    const QPointF c = toWidget(vs[v].pos);
    if (std::abs(p.x() - c.x()) <= half && std::abs(p.y() - c.y()) <= half) return v;
  }
  return std::nullopt;
}

std::optional<std::size_t> TopologyView::edgeAt(QPointF p) const {
  if (!model_) return std::nullopt;
  const auto& t = model_->topology();
  const double reach = penWidth() / 2 + 3;
  std::optional<std::size_t> best;
  double best_d = reach;
  for (std::size_t e = 0; e < t.edges.size(); ++e) {
    for (const auto& s : t.geometry(e, kNodeHalf)) {
      const QPointF a = toWidget(s.a), b = toWidget(s.b);
      const QPointF ab = b - a, ap = p - a;
      const double len2 = QPointF::dotProduct(ab, ab);
      const double f = len2 > 0 ? std::clamp(QPointF::dotProduct(ap, ab) / len2, 0.0, 1.0) : 0.0;
      const QPointF d = p - (a + ab * f);
      const double dist = std::hypot(d.x(), d.y());
      if (dist <= best_d) {
        best_d = dist;
        best = e;
      }
    }
  }
  return best;
}

void TopologyView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  p.setRenderHint(QPainter::Antialiasing);
  if (!model_) {
    p.setPen(Qt::darkGray);
    p.drawText(rect(), Qt::AlignCenter, tr("Open a trace: File > Open, drag a .db file here, or hopsim-gui TRACE.db"));
    return;
  }
  paintEdges(p);
  paintNodes(p);
  paintPackets(p);
  paintLegend(p, QRectF(width() - kLegendWidth, 0, kLegendWidth, height()));
}

void TopologyView::paintEdges(QPainter& p) const {
  const auto& t = model_->topology();
  const auto values = model_->edge_values();
  const ColourScale scale = model_->colour_scale();
  const double pw = penWidth();
  // Idle links first, then by rising heat: the hottest are drawn on top.
  std::vector<std::size_t> order(t.edges.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  for (const auto e : order) {
    const bool idle = !(values[e] > 0);
    const QColor colour = toQColor(scale.colour_of(values[e]));
    const double w = idle ? std::max(1.5, pw * 0.4) : pw;
    const QPen pen(colour, w, Qt::SolidLine, Qt::FlatCap);
    p.setPen(pen);
    const auto pieces = t.geometry(e, kNodeHalf);
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      const QPointF a = toWidget(pieces[k].a), b = toWidget(pieces[k].b);
      const QPointF dir = b - a;
      const double len = std::hypot(dir.x(), dir.y());
      if (len < 1) continue;
      const QPointF u = dir / len, n(-u.y(), u.x());
      // The arrow head takes the last stretch of the final piece.
      const bool head = k + 1 == pieces.size();
      const double head_len = std::min(len * 0.35, w * 2.2 + 4);
      p.setPen(pen);
      p.drawLine(a, head ? b - u * head_len : b);
      if (head) {
        QPainterPath tri;
        tri.moveTo(b);
        tri.lineTo(b - u * head_len + n * (w * 0.5 + 3));
        tri.lineTo(b - u * head_len - n * (w * 0.5 + 3));
        tri.closeSubpath();
        p.setPen(Qt::NoPen);
        p.setBrush(colour);
        p.drawPath(tri);
      }
    }
  }
}

void TopologyView::paintNodes(QPainter& p) const {
  const auto& t = model_->topology();
  const double half = kNodeHalf * unitPixels();
  QFont label_font = font();
  label_font.setPixelSize(static_cast<int>(std::clamp(half * 0.36, 7.0, 18.0)));
  label_font.setBold(true);
  QFont sub_font = font();
  sub_font.setPixelSize(static_cast<int>(std::clamp(half * 0.24, 6.0, 13.0)));
  std::optional<std::size_t> filtered;
  if (model_->node_filter()) {
    const long v = t.node_vertex.at(*model_->node_filter());
    if (v >= 0) filtered = static_cast<std::size_t>(v);
  }
  for (std::size_t v = 0; v < t.vertices.size(); ++v) {
    const auto& vx = t.vertices[v];
    const QPointF c = toWidget(vx.pos);
    const QRectF box(c.x() - half, c.y() - half, 2 * half, 2 * half);
    p.setBrush(QColor(246, 246, 240));
    p.setPen(QPen(filtered == v ? QColor(20, 90, 220) : QColor(90, 90, 90), filtered == v ? 3.5 : 1.2));
    p.drawRoundedRect(box, half * 0.18, half * 0.18);
    if (half >= 9) {
      p.setPen(Qt::black);
      const QString label = QString::fromStdString(vx.label);
      QFont fitted = label_font;
      const double room = box.width() - 6;
      // A label of several words may wrap: the font fits its longest word ("external memory").
      const bool wrap = label.contains(' ') && QFontMetrics(fitted).horizontalAdvance(label) > room;
      int wide = 0;
      for (const auto& word : wrap ? label.split(' ') : QStringList{label})
        wide = std::max(wide, QFontMetrics(fitted).horizontalAdvance(word));
      if (wide > room) fitted.setPixelSize(std::max(6, static_cast<int>(fitted.pixelSize() * room / wide)));
      p.setFont(fitted);
      const QRectF top = box.adjusted(2, 2, -2, -box.height() / 2);
      p.drawText(top, Qt::AlignHCenter | Qt::AlignBottom | (wrap ? Qt::TextWordWrap : 0), label);
      p.setFont(sub_font);
      p.setPen(QColor(70, 70, 70));
      const QRectF bottom = box.adjusted(2, box.height() / 2 + 1, -2, -2);
      p.drawText(bottom, Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, QString::fromStdString(vx.sublabel));
    }
  }
}

void TopologyView::paintPackets(QPainter& p) const {
  if (dots_.empty()) return;
  const auto& t = model_->topology();
  p.setPen(QPen(Qt::white, 1.2));
  p.setBrush(Qt::black);
  const double r = std::clamp(penWidth() * 0.45, 2.5, 7.0);
  for (const auto& d : dots_) {
    const auto pieces = t.geometry(d.edge, kNodeHalf);
    double total = 0;
    for (const auto& pc : pieces) total += std::hypot(pc.b.x - pc.a.x, pc.b.y - pc.a.y);
    double at = d.fraction * total;
    for (const auto& pc : pieces) {
      const double len = std::hypot(pc.b.x - pc.a.x, pc.b.y - pc.a.y);
      if (at <= len || &pc == &pieces.back()) {
        const double f = len > 0 ? std::min(1.0, at / len) : 0;
        p.drawEllipse(toWidget({pc.a.x + (pc.b.x - pc.a.x) * f, pc.a.y + (pc.b.y - pc.a.y) * f}), r, r);
        break;
      }
      at -= len;
    }
  }
}

void TopologyView::paintLegend(QPainter& p, const QRectF& area) const {
  const ColourScale scale = model_->colour_scale();
  const Metric m = model_->metric();
  p.setPen(Qt::black);
  QFont f = font();
  f.setPixelSize(12);
  f.setBold(true);
  p.setFont(f);
  const double x = area.left() + 14;
  double y = area.top() + 22;
  p.drawText(QPointF(x, y), QString("%1 (%2)").arg(to_string(m), unit(m)));
  f.setBold(false);
  f.setPixelSize(11);
  p.setFont(f);
  y += 16;
  p.drawText(QPointF(x, y), model_->scale() == Scale::log ? tr("log scale") : tr("linear scale"));
  const double bar_top = y + 12, bar_h = std::max(80.0, std::min(260.0, area.height() - bar_top - 90));
  const QRectF bar(x, bar_top, 18, bar_h);
  QLinearGradient g(bar.bottomLeft(), bar.topLeft());
  for (int i = 0; i <= 20; ++i) g.setColorAt(i / 20.0, toQColor(ColourScale::colour(i / 20.0)));
  p.setPen(Qt::NoPen);
  p.setBrush(g);
  p.drawRect(bar);
  p.setPen(Qt::black);
  if (scale.max > 0) {
    const auto ticks = scale.ticks();
    double last_y = 1e9;
    for (std::size_t i = 0; i < ticks.size(); ++i) {
      const auto [value, heat] = ticks[i];
      const double ty = bar.bottom() - heat * bar.height();
      // Skip labels that would overlap (the maximum always shows).
      const bool is_max = i + 1 == ticks.size();
      const double next_y = is_max ? -1e9 : bar.bottom() - ticks.back().second * bar.height();
      if (!is_max && (last_y - ty < 13 || ty - next_y < 13)) continue;
      last_y = ty;
      p.drawLine(QPointF(bar.right(), ty), QPointF(bar.right() + 4, ty));
      QString text = value >= 1e6 ? QString::number(value, 'g', 3)
                                  : QString::number(value, 'f', value < 10 && value != std::floor(value) ? 2 : 0);
      p.drawText(QPointF(bar.right() + 7, ty + 4), text);
    }
  } else {
    p.drawText(QPointF(bar.right() + 7, bar.bottom()), tr("no traffic"));
  }
  double ly = bar.bottom() + 22;
  p.setPen(QPen(toQColor(ColourScale::idle()), 3));
  p.drawLine(QPointF(x, ly - 4), QPointF(x + 18, ly - 4));
  p.setPen(Qt::black);
  p.drawText(QPointF(x + 24, ly), tr("idle"));
  ly += 20;
  const auto [w0, w1] = model_->effective_window();
  const QString window = model_->has_window() ? tr("window") : tr("whole run");
  p.drawText(QRectF(x, ly, area.width() - 20, 80), Qt::TextWordWrap,
             QString("%1:\n%2\n- %3")
                 .arg(window, QString::fromStdString(model_->format_time(w0)),
                      QString::fromStdString(model_->format_time(w1))));
  ly += 64;
  if (!model_->network().empty())
    p.drawText(QPointF(x, ly), tr("network: %1").arg(QString::fromStdString(model_->network())));
  ly += 16;
  if (model_->node_filter()) {
    p.setPen(QColor(20, 90, 220));
    const auto& n = model_->nodes()[*model_->node_filter()];
    p.drawText(QRectF(x, ly, area.width() - 20, 60), Qt::TextWordWrap,
               tr("only traffic from/to %1").arg(QString::fromStdString(n.name.substr(0, n.name.find(" (")))));
    const auto note = model_->node_filter_note();
    if (!note.empty())
      p.drawText(QRectF(x, ly + 32, area.width() - 20, 80), Qt::TextWordWrap, QString::fromStdString(note));
  }
  if (!dots_.empty()) {
    p.setPen(Qt::black);
    p.drawText(QPointF(x, area.bottom() - 12), tr("%1 packets in flight").arg(dots_.size()));
  }
}

void TopologyView::wheelEvent(QWheelEvent* e) {
  if (!model_) return;
  const double factor = std::pow(1.0015, e->angleDelta().y());
  const double nz = std::clamp(zoom_ * factor, 0.2, 40.0);
  // Keep the point under the cursor fixed.
  const QPointF c = drawArea().center() + pan_;
  const QPointF rel = e->position() - c;
  pan_ += rel - rel * (nz / zoom_);
  zoom_ = nz;
  update();
}

void TopologyView::mousePressEvent(QMouseEvent* e) {
  pressed_ = true;
  dragging_ = false;
  pressPos_ = lastPos_ = e->position();
}

void TopologyView::mouseMoveEvent(QMouseEvent* e) {
  if (pressed_) {
    const QPointF d = e->position() - lastPos_;
    if ((e->position() - pressPos_).manhattanLength() > 4) dragging_ = true;
    if (dragging_) {
      pan_ += d;
      lastPos_ = e->position();
      update();
    }
    return;
  }
  if (!model_) return;
  QString tip;
  if (const auto v = vertexAt(e->position()))
    tip = QString::fromStdString(model_->describe_vertex(*v));
  else if (const auto ed = edgeAt(e->position()))
    tip = QString::fromStdString(model_->describe_edge(*ed));
  if (tip.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(e->globalPosition().toPoint(), tip, this);
}

void TopologyView::mouseReleaseEvent(QMouseEvent* e) {
  const bool click = pressed_ && !dragging_;
  pressed_ = dragging_ = false;
  if (click && model_ && e->button() == Qt::LeftButton) emit vertexClicked(vertexAt(e->position()));
}

}  // namespace hopsim::gui
