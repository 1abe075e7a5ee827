#include "hopsim/host/model/model.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <list>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <systemc>
#include <utility>

#include "hopsim/core/error.hpp"

namespace hopsim::host::model {

std::string_view path_name(CopyPath p) {
  switch (p) {
    case CopyPath::double_copy:
      return "double-copy";
    case CopyPath::cma:
      return "cma";
    case CopyPath::zero_copy:
      return "zero-copy";
  }
  return "?";
}

namespace {
int per_core(int procs, int cores) { return (procs + cores - 1) / cores; }
}  // namespace

double step_overhead(const Profile& p, CopyPath path) {
  const double L = p.c2c_latency;
  switch (path) {
    case CopyPath::double_copy:
      return std::max(0.0, p.step8_double - L);
    case CopyPath::zero_copy:
      return std::max(0.0, p.step8_zero - L);
    case CopyPath::cma:
      return std::max(0.0, p.step8_cma - L - cma_call_exchanged(p));
  }
  return 0.0;
}

double cma_call_exchanged(const Profile& p) {
  if (p.sizes.empty() || p.cma_bw.empty() || p.xcma_bw.empty() || p.cma_bw.front() <= 0 || p.xcma_bw.front() <= 0)
    return p.cma_call;
  const double s0 = p.sizes.front();
  return p.cma_call + std::max(0.0, s0 / p.xcma_bw.front() - s0 / p.cma_bw.front());
}

double double_copy_working_set(const SimCell& c, int cores) {
  return per_core(c.procs, std::max(1, cores)) * (c.two_way ? 2.0 : 1.0) *
         (static_cast<double>(c.size) + static_cast<double>(c.slots) * static_cast<double>(c.chunk));
}

namespace {

using sc_core::SC_SEC;
using sc_core::sc_time;

double now_s() { return sc_core::sc_time_stamp().to_seconds(); }

// Cores with a round-robin yield scheduler and background bursts; memory
// shared as a fluid by the operations running on the cores.
class Machine : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Machine);
  // `place`: the core of each ring position.
  Machine(const sc_core::sc_module_name& n, const Profile& p, std::vector<int> place, std::uint64_t seed,
          std::uint64_t order, const std::vector<double>& speed)
      : sc_module(n),
        p_(p),
        speed_(speed.empty() ? p.core_speed : speed),
        cores_(static_cast<std::size_t>(p.cores)),
        place_(std::move(place)),
        granted_(place_.size()) {
    const int nodes = p.node_count();
    link_demand_.assign(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(nodes), 0.0);
    link_slow_.assign(link_demand_.size(), 1.0);
    for (int r = 0; r < static_cast<int>(place_.size()); ++r)
      cores_[static_cast<std::size_t>(core_of(r))].queue.push_back(r);
    // The kernel cycles through the processes sharing a CPU in a fixed order
    // that has nothing to do with the ring's (traced, perf sched: CPU 0 of
    // an 8-process ring ran ranks 6, 2, 0, 4, 6, 2, ...; another run 0, 2,
    // 6, 4, ...): a shuffle seeded by `order`.
    std::mt19937_64 shuffle(order * 0x2545F4914F6CDD1Dull + 1);
    for (auto& c : cores_) std::shuffle(c.queue.begin(), c.queue.end(), shuffle);
    SC_METHOD(on_wake);
    sensitive << wake_;
    dont_initialize();
    // Background: b = background_load / cores other runnable processes per
    // core, taking b / (1 + b) of it in bursts of preempt_slice.
    const double b = p.background_load / p.cores;
    for (int c = 0; c < p.cores; ++c) {
      const auto k = static_cast<double>(cores_[static_cast<std::size_t>(c)].queue.size());
      if (b <= 0 || p.preempt_slice <= 0 || k == 0) continue;
      // The share the calibration measured for one spinning process per
      // CPU. With autogroup scheduling (Linux's default for desktop and
      // login sessions) the kernel shares a CPU between sessions, not
      // processes, so the ring's processes together get what one got.
      const double share = b / (1 + b);
      const double mean_gap = (1 - share) / share * p.preempt_slice;
      sc_core::sc_spawn_options opt;
      sc_core::sc_spawn(
          [this, c, mean_gap, seed] { background(c, mean_gap, seed * 7919 + static_cast<std::uint64_t>(c)); },
          sc_core::sc_gen_unique_name("background"), &opt);
    }
  }
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;
  Machine(Machine&&) = delete;
  Machine& operator=(Machine&&) = delete;
  ~Machine() override = default;

  [[nodiscard]] int core_of(int r) const { return place_[static_cast<std::size_t>(r)]; }
  [[nodiscard]] int node_of(int r) const { return p_.node_of(core_of(r)); }
  [[nodiscard]] bool alone(int r) const { return core(r).queue.size() == 1; }
  [[nodiscard]] bool holds(int r) const { return core(r).queue.front() == r; }

  // Blocks until rank r holds its core (at the start, only the first rank
  // of each core does).
  void acquire(int r) {
    while (!holds(r)) sc_core::wait(granted_[static_cast<std::size_t>(r)]);
  }
  // Blocks while the background holds r's core.
  void await_core(int r) {
    auto& c = core(r);
    while (c.background) sc_core::wait(c.freed);
  }

  // Runs an operation of rank r (which holds its core) that takes `alone`
  // seconds with the machine to itself and moves `traffic` bytes through a
  // memory system of `capacity` B/s; of them, `crossing` bytes come from
  // rank `from`'s caches (-1: none): over the fabric's links when they are
  // on another node and it models them, through the coherence of the whole
  // machine when they are on another chip and it models that.
  // `data` false: only the lines' ownership comes from `from` (a write to
  // lines its caches hold), which the coherence carries but no link.
  void run(int r, double alone, double traffic, double capacity, int from = -1, double crossing = 0, bool data = true) {
    if (alone <= 0) return;
    ++ops_;
    advance();
    Op op;
    op.core = core_of(r);
    // A slower core takes longer for the same work (its measured speed).
    const auto c = static_cast<std::size_t>(op.core);
    op.left = c < speed_.size() && speed_[c] > 0 ? alone / speed_[c] : alone;
    op.demand = traffic / op.left;
    op.capacity = capacity;
    if (data && from >= 0 && crossing > 0 && p_.node_link_bw > 0 && node_of(from) != node_of(r)) {
      op.link = node_of(from) * p_.node_count() + node_of(r);
      op.link_demand = crossing / op.left;
    }
    if (from >= 0 && crossing > 0 && p_.coherence_bw > 0 && p_.chip_of(core_of(from)) != p_.chip_of(op.core))
      op.remote = crossing / op.left;
    active_.push_back(&op);
    reschedule();
    sc_core::wait(op.done);
  }

  // sched_yield with others on the core: the next of our processes in the
  // core's fixed cycle gets the core (round robin; the kernel does not know
  // which of them has work, and the cycle is not the ring's order: a token
  // passed round 4 processes on one CPU took 15.9 us per hand-over, three
  // switches, against 5.0 us for 2); returns when r holds it again and has
  // paid the switch.
  void yield(int r) {
    auto& c = core(r);
    // A switch among more processes costs more (calibrated for 2 and 4;
    // 3 halfway; 4 and more the same: measured flat up to 16).
    const double many = p_.switch_cost_many > 0 ? p_.switch_cost_many : p_.switch_cost;
    const std::size_t k = c.queue.size();
    const double cost = k <= 2 ? p_.switch_cost : k >= 4 ? many : 0.5 * (p_.switch_cost + many);
    c.queue.pop_front();
    c.queue.push_back(r);
    ++yields_;
    granted_[static_cast<std::size_t>(c.queue.front())].notify(sc_core::SC_ZERO_TIME);
    acquire(r);
    run(r, cost, 0, 1);
  }

  // Rank r is done: it leaves its core for good; the next process on it gets the core.
  void leave(int r) {
    auto& c = core(r);
    const bool held = c.queue.front() == r;
    c.queue.erase(std::find(c.queue.begin(), c.queue.end(), r));
    if (held && !c.queue.empty()) granted_[static_cast<std::size_t>(c.queue.front())].notify(sc_core::SC_ZERO_TIME);
  }
  void finish() { finished_ = true; }
  [[nodiscard]] double ops() const { return static_cast<double>(ops_); }
  [[nodiscard]] double yields() const { return static_cast<double>(yields_); }
  [[nodiscard]] double background_time() const { return background_time_ / p_.cores; }

 private:
  struct Core {
    std::deque<int> queue;  // our processes on this core; the front one holds it
    bool background = false;
    sc_core::sc_event freed;
  };
  struct Op {
    int core = 0;
    double left = 0;         // seconds of alone-time still to run
    double demand = 0;       // B/s of memory traffic when running alone
    double capacity = 0;     // B/s the memory system gives at this working set
    double rate = 0;         // alone-seconds per second at the moment
    int link = -1;           // the fabric links it loads (from node x nodes + to node), -1: none
    double link_demand = 0;  // B/s over them when running alone
    double remote = 0;       // B/s read from another chip's caches when running alone (0: none)
    sc_core::sc_event done;
  };

  Core& core(int r) { return cores_[static_cast<std::size_t>(core_of(r))]; }
  [[nodiscard]] const Core& core(int r) const { return cores_[static_cast<std::size_t>(core_of(r))]; }

  void background(int c, double mean_gap, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto uniform = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
    auto& core = cores_[static_cast<std::size_t>(c)];
    // Start in the steady state: the ring's timing begins at an arbitrary
    // moment, when the background holds the core with probability
    // g / (g + mean_gap), for a uniformly distributed rest of its burst.
    const double g = p_.preempt_slice;
    double burst = uniform() < g / (g + mean_gap) ? g * uniform() : 0.0;
    // A ring whose processes all wait for an event that never comes would
    // keep the background going for ever; after 10000 bursts in which no
    // rank started an operation or yielded, stop (simulate_ring then reports
    // the stalled ring).
    long idle_bursts = 0, seen = -1;
    while (!finished_) {
      if (ops_ + yields_ != seen) {
        seen = ops_ + yields_;
        idle_bursts = 0;
      } else if (++idle_bursts > 10000) {
        break;
      }
      if (burst <= 0) {
        // Exponential gaps (a Poisson arrival of bursts), from 53 random bits.
        sc_core::wait(sc_time(-mean_gap * std::log1p(-uniform()), SC_SEC));
        if (finished_) break;
        burst = g;
      }
      advance();
      core.background = true;
      reschedule();
      sc_core::wait(sc_time(burst, SC_SEC));
      advance();
      core.background = false;
      background_time_ += burst;
      burst = 0;
      reschedule();
      core.freed.notify(sc_core::SC_ZERO_TIME);
    }
  }

  void advance() {
    const double t = now_s();
    const double dt = t - last_;
    if (dt > 0)
      for (Op* o : active_) o->left -= dt * o->rate;
    last_ = t;
  }

  void reschedule() {
    if (active_.empty()) {
      wake_.cancel();
      return;
    }
    // Operations on cores the background holds stand still; the others
    // share the memory system.
    double demand = 0, capacity = 1e300;
    for (const Op* o : active_)
      if (o->demand > 0 && !cores_[static_cast<std::size_t>(o->core)].background) {
        demand += o->demand;
        capacity = std::min(capacity, o->capacity);
      }
    const double slow = demand > capacity ? capacity / demand : 1.0;
    // Each pair of nodes' links, shared the same way by the copies crossing
    // them (only on a machine with a fabric: no operation has links else).
    if (p_.node_link_bw > 0) {
      std::fill(link_demand_.begin(), link_demand_.end(), 0.0);
      for (const Op* o : active_)
        if (o->link >= 0 && !cores_[static_cast<std::size_t>(o->core)].background)
          link_demand_[static_cast<std::size_t>(o->link)] += o->link_demand;
      for (std::size_t l = 0; l < link_demand_.size(); ++l)
        link_slow_[l] = link_demand_[l] > p_.node_link_bw ? p_.node_link_bw / link_demand_[l] : 1.0;
    }
    double next = 1e300;
    double cross_chip = 0;  // B/s read from other chips at these rates
    for (Op* o : active_) {
      o->rate = cores_[static_cast<std::size_t>(o->core)].background ? 0.0 : (o->demand > 0 ? slow : 1.0);
      if (o->link >= 0) o->rate = std::min(o->rate, link_slow_[static_cast<std::size_t>(o->link)]);
      cross_chip += o->remote * o->rate;
      if (o->rate > 0) next = std::min(next, std::max(0.0, o->left) / o->rate);
    }
    // The cross-chip reads all slow by 1 + X / C, X what they then read:
    // X (1 + X / C) = cross_chip, solved for X (the root's stable form).
    // Only a machine with a coherence has cross-chip reads.
    if (cross_chip > 0) {
      const double c = p_.coherence_bw;
      const double slower = 1.0 + 2.0 * cross_chip / (1.0 + std::sqrt(1.0 + 4.0 * cross_chip / c)) / c;
      next = 1e300;
      for (Op* o : active_) {
        if (o->remote > 0) o->rate /= slower;
        if (o->rate > 0) next = std::min(next, std::max(0.0, o->left) / o->rate);
      }
    }
    wake_.cancel();
    if (next < 1e300) wake_.notify(sc_time(next, SC_SEC));
  }

  void on_wake() {
    advance();
    const sc_time res = sc_core::sc_get_time_resolution();
    for (auto it = active_.begin(); it != active_.end();) {
      Op* o = *it;
      // Done when less than one time-resolution step of work is left.
      if (o->rate > 0 && (o->left <= o->rate * res.to_seconds() || o->left <= 1e-15)) {
        o->done.notify(sc_core::SC_ZERO_TIME);
        it = active_.erase(it);
      } else {
        ++it;
      }
    }
    reschedule();
  }

  const Profile& p_;
  std::vector<double> speed_;  // per core (SimCell::core_speed or the profile's)
  std::vector<Core> cores_;
  std::vector<int> place_;  // ring position -> core
  std::vector<sc_core::sc_event> granted_;
  std::vector<double> link_demand_, link_slow_;  // per ordered pair of nodes
  std::list<Op*> active_;
  double last_ = 0;
  sc_core::sc_event wake_;
  long ops_ = 0, yields_ = 0;
  double background_time_ = 0;
  bool finished_ = false;
};

// A counter in shared memory: writes become visible to readers one
// cache-line transfer later.
class Flag {
 public:
  Flag(const char* name, double latency) : ev_(name), latency_(latency) {}
  // The value is visible from the instant the event fires, compared in
  // SystemC's own time (a latency with a part below the time resolution,
  // e.g. 167.11012 ns, fires at 167.110 ns; compared as seconds the value
  // would still be pending then, and a process alone on its core waiting
  // for that one event would wait for ever).
  void set(std::uint64_t v) {
    const sc_time d(latency_, SC_SEC);
    pending_.emplace_back(sc_core::sc_time_stamp() + d, v);
    ev_.notify(d);
  }
  [[nodiscard]] std::uint64_t get() {
    const sc_time& t = sc_core::sc_time_stamp();
    while (!pending_.empty() && pending_.front().first <= t) {
      value_ = pending_.front().second;
      pending_.pop_front();
    }
    return value_;
  }
  [[nodiscard]] const sc_core::sc_event& event() const { return ev_.default_event(); }

 private:
  sc_core::sc_event_queue ev_;
  double latency_;
  std::uint64_t value_ = 0;
  std::deque<std::pair<sc_time, std::uint64_t>> pending_;
};

// One direction r -> r+1: head (published), tail (consumed or posted), rel
// (zero copy: buffers handed back).
struct Channel {
  Flag head, tail, rel;
  Channel(const std::string& n, double lat)
      : head((n + "_head").c_str(), lat), tail((n + "_tail").c_str(), lat), rel((n + "_rel").c_str(), lat) {}
};

// One ring on its own machine.
class Ring : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Ring);
  Ring(const sc_core::sc_module_name& n, const Profile& p, const SimCell& c, std::uint64_t seed, std::uint64_t order)
      : sc_module(n),
        p_(p),
        c_(c),
        machine_("machine", p, cores_of_positions(p, c), seed, order, c.core_speed),
        rng_(seed ^ 0x5eed) {
    for (int r = 0; r < c.procs; ++r) {
      chan_.push_back(std::make_unique<Channel>(fmt::format("ch{}", r), p.c2c_latency));  // r -> r+1
      if (c.two_way) back_.push_back(std::make_unique<Channel>(fmt::format("back{}", r), p.c2c_latency));
    }
    start_.assign(static_cast<std::size_t>(c.procs), 0.0);
    end_.assign(static_cast<std::size_t>(c.procs), 0.0);
    for (int r = 0; r < c.procs; ++r) {
      sc_core::sc_spawn_options opt;
      sc_core::sc_spawn([this, r] { rank(r); }, sc_core::sc_gen_unique_name("rank"), &opt);
    }
  }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  Ring(Ring&&) = delete;
  Ring& operator=(Ring&&) = delete;
  ~Ring() override = default;

  // Slowest rank, each timed from when it first ran (as the native ring
  // times each rank from its own start).
  [[nodiscard]] double seconds() const {
    double s = 0;
    for (std::size_t r = 0; r < end_.size(); ++r) s = std::max(s, end_[r] - start_[r]);
    return s;
  }
  [[nodiscard]] const Machine& machine() const { return machine_; }
  // Every rank ran all its steps.
  [[nodiscard]] bool complete() const { return finished_ranks_ == c_.procs; }

 private:
  // The core of each ring position: the rank there (c.ring), placed as the
  // kernel places it.
  static std::vector<int> cores_of_positions(const Profile& p, const SimCell& c) {
    const std::vector<int> by_rank = place_ranks(p, c.procs);
    std::vector<int> out(static_cast<std::size_t>(c.procs));
    for (int q = 0; q < c.procs; ++q)
      out[static_cast<std::size_t>(q)] =
          by_rank[static_cast<std::size_t>(c.ring.empty() ? q : c.ring[static_cast<std::size_t>(q)])];
    return out;
  }

  // Whether rank r's data comes from (or goes to) another core: then its
  // lines cross between the cores' caches, at the exchange rates the
  // calibration measured with two CPUs at once (a profile without them,
  // e.g. a hand-written one, uses the single-process rates).
  [[nodiscard]] bool crosses(int a, int b) const { return machine_.core_of(a) != machine_.core_of(b); }
  [[nodiscard]] double rate(const std::vector<double>& exchange, const std::vector<double>& local, double size,
                            bool cross) const {
    return cross && !exchange.empty() ? p_.at(exchange, size) : p_.at(local, size);
  }
  // Copy of `bytes` with a working-set-equivalent memcpy size of `ws` bytes,
  // at the rate `bw` (B/s).
  // `from`: the rank whose node the source data come from (-1: this rank's).
  // `data` false: `from` holds the destination's lines, which the copy
  // claims (ownership, no data: Machine::run).
  void copy(int r, double bytes, double ws, double bw, int from = -1, bool data = true) {
    machine_.run(r, bytes / bw, 2 * bytes, 2 * p_.at(p_.memcpy_bw_all, ws), from, bytes, data);
  }
  void read(int r, double bytes, double bw, int from = -1) {
    machine_.run(r, bytes / bw, bytes, 2 * p_.at(p_.memcpy_bw_all, bytes), from, bytes);
  }
  void cpu(int r, double seconds) { machine_.run(r, seconds, 0, 1); }

  // The transports' wait: spin (holding the core) for spin_time, then
  // yield until pred() holds (round robin with the other ring processes on
  // the core, or, alone on it, seeing the flag a yield delay late).
  template <class Pred>
  void wait_for(int r, const sc_core::sc_event_or_list& evs, Pred pred) {
    if (pred()) return;
    // Spin, holding the core. In whole time-resolution steps: a remainder
    // below one step would round to a zero wait and never end.
    const sc_time until = sc_core::sc_time_stamp() + sc_time(p_.spin_time, SC_SEC);
    while (!pred() && sc_core::sc_time_stamp() < until) sc_core::wait(until - sc_core::sc_time_stamp(), evs);
    if (pred()) {
      machine_.await_core(r);
      return;
    }
    // Spun out: yield. Alone on its core, the process sees its flag
    // yield_delay after it is set (measured: the rest of a system call, or
    // of another process's turn); with others of ours on the core, they get
    // it in turn.
    while (!pred()) {
      if (machine_.alone(r)) {
        sc_core::wait(evs);
        if (pred()) {
          const double d = yield_delay();
          if (d > 0) sc_core::wait(sc_time(d, SC_SEC));
        }
      } else {
        machine_.await_core(r);
        machine_.yield(r);
      }
    }
    machine_.await_core(r);
  }

  // How late a process that spun out and yielded sees its flag: the
  // measured median, or with probability q a whole background burst, q
  // such that the mean is the measured mean (a two-point distribution of
  // the calibration's trials; seeded, so runs repeat).
  double yield_delay() {
    const double med = p_.yield_delay_median, mean = p_.yield_delay, g = p_.preempt_slice;
    if (g <= med || mean <= med) return mean;
    const double q = std::min(1.0, (mean - med) / (g - med));
    return static_cast<double>(rng_() >> 11) * 0x1.0p-53 < q ? g : med;
  }

  // Rank r's rates and costs per step, B/s and s, from the profile.
  struct StepRates {
    double ws_dc = 0;       // double copy's working set (double_copy_working_set)
    double dc_send = 0;     // a chunk into the right neighbour's slot
    double dc_recv = 0;     // a chunk out of the left neighbour's slot
    double cma_pull = 0;    // a pull of the left neighbour's message
    double cma_read = 0;    // the checksum of what the pull wrote
    double local_read = 0;  // the checksum of a private buffer
    double zc_read = 0;     // zero copy's checksum in place
    double overhead = 0;    // the transport's protocol (step_overhead)
    double remap = 0;       // zero copy with remap: the page remap
  };

  // Double copy: into a slot the right neighbour read last, out of a slot
  // the left one just wrote. CMA: the left neighbour's send buffer pulled
  // into mine, then the checksum of what my pull wrote. Zero copy reads the left
  // neighbour's pool buffer, which it does not rewrite: local rates.
  // Each copy moves one chunk through a slot whose lines the other core
  // touched last (the exchange rate at the chunk's size). The receive
  // copy writes the chunk into the private receive buffer, which the
  // checksum then reads: it also pays what memcpy loses from the chunk's
  // size (the exchange's own private buffers) to the working set's, not
  // just the slower of the two (natively the 2-process 1 MiB sendrecv
  // takes 95-98 us for 16 chunks; the slower rate gives 70). The send
  // copy only reads its private buffer, which nothing rewrites, and does
  // not slow with the working set: the ring's chunk copies timed natively
  // (two processes, vCPUs near, two calibrations) run send 15.7 / 15.0 /
  // 15.3 and 15.5 / 14.8 / 13.8 GB/s at 64 KiB / 1 MiB / 4 MiB, receive
  // 23.3 / 18.8 / 21.4 and 21.2 / 19.2 / 20.5; the model with the term on
  // both gives send 12.2 / 11.7 / 11.6 and 12.4 / 11.5 / 11.6, receive
  // 24.7 / 22.9 / 22.3 and 24.4 / 21.0 / 21.4. Over 26 rounds, 246 of 312
  // double-copy cells come out within 25%, against 234 with the term on
  // both copies.
  // Rank r sending to `right` while it receives from `left` (the two
  // directions of a two-way ring swap them).
  [[nodiscard]] StepRates rates_of(int r, int right, int left) const {
    const auto S = static_cast<double>(c_.size);
    const auto C = static_cast<double>(c_.chunk);
    StepRates x;
    x.ws_dc = double_copy_working_set(c_, p_.cores);
    const double chunk_bytes = std::min(S, C);
    const double ws_slowdown =
        std::max(0.0, 1.0 / p_.at(p_.memcpy_bw, x.ws_dc) - 1.0 / p_.at(p_.memcpy_bw, chunk_bytes));
    x.dc_send = rate(p_.xwrite_bw, p_.memcpy_bw, chunk_bytes, crosses(r, right));
    x.dc_recv = 1.0 / (1.0 / rate(p_.xcopy_bw, p_.memcpy_bw, chunk_bytes, crosses(r, left)) + ws_slowdown);
    // CMA's pull is measured with one process per CPU. With k processes on a
    // core, the core's ranks pull k messages a step through its caches: the
    // copy part of a pull (beyond its call) goes at the rate the same table
    // gives for k times the size (the call stays one per message). The
    // memcpy table's slowdown from S to kS instead leaves the 8-process
    // 4 MiB cell +35% in quiet rounds (this term: +3..+12%). Over 11
    // rounds, 100 of 132 CMA cells come out within 25% with the term, 86
    // without. It applies with transport buffers too: a core's caches hold
    // its ranks' buffers whether or not the senders wait.
    // (Two-way: each process pulls two messages a step.)
    const double k_core = static_cast<double>(per_core(c_.procs, std::max(1, p_.cores))) * (c_.two_way ? 2.0 : 1.0);
    const bool pull_crosses = crosses(r, left);
    const double call = pull_crosses ? cma_call_exchanged(p_) : p_.cma_call;
    // Seconds per byte of a pull of `bytes` bytes beyond its call.
    auto pull_copy = [&](double bytes) {
      return std::max(0.0, 1.0 / rate(p_.xcma_bw, p_.cma_bw, bytes, pull_crosses) - call / bytes);
    };
    x.cma_pull = 1.0 / (1.0 / rate(p_.xcma_bw, p_.cma_bw, S, pull_crosses) +
                        std::max(0.0, pull_copy(k_core * S) - pull_copy(S)));
    x.cma_read = rate(p_.xread_bw, p_.read_bw, S, crosses(r, left));
    x.local_read = p_.at(p_.read_bw, S);
    // Zero copy reads the left neighbour's pool buffer in place, a buffer
    // no one on this core rewrote: with k processes on a core, k such
    // buffers pass through its caches a step, so the read goes at the
    // table's rate for k times the size (as CMA's pull above). Over 26
    // rounds, zero copy has 249 of 312 cells within 25% with it, 241
    // without (8 processes 4 MiB 20 / 15 of 26, median error +0.13 /
    // +0.21); smaller messages stay cached either way.
    x.zc_read = p_.at(p_.read_bw, k_core * S);
    x.overhead = step_overhead(p_, c_.path);
    x.remap = c_.remap ? p_.remap_call + std::ceil(S / 4096.0) * p_.remap_per_page : 0.0;
    return x;
  }

  // One double-copy step of rank r: the message's chunks out through `out`
  // while the left neighbour's come in through `in` (`sent` and `got`
  // count the chunks over all steps), then the checksum.
  void double_copy_step(int r, int from, int to, Channel& out, Channel& in, const StepRates& x,
                        const sc_core::sc_event_or_list& both, std::uint64_t& sent, std::uint64_t& got) {
    const auto S = static_cast<double>(c_.size);
    const auto K = static_cast<std::uint64_t>(c_.slots);
    const auto C = static_cast<double>(c_.chunk);
    const std::uint64_t chunks = std::max<std::uint64_t>(1, (c_.size + c_.chunk - 1) / c_.chunk);
    std::uint64_t s = 0, g = 0;
    while (s < chunks || g < chunks) {
      bool progress = false;
      if (s < chunks && sent - out.tail.get() < K) {
        copy(r, std::min(C, S - static_cast<double>(s) * C), x.ws_dc, x.dc_send, to, false);
        out.head.set(++sent);
        ++s;
        progress = true;
      }
      if (g < chunks && in.head.get() > got) {
        copy(r, std::min(C, S - static_cast<double>(g) * C), x.ws_dc, x.dc_recv, from);
        in.tail.set(++got);
        ++g;
        progress = true;
      }
      if (!progress)
        wait_for(r, both,
                 [&] { return (s < chunks && sent - out.tail.get() < K) || (g < chunks && in.head.get() > got); });
    }
    read(r, S, x.local_read);
  }

  // One CMA step of rank r (message `seq`).
  // Post my send buffer (out.head): with B transport buffers, once the
  // right neighbour pulled the message sent B steps ago from the same
  // buffer. Pull the left neighbour's once it posted (in.head) and say
  // so (in.tail); without transport buffers (rendezvous), then wait
  // until the right neighbour pulled mine (out.tail). The checksum
  // follows.
  void cma_step(int r, int from, Channel& out, Channel& in, const StepRates& x, std::uint64_t seq) {
    const auto S = static_cast<double>(c_.size);
    const auto B = static_cast<std::uint64_t>(c_.cma_buffers);
    if (B > 0) wait_for(r, out.tail.event(), [&] { return out.tail.get() + B >= seq; });
    out.head.set(seq);
    wait_for(r, in.head.event(), [&] { return in.head.get() >= seq; });
    machine_.run(r, S / x.cma_pull, 2 * S, 2 * p_.at(p_.memcpy_bw_all, S), from, S);
    in.tail.set(seq);
    if (B == 0) wait_for(r, out.tail.event(), [&] { return out.tail.get() >= seq; });
    read(r, S, x.cma_read);
  }

  // One zero-copy step of rank r (message `seq`).
  // Zero copy: a pool buffer (two per rank: the one of message seq-2
  // must be back), the receiver must have taken the last message, a
  // control message out; the previous view goes back to the left
  // neighbour; its control message in; pages mapped (optionally) and
  // read in place.
  // Two-way, a rank's two buffers go one right and one left each step
  // (one per direction), and the receiver hands the view back once read.
  void zero_copy_step(int r, int from, Channel& out, Channel& in, const StepRates& x, std::uint64_t seq) {
    const std::uint64_t buffers = c_.two_way ? 1 : 2;
    wait_for(r, out.rel.event(), [&] { return out.rel.get() + buffers >= seq; });
    wait_for(r, out.tail.event(), [&] { return out.tail.get() + 1 >= seq; });
    out.head.set(seq);
    if (!c_.two_way) in.rel.set(seq - 1);
    wait_for(r, in.head.event(), [&] { return in.head.get() >= seq; });
    in.tail.set(seq);
    if (x.remap > 0) cpu(r, x.remap);
    read(r, static_cast<double>(c_.size), x.zc_read, from);
    if (c_.two_way) in.rel.set(seq);
  }

  // One direction of rank r's steps: to `to` over `out` while `from`'s
  // message comes in over `in`.
  struct Way {
    int to, from;
    Channel *out, *in;
    StepRates x;
    std::uint64_t sent = 0, got = 0;  // double copy: chunks
    sc_core::sc_event_or_list both;
  };

  void rank(int r) {
    const int n = c_.procs;
    machine_.acquire(r);
    start_[static_cast<std::size_t>(r)] = now_s();
    const int right = (r + 1) % n, left = (r + n - 1) % n;
    // Rightwards: r -> r+1 while r-1 -> r; a two-way ring then sends
    // leftwards: r -> r-1 while r+1 -> r (hpcc's two MPI_Sendrecv a step).
    std::vector<Way> ways;
    ways.reserve(2);
    ways.push_back({right, left, chan_[static_cast<std::size_t>(r)].get(), chan_[static_cast<std::size_t>(left)].get(),
                    rates_of(r, right, left)});
    if (c_.two_way)
      ways.push_back({left, right, back_[static_cast<std::size_t>(r)].get(),
                      back_[static_cast<std::size_t>(right)].get(), rates_of(r, left, right)});
    for (auto& w : ways) {
      w.both |= w.out->tail.event();
      w.both |= w.in->head.event();
    }
    for (int it = 0; it < c_.iters; ++it) {
      const std::uint64_t seq = static_cast<std::uint64_t>(it) + 1;
      for (auto& w : ways) {
        cpu(r, w.x.overhead);
        if (c_.path == CopyPath::double_copy)
          double_copy_step(r, w.from, w.to, *w.out, *w.in, w.x, w.both, w.sent, w.got);
        else if (c_.path == CopyPath::cma)
          cma_step(r, w.from, *w.out, *w.in, w.x, seq);
        else
          zero_copy_step(r, w.from, *w.out, *w.in, w.x, seq);
      }
    }
    end_[static_cast<std::size_t>(r)] = now_s();
    // Done: the next process on this core runs without paying for us.
    if (++finished_ranks_ == n) machine_.finish();
    machine_.leave(r);
  }

  const Profile& p_;
  SimCell c_;
  Machine machine_;
  std::vector<std::unique_ptr<Channel>> chan_;  // r -> r+1
  std::vector<std::unique_ptr<Channel>> back_;  // r -> r-1 (two-way)
  std::vector<double> start_, end_;
  int finished_ranks_ = 0;
  std::mt19937_64 rng_;
};

// One simulated ring: cell, cycle order, repetition.
struct RingJob {
  std::size_t cell;
  int order;
  int rep;
};

// What a worker reports per ring (plain data in shared memory).
struct RingOutcome {
  double seconds = 0;
  double yields = 0;  // per ring step and rank
  double background = 0;
  double ops = 0;
  std::uint32_t complete = 0;
};

// Relative cost of simulating a ring (for spreading rings over workers):
// ranks x steps x operations per step, more when processes share cores.
double ring_weight(const SimCell& c, int cores) {
  const double chunks = c.path == CopyPath::double_copy
                            ? std::max(1.0, std::ceil(static_cast<double>(c.size) / static_cast<double>(c.chunk)))
                            : 1.0;
  return static_cast<double>(c.procs) * c.iters * (2.0 + chunks) * (c.procs > cores ? 2.0 : 1.0) *
         (c.two_way ? 2.0 : 1.0);
}

// Simulates `jobs` in this process (one SystemC elaboration) into `out`.
void run_rings(const Profile& p, const std::vector<SimCell>& cells, const std::vector<RingJob>& jobs,
               const std::vector<std::size_t>& mine, RingOutcome* out) {
  std::vector<std::unique_ptr<Ring>> rings;
  for (std::size_t j : mine) {
    const RingJob& b = jobs[j];
    const SimCell& c = cells[b.cell];
    rings.push_back(std::make_unique<Ring>(fmt::format("ring{}_{}_{}", b.cell, b.order, b.rep).c_str(), p, c,
                                           c.seed * 1000003ull + static_cast<std::uint64_t>(b.rep),
                                           c.seed + static_cast<std::uint64_t>(b.order)));
  }
  sc_core::sc_start();
  for (std::size_t n = 0; n < mine.size(); ++n) {
    const Ring& r = *rings[n];
    const SimCell& c = cells[jobs[mine[n]].cell];
    RingOutcome& o = out[mine[n]];
    o.seconds = r.seconds();
    o.yields = r.machine().yields() / (static_cast<double>(c.iters) * c.procs);
    o.background = r.machine().background_time();
    o.ops = r.machine().ops();
    o.complete = r.complete() ? 1 : 0;
  }
}

// Worker processes: as many as CPUs this process may use (at most 16 and
// one per ring), each simulating its share of the rings, the heaviest
// first to the least loaded.
std::vector<RingOutcome> run_in_workers(const Profile& p, const std::vector<SimCell>& cells,
                                        const std::vector<RingJob>& jobs) {
  if (jobs.empty()) return {};
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  const auto nw = static_cast<std::size_t>(
      std::clamp<std::size_t>(static_cast<std::size_t>(std::max(1, cpus)), 1, std::min<std::size_t>(16, jobs.size())));
  std::vector<std::size_t> by_weight(jobs.size());
  std::iota(by_weight.begin(), by_weight.end(), std::size_t{0});
  std::vector<double> w(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) w[j] = ring_weight(cells[jobs[j].cell], p.cores);
  std::stable_sort(by_weight.begin(), by_weight.end(), [&](std::size_t a, std::size_t b) { return w[a] > w[b]; });
  std::vector<std::vector<std::size_t>> share(nw);
  std::vector<double> load(nw, 0.0);
  for (std::size_t j : by_weight) {
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    share[least].push_back(j);
    load[least] += w[j];
  }

  // Results and each worker's error text in shared memory.
  constexpr std::size_t kErr = 1024;
  const std::size_t bytes = jobs.size() * sizeof(RingOutcome) + nw * kErr;
  void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) throw Error(fmt::format("host model: cannot map {} bytes for the workers", bytes));
  struct Unmap {
    void* m;
    std::size_t n;
    Unmap(void* map, std::size_t len) : m(map), n(len) {}
    Unmap(const Unmap&) = delete;
    Unmap& operator=(const Unmap&) = delete;
    Unmap(Unmap&&) = delete;
    Unmap& operator=(Unmap&&) = delete;
    ~Unmap() { ::munmap(m, n); }
  } unmap{m, bytes};
  auto* outcome = static_cast<RingOutcome*>(m);
  std::uninitialized_default_construct_n(outcome, jobs.size());
  char* errors = static_cast<char*>(m) + jobs.size() * sizeof(RingOutcome);

  std::fflush(nullptr);
  std::vector<pid_t> pids;
  for (std::size_t k = 0; k < nw; ++k) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      const int err = errno;
      for (pid_t q : pids) ::kill(q, SIGKILL);
      for (pid_t q : pids) ::waitpid(q, nullptr, 0);
      throw Error(fmt::format("host model: cannot start a simulation worker: {}", std::strerror(err)));
    }
    if (pid == 0) {
      int code = 0;
      try {
        run_rings(p, cells, jobs, share[k], outcome);
      } catch (const std::exception& e) {
        std::snprintf(errors + k * kErr, kErr, "%s", e.what());
        code = 1;
      }
      std::fflush(nullptr);
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  std::string failed;
  for (std::size_t k = 0; k < nw; ++k) {
    int st = 0;
    while (::waitpid(pids[k], &st, 0) < 0 && errno == EINTR) {
    }
    if (!failed.empty()) continue;
    if (WIFSIGNALED(st))
      failed =
          fmt::format("host model: a simulation worker died of signal {} ({})", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
      failed = errors[k * kErr] != 0 ? std::string(errors + k * kErr)
                                     : std::string("host model: a simulation worker failed");
  }
  if (!failed.empty()) throw Error(failed);
  return {outcome, outcome + jobs.size()};
}

}  // namespace

std::vector<SimResult> simulate_ring(const Profile& p, const std::vector<SimCell>& cells) {
  for (const auto& c : cells) {
    if (c.procs < 2)
      throw ConfigError(fmt::format("host model: a ring of {} process has no neighbour (at least 2)", c.procs));
    if (c.path == CopyPath::cma && !p.cma_ok)
      throw ConfigError(fmt::format("host model: profile '{}' says CMA is not available on its machine", p.name));
    if (c.slots < 1 || c.chunk < 64 || c.iters < 1 || c.reps < 1 || c.orders < 1)
      throw ConfigError("host model: slots, chunk, iters, reps and orders must be positive");
    if (c.cma_buffers < 0 || c.cma_buffers > kMaxCmaBuffers)
      throw ConfigError(fmt::format("host model: {} CMA send buffers (0 for a rendezvous, at most {})", c.cma_buffers,
                                    kMaxCmaBuffers));
    if (!c.core_speed.empty() && c.core_speed.size() != static_cast<std::size_t>(p.cores))
      throw ConfigError(
          fmt::format("host model: {} core speeds for a profile of {} cores", c.core_speed.size(), p.cores));
    if (!c.ring.empty()) {
      std::vector<int> sorted = c.ring;
      std::sort(sorted.begin(), sorted.end());
      for (int q = 0; q < c.procs; ++q)
        if (sorted.size() != static_cast<std::size_t>(c.procs) || sorted[static_cast<std::size_t>(q)] != q)
          throw ConfigError(fmt::format(
              "host model: the ring order of a {}-process cell is not a permutation of its ranks", c.procs));
    }
    if (c.procs > p.cores && p.switch_cost <= 0)
      throw ConfigError(fmt::format(
          "host model: {} processes on {} cores hand cores over, but profile '{}' has switch_cost 0 (must be positive)",
          c.procs, p.cores, p.name));
  }
  // Per cell: orders x reps rings; ring (o, k) has the core cycle order
  // seed + o and background seed seed * 1000003 + k. The rings are spread
  // over worker processes, each with its own SystemC elaboration (one per
  // process is all SystemC allows), so this process never elaborates and
  // may call simulate_ring again.
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION)
    throw Error("host model: SystemC already ran in this process; simulate_ring's workers could not elaborate");
  std::vector<RingJob> jobs;
  std::vector<int> orders(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) {
    orders[i] = cycle_orders(cells[i], p.cores);
    for (int o = 0; o < orders[i]; ++o)
      for (int k = 0; k < cells[i].reps; ++k) jobs.push_back({i, o, k});
  }
  const auto outcome = run_in_workers(p, cells, jobs);
  std::size_t next = 0;
  for (std::size_t i = 0; i < cells.size(); ++i)
    for (int n = 0; n < orders[i] * cells[i].reps; ++n)
      // A ring whose ranks stopped short is a fault of the model (a lost
      // wake-up), never a result.
      if (outcome[next++].complete == 0)
        throw Error(
            fmt::format("host model: the {}-process {} ring of {} bytes stopped before its {} steps (a "
                        "model fault: a process waits for an event that no longer comes)",
                        cells[i].procs, path_name(cells[i].path), cells[i].size, cells[i].iters));
  std::vector<SimResult> out;
  next = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    // Per order the fastest repetition (as natively, where all repetitions
    // of a launch share one order); of those, the median.
    std::vector<SimResult> per_order;
    double ops = 0;
    for (int o = 0; o < orders[i]; ++o) {
      SimResult best;
      for (int k = 0; k < cells[i].reps; ++k) {
        const RingOutcome& r = outcome[next++];
        ops += r.ops;
        if (best.seconds == 0 || r.seconds < best.seconds) {
          best.seconds = r.seconds;
          best.yields = r.yields;
          best.background = r.background;
        }
      }
      per_order.push_back(best);
    }
    std::sort(per_order.begin(), per_order.end(),
              [](const SimResult& a, const SimResult& b) { return a.seconds < b.seconds; });
    SimResult med = per_order[per_order.size() / 2];
    med.ops = ops;
    med.bandwidth = static_cast<double>(cells[i].size) * cells[i].iters * (cells[i].two_way ? 2 : 1) / med.seconds;
    out.push_back(med);
  }
  return out;
}

std::vector<int> place_ranks(const Profile& p, int procs) {
  const int chips = p.chip_count(), nodes = p.node_count();
  const int per_chip = p.cores / chips, chips_per_node = chips / nodes;
  std::vector<int> on_core(static_cast<std::size_t>(p.cores), 0), on_chip(static_cast<std::size_t>(chips), 0),
      on_node(static_cast<std::size_t>(nodes), 0);
  auto least = [](const std::vector<int>& load, int first, int count) {
    int best = first;
    for (int i = first; i < first + count; ++i)
      if (load[static_cast<std::size_t>(i)] < load[static_cast<std::size_t>(best)]) best = i;
    return best;
  };
  std::vector<int> out;
  for (int r = 0; r < procs; ++r) {
    const int node = least(on_node, 0, nodes);
    const int chip = least(on_chip, node * chips_per_node, chips_per_node);
    const int core = least(on_core, chip * per_chip, per_chip);
    ++on_node[static_cast<std::size_t>(node)];
    ++on_chip[static_cast<std::size_t>(chip)];
    ++on_core[static_cast<std::size_t>(core)];
    out.push_back(core);
  }
  return out;
}

int cycle_orders(const SimCell& c, int cores) {
  // Two processes on a core have one cycle; three or more have several.
  return per_core(c.procs, std::max(1, cores)) >= 3 ? std::max(1, c.orders) : 1;
}

}  // namespace hopsim::host::model
