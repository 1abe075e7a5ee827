#pragma once
// Progress of work that may take more than a few seconds, on standard error:
// what is done of how much, the time elapsed and an estimate of the time left.
//
// Modes (every command's --progress, or HOPSIM_PROGRESS when no option is given):
//   auto   one self-overwriting line when standard error is a terminal, nothing
//          otherwise (logs and pipes stay quiet); the default
//   bar    that line with a bar, terminal or not
//   lines  a line per eighth of the work (for logs)
//   off    nothing
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace hopsim {

enum class ProgressMode { automatic, bar, lines, off };

// "auto", "bar", "lines" or "off"; anything else is a ConfigError naming `what` and the value.
ProgressMode parse_progress_mode(std::string_view s, std::string_view what = "--progress");
std::string_view to_string(ProgressMode m);

// The process-wide mode: set by a command's --progress; until then HOPSIM_PROGRESS or auto.
void set_progress_mode(ProgressMode m);
ProgressMode progress_mode();

// Ends a progress line left open on the terminal, so that a message written next starts on a
// line of its own (the line is drawn again at the next update). Call before writing to stderr
// while a Progress may be shown.
void end_progress_line();

class Progress {
 public:
  // `label` starts each line ("sweep", "[sim]"); `total` units of work.
  Progress(std::string label, std::size_t total, ProgressMode mode = progress_mode());
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` of the total are finished; `what` names the last one ("unicast n=3"). `fraction`,
  // when in [0, 1], is the share of the work done for the ETA and the note (units of unequal
  // size); otherwise done / total.
  void update(std::size_t done, std::string_view what = {}, double fraction = -1);
  // A note appended to the line, computed from the fraction done (e.g. a trace's projected
  // size); called on every update, shown or not.
  void set_note(std::function<std::string(double fraction)> note) { note_ = std::move(note); }
  // Whether anything is shown at all.
  bool visible() const { return mode_ != ProgressMode::off; }
  double elapsed_seconds() const;

 private:
  std::string line(std::size_t done, double fraction, std::string_view what, std::string_view note) const;

  std::string label_;
  std::size_t total_;
  ProgressMode mode_;  // resolved: bar, lines or off
  std::size_t last_line_ = 0;
  bool open_line_ = false;
  bool finished_ = false;  // done reached total: later updates show nothing  // a terminal line without its newline yet
  std::chrono::steady_clock::time_point start_;
  std::function<std::string(double)> note_;
};

}  // namespace hopsim
