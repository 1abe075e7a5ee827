// Charts (Qt Charts): axis ticks, PNG and SVG output, and the bad inputs.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <QColor>
#include <QImage>
#include <QXmlStreamReader>
#include <catch2/catch.hpp>

#include "hopsim/core/error.hpp"
#include "hopsim/studies/plot.hpp"

namespace fs = std::filesystem;
using namespace hopsim::studies::plot;

namespace {

fs::path scratch(const std::string& name) {
  const auto d = fs::temp_directory_path() / "hopsim-test-plot";
  fs::create_directories(d);
  return d / name;
}

std::string slurp(const fs::path& p) {
  std::ifstream is(p);
  std::stringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

// The SVG parses as XML (names with "<" and "&" are escaped everywhere).
bool well_formed(const std::string& svg) {
  QXmlStreamReader xml(QByteArray::fromStdString(svg));
  while (!xml.atEnd()) xml.readNext();
  return !xml.hasError();
}

// Pixels close to an RGB colour (antialiasing blends the edges).
int count_colour(const QImage& img, int r, int g, int b) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      const QColor c = img.pixelColor(x, y);
      if (std::abs(c.red() - r) < 8 && std::abs(c.green() - g) < 8 && std::abs(c.blue() - b) < 8) ++n;
    }
  return n;
}

// Pixel rows (from the top) where a colour appears in column range [x0, x1).
std::pair<int, int> colour_rows(const QImage& img, int r, int g, int b, int x0, int x1) {
  int top = img.height(), bottom = -1;
  for (int y = 0; y < img.height(); ++y)
    for (int x = x0; x < x1; ++x) {
      const QColor c = img.pixelColor(x, y);
      if (std::abs(c.red() - r) < 8 && std::abs(c.green() - g) < 8 && std::abs(c.blue() - b) < 8) {
        top = std::min(top, y);
        bottom = std::max(bottom, y);
      }
    }
  return {top, bottom};
}

}  // namespace

TEST_CASE("linear ticks are round numbers covering the range", "[plot]") {
  const auto t = ticks(0.03, 0.97, false, 5);
  REQUIRE(t.size() >= 3);
  CHECK(t.front() <= 0.03);
  CHECK(t.back() >= 0.97);
  const double step = t[1] - t[0];
  CHECK(step == Approx(0.2));
  for (std::size_t i = 1; i < t.size(); ++i) CHECK(t[i] - t[i - 1] == Approx(step));
}

TEST_CASE("log ticks are decades", "[plot]") {
  const auto t = ticks(3, 4e5, true, 8);
  // 3 .. 4e5 needs the decades 1 .. 1e6.
  REQUIRE(t.size() == 7);
  CHECK(t.front() == Approx(1));
  CHECK(t.back() == Approx(1e6));
  CHECK(ticks(-1, 10, true).empty());
}

TEST_CASE("a line chart renders to PNG with each series in its own colour", "[plot]") {
  LineChart c{
      "latency", "offered load",
      "cycles",  false,
      false,     {{"uniform", {0.1, 0.2, 0.3, 0.4}, {10, 11, 13, 20}}, {"transpose", {0.1, 0.2, 0.3}, {12, 15, 30}}}};
  const auto p = scratch("line.png");
  fs::remove(p);
  save(c, p.string(), 640, 400);
  QImage img(QString::fromStdString(p.string()));
  REQUIRE(!img.isNull());
  CHECK(img.width() == 640);
  CHECK(img.height() == 400);
  // First palette colour (0,114,178), second (213,94,0): both drawn.
  CHECK(count_colour(img, 0, 114, 178) > 100);
  CHECK(count_colour(img, 213, 94, 0) > 100);
  CHECK(!fs::exists(p.string() + ".partial"));
}

TEST_CASE("bar heights follow the values", "[plot]") {
  // One category, two bars: the second is four times the first on a linear axis from 0.
  BarChart c{"compare", "us", {"unicast"}, {{"native", {}, {10}}, {"sim", {}, {40}}}, false};
  const auto p = scratch("bars.png");
  save(c, p.string(), 600, 400);
  QImage img(QString::fromStdString(p.string()));
  REQUIRE(!img.isNull());
  // Skip the legend (right of the plot area) when measuring bars.
  const auto [t1, b1] = colour_rows(img, 0, 114, 178, 0, 600 - 190);
  const auto [t2, b2] = colour_rows(img, 213, 94, 0, 0, 600 - 190);
  REQUIRE(b1 > t1);
  REQUIRE(b2 > t2);
  CHECK(b1 == Approx(b2).margin(2));  // same baseline
  const double h1 = b1 - t1, h2 = b2 - t2;
  CHECK(h2 / h1 == Approx(4).margin(0.15));
}

TEST_CASE("SVG output holds a marker for every drawable point and the chart's texts", "[plot]") {
  LineChart c{"line title & <more>",
              "x label",
              "y label",
              false,
              true,
              {{"a", {1, 2, 3, 4}, {5, 0, 7, 8}}, {"b <&>", {1, 2}, {1, 2}}}};
  const auto p = scratch("line.svg");
  fs::remove(p);
  save(c, p.string());
  const auto s = slurp(p);
  // Qt's SVG generator starts with an XML declaration, then the <svg> element.
  CHECK(s.rfind("<?xml", 0) == 0);
  CHECK(s.find("<svg") != std::string::npos);
  CHECK(s.find("viewBox=\"0 0 960 600\"") != std::string::npos);
  CHECK(s.find("</svg>") != std::string::npos);
  CHECK(well_formed(s));
  // The zero is not drawable on a log axis: series a keeps 3 points, so 3 + 2 circles.
  std::size_t circles = 0;
  for (auto i = s.find("<circle"); i != std::string::npos; i = s.find("<circle", i + 1)) ++circles;
  CHECK(circles == 5);
  // Title, axis titles and legend entries are text, a name with markup as that text.
  CHECK(s.find(">line title &amp; &lt;more&gt;</text>") != std::string::npos);
  CHECK(s.find("<title>line title &amp; &lt;more&gt;</title>") != std::string::npos);  // the document's title
  CHECK(s.find(">x label</text>") != std::string::npos);
  CHECK(s.find(">y label</text>") != std::string::npos);
  CHECK(s.find(">a</text>") != std::string::npos);
  CHECK(s.find("b &lt;&amp;&gt;") != std::string::npos);
  CHECK(!fs::exists(p.string() + ".partial"));
}

TEST_CASE("a log-scale bar chart and a line chart render to PNG and SVG with their titles", "[plot]") {
  BarChart bars{"bars on a log axis",
                "microseconds per operation",
                {"put", "get & wait"},
                {{"native (this machine)", {}, {3.5, 1200}}, {"simulated (model)", {}, {0.8, 45}}},
                true};
  LineChart lines{"lines on log axes",
                  "offered load",
                  "latency (cycles)",
                  true,
                  true,
                  {{"average", {0.01, 0.1, 0.3}, {12, 15, 400}}, {"p99", {0.01, 0.1, 0.3}, {20, 31, 900}}}};
  const auto check_png = [](const fs::path& p, int w, int h) {
    const auto bytes = slurp(p);
    CHECK(bytes.rfind("\x89PNG\r\n\x1a\n", 0) == 0);
    QImage img(QString::fromStdString(p.string()));
    REQUIRE(!img.isNull());
    CHECK(img.width() == w);
    CHECK(img.height() == h);
    // The title is drawn in the band at the top: dark pixels there.
    int dark = 0;
    for (int y = 0; y < 40; ++y)
      for (int x = 0; x < w; ++x) dark += qGray(img.pixel(x, y)) < 100;
    CHECK(dark > 50);
    // Both series' colours are drawn.
    CHECK(count_colour(img, 0, 114, 178) > 100);
    CHECK(count_colour(img, 213, 94, 0) > 100);
  };
  const auto pb = scratch("log-bars.png"), pl = scratch("log-lines.png");
  save(bars, pb.string(), 800, 500);
  save(lines, pl.string(), 700, 450);
  check_png(pb, 800, 500);
  check_png(pl, 700, 450);

  const auto sb = scratch("log-bars.svg"), sl = scratch("log-lines.svg");
  save(bars, sb.string());
  save(lines, sl.string());
  const auto b = slurp(sb), l = slurp(sl);
  CHECK(well_formed(b));
  CHECK(well_formed(l));
  CHECK(b.find(">bars on a log axis</text>") != std::string::npos);
  CHECK(b.find(">microseconds per operation</text>") != std::string::npos);
  CHECK(b.find(">native (this machine)</text>") != std::string::npos);
  CHECK(b.find(">simulated (model)</text>") != std::string::npos);
  CHECK(b.find(">get &amp; wait</text>") != std::string::npos);
  // Decade labels of the log axis: 0.1 .. 10000.
  CHECK(b.find(">0.1</text>") != std::string::npos);
  CHECK(b.find(">10000</text>") != std::string::npos);
  CHECK(l.find(">lines on log axes</text>") != std::string::npos);
  CHECK(l.find(">offered load</text>") != std::string::npos);
  CHECK(l.find(">latency (cycles)</text>") != std::string::npos);
  CHECK(l.find(">p99</text>") != std::string::npos);
  CHECK(l.find(">0.01</text>") != std::string::npos);
  CHECK(l.find(">1000</text>") != std::string::npos);
}

TEST_CASE("bad charts and paths give clear errors and leave no file", "[plot]") {
  const auto p = scratch("bad.gif");
  LineChart c{"t", "x", "y", false, false, {{"a", {1}, {1}}}};
  CHECK_THROWS_AS(save(c, p.string()), hopsim::ConfigError);
  CHECK(!fs::exists(p));
  LineChart empty{"nothing", "x", "y", true, true, {{"a", {1, 2}, {-1, 0}}}};
  CHECK_THROWS_WITH(save(empty, scratch("e.png").string()), Catch::Contains("no drawable points"));
  BarChart nobars{"none", "y", {}, {}, false};
  CHECK_THROWS_AS(save(nobars, scratch("n.svg").string()), hopsim::ConfigError);
  CHECK_THROWS_AS(save(c, (scratch("no-such-dir") / "x.svg").string()), hopsim::Error);
}
