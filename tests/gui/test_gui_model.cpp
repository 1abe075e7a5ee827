// The GUI's model/view layer without widgets: layouts, metrics per window, colour ranking,
// the comparison and the latency vs load curve readers.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "comparison.hpp"
#include "curve.hpp"
#include "synthetic.hpp"
#include "trace_model.hpp"

using namespace hopsim::gui;
using namespace gui_test;

namespace {

// A 3x3 mesh: nodes [row,col], links to the four neighbours, id = 4*node + dir.
// Counters: link hot (0 -> 1, east) carries 1 MB in bucket 0; every other link a few kB
// spread over buckets 0..3; link late (4 -> 5) carries 2 MB, all in bucket 3.
constexpr std::int64_t kHot = 0 * 4 + 0;
constexpr std::int64_t kLate = 4 * 4 + 0;

void write_mesh(const std::filesystem::path& path) {
  TraceWriter w(path, meta("test-mesh"), Detail::hops);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      w.add_node({r * 3 + c,
                  "core" + std::to_string(c) + std::to_string(r) + " (coreid " + std::to_string(r * 3 + c) + ")",
                  "core", coords({r, c})});
  w.add_node({9, "external memory", "emem", "[\"elink\"]"});
  const int dr[4] = {0, 0, 1, -1}, dc[4] = {1, -1, 0, 0};
  for (int n = 0; n < 9; ++n) {
    for (int d = 0; d < 4; ++d) {
      const int r = n / 3 + dr[d], c = n % 3 + dc[d];
      if (r < 0 || r > 2 || c < 0 || c > 2) continue;
      w.add_link({n * 4 + d, "cmesh", n, r * 3 + c, "link " + std::to_string(n * 4 + d)});
    }
    w.add_link({100 + n, "cmesh", n, n, "inject"});
  }
  w.add_link({200, "xmesh", 0, 9, "elink"});
  int k = 0;
  for (int n = 0; n < 9; ++n)
    for (int d = 0; d < 4; ++d) {
      const std::int64_t id = n * 4 + d;
      if (id == kHot || id == kLate) continue;
      w.add_link_sample(id, (k % 4) * 100 + 5, 1000 + 97 * k, 10 + k, k % 3);
      ++k;
    }
  w.add_link_sample(kHot, 10, 1'000'000, 50, 40, 900);
  w.add_link_sample(kLate, 310, 2'000'000, 9000, 0, 1200);
  w.add_link_sample(200, 50, 64, 8, 0);
  w.add_link_sample(100, 50, 8, 1, 0);
  // Two hops of one transaction 0 -> 2 over 0->1 and 1->2, and one of 4 -> 5.
  const auto t1 = w.add_transaction({0, 0, 2, 8, 10, 40, "write"});
  w.add_hop({t1, kHot, 10, 20});
  w.add_hop({t1, 1 * 4 + 0, 20, 30});
  const auto t2 = w.add_transaction({0, 4, 5, 16, 300, 320, "write"});
  w.add_hop({t2, kLate, 305, 315});
  w.add_pe_state(0, PeState::barrier, 0, 100);
  w.add_pe_state(0, PeState::polling, 200, 400);
  w.add_pe_state(4, PeState::waiting, 50, 60);
  // Counted compute: PE 0 and PE 8 (no state recorded) counted instructions; a malformed entry is ignored.
  w.set_meta("instructions", R"({"0": 1608, "8": 24, "x": 5})");
  w.finish();
}

std::size_t edge_of_link(const TraceModel& m, std::int64_t link_id) {
  for (std::size_t l = 0; l < m.links().size(); ++l)
    if (m.links()[l].id == link_id) return static_cast<std::size_t>(m.topology().link_edge[l]);
  return SIZE_MAX;
}

}  // namespace

class TestGuiModel : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString mesh_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    mesh_ = dir_.filePath("mesh.db");
    write_mesh(mesh_.toStdString());
  }

  void meshLayoutFromCoordinates() {
    const TraceModel m(mesh_.toStdString());
    const auto& t = m.topology();
    QCOMPARE(t.kind, LayoutKind::mesh);
    QCOMPARE(t.vertices.size(), std::size_t{10});
    // [row, col] -> x = col, y = row; the off-grid memory sits left of the grid.
    const auto& v5 = t.vertices[static_cast<std::size_t>(t.node_vertex[5])];
    const auto& v0 = t.vertices[static_cast<std::size_t>(t.node_vertex[0])];
    QCOMPARE(v5.pos.x - v0.pos.x, 2.0);
    QCOMPARE(v5.pos.y - v0.pos.y, 1.0);
    QCOMPARE(QString::fromStdString(v5.label), QString("core21"));
    QCOMPARE(QString::fromStdString(v5.sublabel), QString("coreid 5"));
    const auto& mem = t.vertices[static_cast<std::size_t>(t.node_vertex[9])];
    QVERIFY(mem.pos.x < v0.pos.x);
    QCOMPARE(mem.pos.y, v0.pos.y);
    // 24 directed mesh links + the eLink; injection ports become the cores' self links.
    QCOMPARE(t.edges.size(), std::size_t{25});
    QCOMPARE(v0.self_links.size(), std::size_t{1});
    for (const auto& e : t.edges) QVERIFY(!e.wrap);
    QCOMPARE(m.networks(), (std::vector<std::string>{"cmesh", "xmesh"}));
  }

  // The acceptance test: one link carries most of the traffic.
  void colourRankingWithOneDominantLink() {
    TraceModel m(mesh_.toStdString());
    m.set_window(0, 100);  // bucket 0: the hot link's megabyte, not the late link's
    const auto hot = edge_of_link(m, kHot);
    const auto ranking = m.ranking();
    QCOMPARE(ranking.front(), hot);
    const auto values = m.edge_values();
    QCOMPARE(values[hot], 1'000'000.0);
    const ColourScale scale = m.colour_scale();
    QCOMPARE(scale.max, 1'000'000.0);
    QCOMPARE(scale.colour_of(values[hot]), ColourScale::hottest());
    // Every other link is far cooler, and colours follow the values.
    for (std::size_t i = 1; i < ranking.size(); ++i) {
      QVERIFY(values[ranking[i]] <= values[ranking[i - 1]]);
      QVERIFY(scale.heat(values[ranking[i]]) < 0.01);
      QVERIFY(!(scale.colour_of(values[ranking[i]]) == ColourScale::hottest()));
    }
    // The log scale keeps the order and the hottest colour, and spreads the rest.
    m.set_scale(Scale::log);
    const ColourScale log = m.colour_scale();
    QCOMPARE(log.colour_of(values[hot]), ColourScale::hottest());
    const auto second = ranking[1];
    QVERIFY(log.heat(values[second]) > 0.3 && log.heat(values[second]) < 1);
    QCOMPARE(m.ranking(), ranking);
    // Idle links are grey, not the coldest colour of the scale.
    QCOMPARE(scale.colour_of(0), ColourScale::idle());
    QVERIFY(!(ColourScale::colour(0.001) == ColourScale::idle()));
  }

  void heatIsMonotonic() {
    ColourScale s;
    s.max = 1000;
    double last = -1;
    for (double v = 0; v <= 1200; v += 7) {
      const double h = s.heat(v);
      QVERIFY(h >= last);
      QVERIFY(h >= 0 && h <= 1);
      last = h;
    }
    s.scale = Scale::log;
    QCOMPARE(s.heat(1000), 1.0);
    QVERIFY(std::abs(s.heat(std::sqrt(1001.0) - 1) - 0.5) < 1e-9);
    const auto ticks = s.ticks();
    QCOMPARE(ticks.front().first, 0.0);
    QCOMPARE(ticks.back().first, 1000.0);
  }

  void windowSelectsBuckets() {
    TraceModel m(mesh_.toStdString());
    // Whole run: the late link's 2 MB wins.
    QCOMPARE(m.ranking().front(), edge_of_link(m, kLate));
    m.set_window(300, 400);
    QCOMPARE(m.ranking().front(), edge_of_link(m, kLate));
    QCOMPARE(m.edge_values()[edge_of_link(m, kHot)], 0.0);
    // Window [150, 250) overlaps buckets 1 and 2 only: counters come in whole buckets.
    m.set_window(150, 250);
    QCOMPARE(m.effective_window(), (std::pair<double, double>{100, 300}));
    QCOMPARE(m.edge_values()[edge_of_link(m, kLate)], 0.0);
    // Utilisation: busy cycles over the window; stall: the stall cycles.
    m.set_window(0, 100);
    m.set_metric(Metric::utilisation);
    QCOMPARE(m.edge_values()[edge_of_link(m, kHot)], 50.0);  // 50 busy cycles of 100
    m.set_metric(Metric::stall);
    QCOMPARE(m.edge_values()[edge_of_link(m, kHot)], 40.0);
    m.set_metric(Metric::packets);
    QCOMPARE(m.edge_values()[edge_of_link(m, kHot)], 900.0);
    m.clear_window();
    QCOMPARE(m.effective_window(), (std::pair<double, double>{0, 400}));
  }

  void networkAndNodeFilters() {
    TraceModel m(mesh_.toStdString());
    m.set_network("xmesh");
    const auto values = m.edge_values();
    QCOMPARE(std::count_if(values.begin(), values.end(), [](double v) { return v > 0; }), 1);
    QCOMPARE(m.ranking().front(), edge_of_link(m, 200));
    m.set_network("");
    // Node 2's traffic: transaction 0 -> 2 crossed 0->1 and 1->2 with 8 bytes each.
    m.set_node_filter(2);
    const auto v2 = m.edge_values();
    QCOMPARE(v2[edge_of_link(m, kHot)], 8.0);
    QCOMPARE(v2[edge_of_link(m, 1 * 4 + 0)], 8.0);
    QCOMPARE(v2[edge_of_link(m, kLate)], 0.0);
    QVERIFY(m.node_filter_note().empty());
    QVERIFY(m.describe_vertex(static_cast<std::size_t>(m.topology().node_vertex[0])).find("core00") !=
            std::string::npos);
    QVERIFY(m.describe_edge(edge_of_link(m, kHot)).find("bytes: 8") != std::string::npos);
  }

  void packetsInFlightAndTimeline() {
    const TraceModel m(mesh_.toStdString());
    const auto dots = m.packets_at(25);
    QCOMPARE(dots.size(), std::size_t{1});
    QCOMPARE(dots[0].edge, edge_of_link(m, 1 * 4 + 0));
    QCOMPARE(dots[0].fraction, 0.5);
    QVERIFY(m.packets_at(250).empty());
    const auto rows = m.timeline(0, 400, 4);
    QCOMPARE(rows.size(), std::size_t{3});
    QCOMPARE(rows[0].pe, std::int64_t{0});
    QCOMPARE(QString::fromStdString(rows[0].name), QString("core00"));
    const int barrier = static_cast<int>(PeState::barrier), polling = static_cast<int>(PeState::polling);
    QCOMPARE(rows[0].bins, (std::vector<int>{barrier, -1, polling, polling}));
    QCOMPARE(rows[0].filled, (std::vector<float>{1, 0, 1, 1}));
    QCOMPARE(rows[1].bins, (std::vector<int>{static_cast<int>(PeState::waiting), -1, -1, -1}));
    QCOMPARE(rows[1].filled[0], 0.1f);  // 10 of 100 cycles waiting
    // Counted instructions: PE 0's beside its states, PE 8's on a row of its own, none for PE 4.
    QVERIFY(m.counted());
    QCOMPARE(rows[0].instructions, std::optional<std::uint64_t>(1608));
    QVERIFY(!rows[1].instructions);
    QCOMPARE(rows.size() == 3 ? rows[2].pe : -1, std::int64_t{8});
    QCOMPARE(rows[2].instructions, std::optional<std::uint64_t>(24));
    QCOMPARE(rows[2].bins, (std::vector<int>{-1, -1, -1, -1}));
  }

  void timesParse() {
    const TraceModel m(mesh_.toStdString());
    QCOMPARE(m.parse_time("1500"), std::optional<double>(1500));
    QCOMPARE(m.parse_time("1500 cycles"), std::optional<double>(1500));
    QCOMPARE(m.parse_time("1 us"), std::optional<double>(600));
    QCOMPARE(m.parse_time("2ms"), std::optional<double>(1.2e6));
    QVERIFY(!m.parse_time("soon"));
    QVERIFY(!m.parse_time(""));
    QCOMPARE(parse_metric("util"), std::optional<Metric>(Metric::utilisation));
    QVERIFY(!parse_metric("heat"));
  }

  // A 4x4x2x2 torus drawn as a 2-D projection; the other dimensions aggregated or sliced.
  void torusProjection() {
    const QString path = dir_.filePath("torus.db");
    const Torus torus{{4, 4, 2, 2}};
    {
      TraceWriter w(path.toStdString(), meta("test-torus"), Detail::counters);
      torus.declare(w);
      // +dim0 out of (1,2,*,*): 10 bytes per node; a wrap link 3 -> 0 along dim 1.
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
          w.add_link_sample(torus.link(torus.id({1, 2, a, b}), 0, false), 5, 10 + a * 2 + b, 1, 0);
      w.add_link_sample(torus.link(torus.id({0, 3, 1, 1}), 1, false), 5, 7, 1, 0);
      w.finish();
    }
    TraceModel m(path.toStdString());
    const auto& t = m.topology();
    QCOMPARE(t.kind, LayoutKind::torus);
    QCOMPARE(t.dims, 4);
    QCOMPARE(t.dim_x, 0);
    QCOMPARE(t.dim_y, 1);
    QCOMPARE(t.vertices.size(), std::size_t{16});
    for (const auto& v : t.vertices) {
      QCOMPARE(v.nodes.size(), std::size_t{4});
      QCOMPARE(v.self_links.size(), std::size_t{4 * 4});  // dims 2 and 3, both directions, 4 nodes
      QCOMPARE(QString::fromStdString(v.sublabel), QString("4 nodes"));
    }
    QCOMPARE(t.edges.size(), std::size_t{16 * 4});
    // The aggregated edge (1,2) -> (2,2) carries the four nodes' traffic.
    const std::size_t hot = m.ranking().front();
    const auto& e = t.edges[hot];
    QCOMPARE(e.links.size(), std::size_t{4});
    QCOMPARE(m.edge_values()[hot], 10.0 + 11 + 12 + 13);
    QCOMPARE(t.vertices[e.from].pos.x, 1.0);
    QCOMPARE(t.vertices[e.to].pos.x, 2.0);
    QCOMPARE(t.vertices[e.from].pos.y, 2.0);
    // Wrap-around edges are marked and drawn as two stubs.
    const std::size_t wrap = m.ranking()[1];
    QVERIFY(t.edges[wrap].wrap);
    QCOMPARE(t.geometry(wrap).size(), std::size_t{2});
    QCOMPARE(std::count_if(t.edges.begin(), t.edges.end(), [](const Edge& x) { return x.wrap; }), 16L);

    // Another pair of dimensions.
    ProjectionOptions o;
    o.dim_x = 0;
    o.dim_y = 2;
    m.set_projection(o);
    QCOMPARE(m.topology().vertices.size(), std::size_t{8});
    QCOMPARE(m.topology().vertices.front().nodes.size(), std::size_t{8});
    // A slice: only nodes with dim 2 = 1 and dim 3 = 0 count.
    o.dim_y = 1;
    o.fixed = {std::nullopt, std::nullopt, 1, 0};
    m.set_projection(o);
    QCOMPARE(m.topology().vertices.size(), std::size_t{16});
    QCOMPARE(m.topology().vertices.front().nodes.size(), std::size_t{1});
    QCOMPARE(m.edge_values()[m.ranking().front()], 12.0);
    QCOMPARE(std::count(m.topology().node_vertex.begin(), m.topology().node_vertex.end(), -1L), 48L);
  }

  // Anything without grid coordinates, e.g. a PCIe path: breadth-first layers.
  void genericLayoutForAPath() {
    const QString path = dir_.filePath("pcie.db");
    {
      TraceWriter w(path.toStdString(), meta("test-pcie"), Detail::counters);
      const char* names[] = {"socket 0", "root complex", "PCIe x16", "card"};
      for (int i = 0; i < 4; ++i) w.add_node({i, names[i], "host", "[\"host\",\"" + std::string(names[i]) + "\"]"});
      w.add_node({4, "socket 1", "host", "[\"host\",\"socket 1\"]"});
      for (int i = 0; i < 3; ++i) {
        w.add_link({i * 2, "pcie", i, i + 1, "down"});
        w.add_link({i * 2 + 1, "pcie", i + 1, i, "up"});
      }
      w.add_link({10, "qpi", 4, 1, "qpi"});
      w.add_link_sample(2, 1, 4096, 100, 0);
      w.finish();
    }
    const TraceModel m(path.toStdString());
    QVERIFY(!m.counted());  // no instructions in its meta
    const auto& t = m.topology();
    QCOMPARE(t.kind, LayoutKind::generic);
    QCOMPARE(t.vertices.size(), std::size_t{5});
    QCOMPARE(t.edges.size(), std::size_t{7});
    // Depth from socket 0 increases along the path; socket 1 sits beside socket 0's neighbour's layer.
    std::vector<double> x;
    for (int n = 0; n < 5; ++n)
      x.push_back(t.vertices[static_cast<std::size_t>(t.node_vertex[static_cast<std::size_t>(n)])].pos.x);
    QVERIFY(x[0] < x[1] && x[1] < x[2] && x[2] < x[3]);
    QCOMPARE(x[4], x[2]);
    QCOMPARE(m.edge_values()[m.ranking().front()], 4096.0);
    QCOMPARE(QString::fromStdString(t.vertices[static_cast<std::size_t>(t.node_vertex[3])].label), QString("card"));
  }

  // A trace of a --mode both run carries both modes' launches itself.
  void comparisonFromTraceLaunches() {
    const QString path = dir_.filePath("both.db");
    {
      hopsim::traces::Meta meta;
      meta.machine = "e16g301";
      meta.mode = "sim";
      hopsim::traces::TraceWriter w(path.toStdString(), meta, hopsim::traces::Detail::counters);
      w.add_launch({"native", "unicast", 1, 0.002, 1.2e6, 64, true});
      w.add_launch({"native", "unicast", 2, 0.003, 1.8e6, 128, true});
      w.add_launch({"sim", "unicast", 2, 3e-5, 18000, 128, true});
      w.add_launch({"sim", "unicast", 1, 2e-5, 12000, 64, true});
      w.add_launch({"sim", "broadcast", 1, 5e-5, 30000, 64, true});  // no native twin
      w.finish();
    }
    hopsim::traces::TraceReader r(path.toStdString());
    std::string why;
    const auto c = comparison_from_trace(r, &why);
    QVERIFY2(c, why.c_str());
    QCOMPARE(c->methods, (std::vector<std::string>{"unicast"}));
    QCOMPARE(c->points.size(), std::size_t{2});
    QCOMPARE(c->points[0].n, 1);
    QCOMPARE(c->points[0].native_s, 0.002);
    QCOMPARE(c->points[0].sim_s, 2e-5);
    QCOMPARE(c->points[1].sim_s, 3e-5);

    const QString single = dir_.filePath("sim-only.db");
    {
      hopsim::traces::Meta meta;
      hopsim::traces::TraceWriter w(single.toStdString(), meta, hopsim::traces::Detail::counters);
      w.add_launch({"sim", "unicast", 1, 2e-5, 12000, 64, true});
      w.finish();
    }
    hopsim::traces::TraceReader s(single.toStdString());
    QVERIFY(!comparison_from_trace(s, &why));
    QVERIFY(why.find("no launch of both modes") != std::string::npos);
  }

  // Simulated vs native: launches present in both runs, as the panel plots them.
  void comparisonFromResults() {
    const QString good = dir_.filePath("results.json");
    std::ofstream(good.toStdString()) << R"({"native": {"launches": [
        {"method": "unicast", "n": 1, "seconds": 0.002}, {"method": "unicast", "n": 2, "seconds": 0.003},
        {"method": "broadcast", "n": 1, "seconds": 0.004}]},
      "sim": {"trace": "x.db", "launches": [
        {"method": "unicast", "n": 1, "seconds": 2e-5}, {"method": "unicast", "n": 2, "seconds": 3e-5},
        {"method": "broadcast", "n": 1, "seconds": 5e-5}, {"method": "broadcast", "n": 2, "seconds": 6e-5}]}})";
    std::string why;
    const auto c = load_comparison(good.toStdString(), &why);
    QVERIFY2(c, why.c_str());
    QCOMPARE(c->methods, (std::vector<std::string>{"unicast", "broadcast"}));
    QCOMPARE(c->points.size(), std::size_t{3});  // broadcast n=2 has no native launch
    QCOMPARE(c->points[2].method, std::string("broadcast"));
    QCOMPARE(c->points[2].native_s, 0.004);
    QCOMPARE(c->points[2].sim_s, 5e-5);

    const QString sim_only = dir_.filePath("sim-only.json");
    std::ofstream(sim_only.toStdString()) << R"({"sim": {"launches": []}})";
    QVERIFY(!load_comparison(sim_only.toStdString(), &why));
    QVERIFY2(why.find("no native launches") != std::string::npos, why.c_str());
    const QString broken = dir_.filePath("broken.json");
    std::ofstream(broken.toStdString()) << "{ not json";
    QVERIFY(!load_comparison(broken.toStdString(), &why));
    QVERIFY2(why.find("not JSON") != std::string::npos, why.c_str());
    QVERIFY(!load_comparison(dir_.filePath("missing.json").toStdString(), &why));
  }

  // hopsim curve --csv without a reference: every column read, the saturated load left
  // out of the three lines and named in the title.
  void curvePlainLayout() {
    const QString path = dir_.filePath("curve.csv");
    std::ofstream(path.toStdString())
        << "offered,accepted,avg_latency,p50_latency,p99_latency,avg_network_latency,avg_hops,max_link_utilisation,"
           "saturated\n"
           "0.1,0.1,20.5,19,35,12.25,5.3,0.21,0\n"
           "0.2,0.2,24,22,44,13,5.3,0.42,0\n"
           "\n"
           "# a comment line\n"
           "0.3,0.29,40,31,90,15.5,5.3,0.63,0\n"
           "0.4,0.31,900,700,2500,80,5.3,0.99,1\n";
    std::string why;
    const auto c = load_curve(path.toStdString(), &why);
    QVERIFY2(c, why.c_str());
    QCOMPARE(c->layout, CurveLayout::plain);
    QCOMPARE(c->source.string(), path.toStdString());
    QCOMPARE(c->points.size(), std::size_t{4});
    QCOMPARE(c->points[0].offered, 0.1);
    QCOMPARE(*c->points[0].avg_latency, 20.5);
    QCOMPARE(*c->points[0].avg_network_latency, 12.25);
    QCOMPARE(*c->points[2].accepted, 0.29);
    QCOMPARE(*c->points[2].p50_latency, 31.0);
    QCOMPARE(*c->points[2].p99_latency, 90.0);
    QCOMPARE(*c->points[1].max_link_utilisation, 0.42);
    QVERIFY(!c->points[2].saturated);
    QVERIFY(c->points[3].saturated);
    QCOMPARE(c->saturation(), std::optional<double>(0.4));
    QVERIFY(!c->reference_saturation());
    const auto series = curve_series(*c);
    QCOMPARE(series.size(), std::size_t{3});
    QCOMPARE(series[0].name, std::string("average total latency"));
    QCOMPARE(series[1].name, std::string("average network latency"));
    QCOMPARE(series[2].name, std::string("p99 total latency"));
    for (const auto& s : series) {
      QCOMPARE(s.x, (std::vector<double>{0.1, 0.2, 0.3}));
      QCOMPARE(s.y.size(), std::size_t{3});
    }
    QCOMPARE(series[0].y, (std::vector<double>{20.5, 24, 40}));
    QCOMPARE(series[1].y, (std::vector<double>{12.25, 13, 15.5}));
    QCOMPARE(series[2].y, (std::vector<double>{35, 44, 90}));
    const std::string title = curve_title(*c);
    QVERIFY2(title.find("saturated at offered 0.4") != std::string::npos, title.c_str());
    QVERIFY2(title.find("curve.csv") != std::string::npos, title.c_str());

    // Not saturated: no saturation in the title.
    std::istringstream unsaturated(
        "offered,avg_latency,avg_network_latency,p99_latency,saturated\n0.1,20,12,30,0\n0.2,22,13,35,0\n");
    const auto u = parse_curve(unsaturated, "u.csv", &why);
    QVERIFY2(u, why.c_str());
    QVERIFY(!u->saturation());
    QVERIFY(curve_title(*u).find("saturated") == std::string::npos);
    QCOMPARE(curve_series(*u).size(), std::size_t{3});
  }

  // hopsim curve --reference: hopsim and reference lines, each without its saturated loads.
  void curveReferenceLayout() {
    const QString path = dir_.filePath("against.csv");
    std::ofstream(path.toStdString()) << "offered,avg_latency,reference_latency,error_percent,compared\r\n"
                                         "0.05,25.1,25,0.4,1\r\n"
                                         "0.1,26,26.5,-1.88679,1\r\n"
                                         "0.3,31,,,0\r\n"
                                         "0.45,,,,0\r\n";
    std::string why;
    const auto c = load_curve(path.toStdString(), &why);
    QVERIFY2(c, why.c_str());
    QCOMPARE(c->layout, CurveLayout::reference);
    QCOMPARE(c->points.size(), std::size_t{4});
    QCOMPARE(*c->points[1].reference_latency, 26.5);
    QCOMPARE(*c->points[1].error_percent, -1.88679);
    QVERIFY(c->points[1].compared);
    QVERIFY(!c->points[2].compared);
    QVERIFY(!c->points[2].reference_latency && !c->points[2].error_percent);
    QVERIFY(!c->points[3].avg_latency);
    QCOMPARE(c->saturation(), std::optional<double>(0.45));
    QCOMPARE(c->reference_saturation(), std::optional<double>(0.3));
    const auto series = curve_series(*c);
    QCOMPARE(series.size(), std::size_t{2});
    QCOMPARE(series[0].name, std::string("hopsim"));
    QCOMPARE(series[0].x, (std::vector<double>{0.05, 0.1, 0.3}));
    QCOMPARE(series[0].y, (std::vector<double>{25.1, 26, 31}));
    QCOMPARE(series[1].name, std::string("reference"));
    QCOMPARE(series[1].x, (std::vector<double>{0.05, 0.1}));
    QCOMPARE(series[1].y, (std::vector<double>{25, 26.5}));
    const std::string title = curve_title(*c);
    QVERIFY2(title.find("hopsim saturated at offered 0.45") != std::string::npos, title.c_str());
    QVERIFY2(title.find("reference saturated at offered 0.3") != std::string::npos, title.c_str());
  }

  // Bad input: the message names the file, the line and the problem.
  void curveBadInputIsRefusedWithTheReason() {
    std::string why;
    const std::string missing = dir_.filePath("no-such-curve.csv").toStdString();
    QVERIFY(!load_curve(missing, &why));
    QCOMPARE(why, missing + ": cannot open the file");

    const auto refused = [&](const std::string& name, const std::string& text) {
      const std::string path = dir_.filePath(QString::fromStdString(name)).toStdString();
      std::ofstream(path) << text;
      std::string reason;
      const auto c = load_curve(path, &reason);
      return c ? std::string("accepted") : reason.substr(reason.find(name));
    };
    QCOMPARE(refused("no-latency.csv", "# hopsim curve\noffered,accepted,p99_latency\n0.1,0.1,30\n"),
             std::string("no-latency.csv:2: the header needs the columns 'offered' and 'avg_latency', got "
                         "'offered,accepted,p99_latency'"));
    QCOMPARE(refused("no-offered.csv", "load,avg_latency\n0.1,20\n"),
             std::string("no-offered.csv:1: the header needs the columns 'offered' and 'avg_latency', got "
                         "'load,avg_latency'"));
    QCOMPARE(refused("short-row.csv", "offered,avg_latency,p99_latency,saturated\n0.1,20,30,0\n0.2,22,0\n"),
             std::string("short-row.csv:3: 3 cells, the header has 4"));
    QCOMPARE(refused("long-row.csv", "offered,avg_latency\n0.1,20,30\n"),
             std::string("long-row.csv:2: 3 cells, the header has 2"));
    QCOMPARE(refused("word.csv", "offered,avg_latency,p99_latency,saturated\n0.1,20,fast,0\n"),
             std::string("word.csv:2: column 'p99_latency': 'fast' is not a number"));
    QCOMPARE(refused("trailing.csv", "offered,avg_latency\n0.1,20x\n"),
             std::string("trailing.csv:2: column 'avg_latency': '20x' is not a number"));
    QCOMPARE(refused("no-offered-cell.csv", "offered,avg_latency\n,20\n"),
             std::string("no-offered-cell.csv:2: column 'offered': '' is not a number"));
    QCOMPARE(refused("bad-flag.csv", "offered,avg_latency,saturated\n0.1,20,yes\n"),
             std::string("bad-flag.csv:2: column 'saturated': 'yes' is not a number"));
    QCOMPARE(refused("empty.csv", ""), std::string("empty.csv: empty file: no header line"));
    QCOMPARE(refused("header-only.csv", "offered,avg_latency\n"),
             std::string("header-only.csv: no data rows after the header"));
    // Unknown columns are carried along, not read.
    QCOMPARE(refused("extra.csv", "offered,avg_latency,note\n0.1,20,anything\n"), std::string("accepted"));
  }

  // Axis ticks as the report charts place them: steps of 1, 2, 2.5 or 5 times a power of ten.
  void curveAxisTicks() {
    QCOMPARE(curve_ticks(0, 47), (std::vector<double>{0, 10, 20, 30, 40, 50}));
    const auto t = curve_ticks(0, 0.45);
    QCOMPARE(t.size(), std::size_t{6});
    QCOMPARE(t.front(), 0.0);
    QCOMPARE(t[3], 0.3);
    QCOMPARE(t.back(), 0.5);
    const auto [lo, hi] = curve_axis_range(20.5, 90, true);
    QCOMPARE(lo, 0.0);
    QCOMPARE(hi, 100.0);
    const auto [xlo, xhi] = curve_axis_range(0.3, 0.3, false);
    QVERIFY(xlo < 0.3 && xhi > 0.3);
  }
};

QTEST_GUILESS_MAIN(TestGuiModel)
#include "test_gui_model.moc"
