// hopsim-gui: a viewer of hopsim trace databases.
//   hopsim-gui [TRACE.db]
//   hopsim-gui --screenshot OUT.png [--time T] [--metric M] [--scale S] [--size WxH] TRACE.db
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "main_window.hpp"
#include "screenshot.hpp"

using namespace hopsim::gui;

namespace {

void fail(const QString& message) { std::fprintf(stderr, "hopsim-gui: %s\n", qPrintable(message)); }

}  // namespace

int main(int argc, char** argv) {
  // Screenshots need no display: pick the offscreen platform unless the user chose one.
  bool headless = false;
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]).rfind("--screenshot", 0) == 0) headless = true;
  if (headless && !std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);

  QApplication app(argc, argv);
  QApplication::setOrganizationName("hopsim");
  QApplication::setApplicationName("hopsim-gui");
  QApplication::setApplicationVersion(HOPSIM_GUI_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription(
      "Viewer of hopsim trace databases: the machine's links coloured by traffic, packets in flight, the PE timeline.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("TRACE", "trace database written by hopsim run --trace", "[TRACE.db]");
  QCommandLineOption shot("screenshot", "Render the window to OUT.png without a display and exit.", "OUT.png");
  QCommandLineOption time("time",
                          "Show the window around time T (cycles, or with ns/us/ms/s) instead of the whole run.", "T");
  QCommandLineOption metric("metric", "Link colour: bytes (default), packets, utilisation or stall.", "M");
  QCommandLineOption scale("scale", "Colour scale: linear (default) or log.", "S");
  QCommandLineOption size("size", "Screenshot size (default 1280x900).", "WxH");
  parser.addOptions({shot, time, metric, scale, size});
  parser.process(app);

  const QStringList args = parser.positionalArguments();
  if (args.size() > 1) {
    fail("expected at most one trace file, got " + QString::number(args.size()));
    return 2;
  }
  ScreenshotOptions options;
  if (parser.isSet(metric)) {
    const auto m = parse_metric(parser.value(metric).toStdString());
    if (!m) {
      fail("--metric: unknown metric '" + parser.value(metric) + "' (bytes, packets, utilisation, stall)");
      return 2;
    }
    options.metric = *m;
  }
  if (parser.isSet(scale)) {
    const QString s = parser.value(scale);
    if (s == "log")
      options.scale = Scale::log;
    else if (s != "linear") {
      fail("--scale: expected linear or log, got '" + s + "'");
      return 2;
    }
  }
  if (parser.isSet(size)) {
    const QStringList wh = parser.value(size).split('x');
    bool ok1 = false, ok2 = false;
    if (wh.size() == 2) {
      options.width = wh[0].toInt(&ok1);
      options.height = wh[1].toInt(&ok2);
    }
    if (!ok1 || !ok2 || options.width < 640 || options.height < 480 || options.width > 8000 || options.height > 8000) {
      fail("--size: expected WxH between 640x480 and 8000x8000, got '" + parser.value(size) + "'");
      return 2;
    }
  }

  MainWindow window(/*interactive=*/!parser.isSet(shot));
  if (parser.isSet(shot)) {
    if (args.isEmpty()) {
      fail("--screenshot needs a trace file");
      return 2;
    }
    options.trace = args.front();
    QString error;
    // --time is parsed against the trace's clock, so open first, then apply it.
    if (parser.isSet(time)) {
      try {
        const TraceModel probe(args.front().toStdString());
        const auto t = probe.parse_time(parser.value(time).toStdString());
        if (!t) {
          fail("--time: cannot read '" + parser.value(time) + "' as cycles or as a time with ns/us/ms/s" +
               (probe.reader().clock_hz() > 0 ? QString() : QString(" (this trace has no clock)")));
          return 2;
        }
        options.time = *t;
      } catch (const std::exception& e) {
        fail(QString::fromStdString(e.what()));
        return 2;
      }
    }
    const QImage image = render_screenshot(window, options, &error);
    if (image.isNull()) {
      fail(error);
      return 2;
    }
    const QString out = parser.value(shot);
    if (!image.save(out, "PNG")) {
      fail("cannot write " + out);
      return 1;
    }
    return 0;
  }

  window.setMetric(options.metric);
  window.setScale(options.scale);
  window.show();
  if (!args.isEmpty()) {
    const QString path = args.front();
    const bool has_time = parser.isSet(time);
    const QString time_text = parser.value(time);
    QTimer::singleShot(0, &window, [&window, path, has_time, time_text] {
      if (!window.openTrace(path) || !has_time) return;
      if (const auto t = window.model()->parse_time(time_text.toStdString())) window.setTime(*t);
    });
  }
  return app.exec();
}
