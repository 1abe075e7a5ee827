#pragma once
// The look of hopsim's charts, in one place: the report charts (hopsim::studies::plot,
// sim/studies/src/plot.cpp: hopsim curve --png, hopsim compare) and the
// native-versus-simulated panel of hopsim-gui (gui/app/comparison_view.cpp)
// both draw with Qt Charts in this style. Plain constants, no Qt, so that any
// layer allowed to include traces/ (both of those are) can use it.
#include <array>
#include <cstddef>

namespace hopsim::traces::chart_style {

struct Rgb {
    unsigned char r, g, b;
};

// Series colours: the colour-blind-safe palette of Okabe and Ito.
inline constexpr std::array<Rgb, 8> kPalette{{{0, 114, 178},
                                              {213, 94, 0},
                                              {0, 158, 115},
                                              {204, 121, 167},
                                              {230, 159, 0},
                                              {86, 180, 233},
                                              {0, 0, 0},
                                              {240, 228, 66}}};
constexpr Rgb series_colour(std::size_t i) { return kPalette[i % kPalette.size()]; }

inline constexpr Rgb kBackground{255, 255, 255};
inline constexpr Rgb kText{0, 0, 0};             // title, axis titles, tick labels, legend
inline constexpr Rgb kAxis{90, 90, 90};          // axis lines
inline constexpr Rgb kGrid{225, 225, 225};       // major grid lines
inline constexpr Rgb kMinorGrid{242, 242, 242};  // minor grid lines (log axes)

inline constexpr const char* kFontFamily = "DejaVu Sans";
inline constexpr int kTitlePx = 16;  // bold
inline constexpr int kAxisTitlePx = 13;
inline constexpr int kTickPx = 12;
inline constexpr int kLegendPx = 12;

inline constexpr double kLineWidth = 2.5;  // series lines
inline constexpr double kMarkerSize = 6;   // point markers on lines, in pixels
inline constexpr double kAxisWidth = 1.5;
inline constexpr int kMargin = 8;  // around the chart, in pixels

}  // namespace hopsim::traces::chart_style
