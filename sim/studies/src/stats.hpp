#pragma once
// Sample statistics over seeds, for `hopsim curve --seeds` and `hopsim
// sweep --seeds`: the mean and the half-width of its 95% confidence
// interval (Student's t).
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

namespace hopsim::studies {

// Student's t for a two-sided 95% interval, by degrees of freedom 1..30
// (the standard table, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2); 1.96
// beyond.
inline double t95(std::size_t dof) {
  static constexpr std::array<double, 30> t = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                               2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                               2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  return dof >= 1 && dof <= t.size() ? t[dof - 1] : 1.96;
}

// Mean and the half-width of its 95% confidence interval (0 for one value).
struct Interval {
  double mean = 0, half = 0;
  std::size_t n = 0;
};
inline Interval interval(const std::vector<double>& v) {
  Interval iv;
  iv.n = v.size();
  if (v.empty()) return iv;
  bool same = true;
  for (const double x : v) same = same && x == v.front();
  if (same) {  // exactly, without rounding noise
    iv.mean = v.front();
    return iv;
  }
  for (const double x : v) iv.mean += x;
  iv.mean /= static_cast<double>(v.size());
  if (v.size() < 2) return iv;
  double ss = 0;
  for (const double x : v) ss += (x - iv.mean) * (x - iv.mean);
  const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  iv.half = t95(v.size() - 1) * sd / std::sqrt(static_cast<double>(v.size()));
  return iv;
}

}  // namespace hopsim::studies
