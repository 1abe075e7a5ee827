// hopsim host calibrate: measures this machine (host::calibrate), prints
// the tables and costs, and writes them as a host model profile with the
// source of every parameter; the exchanges' rounds optionally as CSV.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include "commands.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/host/calibrate.hpp"
#include "hopsim/host/cma.hpp"
#include "hopsim/host/model/profile.hpp"
#include "hopsim/host/model/report.hpp"

namespace hopsim::host::commands {
namespace {

namespace hh = hopsim::host;

// The exchanges' rounds, one line each (calibrate --rounds-csv).
void write_rounds_csv(std::ostream& f, const hh::Calibration& c) {
  static constexpr std::array<const char*, 4> kTable{"write", "copy", "cma", "read"};
  f << "exchange,size,table,round,seconds,MBps,handover_before_ns,handover_after_ns,placement\n";
  for (std::size_t e = 0; e < c.exchanges.size(); ++e) {
    const auto& x = c.exchanges[e];
    for (std::size_t i = 0; i < x.sizes.size(); ++i)
      for (std::size_t t = 0; t < hh::ExchangeRounds::kTables; ++t)
        for (std::size_t k = 0; k < x.time[i][t].size(); ++k) {
          const double b = x.before[i][t][k], a = x.after[i][t][k], sec = x.time[i][t][k];
          const bool apart_b = b > c.split_handover, apart_a = a > c.split_handover;
          f << fmt::format("{},{},{},{},{:.9f},{:.1f},{:.1f},{:.1f},{}\n", e + 1, x.sizes[i], kTable[t], k, sec,
                           sec > 0 ? static_cast<double>(x.sizes[i]) / sec / 1e6 : 0.0, b * 1e9, a * 1e9,
                           apart_b != apart_a ? "mixed"
                           : apart_a          ? "apart"
                                              : "near");
        }
  }
}

// The profile of a calibration: its tables and costs (sources apart).
hh::model::Profile profile_of(const hh::Calibration& c) {
  hh::model::Profile p;
  p.name = "this-machine";
  p.description = fmt::format("calibrated by hopsim host calibrate on {} CPUs (Yama: {})", c.cores,
                              host::yama_rule(host::yama_ptrace_scope()));
  p.cores = c.cores;
  for (auto s : c.sizes) p.sizes.push_back(static_cast<double>(s));
  p.core_speed = c.core_speed;
  p.checksum_rate = c.checksum_rate;
  p.memcpy_bw = c.memcpy_bw;
  p.memcpy_bw_all = c.memcpy_bw_all;
  p.read_bw = c.read_bw;
  p.cma_bw = c.cma_bw;
  p.xwrite_bw = c.xwrite_bw;
  p.xcopy_bw = c.xcopy_bw;
  p.xcma_bw = c.xcma_bw;
  p.xread_bw = c.xread_bw;
  p.step8_double = c.step8_double;
  p.step8_cma = c.step8_cma;
  p.step8_zero = c.step8_zero;
  p.c2c_latency = c.c2c_latency;
  p.exchange_handover = c.exchange_handover;
  p.xwrite_bw_apart = c.xwrite_bw_apart;
  p.xcopy_bw_apart = c.xcopy_bw_apart;
  p.xcma_bw_apart = c.xcma_bw_apart;
  p.xread_bw_apart = c.xread_bw_apart;
  p.apart_handover = c.apart_handover;
  p.syscall = c.syscall;
  p.switch_cost = c.switch_cost;
  p.switch_cost_many = c.switch_cost_many;
  p.cma_call = c.cma_call;
  p.cma_per_page = c.cma_per_page;
  p.remap_call = c.remap_call;
  p.remap_per_page = c.remap_per_page;
  p.cma_ok = c.cma_ok;
  p.background_load = c.background_load;
  p.spin_time = c.spin_time;
  p.preempt_slice = c.preempt_slice;
  p.yield_delay = c.yield_delay;
  p.yield_delay_median = c.yield_delay_median;
  return p;
}

using Sources = std::map<std::string, std::string>;

// Where the tables' entries came from.
Sources table_sources(const hh::Calibration& c) {
  const std::string m = "calibrated: hopsim host calibrate, ";
  return {
      {"cores", m + "CPUs in this process's affinity mask"},
      {"core_speed", m + "per CPU: the ring's checksum rate over 256 KiB with one pinned process per CPU, all at once "
                         "(total bytes / total time) / checksum_rate (the single-process tables' condition), probed in "
                         "each of the tables' five passes (the mean over them: the same moments as the tables)"},
      {"checksum_rate",
       m + "the ring's checksum over 256 KiB on the first CPU alone, total time over 1 ms batches (their mean)"},
      {"sizes", m + "table sizes"},
      {"memcpy_bw",
       m + "one process on the first CPU, memcpy of size bytes between two buffers, mean over 1 ms batches"},
      {"memcpy_bw_all",
       m + "one process per CPU (pinned) copying at once, sum of their rates (each the mean over 1 ms batches)"},
      {"read_bw", m + "the ring's checksum pass over size bytes, mean over 1 ms batches"},
      {"cma_bw", c.cma_ok ? m + "process_vm_readv of size bytes from a child process (huge-page buffers, as the ring's)"
                          : "CMA refused here: " + c.cma_note},
      {"xwrite_bw",
       m + fmt::format(
               "two processes pinned to two CPUs at once, each memcpy of size bytes into the shared "
               "slot the other reads next, timed until the stores are visible (a fence); median over the rounds "
               "run near ({} per exchange at the largest size) of the "
               "slower one, each time scaled by its CPU's speed probed just before; measured after the "
               "single-process tables and at the end (up to 4 exchanges until both placements met every "
               "size), per size the faster; an entry met apart only: the apart one times the median "
               "near/apart ratio",
               c.exchange_rounds)},
      {"xcopy_bw", m + "same exchange, each memcpy out of the shared slot the other just wrote into a private buffer"},
      {"xcma_bw", c.cma_ok ? m + "same exchange, each process_vm_readv of the other's send buffer into its own "
                                 "receive buffer (the CMA transport's pull)"
                           : "CMA refused here: " + c.cma_note},
      {"xread_bw",
       m + "same exchange, each checksums its receive buffer right after its own process_vm_readv wrote it"},
      {"step8_double", m + "two processes pinned to two CPUs exchange 8-byte messages with the double-copy transport "
                           "(host::Node sendrecv); median seconds per step over batches of 256; the part beyond "
                           "the flag latencies (and CMA's call) scaled by the slower CPU's speed probed just before; "
                           "measured after the exchange and at the end of the calibration, the faster counts"},
      {"step8_cma", c.cma_ok ? m + "same, over the CMA transport (sending from its buffers, acquire + sendrecv)"
                             : "CMA refused here: " + c.cma_note},
      {"step8_zero", m + "same, over the zero-copy transport (acquire + sendrecv_view)"},
      {"c2c_latency", m + "ping-pong on one cache line between processes pinned to two CPUs, half a round trip"},
      {"exchange_handover",
       m + fmt::format("the same ping-pong ({} round trips, fastest batch of 25) between the exchange's two "
                       "processes before and after each of up to {} blocks of rounds per size; the median over the "
                       "blocks whose rounds the tables keep (the largest over exchanges); the probes split at the "
                       "widest gap over 2.5x into near and apart",
                       hh::kPlacementRounds, hh::kPlacementBlocks)},
      {"xwrite_bw_apart", m + "the exchanges' rounds (as xwrite_bw) whose blocks were probed apart before and after "
                              "(the upper side of the widest gap), per size the faster over exchanges; an entry "
                              "met near only: the near one times the median apart/near ratio"},
      {"xcopy_bw_apart", m + "same, as xcopy_bw"},
      {"xcma_bw_apart", m + "same, as xcma_bw"},
      {"xread_bw_apart", m + "same, as xread_bw"},
      {"apart_handover", m + "the median hand-over probed around those rounds' blocks (as exchange_handover)"},
  };
}

// Where the costs' and the machine's other parameters came from.
Sources cost_sources(const hh::Calibration& c) {
  const std::string m = "calibrated: hopsim host calibrate, ";
  return {
      {"syscall", m + "syscall(SYS_getppid)"},
      {"switch_cost", m + "ping-pong with sched_yield between two processes pinned to one CPU, per hand-over"},
      {"switch_cost_many",
       m + "four processes pinned to one CPU, each calling sched_yield in a loop: wall time / "
           "context switches (getrusage), fastest of 3 trials at the start and 3 at the end of the calibration"},
      {"cma_call", m + "process_vm_readv of 8 bytes"},
      {"cma_per_page", m + "least-squares slope of process_vm_readv time over 4 KiB pages, sizes >= 64 KiB"},
      {"remap_call", m + "mmap(MAP_SHARED|MAP_POPULATE)+munmap of a memfd range, fixed part of a least-squares line"},
      {"remap_per_page", m + "same, per 4 KiB page"},
      {"background_load", m + "one spinning process per CPU: other runnable processes = CPUs x (1/share - 1), share = "
                              "CPU time / wall time"},
      {"spin_time", m + "the transports' spin before a yield: 200 pause instructions (host::kSpinPauses)"},
      {"yield_delay", m + fmt::format("mean delay until a waiter pinned to one CPU that spun out and yields "
                                      "(the transports' wait) sees a flag set from another CPU ({} trials)",
                                      c.yield_trials)},
      {"yield_delay_median", m + "median of the same trials"},
      {"preempt_slice",
       m + fmt::format("mean length of the gaps over 50 us in the timeline of one spinning process per CPU ({} gaps; "
                       "0: none)",
                       c.preempt_count)},
      {"cma_ok", c.cma_ok ? m + "process_vm_readv from a child succeeded" : "CMA refused here: " + c.cma_note},
  };
}

// The tables, one line per size.
void print_tables(const hh::Calibration& c) {
  std::cout << fmt::format(
      "{:>10} {:>12} {:>14} {:>12} {:>12} | exchange between two CPUs, MB/s: {:>8} {:>8} {:>8} {:>8}\n", "size",
      "memcpy MB/s", "all-CPU MB/s", "read MB/s", "CMA MB/s", "write", "copy", "CMA", "read");
  for (std::size_t i = 0; i < c.sizes.size(); ++i)
    std::cout << fmt::format("{:>10} {:>12.0f} {:>14.0f} {:>12.0f} {:>12.0f} | {:>42.0f} {:>8.0f} {:>8.0f} {:>8.0f}\n",
                             model::size_text(c.sizes[i]), c.memcpy_bw[i] / 1e6, c.memcpy_bw_all[i] / 1e6,
                             c.read_bw[i] / 1e6, c.cma_bw[i] / 1e6, c.xwrite_bw[i] / 1e6, c.xcopy_bw[i] / 1e6,
                             c.xcma_bw[i] / 1e6, c.xread_bw[i] / 1e6);
}

// The costs and the CPUs' speeds.
void print_costs(const hh::Calibration& c) {
  std::cout << fmt::format(
      "cores {}  background load {:.2f} (preempt slice {:.0f} us, {} gaps)  c2c latency {:.0f} ns  syscall {:.0f} ns  "
      "spin {:.0f} ns  yield delay {:.0f} ns (median {:.0f} ns)  switch {:.0f} ns (among 4: {:.0f})  CMA call {:.0f} "
      "ns, {:.0f} ns/page  "
      "remap {:.0f} ns + {:.0f} ns/page\n",
      c.cores, c.background_load, c.preempt_slice * 1e6, c.preempt_count, c.c2c_latency * 1e9, c.syscall * 1e9,
      c.spin_time * 1e9, c.yield_delay * 1e9, c.yield_delay_median * 1e9, c.switch_cost * 1e9, c.switch_cost_many * 1e9,
      c.cma_call * 1e9, c.cma_per_page * 1e9, c.remap_call * 1e9, c.remap_per_page * 1e9);
  const std::string speeds = fmt::format("{:.2f} (probed in the tables' passes; at the end: {:.2f})",
                                         fmt::join(c.core_speed, " "), fmt::join(c.speed_end, " "));
  const std::string xs = fmt::format("{:.2f}", fmt::join(c.exchange_speed, " "));
  std::cout << fmt::format(
      "CPU speeds, all busy (checksum rate / the first CPU's alone): {} (before the exchange: {})  8-byte step: double "
      "copy {:.2f} "
      "us, CMA {:.2f} us, zero copy {:.2f} us\n",
      speeds, xs, c.step8_double * 1e6, c.step8_cma * 1e6, c.step8_zero * 1e6);
}

// The CPUs' speed spells and, with an exchange, their placement.
void print_spells_and_placement(const hh::Calibration& c) {
  if (c.spells.slow_share > 0)
    std::cout << fmt::format(
        "CPU speed spells: slow {:.0f}% of the time at {:.2f} of full speed, {:.2f} ms per slow spell, in 100 us "
        "batches of the all-busy probe. These CPUs are not steady (a host core shared with other work?): the model "
        "runs each at its mean speed, and predictions made with this profile can be off by up to the difference\n",
        100 * c.spells.slow_share, c.spells.slow_speed, c.spells.slow_dwell * 1e3);
  else
    std::cout << "CPU speed spells: none (the CPUs kept their speed within 3/4 of full in 100 us batches)\n";
  if (c.exchange_handover > 0) {
    const bool apart = host::apart_from(c.exchange_handover, c.c2c_latency);
    std::cout << fmt::format(
        "CPU placement: the exchanges' rounds ran in blocks with a cache-line hand-over probed around each: {} "
        "rounds near ({:.0f} ns), {} apart{}, {} in blocks whose placement changed (not used); fastest hand-over "
        "{:.0f} ns. {}{}\n",
        c.rounds_near, c.exchange_handover * 1e9, c.rounds_apart,
        c.apart_handover > 0 ? fmt::format(" ({:.0f} ns)", c.apart_handover * 1e9) : "", c.rounds_mixed,
        c.c2c_latency * 1e9,
        apart ? "The tables kept were measured with the CPUs apart (the hypervisor ran them on distant cores "
                "throughout: data crossing between them goes about 3x slower than near, and rings run near will "
                "beat the prediction)"
        : c.apart_handover > 0
            ? "The near rounds give the tables, the apart ones the apart tables, for rings run while the "
              "hypervisor holds the CPUs apart (host predict --placement probed)"
            : "No other placement met during the calibration; host predict marks the cells of a ring run in "
              "another (a hand-over more than 2.5x off; data crossing between CPUs apart goes about 3x slower "
              "than near), and the profile has no apart tables to simulate them with",
        c.entries_filled > 0 ? fmt::format("; {} table entries met in one placement only were filled from the "
                                           "other (times the median ratio of the two)",
                                           c.entries_filled)
                             : "");
  }
}

}  // namespace

int cmd_calibrate(const std::string& out, bool quick, const std::optional<std::string>& rounds_csv) {
  check_writable(out, "--out");  // before the measurement
  // The rounds go to FILE.partial, opened first (a path that cannot be
  // written fails before the measurement) and renamed over FILE once
  // complete (a failed calibration leaves an earlier FILE as it was).
  std::optional<AtomicFile> rounds;
  if (rounds_csv) {
    try {
      rounds.emplace(*rounds_csv);
    } catch (const Error&) {
      throw ConfigError(fmt::format("--rounds-csv: cannot write '{}'", partial_path(*rounds_csv).string()));
    }
  }
  hh::CalibrateOptions o;
  if (quick) {
    o.seconds_per_point = 0.006;
    o.pingpong_rounds = 2000;
  }
  std::cout << fmt::format(
      "Calibrating this machine ({} s per point; rates: the mean over 1 ms batches, latencies: the fastest batch)...\n",
      o.seconds_per_point);
  const auto c = hh::calibrate(o);
  auto p = profile_of(c);
  p.sources = table_sources(c);
  p.sources.merge(cost_sources(c));
  print_tables(c);
  print_costs(c);
  print_spells_and_placement(c);
  if (!c.cma_ok) std::cout << "CMA: " << c.cma_note << "\n";
  hh::model::save_profile(p, out);
  std::cout << "profile written to " << out << "\n";
  if (rounds_csv) {
    write_rounds_csv(rounds->stream(), c);
    rounds->commit();
    std::cout << "exchange rounds written to " << *rounds_csv << "\n";
  }
  return 0;
}

}  // namespace hopsim::host::commands
