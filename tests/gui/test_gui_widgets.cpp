// hopsim-gui's widgets on the offscreen platform: a screenshot of a real passing-run
// trace, bad files (error dialog, non-zero exit in screenshot mode), clicking a node, the
// latency vs load panel.
#include <QApplication>
#include <QDockWidget>
#include <QDropEvent>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <QtTest>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "comparison_view.hpp"
#include "curve_view.hpp"
#include "hopsim/traces/db.hpp"
#include "main_window.hpp"
#include "screenshot.hpp"
#include "synthetic.hpp"
#include "topology_view.hpp"

using namespace hopsim::gui;

namespace {

// Runs `open` and returns the text of the error dialog it shows (empty when none
// appeared); the dialog is closed as soon as it is seen.
QString dialog_text_while(const std::function<bool()>& open, bool* opened) {
  QString text;
  QTimer poll;  // stops with this function, so nothing outlives the locals
  QObject::connect(&poll, &QTimer::timeout, [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      text = box->text();
      box->accept();
    }
  });
  poll.start(10);
  *opened = open();
  QTest::qWait(30);
  return text;
}

// Opens `path` in an interactive window: the text of the error dialog it shows, if any.
QString dialog_text_on_open(MainWindow& w, const QString& path, bool* opened) {
  return dialog_text_while([&] { return w.openTrace(path); }, opened);
}

// A curve as hopsim curve --csv writes it: three loads below saturation, one saturated.
void write_plain_curve(const QString& path) {
  std::ofstream(path.toStdString())
      << "offered,accepted,avg_latency,p50_latency,p99_latency,avg_network_latency,avg_hops,max_link_utilisation,"
         "saturated\n"
         "0.1,0.1,20,19,35,12,5.3,0.21,0\n"
         "0.2,0.2,24,22,44,13,5.3,0.42,0\n"
         "0.3,0.29,40,31,90,15,5.3,0.63,0\n"
         "0.4,0.31,900,700,2500,80,5.3,0.99,1\n";
}

void write_reference_curve(const QString& path) {
  std::ofstream(path.toStdString()) << "offered,avg_latency,reference_latency,error_percent,compared\n"
                                       "0.05,25.1,25,0.4,1\n"
                                       "0.1,26,26.5,-1.88679,1\n"
                                       "0.3,31,,,0\n";
}

// A copy of `from` at `to` with every page of table or index `object` overwritten by
// bytes from a fixed seed: what a damaged disk or a partial overwrite leaves.
bool damage_object(const QString& from, const QString& to, const std::string& object) {
  QFile::remove(to);
  if (!QFile::copy(from, to)) return false;
  std::vector<long long> pages;
  long long page_size = 0;
  {
    hopsim::traces::sql::Db db(to.toStdString(), hopsim::traces::sql::OpenMode::read_only);
    auto size = db.prepare("PRAGMA page_size");
    if (size.step()) page_size = size.int64(0);
    auto st = db.prepare("SELECT pageno FROM dbstat WHERE name = ?1");
    st.bind(1, object);
    while (st.step()) pages.push_back(st.int64(0));
  }
  if (pages.empty() || page_size <= 0) return false;
  std::fstream f(to.toStdString(), std::ios::in | std::ios::out | std::ios::binary);
  std::uint32_t x = 12345;
  for (long long pg : pages) {
    std::string junk(static_cast<std::size_t>(page_size), '\0');
    for (char& c : junk) {
      x = x * 1664525u + 1013904223u;
      c = static_cast<char>(x >> 24);
    }
    f.seekp((pg - 1) * page_size);
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  return static_cast<bool>(f);
}

// hopsim-gui --screenshot on `path`: exit status, code and stderr.
struct Shot {
  QProcess::ExitStatus status;
  int code;
  QString err;
};
Shot screenshot_of(const QString& path, const QString& out, const QStringList& extra = {}) {
  QProcess p;
  p.start(HOPSIM_GUI_EXE, QStringList{"--screenshot", out} + extra + QStringList{path});
  if (!p.waitForFinished(60000)) return {QProcess::CrashExit, -1, "timed out"};
  return {p.exitStatus(), p.exitCode(), QString::fromLocal8Bit(p.readAllStandardError())};
}

// Drops a local file onto the window, as dragging it from a file manager does.
void drop_file(MainWindow& w, const QString& path) {
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(path)});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &enter);
  QVERIFY(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &drop);
}

// The points of the chart's series named `name` (empty when there is none).
QList<QPointF> series_points(const QChart* chart, const QString& name) {
  for (QAbstractSeries* s : chart->series())
    if (s->name() == name)
      if (auto* line = qobject_cast<QLineSeries*>(s)) return line->points();
  return {};
}

int pixels_differing_from(const QImage& img, QRgb colour) {
  int n = 0;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2)
      if (img.pixel(x, y) != colour) ++n;
  return n;
}

}  // namespace

class TestGuiWidgets : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString bad_[4];

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // recent files go to a test location
    QVERIFY(dir_.isValid());
    QVERIFY2(QFile::exists(HOPSIM_GUI_PASSING_TRACE), "run the gui_passing_trace fixture first");
    // Garbage, a cut-off trace, an SQLite file that is no trace, a trace from the future.
    bad_[0] = dir_.filePath("garbage.db");
    std::ofstream(bad_[0].toStdString()) << "this is not a database\n";
    bad_[1] = dir_.filePath("truncated.db");
    {
      QFile src(HOPSIM_GUI_PASSING_TRACE);
      QVERIFY(src.open(QIODevice::ReadOnly));
      QFile dst(bad_[1]);
      QVERIFY(dst.open(QIODevice::WriteOnly));
      dst.write(src.read(std::min<qint64>(src.size() / 2, 1 << 20) + 100));
    }
    bad_[2] = dir_.filePath("other.db");
    {
      hopsim::traces::sql::Db db(bad_[2].toStdString(), hopsim::traces::sql::OpenMode::create);
      db.exec("CREATE TABLE people(name TEXT); INSERT INTO people VALUES('ada');");
    }
    bad_[3] = dir_.filePath("future.db");
    {
      hopsim::traces::TraceWriter w(bad_[3].toStdString(), gui_test::meta("x"), hopsim::traces::Detail::counters);
      w.add_node({0, "a", "core", "[0,0]"});
      w.finish();
      hopsim::traces::sql::Db db(bad_[3].toStdString(), hopsim::traces::sql::OpenMode::create);
      db.exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'");
    }
  }

  // The acceptance test: non-empty, and the hottest link drawn in the hottest colour.
  void screenshotOfPassingRun() {
    MainWindow w(false);
    ScreenshotOptions o;
    o.trace = HOPSIM_GUI_PASSING_TRACE;
    QString error;
    const QImage img = render_screenshot(w, o, &error);
    QVERIFY2(!img.isNull(), qPrintable(error));
    QCOMPARE(img.size(), QSize(1280, 900));
    QVERIFY(pixels_differing_from(img, qRgb(255, 255, 255)) > 5000);
    const TraceModel& m = *w.model();
    QCOMPARE(m.topology().kind, LayoutKind::mesh);
    QCOMPARE(m.topology().vertices.size(), std::size_t{17});  // 16 cores and the external memory
    const auto values = m.edge_values();
    const auto ranking = m.ranking();
    QVERIFY(values[ranking.front()] > 0);
    const QPoint at = w.topologyView()->mapTo(&w, w.topologyView()->edgeMidpoint(ranking.front()).toPoint());
    const QColor drawn = img.pixelColor(at);
    const QColor hottest = toQColor(ColourScale::hottest());
    QVERIFY2(drawn == hottest, qPrintable(QString("pixel at (%1,%2) is %3, the hottest colour is %4")
                                              .arg(at.x())
                                              .arg(at.y())
                                              .arg(drawn.name(), hottest.name())));
    // A link that carried less is drawn in another colour.
    std::size_t cooler = ranking.size();
    for (std::size_t i = 1; i < ranking.size(); ++i)
      if (values[ranking[i]] > 0 && values[ranking[i]] < 0.8 * values[ranking.front()]) {
        cooler = ranking[i];
        break;
      }
    QVERIFY(cooler < ranking.size());
    const QPoint at2 = w.topologyView()->mapTo(&w, w.topologyView()->edgeMidpoint(cooler).toPoint());
    QCOMPARE(img.pixelColor(at2), toQColor(m.colour_scale().colour_of(values[cooler])));
    QVERIFY(img.pixelColor(at2) != hottest);
  }

  // The fixture ran native and simulated: the panel takes both modes' launches from the trace.
  void comparisonPanelFindsTheRunsResults() {
    MainWindow w(false);
    QVERIFY(w.openTrace(HOPSIM_GUI_PASSING_TRACE));
    w.show();
    QApplication::processEvents();
    const auto& c = w.comparisonView()->comparison();
    QVERIFY(c.has_value());
    QCOMPARE(QString::fromStdString(c->source.string()), QString(HOPSIM_GUI_PASSING_TRACE));
    QCOMPARE(c->methods.size(), std::size_t{5});
    QCOMPARE(c->points.size(), std::size_t{5 * 4});  // five methods, n = 1..4
    for (const auto& p : c->points) QVERIFY(p.native_s > 0 && p.sim_s > 0);
    QVERIFY(w.comparisonView()->isVisible());
    const QString svg = w.comparisonView()->toSvg();
    QVERIFY(svg.contains("<svg") && svg.contains("unicast"));
    QVERIFY(pixels_differing_from(w.comparisonView()->toImage(), qRgb(255, 255, 255)) > 300);
    QVERIFY(!w.openResults(dir_.filePath("none.json")));
    QVERIFY(w.lastError().contains("cannot open"));
  }

  void screenshotAtATimeShowsPackets() {
    MainWindow w(false);
    ScreenshotOptions o;
    o.trace = HOPSIM_GUI_PASSING_TRACE;
    o.metric = Metric::utilisation;
    QString error;
    QVERIFY(!render_screenshot(w, o, &error).isNull());
    // The middle of the busiest window has packets in flight.
    const auto& m = *w.model();
    double t = (m.begin() + m.end()) / 2;
    for (double f = 0.1; f < 1 && m.packets_at(t).empty(); f += 0.01) t = m.begin() + f * (m.end() - m.begin());
    QVERIFY(!m.packets_at(t).empty());
    w.setTime(t);
    QVERIFY(w.model()->has_window());
    const auto [w0, w1] = w.model()->effective_window();
    QVERIFY(w0 <= t && t <= w1);
    QVERIFY(!w.grab().toImage().isNull());
  }

  void badFilesShowAnErrorDialog() {
    MainWindow w(true);
    w.show();
    for (const QString& path : bad_) {
      bool opened = true;
      const QString text = dialog_text_on_open(w, path, &opened);
      QVERIFY2(!opened, qPrintable(path));
      QVERIFY2(!text.isEmpty(), qPrintable("no error dialog for " + path));
      QVERIFY2(text.contains(QFileInfo(path).fileName()), qPrintable(text));
      QVERIFY2(text.contains("not a hopsim trace") || text.contains("newer"), qPrintable(text));
      QVERIFY(w.model() == nullptr);
    }
    // A good trace afterwards opens, and a bad one then keeps it.
    bool opened = false;
    QVERIFY(dialog_text_on_open(w, HOPSIM_GUI_PASSING_TRACE, &opened).isEmpty());
    QVERIFY(opened);
    QVERIFY(!dialog_text_on_open(w, bad_[0], &opened).isEmpty());
    QVERIFY(w.model() != nullptr);
    QVERIFY(w.recentFiles().contains(QFileInfo(HOPSIM_GUI_PASSING_TRACE).absoluteFilePath()));
  }

  void screenshotModeExitsNonZeroOnBadFiles() {
    for (const QString& path : bad_) {
      QProcess p;
      const QString out = dir_.filePath("bad.png");
      p.start(HOPSIM_GUI_EXE, {"--screenshot", out, path});
      QVERIFY(p.waitForFinished(30000));
      QCOMPARE(p.exitStatus(), QProcess::NormalExit);
      QCOMPARE(p.exitCode(), 2);
      const QString err = QString::fromLocal8Bit(p.readAllStandardError());
      QVERIFY2(err.contains(QFileInfo(path).fileName()), qPrintable(err));
      QVERIFY(!QFile::exists(out));
    }
    QProcess p;
    p.start(HOPSIM_GUI_EXE, {"--screenshot", dir_.filePath("x.png"), "--metric", "heat", HOPSIM_GUI_PASSING_TRACE});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(QString::fromLocal8Bit(p.readAllStandardError()).contains("unknown metric 'heat'"));
  }

  // Damaged traces that may open and fail later (a table's pages overwritten, a table
  // missing, a bad value deep in a table): headless, never a crash; a failure is exit 2
  // with the file named and no PNG. The tables every screenshot reads must fail.
  void damagedTracesNeverAbortTheViewer() {
    std::vector<std::string> objects;
    {
      hopsim::traces::sql::Db db(HOPSIM_GUI_PASSING_TRACE, hopsim::traces::sql::OpenMode::read_only);
      auto st = db.prepare("SELECT DISTINCT name FROM dbstat WHERE name <> 'sqlite_schema' ORDER BY name");
      while (st.step()) objects.push_back(st.text(0));
    }
    QVERIFY(objects.size() >= 8);
    const std::set<std::string> must_fail = {"links", "nodes", "pe_states", "link_counters"};
    int failed = 0;
    for (const auto& object : objects) {
      const QString path = dir_.filePath(QString::fromStdString("damaged-" + object + ".db"));
      QVERIFY2(damage_object(HOPSIM_GUI_PASSING_TRACE, path, object), object.c_str());
      const QString out = dir_.filePath("damaged.png");
      QFile::remove(out);
      const Shot r = screenshot_of(path, out, {"--time", "1 us"});
      const QString what = QString::fromStdString(object) + ": " + r.err;
      QVERIFY2(r.status == QProcess::NormalExit, qPrintable(what));
      QVERIFY2(r.code == 0 || r.code == 2, qPrintable(what));
      if (must_fail.count(object) != 0) QVERIFY2(r.code == 2, qPrintable(what));
      if (r.code == 2) {
        ++failed;
        QVERIFY2(r.err.contains(QFileInfo(path).fileName()), qPrintable(what));
        QVERIFY2(!QFile::exists(out), qPrintable(what));
      } else {
        QVERIFY2(QFile::exists(out), qPrintable(what));
      }
    }
    QVERIFY(failed >= static_cast<int>(must_fail.size()));
    // A table dropped, and a PE state no hopsim writes in the last row (read only when the
    // timeline is drawn, after the file opened).
    const QString dropped = dir_.filePath("no-pe-states.db");
    const QString bogus = dir_.filePath("bogus-state.db");
    for (const auto& [path, sql] :
         {std::pair{dropped, "DROP TABLE pe_states"}, std::pair{bogus,
                                                                "UPDATE pe_states SET state = 'bogus' WHERE rowid = "
                                                                "(SELECT max(rowid) FROM pe_states)"}}) {
      QFile::remove(path);
      QVERIFY(QFile::copy(HOPSIM_GUI_PASSING_TRACE, path));
      QFile(path).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
      {
        hopsim::traces::sql::Db db(path.toStdString(), hopsim::traces::sql::OpenMode::create);
        db.exec(sql);
      }
      const QString out = dir_.filePath("dropped.png");
      const Shot r = screenshot_of(path, out);
      QVERIFY2(r.status == QProcess::NormalExit && r.code == 2, qPrintable(path + ": " + r.err));
      QVERIFY2(r.err.contains(QFileInfo(path).fileName()), qPrintable(r.err));
      QVERIFY(!QFile::exists(out));
    }
    QVERIFY2(screenshot_of(bogus, dir_.filePath("b.png")).err.contains("unknown PE state 'bogus'"), "bogus");
  }

  // --help and --version need no display; a window without one says how to run headless.
  void noDisplayGivesHelpOrSaysHowToRunHeadless() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("QT_QPA_PLATFORM");
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    auto run = [&](const QStringList& args, QString* out, QString* err) {
      QProcess p;
      p.setProcessEnvironment(env);
      p.start(HOPSIM_GUI_EXE, args);
      if (!p.waitForFinished(30000)) return -1;
      *out = QString::fromLocal8Bit(p.readAllStandardOutput());
      *err = QString::fromLocal8Bit(p.readAllStandardError());
      return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    };
    QString out, err;
    QCOMPARE(run({"--help"}, &out, &err), 0);
    QVERIFY2(out.contains("--screenshot"), qPrintable(out + err));
    QCOMPARE(run({"--version"}, &out, &err), 0);
    QVERIFY2(out.contains("hopsim-gui"), qPrintable(out + err));
    QCOMPARE(run({HOPSIM_GUI_PASSING_TRACE}, &out, &err), 2);
    QVERIFY2(err.contains("no display") && err.contains("--screenshot") && err.contains("QT_QPA_PLATFORM"),
             qPrintable(err));
  }

  void screenshotModeWritesThePng() {
    QProcess p;
    const QString out = dir_.filePath("ok.png");
    p.start(HOPSIM_GUI_EXE, {"--screenshot", out, "--metric", "stall", "--time", "1 us", "--size", "800x600",
                             HOPSIM_GUI_PASSING_TRACE});
    QVERIFY(p.waitForFinished(30000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QImage img(out);
    QCOMPARE(img.size(), QSize(800, 600));
    QVERIFY(pixels_differing_from(img, qRgb(255, 255, 255)) > 2000);
  }

  // The latency vs load panel: a CSV written here opens in the dock as three lines without
  // the saturated load; a bad file keeps that curve and says why.
  void curvePanelShowsACsv() {
    MainWindow w(false);
    w.show();
    QApplication::processEvents();
    auto* dock = w.findChild<QDockWidget*>("curve");
    QVERIFY(dock != nullptr);
    QVERIFY(!dock->isVisible());
    const QString path = dir_.filePath("curve.csv");
    write_plain_curve(path);
    QVERIFY2(w.openCurve(path), qPrintable(w.lastError()));
    QApplication::processEvents();
    QVERIFY(dock->isVisible());
    QVERIFY(w.curveView()->isVisible());
    QCOMPARE(dock->windowTitle(), QString("Latency vs load"));
    const QChart* chart = w.curveView()->chart();
    QVERIFY(chart != nullptr);
    QCOMPARE(chart->series().size(), 3);
    QVERIFY2(chart->title().contains("saturated at offered 0.4"), qPrintable(chart->title()));
    const auto avg = series_points(chart, "average total latency");
    QCOMPARE(avg, (QList<QPointF>{{0.1, 20}, {0.2, 24}, {0.3, 40}}));
    QCOMPARE(series_points(chart, "average network latency").size(), 3);
    QCOMPARE(series_points(chart, "p99 total latency").size(), 3);
    const QImage img = w.curveView()->toImage();
    QCOMPARE(img.size(), w.curveView()->size());
    QVERIFY(pixels_differing_from(img, qRgb(255, 255, 255)) > 300);

    const QString bad = dir_.filePath("bad-curve.csv");
    std::ofstream(bad.toStdString()) << "offered,avg_latency\n0.1,slow\n";
    QVERIFY(!w.openCurve(bad));
    QVERIFY2(w.lastError().contains("bad-curve.csv:2:") && w.lastError().contains("'slow' is not a number"),
             qPrintable(w.lastError()));
    QVERIFY(w.curveView()->curve().has_value());
    QCOMPARE(QString::fromStdString(w.curveView()->curve()->source.string()), path);
    QCOMPARE(w.curveView()->chart()->series().size(), 3);
    QVERIFY(!w.openCurve(dir_.filePath("missing.csv")));
    QVERIFY2(w.lastError().contains("missing.csv: cannot open"), qPrintable(w.lastError()));
    QCOMPARE(w.curveView()->chart(), chart);

    // Against a reference: hopsim and reference.
    const QString against = dir_.filePath("against.csv");
    write_reference_curve(against);
    QVERIFY2(w.openCurve(against), qPrintable(w.lastError()));
    QCOMPARE(w.curveView()->chart()->series().size(), 2);
    QCOMPARE(series_points(w.curveView()->chart(), "hopsim").size(), 3);
    QCOMPARE(series_points(w.curveView()->chart(), "reference").size(), 2);
    QVERIFY(pixels_differing_from(w.curveView()->toImage(), qRgb(255, 255, 255)) > 300);
  }

  // Interactive: a bad curve raises an error dialog with the reason; a dropped .csv opens
  // as a curve, not as a trace.
  void curveErrorDialogAndDrop() {
    MainWindow w(true);
    w.show();
    const QString bad = dir_.filePath("wide-curve.csv");
    std::ofstream(bad.toStdString()) << "offered,avg_latency\n0.1,20\n0.2,22,7\n";
    bool opened = true;
    const QString text = dialog_text_while([&] { return w.openCurve(bad); }, &opened);
    QVERIFY(!opened);
    QVERIFY2(text.contains("wide-curve.csv:3: 3 cells, the header has 2"), qPrintable(text));
    QVERIFY(!w.curveView()->curve());

    const QString path = dir_.filePath("dropped.csv");
    write_plain_curve(path);
    drop_file(w, path);
    QVERIFY(w.curveView()->curve().has_value());
    QCOMPARE(QString::fromStdString(w.curveView()->curve()->source.string()), path);
    QVERIFY(w.model() == nullptr);  // not taken for a trace
    QCOMPARE(w.curveView()->chart()->series().size(), 3);
  }

  // --screenshot with --curve: alone, with a trace, and a bad curve exits 2 with the reason.
  void screenshotWithACurve() {
    const QString csv = dir_.filePath("shot-curve.csv");
    write_plain_curve(csv);
    const QString out = dir_.filePath("curve.png");
    QProcess p;
    p.start(HOPSIM_GUI_EXE, {"--screenshot", out, "--size", "900x700", "--curve", csv});
    QVERIFY(p.waitForFinished(30000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const QImage img(out);
    QCOMPARE(img.size(), QSize(900, 700));
    QVERIFY(pixels_differing_from(img, qRgb(255, 255, 255)) > 2000);

    MainWindow w(false);
    ScreenshotOptions o;
    o.trace = HOPSIM_GUI_PASSING_TRACE;
    o.curve = csv;
    QString error;
    QVERIFY2(!render_screenshot(w, o, &error).isNull(), qPrintable(error));
    QVERIFY(w.model() != nullptr);
    QVERIFY(w.curveView()->isVisible());
    QCOMPARE(w.curveView()->chart()->series().size(), 3);

    const QString bad = dir_.filePath("no-avg.csv");
    std::ofstream(bad.toStdString()) << "offered,p99_latency\n0.1,30\n";
    const QString bad_out = dir_.filePath("bad-curve.png");
    QProcess q;
    q.start(HOPSIM_GUI_EXE, {"--screenshot", bad_out, "--curve", bad, HOPSIM_GUI_PASSING_TRACE});
    QVERIFY(q.waitForFinished(30000));
    QCOMPARE(q.exitCode(), 2);
    const QString err = QString::fromLocal8Bit(q.readAllStandardError());
    QVERIFY2(err.contains("no-avg.csv:1: the header needs the columns 'offered' and 'avg_latency'"), qPrintable(err));
    QVERIFY(!QFile::exists(bad_out));
  }

  void clickingANodeFiltersItsTraffic() {
    MainWindow w(false);
    QVERIFY(w.openTrace(HOPSIM_GUI_PASSING_TRACE));
    w.show();
    QApplication::processEvents();
    auto* view = w.topologyView();
    const auto& t = w.model()->topology();
    const std::size_t v = static_cast<std::size_t>(t.node_vertex[5]);
    const QPoint c = view->toWidget(t.vertices[v].pos).toPoint();
    QCOMPARE(view->vertexAt(c), std::optional<std::size_t>(v));
    const double before = w.model()->colour_scale().max;
    QTest::mouseClick(view, Qt::LeftButton, {}, c);
    QCOMPARE(w.model()->node_filter(), std::optional<std::size_t>(5));
    QVERIFY(w.model()->colour_scale().max <= before);
    QTest::mouseClick(view, Qt::LeftButton, {}, c);  // again: all traffic
    QVERIFY(!w.model()->node_filter());
  }
};

QTEST_MAIN(TestGuiWidgets)
#include "test_gui_widgets.moc"
