// Benchmark (not a test): time from opening a big trace to the first paint of the window.
//   bench_gui_first_paint [TRACE.db] [--hops N]
// Without a trace argument it writes (once) a synthetic 8x8x8 torus trace (512 nodes) with
// N hops (default 1,000,000) to /tmp/hopsim-gui-bench-<N>.db, then measures.
#include <QApplication>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <random>
#include <string>

#include "main_window.hpp"
#include "synthetic.hpp"
#include "timeline_view.hpp"
#include "topology_view.hpp"

using namespace hopsim::gui;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Dimension-order routes between random nodes; every hop also feeds the link counters.
void write_torus_trace(const std::filesystem::path& path, long hops_wanted) {
  using namespace gui_test;
  const Torus torus{{8, 8, 8}};
  auto m = meta("synthetic-torus-512", 1000);
  TraceWriter w(path, m, Detail::hops);
  torus.declare(w);
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> node(0, torus.nodes() - 1);
  long hops = 0;
  double now = 0;
  std::vector<double> pe_free(static_cast<std::size_t>(torus.nodes()), 0);
  while (hops < hops_wanted) {
    const int src = node(rng), dst = node(rng);
    if (src == dst) continue;
    now += 0.37;
    const double start = now;
    std::vector<std::pair<std::int64_t, double>> route;
    int at = src;
    double t = start;
    auto c = torus.coord(src);
    const auto target = torus.coord(dst);
    for (int d = 0; d < torus.dims(); ++d) {
      const auto du = static_cast<std::size_t>(d);
      while (c[du] != target[du]) {
        const int fwd = (target[du] - c[du] + 8) % 8;
        const bool minus = fwd > 4;
        route.emplace_back(torus.link(at, d, minus), t);
        at = torus.neighbour(at, d, minus);
        c = torus.coord(at);
        t += 4;
      }
    }
    const auto txn = w.add_transaction({0, src, dst, 64, start, t, "put"});
    for (const auto& [link, enter] : route) {
      w.add_hop({txn, link, enter, enter + 4});
      w.add_link_sample(link, enter, 64, 4, 0.5);
    }
    hops += static_cast<long>(route.size());
    auto& free = pe_free[static_cast<std::size_t>(src)];
    if (start > free) {
      w.add_pe_state(src, PeState::waiting, start, t);
      free = t;
    }
  }
  w.finish();
}

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  std::string trace;
  long hops = 1'000'000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--hops" && i + 1 < argc)
      hops = std::atol(argv[++i]);
    else
      trace = a;
  }
  if (trace.empty()) {
    trace = "/tmp/hopsim-gui-bench-" + std::to_string(hops) + ".db";
    if (!std::filesystem::exists(trace)) {
      const auto t0 = Clock::now();
      write_torus_trace(trace, hops);
      std::printf("wrote %s in %.1f s\n", trace.c_str(), ms_since(t0) / 1000);
    }
  }
  const auto t0 = Clock::now();
  const std::clock_t cpu0 = std::clock();
  MainWindow w(false);
  w.resize(1280, 900);
  if (!w.openTrace(QString::fromStdString(trace))) {
    std::fprintf(stderr, "%s\n", qPrintable(w.lastError()));
    return 2;
  }
  const double opened = ms_since(t0);
  w.show();
  const QImage first = w.grab().toImage();  // paints every widget once
  const double painted = ms_since(t0);
  const double painted_cpu = 1000.0 * static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  // Where the first paint's time goes.
  {
    const auto a = Clock::now();
    const auto rows = w.model()->timeline(w.model()->begin(), w.model()->end(), 1190);
    const double timeline_ms = ms_since(a);
    const auto b = Clock::now();
    const auto values = w.model()->edge_values();
    const double values_ms = ms_since(b);
    std::printf("  of which: PE timeline (%zu rows) %.0f ms, link values (%zu edges) %.0f ms\n", rows.size(),
                timeline_ms, values.size(), values_ms);
  }
  const auto t1 = Clock::now();
  const double mid = (w.model()->begin() + w.model()->end()) / 2;
  w.setTime(mid);
  const QImage second = w.grab().toImage();
  const double window_ms = ms_since(t1);
  std::printf("trace: %s (%lld hops, %zu nodes, %zu links)\n", trace.c_str(),
              static_cast<long long>(w.model()->reader().hop_count()), w.model()->nodes().size(),
              w.model()->links().size());
  std::printf("open (nodes, links, counters, time range): %.0f ms\n", opened);
  std::printf("time to first paint: %.0f ms (CPU time of the process: %.0f ms)\n", painted, painted_cpu);
  std::printf("move to a time window (counters + packets in flight) and repaint: %.0f ms (%zu packets)\n", window_ms,
              w.model()->packets_at(mid).size());
  return first.isNull() || second.isNull() ? 1 : 0;
}
