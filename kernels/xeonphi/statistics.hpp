#pragma once
// Run-time statistics in the layout of HAM-Offload's benchmark output:
// average median min max variance std_error relative_std_error conf95_error
// relative_conf95_error count, values in ns in scientific notation.
//
// Differences from the original's statistics class, on purpose: the median
// is the true median (the mean of the two middle samples for an even count),
// the variance is the sample variance (n - 1), and conf95_error is 1.96
// standard errors (normal approximation).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ham::bench {

class statistics {
 public:
  statistics(std::size_t runs, std::size_t warmup_runs) : warmup_(warmup_runs) { samples_.reserve(runs); }

  // Adds one sample in ns; the first warmup_runs samples are dropped.
  void add(double ns) {
    if (seen_++ < warmup_) return;
    samples_.push_back(ns);
  }

  std::size_t count() const { return samples_.size(); }
  // Sums are taken relative to the first sample, so identical samples give
  // exactly their value as the average and exactly zero variance.
  double average() const {
    if (samples_.empty()) return 0;
    double s = 0;
    for (double x : samples_) s += x - samples_.front();
    return samples_.front() + s / static_cast<double>(samples_.size());
  }
  double median() const {
    if (samples_.empty()) return 0;
    std::vector<double> v = samples_;
    const std::size_t n = v.size(), mid = n / 2;
    std::nth_element(v.begin(), v.begin() + mid, v.end());
    if (n % 2 == 1) return v[mid];
    const double upper = v[mid];
    const double lower = *std::max_element(v.begin(), v.begin() + mid);
    return 0.5 * (lower + upper);
  }
  double min() const { return samples_.empty() ? 0 : *std::min_element(samples_.begin(), samples_.end()); }
  double max() const { return samples_.empty() ? 0 : *std::max_element(samples_.begin(), samples_.end()); }
  double variance() const {
    if (samples_.size() < 2) return 0;
    const double x0 = samples_.front(), n = static_cast<double>(samples_.size());
    double s = 0, s2 = 0;
    for (double x : samples_) {
      s += x - x0;
      s2 += (x - x0) * (x - x0);
    }
    return std::max(0.0, (s2 - s * s / n) / (n - 1));
  }
  double std_error() const {
    return samples_.empty() ? 0 : std::sqrt(variance() / static_cast<double>(samples_.size()));
  }
  double conf95_error() const { return 1.96 * std_error(); }

  static std::string header_string() {
    return "average\tmedian\tmin\tmax\tvariance\tstd_error\trelative_std_error\tconf95_error\t"
           "relative_conf95_error\tcount";
  }
  std::string string() const {
    const double avg = average();
    const double rel = avg == 0 ? 0 : 1 / avg;
    const double v[] = {avg,
                        median(),
                        min(),
                        max(),
                        variance(),
                        std_error(),
                        std_error() * rel,
                        conf95_error(),
                        conf95_error() * rel,
                        static_cast<double>(count())};
    std::string out;
    char buf[32];
    for (double x : v) {
      std::snprintf(buf, sizeof buf, "%e", x);
      if (!out.empty()) out += '\t';
      out += buf;
    }
    return out;
  }
  // The raw samples, one per line (the original's to_file).
  void to_file(const std::string& path) const {
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    for (double x : samples_) f << x << '\n';
  }
  const std::vector<double>& samples() const { return samples_; }

 private:
  std::size_t warmup_;
  std::size_t seen_ = 0;
  std::vector<double> samples_;
};

}  // namespace ham::bench
