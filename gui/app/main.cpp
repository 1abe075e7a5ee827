// hopsim-gui: a viewer of hopsim trace databases.
//   hopsim-gui [--curve FILE.csv] [TRACE.db]
//   hopsim-gui --screenshot OUT.png [--time T] [--metric M] [--scale S] [--size WxH] [--curve FILE.csv] [TRACE.db]
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string_view>

#include "main_window.hpp"
#include "screenshot.hpp"

using namespace hopsim::gui;

namespace {

void fail(const QString& message) { std::fprintf(stderr, "hopsim-gui: %s\n", qPrintable(message)); }

// Screenshots, --help and --version need no display: they get the offscreen platform
// unless the user chose one. A window without a display says how to run headless;
// false then (exit 2).
bool choose_platform(int argc, char** argv) {
  bool headless = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a(argv[i]);
    if (a.rfind("--screenshot", 0) == 0 || a == "-h" || a == "--help" || a == "--help-all" || a == "-v" ||
        a == "--version")
      headless = true;
  }
  if (std::getenv("QT_QPA_PLATFORM")) return true;
  if (headless) {
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
    return true;
  }
  const char* x = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  if ((x && *x) || (w && *w)) return true;
  std::fprintf(stderr,
               "hopsim-gui: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); without one, render the view "
               "with --screenshot OUT.png [TRACE.db], or choose a platform with QT_QPA_PLATFORM (e.g. offscreen)\n");
  return false;
}

// Every event is delivered inside a guard: an error a query of the trace throws
// after it opened (a damaged file) goes to `on_error` instead of through Qt.
class GuardedApplication final : public QApplication {
  Q_OBJECT

 public:
  using QApplication::QApplication;
  bool notify(QObject* receiver, QEvent* event) override {
    try {
      return QApplication::notify(receiver, event);
    } catch (const std::exception& e) {
      failed(QString::fromStdString(e.what()));
    }
    return false;
  }
  void failed(const QString& what) {
    if (error_.isEmpty()) error_ = what;
    if (handling_ || !on_error) return;
    handling_ = true;
    on_error(what);
    handling_ = false;
  }
  const QString& error() const noexcept { return error_; }
  std::function<void(const QString&)> on_error;

 private:
  QString error_;  // the first
  bool handling_ = false;
};

// The command line's options.
struct Options {
  QCommandLineOption shot{"screenshot", "Render the window to OUT.png without a display and exit.", "OUT.png"};
  QCommandLineOption time{"time",
                          "Show the window around time T (cycles, or with ns/us/ms/s) instead of the whole run.", "T"};
  QCommandLineOption metric{"metric", "Link colour: bytes (default), packets, utilisation or stall.", "M"};
  QCommandLineOption scale{"scale", "Colour scale: linear (default) or log.", "S"};
  QCommandLineOption size{"size", "Screenshot size (default 1280x900).", "WxH"};
  QCommandLineOption curve{"curve", "Open FILE.csv (written by hopsim curve --csv) in the latency vs load panel.",
                           "FILE.csv"};
};

void set_up(QCommandLineParser& parser, const Options& o) {
  parser.setApplicationDescription(
      "Viewer of hopsim trace databases: the machine's links coloured by traffic, packets in flight, the PE timeline.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("TRACE", "trace database written by hopsim run --trace", "[TRACE.db]");
  parser.addOptions({o.shot, o.time, o.metric, o.scale, o.size, o.curve});
}

// --metric and --scale into `out`; false (after saying why) for an unknown value.
bool read_colouring(const QCommandLineParser& parser, const Options& o, ScreenshotOptions& out) {
  if (parser.isSet(o.metric)) {
    const auto m = parse_metric(parser.value(o.metric).toStdString());
    if (!m) {
      fail("--metric: unknown metric '" + parser.value(o.metric) + "' (bytes, packets, utilisation, stall)");
      return false;
    }
    out.metric = *m;
  }
  if (parser.isSet(o.scale)) {
    const QString s = parser.value(o.scale);
    if (s == "log")
      out.scale = Scale::log;
    else if (s != "linear") {
      fail("--scale: expected linear or log, got '" + s + "'");
      return false;
    }
  }
  return true;
}

// --size into `out`; false (after saying why) for a malformed or out-of-range size.
bool read_size(const QCommandLineParser& parser, const Options& o, ScreenshotOptions& out) {
  if (!parser.isSet(o.size)) return true;
  const QStringList wh = parser.value(o.size).split('x');
  bool ok1 = false, ok2 = false;
  if (wh.size() == 2) {
    out.width = wh[0].toInt(&ok1);
    out.height = wh[1].toInt(&ok2);
  }
  if (!ok1 || !ok2 || out.width < 640 || out.height < 480 || out.width > 8000 || out.height > 8000) {
    fail("--size: expected WxH between 640x480 and 8000x8000, got '" + parser.value(o.size) + "'");
    return false;
  }
  return true;
}

// --time read against the trace's clock (so the trace is opened first); false (after
// saying why) when the trace cannot be opened or the time cannot be read.
bool read_time(const QCommandLineParser& parser, const Options& o, const QString& trace, ScreenshotOptions& out) {
  if (trace.isEmpty()) {
    fail("--time needs a trace file");
    return false;
  }
  try {
    const TraceModel probe(trace.toStdString());
    const auto t = probe.parse_time(parser.value(o.time).toStdString());
    if (!t) {
      fail("--time: cannot read '" + parser.value(o.time) + "' as cycles or as a time with ns/us/ms/s" +
           (probe.reader().clock_hz() > 0 ? QString() : QString(" (this trace has no clock)")));
      return false;
    }
    out.time = *t;
  } catch (const std::exception& e) {
    fail(QString::fromStdString(e.what()));
    return false;
  }
  return true;
}

// --screenshot: renders the window with the trace and/or the curve and writes the PNG.
int run_screenshot(MainWindow& window, const QCommandLineParser& parser, const Options& o, ScreenshotOptions options) {
  const QStringList args = parser.positionalArguments();
  options.curve = parser.value(o.curve);
  if (args.isEmpty() && options.curve.isEmpty()) {
    fail("--screenshot needs a trace file or --curve");
    return 2;
  }
  if (!args.isEmpty()) options.trace = args.front();
  if (parser.isSet(o.time) && !read_time(parser, o, options.trace, options)) return 2;
  QString error;
  QImage image;
  try {
    image = render_screenshot(window, options, &error);
  } catch (const std::exception& e) {
    error = QString::fromStdString(e.what());
  }
  const auto* app = qobject_cast<GuardedApplication*>(QCoreApplication::instance());
  const QString late = app ? app->error() : QString();
  if (image.isNull() || !late.isEmpty()) {
    fail(late.isEmpty() ? error : late);
    return 2;
  }
  const QString out = parser.value(o.shot);
  if (!image.save(out, "PNG")) {
    fail("cannot write " + out);
    return 1;
  }
  return 0;
}

// The interactive window: the trace (then --time) and the curve open once the event loop runs.
int run_interactive(MainWindow& window, const QCommandLineParser& parser, const Options& o,
                    const ScreenshotOptions& options) {
  window.setMetric(options.metric);
  window.setScale(options.scale);
  window.show();
  const QStringList args = parser.positionalArguments();
  if (!args.isEmpty()) {
    const QString& path = args.front();
    const bool has_time = parser.isSet(o.time);
    const QString time_text = parser.value(o.time);
    QTimer::singleShot(0, &window, [&window, path, has_time, time_text] {
      if (!window.openTrace(path) || !has_time) return;
      if (const auto t = window.model()->parse_time(time_text.toStdString())) window.setTime(*t);
    });
  }
  if (parser.isSet(o.curve)) {
    const QString curve = parser.value(o.curve);
    QTimer::singleShot(0, &window, [&window, curve] { window.openCurve(curve); });
  }
  return QApplication::exec();
}

}  // namespace

int main(int argc, char** argv) {
  if (!choose_platform(argc, argv)) return 2;
  GuardedApplication app(argc, argv);
  QApplication::setOrganizationName("hopsim");
  QApplication::setApplicationName("hopsim-gui");
  QApplication::setApplicationVersion(HOPSIM_GUI_VERSION);

  QCommandLineParser parser;
  const Options o;
  set_up(parser, o);
  // A bad argument exits 2 with one line naming it, as hopsim does (process() would exit 1).
  if (!parser.parse(QCoreApplication::arguments())) {
    fail(parser.errorText() + " (try --help)");
    return 2;
  }
  if (parser.isSet(QStringLiteral("help"))) parser.showHelp(0);
  if (parser.isSet(QStringLiteral("version"))) parser.showVersion();

  const QStringList args = parser.positionalArguments();
  if (args.size() > 1) {
    fail("expected at most one trace file, got " + QString::number(args.size()));
    return 2;
  }
  // Files named on the command line exist before any window opens (the window would
  // otherwise wait on an error dialog).
  QStringList files = args;
  if (parser.isSet(o.curve)) files << parser.value(o.curve);
  for (const QString& f : files) {
    const QFileInfo info(f);
    if (!info.exists()) {
      fail(f + ": no such file");
      return 2;
    }
    if (!info.isFile() || !info.isReadable()) {
      fail(f + ": not a readable file");
      return 2;
    }
  }
  ScreenshotOptions options;
  if (!read_colouring(parser, o, options) || !read_size(parser, o, options)) return 2;

  MainWindow window(/*interactive=*/!parser.isSet(o.shot));
  app.on_error = [&window](const QString& what) { window.traceFailed(what); };
  if (parser.isSet(o.shot)) return run_screenshot(window, parser, o, options);
  try {
    return run_interactive(window, parser, o, options);
  } catch (const std::exception& e) {
    fail(QString::fromStdString(e.what()));
    return 2;
  }
}

#include "main.moc"
