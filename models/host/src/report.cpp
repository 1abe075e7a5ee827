#include "hopsim/host/model/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace hopsim::host::model {

std::string size_text(std::size_t s) {
  if (s >= (1u << 20) && s % (1u << 20) == 0) return fmt::format("{} MiB", s >> 20);
  if (s >= 1024 && s % 1024 == 0) return fmt::format("{} KiB", s >> 10);
  return fmt::format("{} B", s);
}

PredictReport predict_report(const std::vector<PredictRow>& rows, double max_error) {
  PredictReport r;
  double sum = 0;
  std::ostringstream out, csv;
  const bool probed = !rows.empty() && !rows.front().speed.empty();
  const bool placed = std::any_of(rows.begin(), rows.end(), [](const PredictRow& c) { return c.handover > 0; });
  // An order column only when some ring ran in random order.
  const bool ordered = std::any_of(rows.begin(), rows.end(), [](const PredictRow& c) { return c.order != "natural"; });
  out << fmt::format("{:>5} {:>9}{} {:>22} {:>12} {:>8} {:>14} {:>8} {:>9} {:>7}{}{}\n", "procs", "size",
                     ordered ? fmt::format(" {:>8}", "order") : "", "transport", "native MB/s", "spread",
                     "predicted MB/s", "error", "/memcpy", "yields", placed ? "  hand-over" : "",
                     probed ? "  CPU speeds" : "");
  csv << "procs,size,transport,used,native_MBps,native_min_MBps,native_max_MBps,native_runs,predicted_MBps,error,"
         "within,native_fraction_of_memcpy,model_yields_per_step,model_background_s,cpu_speeds,speed_drift,"
         "native_handover_ns,profile_handover_ns,placement_moved,modelled_apart,order\n";
  for (const auto& c : rows) {
    const double err = (c.predicted - c.native) / c.native;
    const double spread = c.native_min > 0 ? c.native_max / c.native_min - 1 : 0;
    const bool ok = std::abs(err) <= max_error;
    r.worst = std::max(r.worst, std::abs(err));
    sum += std::abs(err);
    r.within += ok;
    r.noisy += spread > max_error;
    const bool drifted = c.drift > kSpeedDrift;
    r.drifted += drifted;
    r.moved += c.moved;
    r.apart += c.modelled_apart;
    r.moved_within += c.moved && ok;
    const std::string speeds = fmt::format("{:.2f}", fmt::join(c.speed, " "));
    const std::string hand = !placed          ? ""
                             : c.handover > 0 ? fmt::format("  {:>6.0f} ns{}", c.handover * 1e9,
                                                            c.moved            ? " ^"
                                                            : c.modelled_apart ? " +"
                                                                               : "  ")
                                              : fmt::format("  {:>9}  ", "-");
    out << fmt::format("{:>5} {:>9}{} {:>22} {:>12.0f} {:>7.0f}% {:>14.0f} {:>+7.1f}% {:>9.2f} {:>7.2f}{}{}{}\n",
                       c.procs, size_text(c.size), ordered ? fmt::format(" {:>8}", c.order) : "", c.used_text,
                       c.native / 1e6, 100 * spread, c.predicted / 1e6, 100 * err, c.fraction, c.yields, hand,
                       probed ? fmt::format("  {:>10}{}", speeds, drifted ? " ~" : "  ") : "", ok ? "" : "  *");
    csv << fmt::format(
        "{},{},{},{},{:.1f},{:.1f},{:.1f},{},{:.1f},{:.4f},{},{:.3f},{:.3f},{:.6f},\"{}\",{:.3f},{:.1f},{:.1f},{},{},{}"
        "\n",
        c.procs, c.size, c.requested, c.used, c.native / 1e6, c.native_min / 1e6, c.native_max / 1e6, c.runs,
        c.predicted / 1e6, err, ok ? 1 : 0, c.fraction, c.yields, c.background, speeds, c.drift,
        c.handover > 0 ? c.handover * 1e9 : -1.0, c.profile_handover * 1e9, c.moved ? 1 : 0, c.modelled_apart ? 1 : 0,
        c.order);
  }
  r.cells = static_cast<int>(rows.size());
  r.mean = rows.empty() ? 0 : sum / static_cast<double>(rows.size());
  out << fmt::format("{} of {} cells within {:.0f}% (* marks the others); mean |error| {:.1f}%, worst {:.1f}%",
                     r.within, r.cells, 100 * max_error, 100 * r.mean, 100 * r.worst);
  if (!rows.empty() && rows.front().runs > 1)
    out << fmt::format("; {} cell(s) whose native runs differ by more than {:.0f}%", r.noisy, 100 * max_error);
  out << "\n";
  if (probed)
    out << fmt::format(
        "{} cell(s) ran with a CPU more than {:.0f}% off its calibrated speed (~ marks them: the machine changed "
        "since calibration)\n",
        r.drifted, 100 * kSpeedDrift);
  if (r.moved > 0)
    out << fmt::format(
        "{} cell(s) ran with the CPUs placed otherwise than when the profile's exchange tables were measured (^ "
        "marks them: their cache-line hand-over against the profile's {:.0f} ns; the hypervisor moved the virtual "
        "CPUs, which the profile cannot know); {} of the other {} cells within {:.0f}%\n",
        r.moved, rows.front().profile_handover * 1e9, r.within - r.moved_within, r.cells - r.moved, 100 * max_error);
  if (r.apart > 0)
    out << fmt::format(
        "{} cell(s) ran with the CPUs apart and were simulated on the profile's tables measured apart (+ marks them)\n",
        r.apart);
  r.table = out.str();
  r.csv = csv.str();
  return r;
}

}  // namespace hopsim::host::model
