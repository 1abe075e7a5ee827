#include "hopsim/host/model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <list>
#include <memory>
#include <systemc>

#include "hopsim/common/error.hpp"

namespace hopsim::host {

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

using sc_core::SC_SEC;
using sc_core::sc_time;

double now_s() { return sc_core::sc_time_stamp().to_seconds(); }

// Cores and memory system shared as a fluid by the operations in progress.
class Machine : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Machine);
  Machine(sc_core::sc_module_name n, int cores, double background)
      : sc_module(n), cores_(cores), background_(background) {
    SC_METHOD(on_wake);
    sensitive << wake_;
    dont_initialize();
  }
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  // Runs an operation that takes `alone` seconds with the machine to itself
  // and moves `traffic` bytes through a memory system of `capacity` B/s.
  // Call from an SC_THREAD.
  void run(double alone, double traffic, double capacity) {
    if (alone <= 0) return;
    ++ops_;
    advance();
    Op op;
    op.left = alone;
    op.demand = traffic / alone;
    op.capacity = capacity;
    active_.push_back(&op);
    reschedule();
    sc_core::wait(op.done);
  }
  [[nodiscard]] double ops() const { return static_cast<double>(ops_); }

 private:
  struct Op {
    double left = 0;      // seconds of alone-time still to run
    double demand = 0;    // B/s of memory traffic when running alone
    double capacity = 0;  // B/s the memory system gives at this working set
    double rate = 0;      // alone-seconds per second at the moment
    sc_core::sc_event done;
  };

  void advance() {
    const double t = now_s();
    const double dt = t - last_;
    if (dt > 0)
      for (Op* o : active_) o->left -= dt * o->rate;
    last_ = t;
  }

  void reschedule() {
    const double R = static_cast<double>(active_.size());
    if (R == 0) return;
    // Other work on the machine (background_load runnable processes) takes
    // its share of the cores too.
    const double share = std::min(1.0, cores_ / (R + background_));
    double demand = 0, capacity = 1e300;
    for (const Op* o : active_)
      if (o->demand > 0) {
        demand += share * o->demand;
        capacity = std::min(capacity, o->capacity);
      }
    const double slow = demand > capacity ? capacity / demand : 1.0;
    double next = 1e300;
    for (Op* o : active_) {
      o->rate = share * (o->demand > 0 ? slow : 1.0);
      next = std::min(next, std::max(0.0, o->left) / o->rate);
    }
    wake_.cancel();
    wake_.notify(sc_time(next, SC_SEC));
  }

  void on_wake() {
    advance();
    const sc_time res = sc_core::sc_get_time_resolution();
    for (auto it = active_.begin(); it != active_.end();) {
      Op* o = *it;
      // Done when less than one time-resolution step of work is left.
      if (o->left <= o->rate * res.to_seconds() || o->left <= 1e-15) {
        o->done.notify(sc_core::SC_ZERO_TIME);
        it = active_.erase(it);
      } else {
        ++it;
      }
    }
    reschedule();
  }

  int cores_;
  double background_;
  std::list<Op*> active_;
  double last_ = 0;
  sc_core::sc_event wake_;
  long ops_ = 0;
};

// A counter in shared memory: writes become visible to readers one
// cache-line transfer later.
class Flag {
 public:
  Flag(const char* name, double latency) : ev_(name), latency_(latency) {}
  void set(std::uint64_t v) {
    pending_.push_back({now_s() + latency_, v});
    ev_.notify(sc_time(latency_, SC_SEC));
  }
  [[nodiscard]] std::uint64_t get() {
    const double t = now_s();
    while (!pending_.empty() && pending_.front().first <= t + 1e-13) {
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
  std::deque<std::pair<double, std::uint64_t>> pending_;
};

struct Channel {
  Flag head, tail;
  Channel(const std::string& n, double lat) : head((n + "_head").c_str(), lat), tail((n + "_tail").c_str(), lat) {}
};

// One ring on its own machine.
class Ring : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Ring);
  Ring(sc_core::sc_module_name n, const Profile& p, const SimCell& c)
      : sc_module(n), p_(p), c_(c), machine_("machine", p.cores, p.background_load) {
    for (int r = 0; r < c.procs; ++r)
      chan_.push_back(std::make_unique<Channel>(fmt::format("ch{}", r), p.c2c_latency));  // r -> r+1
    for (int r = 0; r < c.procs; ++r) {
      sc_core::sc_spawn_options opt;
      sc_core::sc_spawn([this, r] { rank(r); }, sc_core::sc_gen_unique_name("rank"), &opt);
    }
  }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  SimResult result() const {
    SimResult r;
    r.seconds = end_ - start_;
    r.bandwidth = static_cast<double>(c_.size) * c_.iters / r.seconds;
    r.ops = machine_.ops();
    return r;
  }

 private:
  // Copy of `bytes` with a working set of `ws` bytes (source plus destination).
  void copy(double bytes, double ws) {
    machine_.run(bytes / p_.at(p_.memcpy_bw, ws / 2), 2 * bytes, 2 * p_.at(p_.memcpy_bw_all, ws / 2));
  }
  void read(double bytes) { machine_.run(bytes / p_.at(p_.read_bw, bytes), bytes, 2 * p_.at(p_.memcpy_bw_all, bytes)); }
  void cpu(double seconds) { machine_.run(seconds, 0, 1); }
  // Waits until pred() holds, paying a process switch if this process had
  // to give up its core (more processes than cores).
  template <class Pred>
  void wait_for(const sc_core::sc_event_or_list& evs, Pred pred) {
    if (pred()) return;
    while (!pred()) sc_core::wait(evs);
    if (c_.procs + p_.background_load > p_.cores) cpu(p_.switch_cost);
  }

  void rank(int r) {
    const int n = c_.procs;
    Channel& out = *chan_[r];               // r -> r+1
    Channel& in = *chan_[(r + n - 1) % n];  // r-1 -> r
    const double S = static_cast<double>(c_.size);
    const std::uint64_t K = static_cast<std::uint64_t>(c_.slots);
    const double C = static_cast<double>(c_.chunk);
    const std::uint64_t chunks = std::max<std::uint64_t>(1, (c_.size + c_.chunk - 1) / c_.chunk);
    const double ws_dc = S + static_cast<double>(K) * C;  // per copy: message buffer + bounce slots
    std::uint64_t sent = 0, got = 0;                      // double copy: chunks; cma/zc: messages
    sc_core::sc_event_or_list both;
    both |= out.tail.event();
    both |= in.head.event();
    const double remap = c_.remap ? p_.remap_call + std::ceil(S / 4096.0) * p_.remap_per_page : 0.0;

    for (int it = 0; it < c_.iters; ++it) {
      if (c_.path == CopyPath::double_copy) {
        std::uint64_t s = 0, g = 0;
        while (s < chunks || g < chunks) {
          bool progress = false;
          if (s < chunks && sent - out.tail.get() < K) {
            copy(std::min(C, S - static_cast<double>(s) * C), 2 * ws_dc);
            out.head.set(++sent);
            ++s;
            progress = true;
          }
          if (g < chunks && in.head.get() > got) {
            copy(std::min(C, S - static_cast<double>(g) * C), 2 * ws_dc);
            in.tail.set(++got);
            ++g;
            progress = true;
          }
          if (!progress)
            wait_for(both,
                     [&] { return (s < chunks && sent - out.tail.get() < K) || (g < chunks && in.head.get() > got); });
        }
        read(S);
      } else if (c_.path == CopyPath::cma) {
        // Post my buffer (in.tail), write into the right neighbour's once it
        // posted (out.tail), then wait for the left neighbour's write (in.head).
        const std::uint64_t seq = it + 1;
        in.tail.set(seq);
        wait_for(out.tail.event(), [&] { return out.tail.get() >= seq; });
        const double alone = S / p_.at(p_.cma_bw, S);
        machine_.run(alone, 2 * S, 2 * p_.at(p_.memcpy_bw_all, S));
        out.head.set(seq);
        wait_for(in.head.event(), [&] { return in.head.get() >= seq; });
        read(S);
      } else {
        // Zero copy: a control message out, the neighbour's in, the pages
        // mapped (optionally) and read in place.
        const std::uint64_t seq = it + 1;
        out.head.set(seq);
        wait_for(in.head.event(), [&] { return in.head.get() >= seq; });
        if (remap > 0) cpu(remap);
        read(S);
      }
      (void)sent;
      (void)got;
    }
    if (++finished_ == n) end_ = now_s();
  }

  const Profile& p_;
  SimCell c_;
  Machine machine_;
  std::vector<std::unique_ptr<Channel>> chan_;
  double start_ = 0, end_ = 0;
  int finished_ = 0;
};

}  // namespace

std::vector<SimResult> simulate_ring(const Profile& p, const std::vector<SimCell>& cells) {
  for (const auto& c : cells) {
    if (c.procs < 2)
      throw ConfigError(fmt::format("host model: a ring of {} process has no neighbour (at least 2)", c.procs));
    if (c.path == CopyPath::cma && !p.cma_ok)
      throw ConfigError(fmt::format("host model: profile '{}' says CMA is not available on its machine", p.name));
    if (c.slots < 1 || c.chunk < 64 || c.iters < 1)
      throw ConfigError("host model: slots, chunk and iters must be positive");
  }
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION)
    throw Error(
        "host model: SystemC elaborates once per process; simulate_ring can run only once (pass all cells at once)");
  std::vector<std::unique_ptr<Ring>> rings;
  for (std::size_t i = 0; i < cells.size(); ++i)
    rings.push_back(std::make_unique<Ring>(fmt::format("ring{}", i).c_str(), p, cells[i]));
  sc_core::sc_start();
  std::vector<SimResult> out;
  for (const auto& r : rings) out.push_back(r->result());
  return out;
}

}  // namespace hopsim::host
