// hopsim host: the host's intra-node copy paths. calibrate measures this
// machine into a profile; ring runs the hpcc-style ring natively; simulate
// runs it on the host model; predict does both and reports the error per cell.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "hopsim/core/commands.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/family.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/program.hpp"
#include "hopsim/core/report.hpp"
#include "hopsim/core/units.hpp"
#include "hopsim/host/buffer.hpp"
#include "hopsim/host/calibrate.hpp"
#include "hopsim/host/cma.hpp"
#include "hopsim/host/model/model.hpp"
#include "hopsim/host/model/profile.hpp"
#include "hopsim/host/model/report.hpp"
#include "hopsim/host/ring.hpp"

namespace hopsim::host {
namespace {

namespace hh = hopsim::host;
using host::Kind;

struct RingArgs {
  std::vector<int> procs{2, 4, 8};
  std::vector<std::string> sizes{"4KiB", "64KiB", "1MiB", "4MiB"};
  std::vector<std::string> transports{"double-copy", "cma", "zero-copy"};
  std::string order = "natural";
  std::uint64_t seed = 1;
  int reps = 3;
  std::string bytes = "16MiB";
  int min_steps = 16;
  bool remap = false;
  std::string chunk = "64KiB";  // double copy: bounce-buffer slot size
  int slots = 4;                // double copy: slots per channel
  int cma_buffers = 4;          // CMA: send buffers from the transport (0: rendezvous)
  bool deny_cma = false;
  bool small_pages = false;  // native: 4 KiB pages for the message buffers
  std::string bind = "spread";
  std::optional<std::string> profile;
  std::optional<std::string> csv;
};

void add_ring_options(CLI::App* s, RingArgs& a, bool native) {
  s->add_option("--procs", a.procs, "ring sizes (processes), e.g. 2,4,8")->delimiter(',')->capture_default_str();
  s->add_option("--sizes", a.sizes, "message sizes, e.g. 4KiB,64KiB,1MiB")->delimiter(',')->capture_default_str();
  s->add_option("--transport", a.transports, "double-copy, cma, zero-copy (comma list)")
      ->delimiter(',')
      ->capture_default_str();
  s->add_flag("--remap", a.remap, "zero copy pays a page remap per message (as page flipping would)");
  s->add_option("--chunk", a.chunk, "double copy: size of a bounce-buffer slot (a message moves in chunks of it)")
      ->capture_default_str();
  s->add_option("--slots", a.slots, "double copy: slots per channel (chunks in flight)")->capture_default_str();
  s->add_option("--cma-buffers", a.cma_buffers,
                "CMA: send buffers taken from the transport, so a sender goes on while its last messages are "
                "pulled (1 to 16); 0: send from the ring's own buffer and wait for each pull (a blocking "
                "MPI_Sendrecv's rendezvous)")
      ->capture_default_str();
  s->add_option("--reps", a.reps, "timed repetitions per cell; the fastest counts")->capture_default_str();
  s->add_option("--bytes", a.bytes, "data each process receives per repetition")->capture_default_str();
  s->add_option("--min-steps", a.min_steps,
                "at least this many timed steps per repetition (large messages; 4 steps of 4 MiB vary by 30-60% "
                "between runs here, 16 by under 10%)")
      ->capture_default_str();
  if (native) {
    s->add_option("--order", a.order, "ring order: natural, random or both")->capture_default_str();
    s->add_option("--seed", a.seed, "seed of the random ring order")->capture_default_str();
    s->add_option("--bind", a.bind,
                  "rank placement: spread (rank r pinned to CPU r mod n of the allowed CPUs, what the host model "
                  "assumes) or none (the kernel places and migrates them)")
        ->capture_default_str();
    s->add_flag(
        "--deny-cma", a.deny_cma,
        "test aid: every rank makes itself inaccessible to CMA, so the kernel refuses it and the fallback runs");
  }
  s->add_option("--csv", a.csv, "also write the table as CSV to this file");
}

std::vector<std::size_t> parse_sizes(const std::vector<std::string>& v) {
  std::vector<std::size_t> out;
  for (const auto& s : v) {
    const double b = parse_quantity(std::string_view(s), Dim::bytes, "--sizes");
    if (b < 8 || b != std::floor(b))
      throw ConfigError(fmt::format("--sizes: '{}' is not a whole number of bytes >= 8", s));
    out.push_back(static_cast<std::size_t>(b));
  }
  return out;
}

std::vector<Kind> parse_kinds(const std::vector<std::string>& v) {
  std::vector<Kind> out;
  for (const auto& s : v) out.push_back(host::parse_kind(s, "--transport"));
  return out;
}

hh::model::CopyPath to_path(Kind k) {
  switch (k) {
    case Kind::double_copy:
      return hh::model::CopyPath::double_copy;
    case Kind::cma:
      return hh::model::CopyPath::cma;
    case Kind::zero_copy:
      return hh::model::CopyPath::zero_copy;
  }
  return hh::model::CopyPath::double_copy;
}

using hh::model::size_text;

// The double-copy bounce buffer of --chunk and --slots, checked.
std::pair<std::size_t, int> bounce_of(const RingArgs& a) {
  const double c = parse_quantity(std::string_view(a.chunk), Dim::bytes, "--chunk");
  if (c < 64 || c != std::floor(c) || c > double(1u << 30))
    throw ConfigError(fmt::format("--chunk: '{}' (a whole number of bytes from 64 B to 1 GiB)", a.chunk));
  if (a.slots < 1 || a.slots > host::kMaxSlots)
    throw ConfigError(fmt::format("--slots: {} (1 to {})", a.slots, host::kMaxSlots));
  if (a.cma_buffers < 0 || a.cma_buffers > host::kMaxSlots)
    throw ConfigError(fmt::format("--cma-buffers: {} (0 for a rendezvous, 1 to {} transport buffers)", a.cma_buffers,
                                  host::kMaxSlots));
  return {static_cast<std::size_t>(c), a.slots};
}

// Probes the CPUs' rates (hh::checksum_rates), B/s per CPU.
using Probe = std::function<std::vector<double>()>;

// Native cells for every procs x transport x order, in that order. With a
// probe, the CPUs are probed before the first launch and after each, and
// every cell gets the mean of the probes around its launch in `rates`.
std::vector<hh::RingCell> run_native(const RingArgs& a, const Probe& probe = {},
                                     std::vector<std::vector<double>>* rates = nullptr) {
  const auto sizes = parse_sizes(a.sizes);
  const auto kinds = parse_kinds(a.transports);
  if (a.order != "natural" && a.order != "random" && a.order != "both")
    throw ConfigError(fmt::format("--order: '{}' (expected natural, random or both)", a.order));
  const double bytes = parse_quantity(std::string_view(a.bytes), Dim::bytes, "--bytes");
  if (a.min_steps < 1) throw ConfigError(fmt::format("--min-steps: {} (at least 1)", a.min_steps));
  const auto bind = host::parse_bind(a.bind, "--bind");
  std::vector<hh::RingCell> cells;
  std::vector<double> before = probe ? probe() : std::vector<double>{};
  for (int p : a.procs)
    for (Kind k : kinds)
      for (bool random : {false, true}) {
        if ((random && a.order == "natural") || (!random && a.order == "random")) continue;
        hh::RingOptions o;
        o.procs = p;
        o.kind = k;
        o.random_order = random;
        o.seed = a.seed;
        o.sizes = sizes;
        o.reps = a.reps;
        o.bytes_per_rep = static_cast<std::size_t>(bytes);
        o.min_iters = a.min_steps;
        o.remap = a.remap;
        std::tie(o.chunk, o.slots) = bounce_of(a);
        o.cma_buffers = a.cma_buffers;
        o.deny_cma = a.deny_cma;
        o.huge_pages = !a.small_pages;
        o.bind = bind;
        const auto got = hh::run_ring(o);
        if (!got.empty() && !got.front().fallback.empty())
          std::cerr << "hopsim host ring: " << got.front().fallback << "\n";
        cells.insert(cells.end(), got.begin(), got.end());
        if (probe && rates) {
          auto after = probe();
          std::vector<double> mean(after.size());
          for (std::size_t c = 0; c < after.size(); ++c)
            mean[c] = c < before.size() ? 0.5 * (before[c] + after[c]) : after[c];
          rates->insert(rates->end(), got.size(), mean);
          before = std::move(after);
        }
      }
  return cells;
}

std::string used_text(const hh::RingCell& c) {
  return c.fallback.empty() ? std::string(host::kind_name(c.used))
                            : fmt::format("{} (fallback)", host::kind_name(c.used));
}

// The exchanges' rounds, one line each (calibrate --rounds-csv).
// --csv FILE, opened before any measurement so a bad path fails at once.
std::unique_ptr<AtomicFile> open_csv(const std::optional<std::string>& path) {
  if (!path) return nullptr;
  try {
    return std::make_unique<AtomicFile>(*path);
  } catch (const Error&) {
    throw ConfigError(fmt::format("--csv: cannot write '{}'", *path));
  }
}

void write_rounds_csv(std::ostream& f, const hh::Calibration& c) {
  static constexpr const char* kTable[] = {"write", "copy", "cma", "read"};
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

int cmd_calibrate(const std::string& out, bool quick, const std::optional<std::string>& rounds_csv) {
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
  const std::string m = "calibrated: hopsim host calibrate, ";
  p.sources = {
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
  std::cout << fmt::format(
      "{:>10} {:>12} {:>14} {:>12} {:>12} | exchange between two CPUs, MB/s: {:>8} {:>8} {:>8} {:>8}\n", "size",
      "memcpy MB/s", "all-CPU MB/s", "read MB/s", "CMA MB/s", "write", "copy", "CMA", "read");
  for (std::size_t i = 0; i < c.sizes.size(); ++i)
    std::cout << fmt::format("{:>10} {:>12.0f} {:>14.0f} {:>12.0f} {:>12.0f} | {:>42.0f} {:>8.0f} {:>8.0f} {:>8.0f}\n",
                             model::size_text(c.sizes[i]), c.memcpy_bw[i] / 1e6, c.memcpy_bw_all[i] / 1e6,
                             c.read_bw[i] / 1e6, c.cma_bw[i] / 1e6, c.xwrite_bw[i] / 1e6, c.xcopy_bw[i] / 1e6,
                             c.xcma_bw[i] / 1e6, c.xread_bw[i] / 1e6);
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

// One line saying where the ranks ran.
std::string placement_text(const RingArgs& a) {
  return host::parse_bind(a.bind, "--bind") == host::Bind::spread
             ? "ranks pinned: rank r on CPU r mod n of the n allowed CPUs (--bind spread, as the host model places "
               "them)"
             : "ranks not pinned (--bind none): the kernel placed and migrated them; the host model assumes rank r "
               "on core r mod cores";
}

// Where the hypervisor ran ranks 0 and 1's CPUs during the fastest
// repetitions (RingCell::handover): "" when not probed; otherwise the
// range, and the cells that ran apart relative to the nearest seen (or to
// `near`, the profile's, when given).
std::string handover_text(const std::vector<hh::RingCell>& cells, double near = 0) {
  double lo = 1e300, hi = 0;
  for (const auto& c : cells)
    if (c.handover > 0) {
      lo = std::min(lo, c.handover);
      hi = std::max(hi, c.handover);
    }
  if (hi <= 0) return "";
  const double ref = near > 0 ? near : lo;
  std::vector<std::string> apart;
  for (const auto& c : cells)
    if (host::apart_from(c.handover, ref))
      apart.push_back(fmt::format("{}p {} {}", c.procs, model::size_text(c.size), host::kind_name(c.requested)));
  std::string out = fmt::format(
      "CPU placement: ranks 0 and 1 handed a cache line over in {:.0f}-{:.0f} ns around the fastest repetitions",
      lo * 1e9, hi * 1e9);
  if (apart.empty()) return out + "\n";
  return out + fmt::format(
                   "; {} cell(s) ran with the CPUs apart (over {:.1f}x the {} {:.0f} ns: the hypervisor ran them on "
                   "distant cores, and data crossing between them goes about 3x slower): {}\n",
                   apart.size(), host::kApartRatio, near > 0 ? "profile's" : "nearest", ref * 1e9,
                   fmt::join(apart, ", "));
}

// One line saying how CMA senders used their buffers ("" unless a cell
// ran over CMA: not requested, or refused and fallen back).
std::string cma_text(const RingArgs& a, const std::vector<hh::RingCell>& cells) {
  if (std::none_of(cells.begin(), cells.end(), [](const hh::RingCell& c) { return c.used == Kind::cma; })) return "";
  if (a.cma_buffers == 0)
    return "CMA: each sender waited for its message's pull (--cma-buffers 0, a blocking MPI_Sendrecv's rendezvous)\n";
  return fmt::format(
      "CMA: senders sent from {} transport buffers each and went on while their messages were pulled "
      "(--cma-buffers; 0 waits for each pull)\n",
      a.cma_buffers);
}

// One line saying what pages backed the copying transports' message buffers.
std::string pages_text(const std::vector<hh::RingCell>& cells) {
  long least = -1;
  bool any = false, huge = true;
  for (const auto& c : cells) {
    if (c.requested == Kind::zero_copy) continue;
    huge = c.huge_pages;
    if (c.huge_kib >= 0) least = any ? std::min(least, c.huge_kib) : c.huge_kib;
    any = true;
  }
  if (!any) return "message buffers: zero copy's shared pool (4 KiB shared-memory pages)";
  if (!huge) return "message buffers: 4 KiB pages (--small-pages)";
  const std::string mode = host::thp_mode();
  if (least < 0)
    return fmt::format("message buffers: huge pages asked for (THP {}); /proc/self/smaps unreadable", mode);
  if (least == 0)
    return fmt::format(
        "message buffers: huge pages asked for, none given (THP {}): 4 KiB pages, CMA pays more per page", mode);
  return fmt::format(
      "message buffers: transparent huge pages (THP {}; at least {} KiB of each rank's send and receive "
      "buffers); --small-pages for 4 KiB pages",
      mode, least);
}

// Per ring size and order, CMA's bandwidth over double copy's at each
// message size (the comparison), one line each; "" unless both ran
// (and CMA was not refused).
std::string cma_ratio_text(const std::vector<hh::RingCell>& cells) {
  std::map<std::tuple<int, std::string, std::size_t>, double> cma, dc;
  for (const auto& c : cells) {
    if (c.requested == Kind::cma && c.used == Kind::cma) cma[{c.procs, c.order, c.size}] = c.bandwidth;
    if (c.requested == Kind::double_copy) dc[{c.procs, c.order, c.size}] = c.bandwidth;
  }
  std::map<std::pair<int, std::string>, std::vector<std::string>> lines;
  for (const auto& [k, bw] : cma) {
    const auto it = dc.find(k);
    if (it == dc.end() || it->second <= 0) continue;
    lines[{std::get<0>(k), std::get<1>(k)}].push_back(
        fmt::format("{} {:.2f}x", model::size_text(std::get<2>(k)), bw / it->second));
  }
  std::string out;
  for (const auto& [k, parts] : lines)
    out += fmt::format("CMA over double copy, {} processes, {} order: {}\n", k.first, k.second, fmt::join(parts, ", "));
  return out;
}

int cmd_ring(const RingArgs& a) {
  const auto cells = run_native(a);
  std::optional<hh::model::Profile> prof;
  if (a.profile) prof = hh::model::load_profile(*a.profile);
  std::map<std::size_t, double> mbw;
  for (const auto& c : cells)
    if (!mbw.count(c.size))
      mbw[c.size] = prof ? prof->at(prof->memcpy_bw, static_cast<double>(c.size)) : hh::memcpy_bandwidth(c.size, 0.02);
  std::cout << fmt::format(
      "hpcc-style ring, native: bandwidth = bytes received per process per second (fastest of {} repetitions)\n",
      a.reps);
  std::cout << fmt::format("{:>5} {:>9} {:>8} {:>12} {:>22} {:>10} {:>9} {:>7}\n", "procs", "size", "order",
                           "transport", "used", "MB/s", "/memcpy", "iters");
  auto csv = open_csv(a.csv);
  if (csv) {
    csv->stream()
        << "procs,size,order,transport,used,bandwidth_MBps,fraction_of_memcpy,memcpy_MBps,iters,seconds,messages_"
           "checked,fallback,bind,cpus,huge_kib,handover_ns\n";
  }
  for (const auto& c : cells) {
    const double frac = c.bandwidth / mbw[c.size];
    std::cout << fmt::format("{:>5} {:>9} {:>8} {:>12} {:>22} {:>10.0f} {:>9.2f} {:>7}\n", c.procs,
                             model::size_text(c.size), c.order, host::kind_name(c.requested), used_text(c),
                             c.bandwidth / 1e6, frac, c.iters);
    if (csv)
      csv->stream() << fmt::format("{},{},{},{},{},{:.1f},{:.3f},{:.1f},{},{:.6f},{},{},{},{},{},{:.1f}\n", c.procs,
                                   c.size, c.order, host::kind_name(c.requested), host::kind_name(c.used),
                                   c.bandwidth / 1e6, frac, mbw[c.size] / 1e6, c.iters, c.seconds, c.messages_checked,
                                   csv_field(c.fallback), host::bind_name(c.bind),
                                   csv_field(fmt::format("{}", fmt::join(c.cpu_of_rank, " "))), c.huge_kib,
                                   c.handover > 0 ? c.handover * 1e9 : -1.0);
  }
  std::cout << "every message checksummed by its receiver: all matched\n";
  std::cout << cma_ratio_text(cells);
  std::cout << placement_text(a) << "\n";
  std::cout << handover_text(cells, prof ? prof->exchange_handover : 0.0);
  std::cout << cma_text(a, cells);
  std::cout << pages_text(cells) << "\n";
  if (csv) {
    csv->commit();
    std::cout << "CSV written to " << *a.csv << "\n";
  }
  return 0;
}

// One cell to simulate: what the native ring ran.
struct Key {
  int procs;
  Kind kind;
  std::size_t size;
  int iters;
};

// Simulated cells, each with the native ring's iterations and repetitions
// (the fastest repetition counts, as natively).
std::vector<hh::model::SimResult> simulate(const hh::model::Profile& p, const std::vector<Key>& keys, const RingArgs& a,
                                           const std::vector<std::vector<double>>& speeds = {}) {
  const auto [chunk, slots] = bounce_of(a);
  std::vector<hh::model::SimCell> cells;
  for (const auto& k : keys) {
    hh::model::SimCell c;
    if (!speeds.empty()) c.core_speed = speeds[cells.size()];
    c.procs = k.procs;
    c.size = k.size;
    c.path = to_path(k.kind);
    c.remap = a.remap;
    c.chunk = chunk;
    c.slots = slots;
    c.cma_buffers = a.cma_buffers;
    c.iters = k.iters;
    c.reps = a.reps;
    cells.push_back(c);
  }
  return hh::model::simulate_ring(p, cells);
}

int cmd_simulate(const RingArgs& a) {
  if (!a.profile) throw ConfigError("--profile: required (a profile file or a host preset such as host-smp32)");
  const auto p = hh::model::load_profile(*a.profile);
  if (a.reps < 1) throw ConfigError("--reps: at least 1");
  if (a.min_steps < 1) throw ConfigError(fmt::format("--min-steps: {} (at least 1)", a.min_steps));
  hh::RingOptions ro;
  ro.bytes_per_rep = static_cast<std::size_t>(parse_quantity(std::string_view(a.bytes), Dim::bytes, "--bytes"));
  ro.min_iters = a.min_steps;
  std::vector<Key> keys;
  for (int n : a.procs)
    for (Kind k : parse_kinds(a.transports))
      for (auto s : parse_sizes(a.sizes)) keys.push_back({n, k, s, hh::ring_iters(ro, s)});
  const auto res = simulate(p, keys, a);
  std::cout << fmt::format("hpcc-style ring on the host model '{}' ({} cores): bytes received per process per second\n",
                           p.name, p.cores);
  std::cout << fmt::format("{:>5} {:>9} {:>12} {:>10} {:>9} {:>12}\n", "procs", "size", "transport", "MB/s", "/memcpy",
                           "yields/step");
  auto csv = open_csv(a.csv);
  if (csv) {
    csv->stream() << "procs,size,transport,predicted_MBps,fraction_of_memcpy,yields_per_step,background_s\n";
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto& k = keys[i];
    const double frac = res[i].bandwidth / p.at(p.memcpy_bw, static_cast<double>(k.size));
    std::cout << fmt::format("{:>5} {:>9} {:>12} {:>10.0f} {:>9.2f} {:>12.2f}\n", k.procs, model::size_text(k.size),
                             host::kind_name(k.kind), res[i].bandwidth / 1e6, frac, res[i].yields);
    if (csv)
      csv->stream() << fmt::format("{},{},{},{:.1f},{:.3f},{:.3f},{:.6f}\n", k.procs, k.size, host::kind_name(k.kind),
                                   res[i].bandwidth / 1e6, frac, res[i].yields, res[i].background);
  }
  if (csv) csv->commit();
  return 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int cmd_predict(RingArgs a, bool check, double max_error, int runs, const std::string& cpu_speed,
                const std::string& placement) {
  if (!a.profile) throw ConfigError("--profile: required (written by hopsim host calibrate)");
  if (runs < 1) throw ConfigError(fmt::format("--runs: {} (at least 1)", runs));
  if (cpu_speed != "calibrated" && cpu_speed != "probed")
    throw ConfigError(fmt::format("--cpu-speed: '{}' (expected calibrated or probed)", cpu_speed));
  if (placement != "calibrated" && placement != "probed")
    throw ConfigError(fmt::format("--placement: '{}' (expected calibrated or probed)", placement));
  const auto p = hh::model::load_profile(*a.profile);
  if (placement == "probed" && !p.has_apart())
    std::cerr << fmt::format(
        "hopsim host predict: --placement probed: profile '{}' has no exchange tables measured with the CPUs apart "
        "(its calibration did not meet that placement); every cell is simulated in the profile's placement\n",
        p.name);
  // The CPUs' speeds around every native launch, relative to the rate the
  // profile's tables were measured at; a profile without that reference (a
  // described machine) cannot be compared with this one's CPUs.
  const bool probing = p.checksum_rate > 0;
  if (cpu_speed == "probed" && !probing)
    throw ConfigError(fmt::format(
        "--cpu-speed probed: profile '{}' has no checksum_rate (0), so probed CPU speeds have nothing to be relative "
        "to; recalibrate with hopsim host calibrate",
        p.name));
  Probe probe;
  if (probing) probe = [] { return hh::checksum_rates(0.05); };
  a.order = "natural";
  // The native table `runs` times; per cell the median bandwidth counts.
  std::vector<std::vector<hh::RingCell>> all;
  std::vector<std::vector<std::vector<double>>> rates(static_cast<std::size_t>(runs));
  for (int k = 0; k < runs; ++k) all.push_back(run_native(a, probe, &rates[static_cast<std::size_t>(k)]));
  const auto& native = all.front();
  // Per cell: the mean probed speed of each CPU over the runs.
  std::vector<std::vector<double>> speed(native.size());
  if (probing)
    for (std::size_t i = 0; i < native.size(); ++i) {
      std::vector<double> s(static_cast<std::size_t>(p.cores), 0.0);
      for (const auto& run : rates)
        for (std::size_t c = 0; c < s.size() && c < run[i].size(); ++c)
          s[c] += run[i][c] / p.checksum_rate / static_cast<double>(runs);
      speed[i] = std::move(s);
    }
  // Per cell: the hand-over of ranks 0 and 1 around the run whose bandwidth
  // is the median (the lower middle one for an even count), and whether
  // that run had the CPUs apart where the profile's tables are near.
  std::vector<double> handover(native.size(), -1.0);
  std::vector<char> apart(native.size(), 0);
  for (std::size_t i = 0; i < native.size(); ++i) {
    std::vector<std::pair<double, double>> by_bw;  // (bandwidth, hand-over) per run
    for (const auto& run : all) by_bw.emplace_back(run[i].bandwidth, run[i].handover);
    std::sort(by_bw.begin(), by_bw.end());
    handover[i] = by_bw[(by_bw.size() - 1) / 2].second;
    apart[i] = host::apart_from(handover[i], p.exchange_handover);
  }
  // The model: each cell in the profile's placement, or (--placement
  // probed, with apart tables in the profile) the cells run apart on the
  // profile's apart view.
  const bool by_placement = placement == "probed" && p.has_apart();
  std::vector<hh::model::SimResult> sim(native.size());
  for (const bool in_apart : {false, true}) {
    std::vector<Key> keys;
    std::vector<std::vector<double>> sp;
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < native.size(); ++i) {
      if ((by_placement && apart[i] != 0) != in_apart) continue;
      const auto& c = native[i];
      keys.push_back({c.procs, c.used, c.size, c.iters});
      sp.push_back(speed[i]);
      idx.push_back(i);
    }
    if (keys.empty()) continue;
    const auto got =
        simulate(in_apart ? p.as_apart() : p, keys, a, cpu_speed == "probed" ? sp : std::vector<std::vector<double>>{});
    for (std::size_t k = 0; k < idx.size(); ++k) sim[idx[k]] = got[k];
  }
  std::vector<hh::model::PredictRow> rows;
  for (std::size_t i = 0; i < native.size(); ++i) {
    const auto& c = native[i];
    std::vector<double> bw;
    std::string used = used_text(c);
    for (const auto& run : all) {
      bw.push_back(run[i].bandwidth);
      if (!run[i].fallback.empty()) used = used_text(run[i]);
    }
    hh::model::PredictRow r;
    r.procs = c.procs;
    r.size = c.size;
    r.requested = std::string(host::kind_name(c.requested));
    r.used = std::string(host::kind_name(c.used));
    r.used_text = used;
    r.native = median(bw);
    r.native_min = *std::min_element(bw.begin(), bw.end());
    r.native_max = *std::max_element(bw.begin(), bw.end());
    r.runs = runs;
    r.predicted = sim[i].bandwidth;
    r.fraction = r.native / p.at(p.memcpy_bw, static_cast<double>(c.size));
    r.yields = sim[i].yields;
    r.background = sim[i].background;
    r.speed = speed[i];
    r.handover = handover[i];
    r.profile_handover = p.exchange_handover;
    // Simulated in its own placement: not a cell the profile missed.
    r.moved = host::placement_differs(r.handover, r.profile_handover) && !(by_placement && apart[i] != 0);
    r.modelled_apart = by_placement && apart[i] != 0;
    for (std::size_t k = 0; k < r.speed.size() && k < p.core_speed.size(); ++k)
      r.drift = std::max(r.drift, std::abs(r.speed[k] / p.core_speed[k] - 1));
    rows.push_back(r);
  }
  const auto rep = hh::model::predict_report(rows, max_error);
  std::cout << fmt::format(
      "native ring (median of {} run{}, spread = max/min - 1) vs host model '{}' ({})\n", runs, runs == 1 ? "" : "s",
      p.name,
      cpu_speed == "probed" || by_placement
          ? fmt::format("the profile, with {}{}{}",
                        cpu_speed == "probed" ? "each cell's CPU speeds probed around its native runs (--cpu-speed "
                                                "probed)"
                                              : "",
                        cpu_speed == "probed" && by_placement ? " and " : "",
                        by_placement ? "the cells whose native run had the CPUs apart simulated on its tables "
                                       "measured apart (--placement probed; + marks them)"
                                     : "")
          : std::string("the profile is the model's only input"));
  std::cout << rep.table;
  std::cout << placement_text(a) << "\n";
  std::cout << cma_text(a, native);
  if (a.csv) {
    auto csv = open_csv(a.csv);
    csv->stream() << rep.csv;
    csv->commit();
    std::cout << "CSV written to " << *a.csv << "\n";
  }
  if (check && rep.within != rep.cells) {
    std::cerr << fmt::format("hopsim host predict: {} cell(s) off by more than {:.0f}%\n", rep.cells - rep.within,
                             100 * max_error);
    return 3;
  }
  return 0;
}

// Runs an action, turning a failed data check into exit status 3.
int checked(const std::function<int()>& f) {
  try {
    return f();
  } catch (const DataMismatchError& e) {
    std::cerr << "hopsim: data check failed: " << e.what() << "\n";
    return 3;
  }
}

void add_commands(Commands& cmds) {
  auto* host =
      cmds.app.add_subcommand("host", "intra-node copy paths of this host: calibrate, ring, simulate, predict");
  host->require_subcommand(1);

  auto* cal = host->add_subcommand("calibrate", "measure this machine's copy costs and write a machine profile (JSON)");
  auto out = std::make_shared<std::string>("host-profile.json");
  auto quick = std::make_shared<bool>(false);
  cal->add_option("--out", *out, "profile file to write")->capture_default_str();
  cal->add_flag("--quick", *quick, "shorter measurements (noisier)");
  auto rounds_csv = std::make_shared<std::optional<std::string>>();
  cal->add_option("--rounds-csv", *rounds_csv,
                  "also write every round of the cross-CPU exchanges as CSV (time, rate, the hand-over probed "
                  "around its block, near/apart/mixed), to see the CPUs' placement at work");
  cmds.on(cal, [out, quick, rounds_csv] { return cmd_calibrate(*out, *quick, *rounds_csv); });

  auto ring_args = std::make_shared<RingArgs>();
  auto* ring =
      host->add_subcommand("ring", "hpcc-style ring bandwidth, native: N processes over the chosen transports");
  add_ring_options(ring, *ring_args, true);
  ring->add_flag("--small-pages", ring_args->small_pages,
                 "4 KiB pages for the send and receive buffers (default: they ask for transparent huge pages, as "
                 "`host calibrate` measures them)");
  ring->add_option("--profile", ring_args->profile,
                   "profile whose memcpy bandwidth the table is divided by (default: measured now)");
  cmds.on(ring, [ring_args] { return checked([&] { return cmd_ring(*ring_args); }); });

  auto sim_args = std::make_shared<RingArgs>();
  auto* sim = host->add_subcommand("simulate", "the ring on the host model of a profile or preset (e.g. host-smp32)");
  add_ring_options(sim, *sim_args, false);
  sim->add_option("--profile", sim_args->profile, "profile file or host preset name")->required();
  cmds.on(sim, [sim_args] { return cmd_simulate(*sim_args); });

  auto pred_args = std::make_shared<RingArgs>();
  auto check = std::make_shared<bool>(false);
  auto max_error = std::make_shared<double>(0.25);
  auto* pred =
      host->add_subcommand("predict", "native ring and its prediction by the host model, with the error per cell");
  add_ring_options(pred, *pred_args, true);
  pred->add_option("--profile", pred_args->profile, "profile written by hopsim host calibrate")->required();
  pred->add_option("--max-error", *max_error, "relative error a cell may have")->capture_default_str();
  pred->add_flag("--check", *check, "exit 3 when a cell is off by more than --max-error");
  auto runs = std::make_shared<int>(3);
  pred->add_option("--runs", *runs,
                   "native table runs; per cell the median bandwidth counts and the spread is reported")
      ->capture_default_str();
  auto cpu_speed = std::make_shared<std::string>("calibrated");
  pred->add_option("--cpu-speed", *cpu_speed,
                   "CPU speeds the model uses: calibrated (the profile's) or probed (measured around each cell's "
                   "native runs; a virtual machine's CPUs change speed when their host cores are shared). Both are "
                   "probed and reported either way")
      ->capture_default_str();
  auto placement = std::make_shared<std::string>("calibrated");
  pred->add_option("--placement", *placement,
                   "CPU placement the model uses: calibrated (the profile's exchange tables for every cell) or "
                   "probed (a cell whose native run had the two CPUs apart, by the cache-line hand-over of ranks 0 "
                   "and 1, is simulated on the profile's tables measured apart, when the calibration met that "
                   "placement). Placement is probed and reported either way")
      ->capture_default_str();
  cmds.on(pred, [pred_args, check, max_error, runs, cpu_speed, placement] {
    return checked([&] { return cmd_predict(*pred_args, *check, *max_error, *runs, *cpu_speed, *placement); });
  });
}

// `hopsim run` of a host scenario: the ring program natively on this
// machine and on the host model of the scenario's machine (a host preset,
// or a profile written by `hopsim host calibrate`). Every message is
// checksummed by its receiver natively; the model moves no payload, so the
// data are not compared between the modes.
const ProgramInfo& ring_program() {
  static const bool once = [] {
    register_program({"ring",
                      "host",
                      "hpcc-style ring bandwidth: each process sends to its right neighbour and receives from its "
                      "left, over double copy, CMA or zero copy",
                      {{"procs", nlohmann::json::array({2, 4}), "ring sizes (processes)", 2, 256, {}, false},
                       {"sizes", nlohmann::json::array({"64KiB", "1MiB"}), "message sizes", 0, 0, {}, false},
                       {"transports",
                        nlohmann::json::array({"double-copy", "cma", "zero-copy"}),
                        "copy paths",
                        0,
                        0,
                        {"double-copy", "cma", "zero-copy"},
                        false},
                       {"reps", 3, "timed repetitions per cell; the fastest counts", 1, 1000, {}, false},
                       {"bytes", "16MiB", "data each process receives per repetition", 0, 0, {}, false},
                       {"min_steps", 16, "at least this many timed steps per repetition", 1, 1000000, {}, false}}});
    return true;
  }();
  (void)once;
  return find_program("ring");
}
[[maybe_unused]] const ProgramInfo& registered_ring = ring_program();

RunReport run_ring_scenario(const Scenario& sc) {
  const auto& prog = find_program(sc.kernel);
  if (prog.family != "host")
    throw ConfigError(fmt::format("kernel.name: {} runs on {} machines", sc.kernel, prog.family));
  const auto args = resolve_args(prog, sc.kernel_args);
  if (!sc.outputs.trace.empty())
    throw ConfigError("outputs.trace: the host family writes no trace (hopsim run --trace is for the device families)");
  if (!sc.machine_params.empty())
    throw ConfigError(
        "machine: a host machine is its profile; it takes no overrides (edit the profile or recalibrate)");
  const auto p = hh::model::load_profile(sc.machine_preset);
  RingArgs a;
  a.procs = args["procs"].get<std::vector<int>>();
  a.sizes = args["sizes"].get<std::vector<std::string>>();
  a.transports = args["transports"].get<std::vector<std::string>>();
  a.reps = args["reps"].get<int>();
  a.bytes = args["bytes"].get<std::string>();
  a.min_steps = args["min_steps"].get<int>();
  hh::RingOptions ro;
  ro.bytes_per_rep =
      static_cast<std::size_t>(parse_quantity(std::string_view(a.bytes), Dim::bytes, "kernel.args.bytes"));
  ro.min_iters = a.min_steps;
  std::vector<Key> keys;
  for (int n : a.procs)
    for (Kind k : parse_kinds(a.transports))
      for (auto s : parse_sizes(a.sizes)) keys.push_back({n, k, s, hh::ring_iters(ro, s)});
  std::error_code ec;
  std::filesystem::create_directories(sc.outputs.dir, ec);
  if (ec) throw ConfigError(fmt::format("outputs.dir: cannot create {}: {}", sc.outputs.dir, ec.message()));

  RunReport r;
  r.family = "host";
  r.kernel = sc.kernel;
  r.machine = p.name;
  r.machine_summary = fmt::format("{} cores", p.cores);
  r.per = "ring step";
  r.results_dir = sc.outputs.dir;
  auto name_of = [](const Key& k) {
    return fmt::format("{} procs {} {}", k.procs, host::kind_name(k.kind), model::size_text(k.size));
  };
  for (const auto& k : keys) {
    Timing t;
    t.name = name_of(k);
    t.group = std::string(host::kind_name(k.kind));
    t.labels = {{"procs", k.procs}, {"transport", host::kind_name(k.kind)}, {"size", k.size}};
    r.timings.push_back(std::move(t));
  }
  nlohmann::json j;
  j["machine"] = {{"preset", sc.machine_preset}, {"profile", p.to_json()}};
  j["kernel"] = {{"name", sc.kernel}, {"args", args}};
  std::string csv = "mode,procs,transport,used,size,iters,seconds,bandwidth_Bps\n";
  std::cout << fmt::format("hopsim {} | {} | machine {} ({} cores) | program ring | mode {}\n", version(), sc.origin,
                           p.name, p.cores, to_string(sc.mode));
  if (sc.mode != Mode::sim) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto cells = run_native(a);
    r.native = true;
    r.native_wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    nlohmann::json cj = nlohmann::json::array();
    for (std::size_t i = 0; i < cells.size() && i < keys.size(); ++i) {
      const auto& c = cells[i];
      auto& t = r.timings[i];
      t.native_seconds = c.seconds / c.iters;
      t.native_bytes_per_s = c.bandwidth;
      t.native_check = "ok";  // a checksum mismatch throws DataMismatchError (exit 3)
      keys[i].kind = c.used;  // the model runs what the native ring used (a CMA fallback)
      keys[i].iters = c.iters;
      cj.push_back({{"procs", c.procs},
                    {"size", c.size},
                    {"requested", host::kind_name(c.requested)},
                    {"used", host::kind_name(c.used)},
                    {"fallback", c.fallback},
                    {"iters", c.iters},
                    {"seconds", c.seconds},
                    {"bandwidth_Bps", c.bandwidth},
                    {"messages_checked", c.messages_checked}});
      csv += fmt::format("native,{},{},{},{},{},{:.9g},{:.6g}\n", c.procs, host::kind_name(c.requested),
                         host::kind_name(c.used), c.size, c.iters, c.seconds, c.bandwidth);
    }
    j["native"] = {{"wall_seconds", r.native_wall_seconds}, {"cells", cj}};
  }
  if (sc.mode != Mode::native) {
    const auto t0 = std::chrono::steady_clock::now();
    a.reps = args["reps"].get<int>();
    const auto res = simulate(p, keys, a);
    r.sim = true;
    r.sim_wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    nlohmann::json cj = nlohmann::json::array();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      auto& t = r.timings[i];
      t.sim_seconds = res[i].seconds / keys[i].iters;
      t.sim_bytes_per_s = res[i].bandwidth;
      t.sim_check = "-";
      cj.push_back({{"procs", keys[i].procs},
                    {"size", keys[i].size},
                    {"transport", host::kind_name(keys[i].kind)},
                    {"iters", keys[i].iters},
                    {"seconds", res[i].seconds},
                    {"bandwidth_Bps", res[i].bandwidth},
                    {"yields_per_step", res[i].yields}});
      csv += fmt::format("sim,{},{},{},{},{},{:.9g},{:.6g}\n", keys[i].procs, host::kind_name(keys[i].kind),
                         host::kind_name(keys[i].kind), keys[i].size, keys[i].iters, res[i].seconds, res[i].bandwidth);
    }
    j["sim"] = {{"wall_seconds", r.sim_wall_seconds}, {"cells", cj}, {"metrics", nlohmann::json::array()}};
  }
  j["data_equal"] = nullptr;  // the model moves no payload
  std::cout << fmt::format("{:<28} {:>12} {:>12}\n", "cell", "native MB/s", "sim MB/s");
  for (const auto& t : r.timings)
    std::cout << fmt::format(
        "{:<28} {:>12} {:>12}\n", t.name,
        std::isfinite(t.native_bytes_per_s) ? fmt::format("{:.0f}", t.native_bytes_per_s / 1e6) : "-",
        std::isfinite(t.sim_bytes_per_s) ? fmt::format("{:.0f}", t.sim_bytes_per_s / 1e6) : "-");
  if (r.native) std::cout << "native: every message checksummed by its receiver: all matched\n";
  write_results(sc, r, j, csv);
  std::cout << fmt::format("results: {}/results.json, {}/results.csv\n", sc.outputs.dir, sc.outputs.dir);
  return r;
}

// A host profile's parameters (tables over `sizes`), read as strictly as
// `host simulate` reads it.
void print_profile_params(const std::string& preset, std::ostream& out) {
  const auto j = model::load_profile(preset).to_json();
  for (const auto& [name, v] : j["params"].items()) {
    std::string value;
    if (v["value"].is_array()) {
      std::vector<std::string> parts;
      for (const auto& x : v["value"]) parts.push_back(fmt::format("{:.4g}", x.get<double>()));
      value = fmt::format("[{}]", fmt::join(parts, " "));
    } else {
      value = v["value"].is_boolean() ? (v["value"].get<bool>() ? "true" : "false")
                                      : fmt::format("{:.4g}", v["value"].get<double>());
    }
    out << fmt::format("{:<20} {} {}  [{}]\n", name, value, v["unit"].get<std::string>(),
                       v["source"].get<std::string>());
  }
}

const FamilyRegistrar registrar{{
    .name = "host",
    .summary = "this machine's intra-node copy paths (double copy, CMA, zero copy): native ring, SystemC host model",
    .run = run_ring_scenario,
    .print_params = print_profile_params,
    .print_programs = {},
    .commands = add_commands,
}};

}  // namespace
}  // namespace hopsim::host
