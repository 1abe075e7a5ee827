// hopsim-gui's window: topology view, PE timeline, time slider and controls; the simulated
// vs native and latency vs load panels dock under them.
#pragma once

#include <QMainWindow>
#include <QStringList>
#include <memory>
#include <optional>

#include "trace_model.hpp"

class QAction;
class QCheckBox;
class QDockWidget;
class QComboBox;
class QLabel;
class QMenu;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;
class QHBoxLayout;
class QWidget;

namespace hopsim::gui {

class TopologyView;
class TimelineView;
class ComparisonView;
class CurveView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  /// interactive = false: errors are only recorded (lastError), never shown in a dialog.
  explicit MainWindow(bool interactive = true, QWidget* parent = nullptr);
  ~MainWindow() override;
  MainWindow(const MainWindow&) = delete;
  MainWindow& operator=(const MainWindow&) = delete;
  MainWindow(MainWindow&&) = delete;
  MainWindow& operator=(MainWindow&&) = delete;

  /// Opens a trace; on failure shows an error dialog (interactive) and keeps the previous trace.
  bool openTrace(const QString& path);
  /// Closes the trace (the views show nothing; another can be opened).
  void closeTrace();
  /// A query of the open trace failed after it opened (a damaged file): closes it and
  /// reports `message` like a failed open.
  void traceFailed(const QString& message);
  /// Why the last openTrace, openResults or openCurve failed.
  const QString& lastError() const noexcept { return lastError_; }

  TraceModel* model() const noexcept { return model_.get(); }
  TopologyView* topologyView() const noexcept { return topology_; }
  TimelineView* timelineView() const noexcept { return timeline_; }
  ComparisonView* comparisonView() const noexcept { return comparison_; }
  CurveView* curveView() const noexcept { return curve_; }
  /// Loads simulated and native timings from a results.json into the comparison panel.
  bool openResults(const QString& path);
  /// Opens a `hopsim curve --csv` file in the latency vs load panel and shows it; on
  /// failure shows an error dialog (interactive) and keeps the previous curve.
  bool openCurve(const QString& path);

  void setMetric(Metric m);
  void setScale(Scale s);
  /// Shows the window around time t (cycles) with packets in flight.
  void setTime(double t);
  /// Shows counters of the whole run.
  void setWholeRun();
  /// Recently opened traces (newest first).
  QStringList recentFiles() const;

 protected:
  void dragEnterEvent(class QDragEnterEvent*) override;
  void dropEvent(class QDropEvent*) override;

 private:
  void buildUi();
  QMenu* buildMenus();
  void buildToolBar();
  QWidget* buildCentral();
  QHBoxLayout* buildTimeControls();
  void buildDocks(QMenu* view);
  void connectControls();
  /// Records `message` as lastError and, interactive, shows it in an error dialog.
  void reportError(const QString& title, const QString& message);
  /// The views, controls and panels for the trace just opened (may throw a trace error).
  void showOpenedTrace(const QString& path);
  void rebuildProjectionControls();
  void applyProjection();
  void updateWindow();
  void updateRecentMenu();
  void addRecent(const QString& path);
  void onSlider(int value);
  void onPlayTick();
  void exportPng();
  void exportComparison();
  double windowCycles() const;

  bool interactive_;
  QString lastError_;
  std::unique_ptr<TraceModel> model_;
  std::optional<double> time_;

  TopologyView* topology_ = nullptr;
  TimelineView* timeline_ = nullptr;
  ComparisonView* comparison_ = nullptr;
  QDockWidget* comparisonDock_ = nullptr;
  CurveView* curve_ = nullptr;
  QDockWidget* curveDock_ = nullptr;
  QComboBox* metricBox_ = nullptr;
  QComboBox* scaleBox_ = nullptr;
  QComboBox* netBox_ = nullptr;
  QWidget* projectionBox_ = nullptr;
  QHBoxLayout* projectionLayout_ = nullptr;
  QComboBox* dimX_ = nullptr;
  QComboBox* dimY_ = nullptr;
  QCheckBox* wholeRun_ = nullptr;
  QSpinBox* windowBuckets_ = nullptr;
  QSlider* slider_ = nullptr;
  QPushButton* play_ = nullptr;
  QComboBox* speedBox_ = nullptr;
  QLabel* timeLabel_ = nullptr;
  QLabel* summary_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QTimer* playTimer_ = nullptr;
  bool updating_ = false;
};

}  // namespace hopsim::gui
