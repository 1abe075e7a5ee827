#pragma once
// Microbenchmarks of this machine's intra-node copy costs: what the host
// model needs to predict the ring benchmark (hopsim host calibrate).
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace hopsim::host {

struct CalibrateOptions {
  double seconds_per_point = 0.03;  // measuring time per table point
  int pingpong_rounds = 20000;      // round trips per cache-line ping-pong (the hand-over test does a quarter)
  std::vector<std::size_t> sizes{4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864};
  // Buffers of the copy and CMA measurements ask for transparent huge pages,
  // as the ring's message buffers do by default (host::MessageBuffer).
  bool huge_pages = true;
};

// A CPU's speed in spells (see host::model::Profile::slow_share): fitted to the
// rates of short batches of the all-busy probe.
struct SpeedSpells {
  double slow_speed = 1;    // mean rate of the slow batches over that of the fast ones
  double slow_share = 0;    // fraction of the batches that were slow (0: no spells)
  double slow_dwell = 0;    // s, slow batches x batch length / number of slow runs
  std::size_t batches = 0;  // batches fitted (0: no spells found)
};

// Fits spells to per-CPU series of consecutive batch rates, `batch`
// seconds each: the fast level is the 90th percentile of all batches, a
// batch under 3/4 of it is slow. Fewer than 20 batches, slow ones under 5%
// of them or no fast one: no spells (slow_share 0).
[[nodiscard]] SpeedSpells fit_speed_spells(const std::vector<std::vector<double>>& series, double batch);

// One exchange as measured (calibrate's exchange): per size and table
// (write, copy, CMA, read) each round's time (the slower process's, scaled
// to the tables' CPU speed; s) and the hand-over probed between the two
// CPUs just before and just after the block of rounds it ran in (s).
struct ExchangeRounds {
  static constexpr std::size_t kTables = 4;
  std::vector<std::size_t> sizes;
  std::vector<std::array<std::vector<double>, kTables>> time, before, after;  // [size][table][round]
};

struct Calibration {
  int cores = 1;                   // CPUs this process may run on
  std::vector<std::size_t> sizes;  // table sizes, bytes
  std::vector<double> core_speed;  // per CPU of the mask: its checksum rate with all CPUs busy / checksum_rate,
                                   // probed in the single-process tables' passes (mean over them)
  std::vector<double> speed_end;   // the same probe once at the end (printed, not used)
  int speed_probes = 0;            // all-busy probes averaged into core_speed (one per pass)
  SpeedSpells spells;              // fitted to all the all-busy probes' 100 us batches
  double checksum_rate = 0;  // the ring's checksum over 256 KiB on the first CPU alone, mean over 1 ms batches, bytes/s
  std::vector<double> memcpy_bw;  // one process (on the first CPU) copying `size` bytes between two buffers, bytes/s
  std::vector<double> memcpy_bw_all;  // `cores` processes copying at once, sum of bytes/s
  std::vector<double> read_bw;        // the ring's checksum pass over `size` bytes, bytes/s
  double c2c_latency = 0;             // one-way cache-line hand-over between two processes on two cores, s
  double syscall = 0;                 // a trivial system call (getppid), s
  double switch_cost = 0;             // hand-over between two processes sharing one core (sched_yield), s
  double switch_cost_many = 0;        // a switch among four processes sharing one core (sched_yield), s
  bool cma_ok = false;
  std::string cma_note;        // why CMA could not be measured, if so
  double cma_call = 0;         // process_vm_readv of 8 bytes, s
  std::vector<double> cma_bw;  // process_vm_readv of `size` bytes from another process, bytes/s
  double cma_per_page = 0;     // slope of CMA time over 4 KiB pages (sizes >= 64 KiB), s
  // Two processes pinned to two CPUs exchanging at once, as a ring's
  // neighbours do (per size: the median over rounds of the slower process's
  // time; with one CPU, the single-process rates above):
  std::vector<double> xwrite_bw;       // memcpy into a shared buffer the other CPU read last (a bounce slot), bytes/s
  std::vector<double> xcopy_bw;        // memcpy out of a shared buffer the other CPU just wrote, bytes/s
  std::vector<double> xcma_bw;         // process_vm_readv of the other's send buffer into my receive buffer, bytes/s
  std::vector<double> xread_bw;        // checksum of my receive buffer right after that CMA call wrote it, bytes/s
  int exchange_rounds = 0;             // rounds at the largest size
  std::vector<double> exchange_speed;  // the two CPUs' speeds (as core_speed) probed just before the exchange
  // The exchange's rounds run in blocks with a cache-line hand-over probed
  // between the two CPUs before and after each block (split_exchange):
  // each exchange gives a near and an apart run; exchange_handovers lists
  // every run's hand-over (s), exchange_handover is the kept (near) tables'
  // (0 with one CPU).
  std::vector<double> exchange_handovers;
  double exchange_handover = 0;
  // When the kept tables are near and some rounds ran with the CPUs apart:
  // those rounds' tables (per entry the faster over exchanges) and their
  // hand-over; else empty / 0.
  std::vector<double> xwrite_bw_apart, xcopy_bw_apart, xcma_bw_apart, xread_bw_apart;
  double apart_handover = 0;
  // Rounds of the exchanges by placement: near, apart, and in blocks whose
  // probes before and after disagreed (not used); table entries that no
  // exchange measured in their placement (filled from the other, see
  // sort_exchanges).
  int rounds_near = 0, rounds_apart = 0, rounds_mixed = 0, entries_filled = 0;
  // Every exchange's rounds as measured (host calibrate --rounds-csv) and
  // the hand-over that split them into placements (placement_split; +inf:
  // one placement; 0: no exchange, one CPU).
  std::vector<ExchangeRounds> exchanges;
  double split_handover = 0;
  // The transports' own step: two processes (pinned to two CPUs when there
  // are two) exchange 8-byte messages with host::Node, sendrecv (or
  // acquire + sendrecv_view); median seconds per step over batches. 0: not
  // measured (CMA refused).
  double step8_double = 0, step8_cma = 0, step8_zero = 0;
  double remap_call = 0;       // mmap(MAP_POPULATE)+munmap of a shared range: fixed part, s
  double remap_per_page = 0;   // ... per 4 KiB page, s
  double background_load = 0;  // other runnable processes: from the CPU share spinning processes get
  double preempt_slice = 0;    // mean gap (> 50 us) in a spinning process's timeline: another process's turn, s
  int preempt_count = 0;       // how many such gaps were seen
  double spin_time = 0;        // host::kSpinPauses pause instructions, s
  double yield_delay = 0;      // mean delay until a waiter that spun out and yields sees a flag set on another CPU, s
  double yield_delay_median = 0;  // its median, s
  int yield_trials = 0;
};

[[nodiscard]] Calibration calibrate(const CalibrateOptions& o);

// Round trips of the placement probe around each block of an exchange's
// rounds (fastest batch of 25), and at most how many blocks per size and
// pair of phases.
inline constexpr int kPlacementRounds = 100, kPlacementBlocks = 8;

// One measured exchange's rounds in one placement: their tables
// (Calibration::x*_bw; 0 for an entry with too few rounds in it), the
// median hand-over probed around them (s), whether apart, how many rounds.
struct ExchangeRun {
  Calibration tables;
  double handover = 0;
  bool apart = false;
  int rounds = 0;
};

// Where hand-overs split into two placements: the geometric middle of the
// widest ratio between neighbours in sorted order when it exceeds
// host::kApartRatio, else +infinity (one placement). This VM showed
// three levels (17-30, 40-60, 190-240 ns); a ratio to the fastest ever
// seen would call 45 ns apart from 17.
[[nodiscard]] double placement_split(std::vector<double> handovers);

// Sorts an exchange's rounds by placement: a round whose block was probed
// above `split` both before and after ran apart, below both near, else it
// is mixed (counted in *mixed, not used). Per size and table, a placement
// with at least max(3, rounds/8) rounds gets size / (median time); per
// placement met, one ExchangeRun (handover: the median of its blocks'
// probes).
[[nodiscard]] std::vector<ExchangeRun> split_exchange(const ExchangeRounds& x, double split, int* mixed = nullptr);

// Sorts the measured runs into `c`. The near runs give the x*_bw tables
// (per entry the fastest: one exchange catches slow spells) and
// exchange_handover (their largest); the apart ones, when a near one is
// there, the x*_bw_apart tables and apart_handover (their largest); with
// none near, the apart runs give the x*_bw tables and there are no apart
// ones. An entry that no run measured in its placement (0) while the other
// placement has it is filled from that one times the median ratio of the
// two placements over the entries both have (the other's value itself if
// none), counted in entries_filled. c2c_latency is lowered to the smallest
// near hand-over. exchange_handovers lists every run's. rounds_near and
// rounds_apart sum the runs' rounds.
void sort_exchanges(Calibration& c, const std::vector<ExchangeRun>& runs);

// The CPUs' speed right now, in the condition of a ring run: one process
// per allowed CPU, each pinned to its CPU, all checksumming a cached
// 256 KiB buffer at once for `seconds`. Per CPU (in the order of the
// affinity mask) the rate in bytes/s as total bytes over total time, so a
// slowdown lasting part of the window weighs for its part (a virtual CPU
// whose host core is shared runs slower for seconds to minutes: measured
// here, one CPU at 0.65 of the other for minutes, then equal again).
// Throws Error when a probing process fails.
// With `batches`, also each CPU's rates in consecutive batches of `batch`
// seconds (at most 16384 per CPU).
[[nodiscard]] std::vector<double> checksum_rates(double seconds, std::vector<std::vector<double>>* batches = nullptr,
                                                 double batch = 1e-4);
// One process's memcpy bandwidth (B/s) for `size`-byte copies between two
// page-aligned buffers (host::MessageBuffer, huge pages asked for), the
// fastest batch over `seconds`.
[[nodiscard]] double memcpy_bandwidth(std::size_t size, double seconds);

}  // namespace hopsim::host
