// hopsim host ring and simulate, and what the subcommands share: the ring
// options checked, the native ring over them, the ring on the host model,
// and the lines that say how a native ring ran.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "commands.hpp"
#include "csv_file.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/units.hpp"
#include "hopsim/host/buffer.hpp"
#include "hopsim/host/calibrate.hpp"
#include "hopsim/host/model/model.hpp"
#include "hopsim/host/model/profile.hpp"
#include "hopsim/host/model/report.hpp"
#include "hopsim/host/ring.hpp"

namespace hopsim::host::commands {

namespace hh = hopsim::host;

std::vector<std::size_t> parse_sizes(const std::vector<std::string>& v, const std::string& key) {
  std::vector<std::size_t> out;
  for (const auto& s : v) {
    const double b = parse_quantity(std::string_view(s), Dim::bytes, key);
    if (!(b >= 8) || b != std::floor(b))
      throw ConfigError(fmt::format("{}: '{}' is not a whole number of bytes >= 8", key, s));
    if (b > kMaxRingMessage) throw ConfigError(fmt::format("{}: '{}' is over 1 GiB, the largest ring message", key, s));
    out.push_back(static_cast<std::size_t>(b));
  }
  return out;
}

std::vector<Kind> parse_kinds(const std::vector<std::string>& v) {
  std::vector<Kind> out;
  out.reserve(v.size());
  for (const auto& s : v) out.push_back(host::parse_kind(s, "--transport"));
  return out;
}

namespace {

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

// The ring options of one launch: `procs` processes over `kind`, in the
// natural or a random order.
hh::RingOptions launch_options(const RingArgs& a, const std::vector<std::size_t>& sizes, double bytes, hh::Bind bind,
                               int procs, Kind kind, bool random) {
  hh::RingOptions o;
  o.procs = procs;
  o.kind = kind;
  o.random_order = random;
  o.two_way = a.two_way;
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
  return o;
}

// Per CPU the mean of the probes before and after a launch (the one after
// where there was none before).
std::vector<double> mean_of_probes(const std::vector<double>& before, const std::vector<double>& after) {
  std::vector<double> mean(after.size());
  for (std::size_t c = 0; c < after.size(); ++c) mean[c] = c < before.size() ? 0.5 * (before[c] + after[c]) : after[c];
  return mean;
}

}  // namespace

void check_order(const std::string& order, const char* key) {
  if (order != "natural" && order != "random" && order != "both")
    throw ConfigError(fmt::format("{}: '{}' (expected natural, random or both)", key, order));
}

std::vector<bool> orders_of(const std::string& order) {
  if (order == "natural") return {false};
  if (order == "random") return {true};
  return {false, true};
}

double checked_ring_args(const RingArgs& a, const char* bytes_key) {
  const auto sizes = parse_sizes(a.sizes, a.sizes_key);
  for (const int p : a.procs) {
    if (p < 2)
      throw ConfigError(fmt::format(
          "--procs: a ring of {} process{} has no neighbour to send to (at least 2 processes)", p, p == 1 ? "" : "es"));
    if (p > host::Node::kMaxProcs)
      throw ConfigError(fmt::format("--procs: {} (2 to {} processes)", p, host::Node::kMaxProcs));
  }
  if (a.reps < 1) throw ConfigError(fmt::format("--reps: {} (at least 1)", a.reps));
  const std::size_t most = (hh::kRingResultDoubles - 1) / sizes.size();  // 2 x reps + 1 at most
  if (2 * static_cast<std::size_t>(a.reps) + 1 > most)
    throw ConfigError(fmt::format("--reps: {} (at most {} with {} message size{}: sizes x (2 x reps + 1) <= 511)",
                                  a.reps, (most - 1) / 2, sizes.size(), sizes.size() == 1 ? "" : "s"));
  if (a.min_steps < 1) throw ConfigError(fmt::format("--min-steps: {} (at least 1)", a.min_steps));
  const double bytes = parse_quantity(std::string_view(a.bytes), Dim::bytes, bytes_key);
  if (!(bytes >= 0 && bytes <= 0x1p50) || bytes != std::floor(bytes))
    throw ConfigError(fmt::format("{}: '{}' is not a whole number of bytes from 0 to 1 PiB", bytes_key, a.bytes));
  return bytes;
}

std::vector<hh::RingCell> run_native(const RingArgs& a, const Probe& probe, std::vector<std::vector<double>>* rates) {
  const double bytes = checked_ring_args(a, "--bytes");
  const auto sizes = parse_sizes(a.sizes, a.sizes_key);
  const auto kinds = parse_kinds(a.transports);
  check_order(a.order, "--order");
  const auto bind = host::parse_bind(a.bind, "--bind");
  std::vector<hh::RingCell> cells;
  std::vector<double> before = probe ? probe() : std::vector<double>{};
  for (int p : a.procs)
    for (Kind k : kinds)
      for (const bool random : orders_of(a.order)) {
        const auto got = hh::run_ring(launch_options(a, sizes, bytes, bind, p, k, random));
        if (!got.empty() && !got.front().fallback.empty())
          std::cerr << "hopsim host ring: " << got.front().fallback << "\n";
        cells.insert(cells.end(), got.begin(), got.end());
        if (probe && rates) {
          auto after = probe();
          rates->insert(rates->end(), got.size(), mean_of_probes(before, after));
          before = std::move(after);
        }
      }
  return cells;
}

std::vector<Key> ring_keys(const RingArgs& a, const char* bytes_key) {
  hh::RingOptions ro;
  ro.bytes_per_rep = static_cast<std::size_t>(checked_ring_args(a, bytes_key));
  ro.min_iters = a.min_steps;
  check_order(a.order, "--order");
  std::vector<Key> keys;
  // As run_native launches them: per ring size and transport, the natural
  // order, then the random one.
  for (int n : a.procs)
    for (Kind k : parse_kinds(a.transports))
      for (const bool random : orders_of(a.order)) {
        for (auto s : parse_sizes(a.sizes, a.sizes_key)) keys.push_back({n, k, s, hh::ring_iters(ro, s), random});
      }
  return keys;
}

std::vector<hh::model::SimResult> simulate(const hh::model::Profile& p, const std::vector<Key>& keys, const RingArgs& a,
                                           const std::vector<std::vector<double>>& speeds) {
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
    c.ring = hh::ring_order(k.procs, k.random, a.seed);
    c.two_way = a.two_way;
    cells.push_back(c);
  }
  return hh::model::simulate_ring(p, cells);
}

std::string used_text(const hh::RingCell& c) {
  return c.fallback.empty() ? std::string(host::kind_name(c.used))
                            : fmt::format("{} (fallback)", host::kind_name(c.used));
}

// --csv FILE, opened before any measurement so a bad path fails at once.
std::unique_ptr<AtomicFile> open_csv(const std::optional<std::string>& path) {
  if (!path) return nullptr;
  try {
    return std::make_unique<AtomicFile>(*path);
  } catch (const Error&) {
    check_writable(*path, "--csv");  // names why
    throw ConfigError(fmt::format("--csv: cannot write '{}'", *path));
  }
}

// One line saying where the ranks ran.
std::string placement_text(const RingArgs& a) {
  return host::parse_bind(a.bind, "--bind") == host::Bind::spread
             ? "ranks pinned: rank r on CPU r mod n of the n allowed CPUs (--bind spread, as the host model places "
               "them)"
             : "ranks not pinned (--bind none): the kernel placed and migrated them; the host model assumes rank r "
               "on core r mod cores";
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

namespace {

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

// The native table's heading.
void print_ring_heading(const RingArgs& a) {
  std::cout << fmt::format(
      "hpcc-style ring{}, native: bandwidth = bytes received per process per second (fastest of {} repetitions)\n",
      a.two_way ? " (two-way)" : "", a.reps);
  std::cout << fmt::format("{:>5} {:>9} {:>8} {:>12} {:>22} {:>10} {:>9} {:>7}\n", "procs", "size", "order",
                           "transport", "used", "MB/s", "/memcpy", "iters");
}

// The native table's --csv file with its header line (null without --csv).
std::unique_ptr<AtomicFile> open_ring_csv(const RingArgs& a) {
  auto csv = open_csv(a.csv);
  if (csv) {
    csv->stream()
        << "procs,size,order,transport,used,bandwidth_MBps,fraction_of_memcpy,memcpy_MBps,iters,seconds,messages_"
           "checked,fallback,bind,cpus,huge_kib,handover_ns\n";
  }
  return csv;
}

// One native cell: a table line, and a CSV line with --csv.
void print_ring_cell(const hh::RingCell& c, double memcpy_bw, AtomicFile* csv) {
  const double frac = c.bandwidth / memcpy_bw;
  std::cout << fmt::format("{:>5} {:>9} {:>8} {:>12} {:>22} {:>10.0f} {:>9.2f} {:>7}\n", c.procs,
                           model::size_text(c.size), c.order, host::kind_name(c.requested), used_text(c),
                           c.bandwidth / 1e6, frac, c.iters);
  if (csv)
    csv->stream() << fmt::format("{},{},{},{},{},{:.1f},{:.3f},{:.1f},{},{:.6f},{},{},{},{},{},{:.1f}\n", c.procs,
                                 c.size, c.order, host::kind_name(c.requested), host::kind_name(c.used),
                                 c.bandwidth / 1e6, frac, memcpy_bw / 1e6, c.iters, c.seconds, c.messages_checked,
                                 csv_field(c.fallback), host::bind_name(c.bind),
                                 csv_field(fmt::format("{}", fmt::join(c.cpu_of_rank, " "))), c.huge_kib,
                                 c.handover > 0 ? c.handover * 1e9 : -1.0);
}

}  // namespace

int cmd_ring(const RingArgs& a) {
  std::optional<hh::model::Profile> prof;
  if (a.profile) prof = hh::model::load_profile(*a.profile);
  auto csv = open_ring_csv(a);  // before measuring: a bad path fails at once
  const auto cells = run_native(a);
  std::map<std::size_t, double> mbw;
  for (const auto& c : cells)
    if (!mbw.count(c.size))
      mbw[c.size] = prof ? prof->at(prof->memcpy_bw, static_cast<double>(c.size)) : hh::memcpy_bandwidth(c.size, 0.02);
  print_ring_heading(a);
  for (const auto& c : cells) print_ring_cell(c, mbw[c.size], csv.get());
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

int cmd_simulate(const RingArgs& a) {
  if (!a.profile) throw ConfigError("--profile: required (a profile file or a host preset such as host-smp32)");
  const auto p = hh::model::load_profile(*a.profile);
  const auto keys = ring_keys(a, "--bytes");
  auto csv = open_csv(a.csv);
  const auto res = simulate(p, keys, a);
  std::cout << fmt::format(
      "hpcc-style ring{} on the host model '{}' ({} cores): bytes received per process per second\n",
      a.two_way ? " (two-way)" : "", p.name, p.cores);
  std::cout << fmt::format("{:>5} {:>9} {:>8} {:>12} {:>10} {:>9} {:>12}\n", "procs", "size", "order", "transport",
                           "MB/s", "/memcpy", "yields/step");
  if (csv) {
    csv->stream() << "procs,size,order,transport,predicted_MBps,fraction_of_memcpy,yields_per_step,background_s\n";
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto& k = keys[i];
    const double frac = res[i].bandwidth / p.at(p.memcpy_bw, static_cast<double>(k.size));
    const char* order = k.order();
    std::cout << fmt::format("{:>5} {:>9} {:>8} {:>12} {:>10.0f} {:>9.2f} {:>12.2f}\n", k.procs,
                             model::size_text(k.size), order, host::kind_name(k.kind), res[i].bandwidth / 1e6, frac,
                             res[i].yields);
    if (csv)
      csv->stream() << fmt::format("{},{},{},{},{:.1f},{:.3f},{:.3f},{:.6f}\n", k.procs, k.size, order,
                                   host::kind_name(k.kind), res[i].bandwidth / 1e6, frac, res[i].yields,
                                   res[i].background);
  }
  if (csv) csv->commit();
  return 0;
}

}  // namespace hopsim::host::commands
