#pragma once
// The per-cell error report of `hopsim host predict`: native (median of
// runs, with its spread), predicted, relative error, and the count of cells
// within the allowed error; as a text table and as CSV.
#include <cstddef>
#include <string>
#include <vector>

namespace hopsim::host::model {

struct PredictRow {
  int procs = 0;
  std::size_t size = 0;
  std::string order = "natural";  // the ring's order: natural or random
  std::string requested, used;    // transport names
  std::string used_text;          // e.g. "double-copy (fallback)"
  double native = 0;              // B/s, median over runs
  double native_min = 0, native_max = 0;
  int runs = 1;
  double predicted = 0;   // B/s
  double fraction = 0;    // native over the profile's memcpy bandwidth at this size
  double yields = 0;      // model: core hand-overs per ring step and rank
  double background = 0;  // model: seconds the background held each core
  // The CPUs' speeds probed around the native runs of this cell (mean over
  // runs; relative to the calibration's first CPU alone); empty: not probed.
  std::vector<double> speed;
  double drift = 0;  // largest |probed / calibrated - 1| over the CPUs
  // Cache-line hand-over between ranks 0 and 1 around the native run whose
  // bandwidth is the median (s; -1 not probed), the profile's around its
  // exchange tables (s; 0 unknown), and whether the two were met in
  // different placements of the CPUs (host::placement_differs).
  double handover = -1, profile_handover = 0;
  bool moved = false;
  bool modelled_apart = false;  // simulated on the profile's apart tables (predict --placement probed)
};

// A cell whose CPUs ran more than this far off their calibrated speed ran
// on a machine the profile no longer describes.
constexpr double kSpeedDrift = 0.10;

struct PredictReport {
  int cells = 0;
  int within = 0;              // |error| <= max_error
  int noisy = 0;               // native spread (max/min - 1) > max_error
  int drifted = 0;             // drift > kSpeedDrift
  int moved = 0;               // cells run in another CPU placement than the profile's tables
  int moved_within = 0;        // ... of them within max_error
  int apart = 0;               // cells simulated on the profile's apart tables
  double mean = 0, worst = 0;  // |error|
  std::string table, csv;
};

// error = (predicted - native) / native.
[[nodiscard]] PredictReport predict_report(const std::vector<PredictRow>& rows, double max_error);
// "4 KiB", "1 MiB", "100 B".
[[nodiscard]] std::string size_text(std::size_t bytes);

}  // namespace hopsim::host::model
