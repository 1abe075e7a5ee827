#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "comparison_view.hpp"
#include "curve_view.hpp"
#include "hopsim/traces/error.hpp"
#include "timeline_view.hpp"
#include "topology_view.hpp"

namespace hopsim::gui {

namespace {
constexpr int kSliderSteps = 1000;
constexpr int kMaxRecent = 8;
const char* kRecentKey = "recentFiles";

// Dropped files ending in .csv open as curves, anything else as a trace.
bool is_curve_file(const QString& path) { return path.endsWith(".csv", Qt::CaseInsensitive); }
}  // namespace

MainWindow::MainWindow(bool interactive, QWidget* parent) : QMainWindow(parent), interactive_(interactive) {
  setWindowTitle("hopsim-gui");
  setAcceptDrops(true);
  buildUi();
  resize(1280, 900);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildUi() {
  QMenu* view = buildMenus();
  updateRecentMenu();
  buildToolBar();
  setCentralWidget(buildCentral());
  buildDocks(view);
  summary_ = new QLabel;
  statusBar()->addWidget(summary_, 1);
  connectControls();
}

QMenu* MainWindow::buildMenus() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* open = file->addAction(tr("&Open trace..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open hopsim trace"), QString(),
                                                      tr("hopsim traces (*.db *.trace *.sqlite);;All files (*)"));
    if (!path.isEmpty()) openTrace(path);
  });
  open->setShortcut(QKeySequence::Open);
  recentMenu_ = file->addMenu(tr("Open &recent"));
  file->addAction(tr("&Export view as PNG..."), this, &MainWindow::exportPng);
  file->addAction(tr("Open results for &comparison..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open results.json of hopsim run --mode both"),
                                                      QString(), tr("hopsim results (*.json);;All files (*)"));
    if (!path.isEmpty()) openResults(path);
  });
  file->addAction(tr("Export comparison as PNG or SVG..."), this, &MainWindow::exportComparison);
  file->addAction(tr("Open c&urve..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open the CSV of hopsim curve --csv"), QString(),
                                                      tr("curves (*.csv);;All files (*)"));
    if (!path.isEmpty()) openCurve(path);
  });
  file->addSeparator();
  auto* quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
  quit->setShortcut(QKeySequence::Quit);
  auto* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("Reset &zoom"), this, [this] { topology_->resetView(); });
  view->addAction(tr("Show &all traffic (clear node filter)"), this, [this] {
    if (!model_) return;
    model_->set_node_filter(std::nullopt);
    topology_->refresh();
  });
  return view;
}

void MainWindow::buildToolBar() {
  auto* bar = addToolBar(tr("View"));
  bar->setMovable(false);
  bar->addWidget(new QLabel(tr(" Metric ")));
  metricBox_ = new QComboBox;
  for (const Metric m : {Metric::bytes, Metric::packets, Metric::utilisation, Metric::stall})
    metricBox_->addItem(to_string(m), static_cast<int>(m));
  bar->addWidget(metricBox_);
  scaleBox_ = new QComboBox;
  scaleBox_->addItem(tr("linear"), static_cast<int>(Scale::linear));
  scaleBox_->addItem(tr("log"), static_cast<int>(Scale::log));
  bar->addWidget(scaleBox_);
  bar->addWidget(new QLabel(tr("  Network ")));
  netBox_ = new QComboBox;
  bar->addWidget(netBox_);
  projectionBox_ = new QWidget;
  projectionLayout_ = new QHBoxLayout(projectionBox_);
  projectionLayout_->setContentsMargins(8, 0, 0, 0);
  bar->addWidget(projectionBox_);
}

QWidget* MainWindow::buildCentral() {
  auto* central = new QWidget;
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* splitter = new QSplitter(Qt::Vertical);
  topology_ = new TopologyView;
  timeline_ = new TimelineView;
  splitter->addWidget(topology_);
  splitter->addWidget(timeline_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({600, 220});
  layout->addWidget(splitter, 1);
  layout->addLayout(buildTimeControls());
  return central;
}

QHBoxLayout* MainWindow::buildTimeControls() {
  auto* controls = new QHBoxLayout;
  play_ = new QPushButton(tr("Play"));
  play_->setCheckable(true);
  controls->addWidget(play_);
  speedBox_ = new QComboBox;
  for (const auto& [name, frames] : {std::pair{"fast", 150}, {"normal", 600}, {"slow", 6000}, {"hop by hop", 60000}})
    speedBox_->addItem(tr(name), frames);
  speedBox_->setCurrentIndex(1);
  controls->addWidget(speedBox_);
  slider_ = new QSlider(Qt::Horizontal);
  slider_->setRange(0, kSliderSteps);
  controls->addWidget(slider_, 1);
  wholeRun_ = new QCheckBox(tr("whole run"));
  wholeRun_->setChecked(true);
  controls->addWidget(wholeRun_);
  controls->addWidget(new QLabel(tr("window")));
  windowBuckets_ = new QSpinBox;
  windowBuckets_->setRange(1, 1000000);
  windowBuckets_->setSuffix(tr(" buckets"));
  controls->addWidget(windowBuckets_);
  timeLabel_ = new QLabel;
  timeLabel_->setMinimumWidth(260);
  controls->addWidget(timeLabel_);
  return controls;
}

void MainWindow::buildDocks(QMenu* view) {
  comparison_ = new ComparisonView;
  comparisonDock_ = new QDockWidget(tr("Simulated vs native"), this);
  comparisonDock_->setObjectName("comparison");
  comparisonDock_->setWidget(comparison_);
  addDockWidget(Qt::BottomDockWidgetArea, comparisonDock_);
  comparisonDock_->hide();
  view->addAction(comparisonDock_->toggleViewAction());
  curve_ = new CurveView;
  curveDock_ = new QDockWidget(tr("Latency vs load"), this);
  curveDock_->setObjectName("curve");
  curveDock_->setWidget(curve_);
  addDockWidget(Qt::BottomDockWidgetArea, curveDock_);
  curveDock_->hide();
  view->addAction(curveDock_->toggleViewAction());
}

void MainWindow::connectControls() {
  connect(metricBox_, &QComboBox::currentIndexChanged, this, [this] {
    if (model_) model_->set_metric(static_cast<Metric>(metricBox_->currentData().toInt()));
    topology_->refresh();
  });
  connect(scaleBox_, &QComboBox::currentIndexChanged, this, [this] {
    if (model_) model_->set_scale(static_cast<Scale>(scaleBox_->currentData().toInt()));
    topology_->refresh();
  });
  connect(netBox_, &QComboBox::currentIndexChanged, this, [this] {
    if (!model_ || updating_) return;
    model_->set_network(netBox_->currentData().toString().toStdString());
    topology_->refresh();
  });
  playTimer_ = new QTimer(this);
  playTimer_->setInterval(40);
  connect(playTimer_, &QTimer::timeout, this, &MainWindow::onPlayTick);
  connect(play_, &QPushButton::toggled, this, [this](bool on) {
    play_->setText(on ? tr("Pause") : tr("Play"));
    if (on && model_) {
      if (!time_ || *time_ >= model_->end()) setTime(model_->begin());
      playTimer_->start();
    } else {
      playTimer_->stop();
    }
  });
  connect(slider_, &QSlider::valueChanged, this, &MainWindow::onSlider);
  connect(wholeRun_, &QCheckBox::toggled, this, [this](bool on) {
    if (updating_ || !model_) return;
    if (on)
      setWholeRun();
    else
      setTime(time_.value_or(model_->begin()));
  });
  connect(windowBuckets_, &QSpinBox::valueChanged, this, [this] {
    if (!updating_) updateWindow();
  });
  connect(timeline_, &TimelineView::timeClicked, this, [this](double t) { setTime(t); });
  connect(topology_, &TopologyView::vertexClicked, this, [this](std::optional<std::size_t> v) {
    if (!model_) return;
    std::optional<std::size_t> node;
    if (v) {
      const auto& nodes = model_->topology().vertices[*v].nodes;
      if (nodes.size() == 1 && model_->node_filter() != nodes.front()) node = nodes.front();
    }
    model_->set_node_filter(node);
    topology_->refresh();
  });
}

void MainWindow::reportError(const QString& title, const QString& message) {
  lastError_ = message;
  if (interactive_) QMessageBox::critical(this, title, lastError_);
}

bool MainWindow::openTrace(const QString& path) {
  std::unique_ptr<TraceModel> fresh;
  try {
    fresh = std::make_unique<TraceModel>(path.toStdString());
  } catch (const std::exception& e) {
    reportError(tr("Cannot open trace"), QString::fromStdString(e.what()));
    return false;
  }
  lastError_.clear();
  closeTrace();
  model_ = std::move(fresh);
  try {
    showOpenedTrace(path);
  } catch (const std::exception& e) {
    closeTrace();
    reportError(tr("Cannot open trace"), QString::fromStdString(e.what()));
    return false;
  }
  return true;
}

void MainWindow::closeTrace() {
  updating_ = false;
  playTimer_->stop();
  play_->setChecked(false);
  topology_->setModel(nullptr);
  timeline_->setModel(nullptr);
  model_.reset();
  time_.reset();
  comparison_->setComparison(std::nullopt);
  comparisonDock_->hide();
  setWindowTitle("hopsim-gui");
  summary_->clear();
}

void MainWindow::traceFailed(const QString& message) {
  closeTrace();
  reportError(tr("Trace error"), message + tr(" (the trace was closed)"));
}

void MainWindow::showOpenedTrace(const QString& path) {
  model_->set_metric(static_cast<Metric>(metricBox_->currentData().toInt()));
  model_->set_scale(static_cast<Scale>(scaleBox_->currentData().toInt()));
  updating_ = true;
  netBox_->clear();
  netBox_->addItem(tr("all"), QString());
  for (const auto& n : model_->networks()) netBox_->addItem(QString::fromStdString(n), QString::fromStdString(n));
  const double bucket = model_->reader().bucket_cycles();
  const double buckets = bucket > 0 ? (model_->end() - model_->begin()) / bucket : 1;
  windowBuckets_->setValue(std::max(1, static_cast<int>(std::lround(buckets / 50))));
  wholeRun_->setChecked(true);
  slider_->setValue(0);
  updating_ = false;
  time_.reset();
  rebuildProjectionControls();
  topology_->setModel(model_.get());
  timeline_->setModel(model_.get());
  setWholeRun();
  setWindowTitle(QString("hopsim-gui - %1").arg(QFileInfo(path).fileName()));
  summary_->setText(QString::fromStdString(model_->summary()));
  addRecent(QFileInfo(path).absoluteFilePath());
  // Both modes' launches from the trace itself; for older traces, the run's results.json
  // when it is where the scenario wrote it and holds a native run.
  comparison_->setComparison(std::nullopt);
  comparisonDock_->hide();
  if (auto c = comparison_from_trace(model_->reader())) {
    comparison_->setComparison(std::move(c));
    comparisonDock_->show();
    return;
  }
  const auto results = find_results_for(model_->reader());
  if (!results.empty()) {
    if (auto c = load_comparison(results)) {
      comparison_->setComparison(std::move(c));
      comparisonDock_->show();
    }
  }
}

bool MainWindow::openResults(const QString& path) {
  std::string why;
  auto c = load_comparison(path.toStdString(), &why);
  if (!c) {
    reportError(tr("Cannot compare"), QString::fromStdString(why));
    return false;
  }
  comparison_->setComparison(std::move(c));
  comparisonDock_->show();
  return true;
}

bool MainWindow::openCurve(const QString& path) {
  std::string why;
  auto c = load_curve(path.toStdString(), &why);
  if (!c) {
    reportError(tr("Cannot open curve"), QString::fromStdString(why));
    return false;
  }
  lastError_.clear();
  curve_->setCurve(std::move(c));
  curveDock_->show();
  return true;
}

void MainWindow::exportComparison() {
  if (!comparison_->comparison()) {
    if (interactive_) QMessageBox::information(this, tr("Nothing to export"), tr("Open results for comparison first."));
    return;
  }
  const QString path = QFileDialog::getSaveFileName(this, tr("Export comparison"), "hopsim-comparison.svg",
                                                    tr("SVG (*.svg);;PNG images (*.png)"));
  if (path.isEmpty()) return;
  bool ok = false;
  if (path.endsWith(".svg", Qt::CaseInsensitive)) {
    QFile f(path);
    ok = f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(comparison_->toSvg().toUtf8()) >= 0;
  } else {
    ok = comparison_->toImage().save(path, "PNG");
  }
  if (!ok && interactive_) QMessageBox::critical(this, tr("Export failed"), tr("Cannot write %1").arg(path));
}

void MainWindow::rebuildProjectionControls() {
  while (QLayoutItem* taken = projectionLayout_->takeAt(0)) {
    const std::unique_ptr<QLayoutItem> item(taken);
    if (QWidget* old = item->widget()) {
      old->setObjectName(QString());
      old->hide();
      old->deleteLater();
    }
  }
  dimX_ = dimY_ = nullptr;
  projectionBox_->setVisible(false);
  if (!model_ || model_->topology().kind != LayoutKind::torus) return;
  const auto& t = model_->topology();
  projectionBox_->setVisible(true);
  projectionLayout_->addWidget(new QLabel(tr("Torus: x")));
  dimX_ = new QComboBox;
  dimY_ = new QComboBox;
  for (int d = 0; d < t.dims; ++d) {
    const QString name = QString("dim %1 (%2)").arg(d).arg(t.extent[static_cast<std::size_t>(d)]);
    dimX_->addItem(name, d);
    dimY_->addItem(name, d);
  }
  dimX_->setCurrentIndex(t.dim_x);
  dimY_->setCurrentIndex(t.dim_y);
  projectionLayout_->addWidget(dimX_);
  projectionLayout_->addWidget(new QLabel(tr("y")));
  projectionLayout_->addWidget(dimY_);
  connect(dimX_, &QComboBox::currentIndexChanged, this, [this] { applyProjection(); });
  connect(dimY_, &QComboBox::currentIndexChanged, this, [this] { applyProjection(); });
  // The other dimensions: aggregated ("all") or one slice.
  for (int d = 0; d < t.dims; ++d) {
    if (d == t.dim_x || d == t.dim_y) continue;
    projectionLayout_->addWidget(new QLabel(tr("dim %1").arg(d)));
    auto* box = new QComboBox;
    box->setObjectName(QString("slice%1").arg(d));
    box->addItem(tr("all"), QVariant());
    for (long long v = 0; v < t.extent[static_cast<std::size_t>(d)]; ++v) box->addItem(QString::number(v), v);
    const auto& fixed = model_->projection().fixed;
    if (static_cast<std::size_t>(d) < fixed.size() && fixed[static_cast<std::size_t>(d)])
      box->setCurrentIndex(box->findData(static_cast<long long>(*fixed[static_cast<std::size_t>(d)])));
    connect(box, &QComboBox::currentIndexChanged, this, [this] { applyProjection(); });
    projectionLayout_->addWidget(box);
  }
}

void MainWindow::applyProjection() {
  if (!model_ || !dimX_ || !dimY_) return;
  ProjectionOptions o;
  o.dim_x = dimX_->currentData().toInt();
  o.dim_y = dimY_->currentData().toInt();
  o.fixed.resize(static_cast<std::size_t>(model_->topology().dims));
  for (int d = 0; d < model_->topology().dims; ++d) {
    if (auto* box = projectionBox_->findChild<QComboBox*>(QString("slice%1").arg(d));
        box && box->currentData().isValid())
      o.fixed[static_cast<std::size_t>(d)] = box->currentData().toLongLong();
  }
  model_->set_node_filter(std::nullopt);
  model_->set_projection(o);
  // Rebuilding the controls from inside their own signal would delete the sender.
  QTimer::singleShot(0, this, [this] { rebuildProjectionControls(); });
  topology_->resetView();
}

double MainWindow::windowCycles() const {
  const double bucket = model_ && model_->reader().bucket_cycles() > 0 ? model_->reader().bucket_cycles() : 1;
  return bucket * windowBuckets_->value();
}

void MainWindow::setMetric(Metric m) { metricBox_->setCurrentIndex(metricBox_->findData(static_cast<int>(m))); }

void MainWindow::setScale(Scale s) { scaleBox_->setCurrentIndex(scaleBox_->findData(static_cast<int>(s))); }

void MainWindow::setTime(double t) {
  if (!model_) return;
  time_ = std::clamp(t, model_->begin(), model_->end());
  updating_ = true;
  wholeRun_->setChecked(false);
  const double span = model_->end() - model_->begin();
  slider_->setValue(span > 0 ? static_cast<int>(std::lround((*time_ - model_->begin()) / span * kSliderSteps)) : 0);
  updating_ = false;
  updateWindow();
}

void MainWindow::setWholeRun() {
  if (!model_) return;
  updating_ = true;
  wholeRun_->setChecked(true);
  updating_ = false;
  updateWindow();
}

void MainWindow::updateWindow() {
  if (!model_) return;
  if (wholeRun_->isChecked()) {
    model_->clear_window();
    topology_->setPacketTime(std::nullopt);
    timeline_->setCursor(std::nullopt, std::nullopt);
    timeLabel_->setText(
        tr("whole run: %1").arg(QString::fromStdString(model_->format_time(model_->end() - model_->begin()))));
    return;
  }
  const double t = time_.value_or(model_->begin());
  const double w = windowCycles();
  model_->set_window(t - w / 2, t + w / 2);
  topology_->setPacketTime(t);
  timeline_->setCursor(t, model_->effective_window());
  timeLabel_->setText(tr("t = %1").arg(QString::fromStdString(model_->format_time(t))));
}

void MainWindow::onSlider(int value) {
  if (updating_ || !model_) return;
  const double t = model_->begin() + (model_->end() - model_->begin()) * value / kSliderSteps;
  time_ = t;
  updating_ = true;
  wholeRun_->setChecked(false);
  updating_ = false;
  updateWindow();
}

void MainWindow::onPlayTick() {
  if (!model_) return;
  const double span = model_->end() - model_->begin();
  const double step = span / std::max(1, speedBox_->currentData().toInt());
  const double next = time_.value_or(model_->begin()) + step;
  if (next > model_->end()) {
    play_->setChecked(false);
    return;
  }
  setTime(next);
}

QStringList MainWindow::recentFiles() const { return QSettings().value(kRecentKey).toStringList(); }

void MainWindow::addRecent(const QString& path) {
  QSettings settings;
  QStringList list = settings.value(kRecentKey).toStringList();
  list.removeAll(path);
  list.prepend(path);
  while (list.size() > kMaxRecent) list.removeLast();
  settings.setValue(kRecentKey, list);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList list = recentFiles();
  for (const QString& path : list) recentMenu_->addAction(path, this, [this, path] { openTrace(path); });
  recentMenu_->setEnabled(!list.isEmpty());
}

void MainWindow::exportPng() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export view"), "hopsim-view.png", tr("PNG images (*.png)"));
  if (path.isEmpty()) return;
  if (!grab().save(path, "PNG") && interactive_)
    QMessageBox::critical(this, tr("Export failed"), tr("Cannot write %1").arg(path));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls() && !e->mimeData()->urls().isEmpty() && e->mimeData()->urls().front().isLocalFile())
    e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  const auto urls = e->mimeData()->urls();
  if (urls.isEmpty() || !urls.front().isLocalFile()) return;
  const QString path = urls.front().toLocalFile();
  if (is_curve_file(path))
    openCurve(path);
  else
    openTrace(path);
}

}  // namespace hopsim::gui
