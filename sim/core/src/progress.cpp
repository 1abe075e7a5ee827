#include "hopsim/core/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "hopsim/core/error.hpp"

namespace hopsim {

namespace {

std::atomic<int> g_mode{-1};           // -1: not set (HOPSIM_PROGRESS or auto)
std::atomic<bool> g_open_line{false};  // a bar line is on the terminal without its newline

std::string seconds(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.0f} min {:02.0f} s", std::floor(s / 60), std::floor(std::fmod(s, 60)));
  return fmt::format("{:.0f} h {:02.0f} min", std::floor(s / 3600), std::floor(std::fmod(s, 3600) / 60));
}

}  // namespace

ProgressMode parse_progress_mode(std::string_view s, std::string_view what) {
  if (s == "auto") return ProgressMode::automatic;
  if (s == "bar") return ProgressMode::bar;
  if (s == "lines") return ProgressMode::lines;
  if (s == "off") return ProgressMode::off;
  throw ConfigError(fmt::format("{} {}: expected auto, bar, lines or off", what, s));
}

std::string_view to_string(ProgressMode m) {
  switch (m) {
    case ProgressMode::automatic:
      return "auto";
    case ProgressMode::bar:
      return "bar";
    case ProgressMode::lines:
      return "lines";
    case ProgressMode::off:
      return "off";
  }
  return "auto";
}

void set_progress_mode(ProgressMode m) { g_mode.store(static_cast<int>(m)); }

ProgressMode progress_mode() {
  const int m = g_mode.load();
  if (m >= 0) return static_cast<ProgressMode>(m);
  const char* env = std::getenv("HOPSIM_PROGRESS");
  if (env == nullptr || *env == '\0') return ProgressMode::automatic;
  return parse_progress_mode(env, "HOPSIM_PROGRESS");
}

void end_progress_line() {
  if (g_open_line.exchange(false)) std::cerr << "\r\033[K" << std::flush;
}

Progress::Progress(std::string label, std::size_t total, ProgressMode mode)
    : label_(std::move(label)), total_(total), mode_(mode), start_(std::chrono::steady_clock::now()) {
  if (mode_ == ProgressMode::automatic) mode_ = ::isatty(2) != 0 ? ProgressMode::bar : ProgressMode::off;
}

Progress::~Progress() {
  if (open_line_ && g_open_line.exchange(false)) std::cerr << "\n" << std::flush;
}

double Progress::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string Progress::line(std::size_t done, double fraction, std::string_view what, std::string_view note) const {
  const double el = elapsed_seconds();
  std::string s = fmt::format("{} {}/{}", label_, done, total_);
  if (!what.empty()) s += fmt::format(" {}", what);
  s += fmt::format(", {} elapsed", seconds(el));
  if (fraction > 0 && fraction < 1) s += fmt::format(", ETA {}", seconds(el / fraction - el));
  if (!note.empty()) s += fmt::format("; {}", note);
  return s;
}

void Progress::update(std::size_t done, std::string_view what, double fraction) {
  done = std::min(done, total_);
  if (finished_) return;  // the last line is out
  finished_ = done == total_;
  if (!(fraction >= 0 && fraction <= 1))
    fraction = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  if (done == total_) fraction = 1.0;
  // The note is asked for on every update, shown or not (it may warn by itself).
  const std::string note = note_ ? note_(fraction) : std::string();
  if (mode_ == ProgressMode::bar) {
    constexpr std::size_t kWidth = 20;
    const auto filled = static_cast<std::size_t>(std::lround(kWidth * fraction));
    std::cerr << fmt::format("\r[{}{}] {}\033[K", std::string(filled, '#'), std::string(kWidth - filled, '.'),
                             line(done, fraction, what, note));
    open_line_ = done < total_;
    g_open_line.store(open_line_);
    if (!open_line_) std::cerr << "\n";
    std::cerr.flush();
  } else if (mode_ == ProgressMode::lines) {
    // A line per eighth of the work, and the last one.
    const std::size_t step = std::max<std::size_t>(1, total_ / 8);
    if (done == total_ || done >= last_line_ + step) {
      last_line_ = done;
      std::cerr << line(done, fraction, what, note) << "\n" << std::flush;
    }
  }
}

}  // namespace hopsim
