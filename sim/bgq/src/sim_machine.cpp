// Simulated BG/Q: every rank is a fiber with its own clock; one scheduler
// resumes them in model-time order and applies MU deliveries as events.
// A rank runs ahead on its own clock while it only computes or injects
// (both affect others only in its future); it yields when it must observe
// memory others write (spin, reception FIFO, barriers, MPI receive), so
// everything before its clock has happened when it looks.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <queue>

#include <fmt/format.h>
#include <boost/context/fiber.hpp>
#include <boost/context/fixedsize_stack.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include "hopsim/bgq/model/flow_torus.hpp"
#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/traces/writer.hpp"
#include "machine.hpp"

namespace ctx = boost::context;

namespace hopsim::bgq {

namespace {

// A rank's fiber stack, with a guard page below it (an overflow faults there
// and the crash report names it) when `guard`; records where it lies.
class RankStack {
 public:
  RankStack(std::size_t bytes, bool guard, crash::StackBounds* where) : bytes_(bytes), guard_(guard), where_(where) {}
  ctx::stack_context allocate() {
    ctx::stack_context sc =
        guard_ ? ctx::protected_fixedsize_stack(bytes_).allocate() : ctx::fixedsize_stack(bytes_).allocate();
    const auto hi = reinterpret_cast<std::uintptr_t>(sc.sp);
    *where_ = {hi - sc.size, hi};
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept {
    if (guard_)
      ctx::protected_fixedsize_stack(bytes_).deallocate(sc);
    else
      ctx::fixedsize_stack(bytes_).deallocate(sc);
  }

 private:
  std::size_t bytes_;
  bool guard_;
  crash::StackBounds* where_;
};

// A guarded stack is two mappings (the guard page cannot merge with its
// neighbours); unguarded ones merge. Guard pages while the ranks' stacks
// take at most half of the kernel's limit on a process's mappings
// (vm.max_map_count: 65530 by default, so up to 16382 ranks).
bool guarded_stacks(std::uint32_t ranks) {
  long limit = 65530;
  if (std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
    if (std::fscanf(f, "%ld", &limit) != 1) limit = 65530;
    std::fclose(f);
  }
  return 2L * ranks <= limit / 2;
}

enum class Wait : std::uint8_t { none, time, delivery, gi, done, gi_or_delivery, join };

// What a program thread's pthread_exit throws up to the start of its fiber.
struct ThreadExit {
  void* value;
};

// pthread_t of a rank's program thread in a simulated run: a tag and the thread's actor.
constexpr std::uint64_t kThreadTag = std::uint64_t{0x6b} << 56;

struct Event {
  model::Tick t;
  std::uint64_t seq;
  std::uint32_t kind;  // 0 delivery (before wakes at the same tick), 1 wake (of an actor), 2 a collective's result
  std::uint32_t idx;
  bool operator>(const Event& o) const {
    if (t != o.t) return t > o.t;
    if ((kind == 1) != (o.kind == 1)) return kind == 1;  // MU deliveries before wakes at the same tick
    return seq > o.seq;
  }
};

// A descriptor the MU has taken: its payload is read when the MU takes it
// (as the injecting node's memory is then), not when the packets land, so
// a rank that reuses its send buffer once the MU has moved on (after its
// own counter or a barrier) does not change data already on its way.
struct Pending {
  std::uint32_t src = 0, dst = 0;
  MUHWI_Descriptor_t desc{};
  std::vector<std::uint8_t> payload;
  model::Tick injected = 0;  // flow-controlled torus: for the trace, once it has arrived
};

const char* descriptor_kind(const MUHWI_Descriptor_t& d) {
  return model::packet_type(d) == MUHWI_PACKET_TYPE_PUT    ? "direct put"
         : model::packet_type(d) == MUHWI_PACKET_TYPE_FIFO ? "memory fifo"
                                                           : "remote get";
}

// "a,b,c,d,e": a node's torus coordinates, as node and link names show them.
std::string coords_text(const std::array<int, model::kDims>& c) {
  return fmt::format("{},{},{},{},{}", c[0], c[1], c[2], c[3], c[4]);
}

// Records the run into a trace: nodes with torus coordinates, the 10 links
// of each node, one transaction per descriptor with its packets' hops, and
// link counters.
class Tracer final : public model::NetObserver {
 public:
  Tracer(traces::TraceWriter& w, const model::Torus& t) : w_(w) {
    static const char* dn = "ABCDE";
    for (std::uint32_t n = 0; n < t.nodes(); ++n) {
      const auto c = t.coords(n);
      w_.add_node({n, fmt::format("node {} ({})", n, coords_text(c)), "node",
                   fmt::format("[{},{},{},{},{}]", c[0], c[1], c[2], c[3], c[4])});
    }
    for (std::uint32_t n = 0; n < t.nodes(); ++n)
      for (int d = 0; d < model::kDims; ++d) {
        if (t.dims()[static_cast<std::size_t>(d)] < 2) continue;
        for (int dir : {+1, -1})
          w_.add_link({model::link_index(n, d, dir), "torus", n, t.neighbour(n, d, dir),
                       fmt::format("({}) {}{}", coords_text(t.coords(n)), dn[d], dir > 0 ? '+' : '-')});
      }
  }
  void hop(std::uint32_t link, model::Tick requested, model::Tick start, model::Tick ser,
           std::uint32_t bytes) override {
    w_.add_link_sample(link, model::to_cycles(start), bytes, model::to_cycles(ser),
                       model::to_cycles(start - std::min(start, requested)));
    if (w_.records_hops()) hops_.push_back({0, link, model::to_cycles(start), model::to_cycles(start + ser)});
  }
  // The flow-controlled torus (machine.torus_flow_control=1): its link uses
  // come as the network runs, held per descriptor until it is delivered.
  void link_use(const model::FlowTorus::LinkUse& u) {
    w_.add_link_sample(u.link, model::to_cycles(u.start), u.bytes, model::to_cycles(u.busy),
                       model::to_cycles(u.start - std::min(u.start, u.asked)));
    if (!w_.records_hops()) return;
    if (flow_hops_.size() <= u.desc) flow_hops_.resize(u.desc + 1);
    flow_hops_[u.desc].push_back({0, u.link, model::to_cycles(u.start), model::to_cycles(u.end)});
  }
  // A descriptor with the hops seen since the last one (link calendars) or,
  // given `flow_desc`, its own link uses (flow control).
  void descriptor(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, model::Tick inject, model::Tick arrive,
                  const char* kind, std::uint32_t flow_desc = kNoDesc) {
    const auto id = w_.add_transaction(
        {0, src, dst, static_cast<std::int64_t>(bytes), model::to_cycles(inject), model::to_cycles(arrive), kind});
    auto& hops = flow_desc == kNoDesc ? hops_ : flow_hops_.size() > flow_desc ? flow_hops_[flow_desc] : hops_;
    for (auto& h : hops) {
      h.txn = id;
      w_.add_hop(h);
    }
    hops.clear();
  }
  static constexpr std::uint32_t kNoDesc = 0xffffffffu;

 private:
  traces::TraceWriter& w_;
  std::vector<traces::Hop> hops_;
  std::vector<std::vector<traces::Hop>> flow_hops_;  // by descriptor index
};

class SimMachine final : public Machine {
 public:
  SimMachine(const model::Params& p, const nlohmann::json& args, model::MuTiming& mu, traces::TraceWriter* trace)
      : Machine(p, args), mu_(mu), n_(static_cast<std::uint32_t>(size())) {
    if (trace) {
      tracer_ = std::make_unique<Tracer>(*trace, mu.network().torus());
      mu.network().set_observer(tracer_.get());
    }
    for (std::uint32_t r = 0; r < n_; ++r) add_actor(r);
    delivered_.assign(n_, 0);
    mu_busy_.assign(n_, 0);
    sending_.assign(n_, {});
    poll_ = model::to_ticks(p.poll_cycles);
    inject_ = model::to_ticks(p.inject_cycles);
    if (p.torus_flow_control) {
      flow_ = std::make_unique<model::FlowTorus>(p, model::FlowTorus::network_for(p));
      if (tracer_) flow_->on_link([t = tracer_.get()](const model::FlowTorus::LinkUse& u) { t->link_use(u); });
    }
  }
  Mode mode() const override { return Mode::sim; }
  std::uint64_t packet_hops() const override { return flow_ ? flow_->packet_hops() : mu_.network().packet_hops(); }
  double end_cycles() const override {
    model::Tick t = 0;
    for (const auto c : clock_) t = std::max(t, c);
    return model::to_cycles(t);
  }

  void run(void (*entry)()) override {
    guard_ = guarded_stacks(n_);
    for (std::uint32_t r = 0; r < n_; ++r) {
      fibers_[r] = ctx::fiber(std::allocator_arg, RankStack(rank_stack_bytes(), guard_, &stacks_[r]),
                              [this, r, entry](ctx::fiber&& sink) {
                                sinks_[r] = std::move(sink);
                                try {
                                  entry();
                                } catch (const ctx::detail::forced_unwind&) {
                                  throw;
                                } catch (...) {
                                  errors_[r] = std::current_exception();
                                }
                                wait_[r] = Wait::done;
                                return std::move(sinks_[r]);
                              });
      push(0, 1, r);
    }
    std::uint32_t finished = 0;
    const std::function<void(std::uint32_t, model::Tick)> arrived = [this](std::uint32_t idx, model::Tick t) {
      push(std::max(now_, t), 0, idx);
    };
    for (;;) {
      // The flow-controlled torus runs in step: up to the next event, or
      // until a descriptor arrives (an event, maybe before that one).
      if (flow_) flow_->step(q_.empty() ? kNever : q_.top().t, arrived);
      if (q_.empty()) break;
      const Event e = q_.top();
      q_.pop();
      now_ = e.t;
      mu_.set_horizon(now_);
      if (e.kind == 0) {
        deliver(e.idx);
        continue;
      }
      if (e.kind == 2) {
        deliver_collective(e.idx);
        continue;
      }
      const std::uint32_t a = e.idx;
      if (wait_[a] == Wait::done) continue;
      wait_[a] = Wait::none;
      clock_[a] = std::max(clock_[a], now_);
      cur_ = a;
      set_current(this, static_cast<int>(node_[a]));
      const auto thread_stack = crash::stack_bounds();
      crash::set_stack_bounds(stacks_[a]);
      fibers_[a] = std::move(fibers_[a]).resume();
      crash::set_stack_bounds(thread_stack);
      set_current(nullptr, -1);
      if (errors_[a]) std::rethrow_exception(errors_[a]);
      if (wait_[a] == Wait::done) {
        ++finished;
        for (const auto j : joiners_[a]) {
          wait_[j] = Wait::time;
          push(std::max(now_, clock_[a]), 1, j);
        }
        joiners_[a].clear();
      }
    }
    if (finished < static_cast<std::uint32_t>(node_.size())) throw_deadlock(finished);
  }

  // Some actors can never continue: names the first eight and what each waits for.
  [[noreturn]] void throw_deadlock(std::uint32_t finished) {
    const auto actors = static_cast<std::uint32_t>(node_.size());
    std::string who;
    int shown = 0;
    std::uint32_t ranks_left = 0;
    for (std::uint32_t r = 0; r < n_; ++r)
      for_actors(r, [&](std::uint32_t a) {
        if (wait_[a] == Wait::done) return;
        if (a < n_) ++ranks_left;
        if (shown == 8) return;
        static constexpr std::array<const char*, 7> what = {
            "running", "time",           "MU deliveries (spinning on memory)", "the GI barrier",
            "done",    "the GI barrier", "a thread to end (pthread_join)"};
        const auto& mw = mpi_wait_[a];
        const std::string mpi = wait_[a] == Wait::join ? "" : mpi_wait_text(mw.call, mw.peer, mw.tag);
        who += fmt::format("{}{} waits {} at cycle {:.0f}", shown ? "; " : "", actor_name(a),
                           mpi.empty() ? fmt::format("for {}", what[static_cast<int>(wait_[a])]) : mpi,
                           model::to_cycles(clock_[a]));
        ++shown;
      });
    throw DeadlockError(
        ranks_left > 0
            ? fmt::format("deadlock: {} of {} ranks can never continue ({})", ranks_left, n_, who)
            : fmt::format("deadlock: {} threads the ranks made can never continue ({})", actors - finished, who));
  }

  std::uint64_t start_thread(void* (*fn)(void*), void* arg, const pthread_attr_t* attr) override {
    const std::uint32_t parent = cur_;
    const std::uint32_t a = add_actor(node_[parent]);
    threads_[node_[parent]].push_back(a);
    int state = PTHREAD_CREATE_JOINABLE;
    if (attr) pthread_attr_getdetachstate(attr, &state);
    detached_[a] = state == PTHREAD_CREATE_DETACHED;
    clock_[a] = clock_[parent];
    fibers_[a] = ctx::fiber(std::allocator_arg, RankStack(rank_stack_bytes(), guard_, &stacks_[a]),
                            [this, a, fn, arg](ctx::fiber&& sink) {
                              sinks_[a] = std::move(sink);
                              try {
                                value_[a] = fn(arg);
                              } catch (const ThreadExit& x) {
                                value_[a] = x.value;
                              } catch (const ctx::detail::forced_unwind&) {
                                throw;
                              } catch (...) {
                                errors_[a] = std::current_exception();
                              }
                              wait_[a] = Wait::done;
                              return std::move(sinks_[a]);
                            });
    push(clock_[a], 1, a);
    return kThreadTag | a;
  }

  void* join_thread(std::uint64_t handle) override {
    const std::uint32_t a = thread_of(handle, "pthread_join");
    joined_[a] = 1;
    const std::uint32_t me = cur_;
    while (wait_[a] != Wait::done) {
      joiners_[a].push_back(me);
      suspend(me, Wait::join, 0);
    }
    clock_[me] = std::max(clock_[me], clock_[a]);
    return value_[a];
  }

  void detach_thread(std::uint64_t handle) override { detached_[thread_of(handle, "pthread_detach")] = 1; }

  [[noreturn]] void exit_thread(void* value) override {
    if (cur_ < n_) throw KernelError(fmt::format("rank {}: pthread_exit in the rank's own thread", node_[cur_]));
    throw ThreadExit{value};
  }

  std::uintptr_t thread_key() override { return std::uintptr_t{cur_} + 1; }

  void note_mpi_wait(const char* call, int peer, int tag) override {
    Machine::note_mpi_wait(call, peer, tag);
    mpi_wait_[cur_] = {call, peer, tag};
  }

  std::uint64_t timebase() override { return static_cast<std::uint64_t>(model::to_cycles(me_clock())); }

  void inject(std::uint32_t fifo, const MUHWI_Descriptor_t& d) override {
    const auto a = cur_;
    const auto r = node_[a];
    clock_[a] += inject_;
    // The flow-controlled torus takes packets in model-time order: everything
    // before this clock happens first.
    if (flow_ && clock_[a] > now_) suspend(a, Wait::time, clock_[a]);
    if (model::is_collective(d)) {
      contribute(a, fifo, d);
      return;
    }
    const model::Tick done = start(r, fifo, d, clock_[a]);
    auto& open = sending_[r];
    std::erase_if(open, [&](const Sending& s) { return s.done <= clock_[a]; });
    open.push_back({fifo, self().inj_count.get(fifo), done});
  }

  bool desc_complete(std::uint32_t fifo, std::uint64_t seq) override {
    const auto a = cur_;
    clock_[a] += poll_;
    auto& open = sending_[node_[a]];
    std::erase_if(open, [&](const Sending& s) { return s.done <= clock_[a]; });
    const auto it =
        std::find_if(open.begin(), open.end(), [&](const Sending& s) { return s.fifo == fifo && s.seq == seq; });
    if (it == open.end()) return true;
    if (clock_[a] > now_)
      suspend(a, Wait::time, clock_[a]);  // let everything before this clock happen
    else if (it->done == kNever)
      suspend(a, Wait::delivery, 0);  // a collective still waiting for others: until something happens here
    return false;
  }

  void idle_poll(WaitKind /*why*/, int /*a*/, int /*b*/) override {
    const auto a = cur_;
    clock_[a] += poll_;
    if (clock_[a] > now_)
      suspend(a, Wait::time, clock_[a]);
    else if (a >= n_ || !threads_[a].empty())  // let the rank's other threads run (a lock one of them holds)
      suspend(a, Wait::time, now_);
  }

  std::uint64_t inj_waiting(std::uint32_t fifo) override {
    const auto a = cur_;
    auto& open = sending_[node_[a]];
    std::erase_if(open, [&](const Sending& s) { return s.done <= clock_[a]; });
    return static_cast<std::uint64_t>(
        std::count_if(open.begin(), open.end(), [&](const Sending& s) { return s.fifo == fifo; }));
  }

  // Node r's collective descriptor: its MU reads the payload now; once every
  // member has contributed, the result lands at each receiver as the tree
  // schedule says (model::schedule_collective).
  void contribute(std::uint32_t a, std::uint32_t fifo, const MUHWI_Descriptor_t& d) {
    const std::uint32_t r = node_[a];
    const std::uint64_t seq = self().inj_count.get(fifo);
    auto part = take_collective(r, fifo, seq, d, clock_[a]);
    auto& open = sending_[r];
    std::erase_if(open, [&](const Sending& s) { return s.done <= clock_[a]; });
    open.push_back({fifo, seq, kNever});
    auto done = collective_contribute(std::move(part));
    if (done) schedule(std::move(*done));
  }

  void schedule(CollectiveDone c) {
    std::vector<model::Tick> taken;
    std::vector<int> depth;
    for (const auto& p : c.parts) {
      taken.push_back(p.taken);
      depth.push_back(c.tree->depth[p.node]);
    }
    const std::uint64_t length = c.result.size();
    const auto s = model::schedule_collective(params(), taken, depth, length);
    for (const auto& p : c.parts) {
      const model::Tick sent = s.sent(p.taken, c.tree->depth[p.node], length);
      mu_busy_[p.node] = std::max(mu_busy_[p.node], sent);
      for (auto& e : sending_[p.node])
        if (e.fifo == p.fifo && e.seq == p.seq) e.done = sent;
      for_actors(p.node, [&](std::uint32_t a) {
        if (wait_[a] != Wait::delivery) return;  // a bare MUSPI_CheckDescComplete loop
        wait_[a] = Wait::time;
        push(std::max(now_, std::max(clock_[a], sent)), 1, a);
      });
    }
    auto shared = std::make_shared<const CollectiveDone>(std::move(c));
    for (std::size_t k = 0; k < shared->receivers.size(); ++k) {
      const std::uint32_t node = shared->receivers[k].first;
      const model::Tick at = std::max(now_, s.arrival(shared->tree->depth[node]));
      if (tracer_) tracer_->descriptor(shared->source, node, length, s.at_root, at, "collective");
      collectives_.emplace_back(shared, k);
      push(at, 2, static_cast<std::uint32_t>(collectives_.size() - 1));
    }
  }

  // Node r's MU takes descriptor d from injection FIFO `fifo` at tick t;
  // returns the tick its engine has sent the last packet.
  model::Tick start(std::uint32_t r, std::uint32_t fifo, const MUHWI_Descriptor_t& d, model::Tick clk) {
    auto& st = rank(static_cast<int>(r));
    const std::uint32_t dst = check_descriptor(d, torus(), r);
    const auto pk = model::packetise(d.Message_Length);
    st.packets += pk.packets;
    st.bytes += d.Message_Length;
    std::uint32_t idx = 0;
    if (!free_.empty()) {
      idx = free_.back();
      free_.pop_back();
    } else {
      idx = static_cast<std::uint32_t>(pending_.size());
      pending_.emplace_back();
    }
    auto& p = pending_[idx];
    p.src = r;
    p.dst = dst;
    p.desc = d;
    p.injected = clk;
    const auto* from = reinterpret_cast<const std::uint8_t*>(d.Pa_Payload);
    p.payload.assign(from, from + d.Message_Length);
    if (flow_) {  // arrives when the network gets it there (run())
      const model::Tick engine_end =
          flow_->inject(idx, r, fifo, dst, d.Message_Length, clk, model::dynamic_routing(d), d.Torus_FIFO_Map);
      mu_busy_[r] = std::max(mu_busy_[r], engine_end);
      return engine_end;
    }
    const auto res = mu_.inject(r, fifo, dst, d.Message_Length, clk, model::dynamic_routing(d));
    mu_busy_[r] = std::max(mu_busy_[r], res.engine_end);
    if (tracer_) tracer_->descriptor(r, dst, d.Message_Length, clk, res.arrival, descriptor_kind(d));
    push(res.arrival, 0, idx);
    return res.engine_end;
  }

  void spin() override {
    const auto a = cur_;
    const auto r = node_[a];
    clock_[a] += poll_;
    if (delivered_[r] != seen_[a]) {
      seen_[a] = delivered_[r];
      return;
    }
    if (clock_[a] > now_) {  // catch up: let everything before this clock happen
      suspend(a, Wait::time, clock_[a]);
      if (delivered_[r] != seen_[a]) {
        seen_[a] = delivered_[r];
        return;
      }
    }
    suspend(a, Wait::delivery, 0);  // until the next delivery to this node
    seen_[a] = delivered_[r];
  }

  std::uint64_t deliveries() override { return delivered_[node_[cur_]]; }

  void rec_sync() override {
    const auto a = cur_;
    if (clock_[a] > now_) suspend(a, Wait::time, clock_[a]);
    seen_[a] = delivered_[node_[a]];
  }

  void compute(std::uint64_t elements, int threads) override {
    const auto a = cur_;
    const auto r = node_[a];
    const double w = compute_cycles(elements, threads);
    const model::Tick W = model::to_ticks(w);
    const model::Tick start = clock_[a];
    const double k = params().mu_interference;
    model::Tick dur = W;
    if (k > 0 && mu_busy_[r] > start) {
      // While the node's MU moves data, the loop runs 1/(1+k) as fast.
      const model::Tick busy = mu_busy_[r] - start;
      const double slow = static_cast<double>(W) * (1 + k);
      dur = slow <= static_cast<double>(busy)
                ? static_cast<model::Tick>(slow)
                : busy + static_cast<model::Tick>(static_cast<double>(W) - static_cast<double>(busy) / (1 + k));
    }
    clock_[a] += dur;
  }

  void delay(double cycles) override { clock_[cur_] += model::to_ticks(cycles); }

  void gi_enter() override { enter(gi_, self().gi_target); }
  void gi_wait() override {
    wait_barrier(gi_, self().gi_target, Wait::gi, model::to_ticks(params().gi_barrier_latency));
  }
  bool gi_poll() override {
    const auto a = cur_;
    const auto r = node_[a];
    const std::uint64_t target = self().gi_target;
    const auto released = [&] {
      if (gi_.generation < target) return false;
      clock_[a] = std::max(clock_[a], gi_.release[target - 1] + model::to_ticks(params().gi_barrier_latency));
      return true;
    };
    if (released()) return true;
    if (delivered_[r] == seen_[a]) {
      gi_.waiting.push_back(a);
      suspend(a, Wait::gi_or_delivery, 0);  // until the release or the next delivery to this node
      if (released()) return true;
    }
    seen_[a] = delivered_[r];
    return false;
  }

 private:
  struct Barrier {
    int entered = 0;
    model::Tick last = 0;
    std::uint64_t generation = 0;
    std::vector<model::Tick> release;  // per completed generation
    std::vector<std::uint32_t> waiting;
  };

  model::Tick me_clock() { return clock_[cur_]; }

  // A fiber of node r: the rank's own (actor r) or a thread it made.
  std::uint32_t add_actor(std::uint32_t r) {
    const auto a = static_cast<std::uint32_t>(node_.size());
    node_.push_back(r);
    clock_.push_back(0);
    wait_.push_back(Wait::none);
    seen_.push_back(0);
    fibers_.emplace_back();
    sinks_.emplace_back();
    stacks_.emplace_back();
    errors_.emplace_back();
    value_.push_back(nullptr);
    joiners_.emplace_back();
    detached_.push_back(0);
    joined_.push_back(0);
    mpi_wait_.emplace_back();
    if (a < n_) threads_.emplace_back();
    return a;
  }
  template <class F>
  void for_actors(std::uint32_t r, F f) {
    f(r);
    for (const auto t : threads_[r]) f(t);
  }
  std::string actor_name(std::uint32_t a) const {
    if (a < n_) return fmt::format("rank {}", a);
    const auto& t = threads_[node_[a]];
    return fmt::format("rank {} thread {}", node_[a], std::find(t.begin(), t.end(), a) - t.begin() + 1);
  }
  // The actor of a pthread_t from start_thread, which must be a joinable
  // thread of the calling rank.
  std::uint32_t thread_of(std::uint64_t handle, const char* call) {
    const std::uint64_t a = handle & ~kThreadTag;
    if ((handle & kThreadTag) != kThreadTag || a < n_ || a >= node_.size() || node_[a] != node_[cur_])
      throw KernelError(fmt::format("rank {}: {} of a thread that is not one of this rank's", node_[cur_], call));
    if (detached_[a] || joined_[a])
      throw KernelError(fmt::format("rank {}: {} of {}, which is {}", node_[cur_], call, actor_name(a),
                                    detached_[a] ? "detached" : "joined already"));
    return static_cast<std::uint32_t>(a);
  }

  void push(model::Tick t, std::uint32_t kind, std::uint32_t idx) { q_.push({t, seq_++, kind, idx}); }

  void suspend(std::uint32_t r, Wait w, model::Tick wake) {
    wait_[r] = w;
    if (w == Wait::time) push(wake, 1, r);
    sinks_[r] = std::move(sinks_[r]).resume();
  }

  void enter(Barrier& b, std::uint64_t& target) {
    const auto r = cur_;
    target = b.generation + 1;
    b.last = std::max(b.last, clock_[r]);
    if (++b.entered == size()) {
      b.entered = 0;
      b.release.push_back(0);  // filled in by the waiter who completes it
      b.generation++;
      b.release.back() = b.last;
      b.last = 0;
      // Everyone goes on at the release in rank order, whatever order they
      // came in (the network takes their next descriptors in that order).
      b.waiting.push_back(r);
      std::sort(b.waiting.begin(), b.waiting.end());
      const model::Tick at = std::max(now_, b.release.back());
      for (auto w : b.waiting) {
        wait_[w] = Wait::time;
        push(at, 1, w);
      }
      b.waiting.clear();
      sinks_[r] = std::move(sinks_[r]).resume();  // the last to come in waits for its turn too
    }
  }

  void wait_barrier(Barrier& b, std::uint64_t target, Wait w, model::Tick latency) {
    const auto r = cur_;
    while (b.generation < target) {
      b.waiting.push_back(r);
      suspend(r, w, 0);
    }
    clock_[r] = std::max(clock_[r], b.release[target - 1] + latency);
  }

  void deliver(std::uint32_t idx) {
    Pending p = std::move(pending_[idx]);
    if (flow_ && tracer_)
      tracer_->descriptor(p.src, p.dst, p.desc.Message_Length, p.injected, now_, descriptor_kind(p.desc), idx);
    auto& dst = rank(static_cast<int>(p.dst)).mu;
    const auto& d = p.desc;
    const auto type = model::packet_type(d);
    const auto packets = (d.Message_Length + MUHWI_PACKET_MAX_PAYLOAD - 1) / MUHWI_PACKET_MAX_PAYLOAD;
    const std::uint8_t* src = p.payload.data();
    for (std::uint64_t i = 0; i < packets; ++i) {
      const std::uint32_t pay = model::packet_payload(d.Message_Length, i);
      const std::uint64_t off = i * MUHWI_PACKET_MAX_PAYLOAD;
      if (type == MUHWI_PACKET_TYPE_PUT)
        receive_direct_put(dst, p.dst, p.src, d, off, src + off, pay, false);
      else if (type == MUHWI_PACKET_TYPE_FIFO)
        receive_memory_fifo(dst, p.dst, p.src, d, off, src + off, pay);
      else {
        // The destination's MU injects the carried descriptors now (as they arrived).
        const auto fifo = remote_get_fifo(dst, p.dst, p.src, d);
        for (std::uint32_t k = 0; k + sizeof(MUHWI_Descriptor_t) <= pay; k += sizeof(MUHWI_Descriptor_t)) {
          MUHWI_Descriptor_t inner;
          std::memcpy(&inner, src + off + k, sizeof inner);
          start(p.dst, fifo, inner, now_);
        }
      }
    }
    pending_[idx].payload = std::move(p.payload);  // its buffer serves the next descriptor
    free_.push_back(idx);
    ++delivered_[p.dst];
    wake_on_delivery(p.dst);
  }

  // A collective's result lands at receiver `k` (an event of kind 2).
  void deliver_collective(std::uint32_t idx) {
    auto [c, k] = std::move(collectives_[idx]);
    collectives_[idx] = {};
    collective_deliver(*c, k, false);
    const std::uint32_t node = c->receivers[k].first;
    ++delivered_[node];
    wake_on_delivery(node);
  }

  // Something arrived at node r: its fibers waiting for a delivery (or for
  // the GI barrier or a delivery) go on now, or at their own clock if later.
  void wake_on_delivery(std::uint32_t r) {
    for_actors(r, [&](std::uint32_t a) {
      if (wait_[a] == Wait::gi_or_delivery)
        std::erase(gi_.waiting, a);
      else if (wait_[a] != Wait::delivery)
        return;
      wait_[a] = Wait::time;
      push(std::max(now_, clock_[a]), 1, a);
    });
  }

  static constexpr model::Tick kNever = ~model::Tick{0};
  model::MuTiming& mu_;
  std::unique_ptr<Tracer> tracer_;
  std::unique_ptr<model::FlowTorus> flow_;  // machine.torus_flow_control=1
  std::vector<std::pair<std::shared_ptr<const CollectiveDone>, std::size_t>> collectives_;  // event kind 2
  std::uint32_t n_;
  // Per actor (a fiber: rank r's own is actor r, threads the ranks make
  // follow): its node, fiber, clock and wait. Deques where a fiber switch may
  // hold a reference while another actor is added.
  std::vector<std::uint32_t> node_;
  std::uint32_t cur_ = 0;  // the actor running
  bool guard_ = true;
  std::deque<ctx::fiber> fibers_, sinks_;
  std::deque<crash::StackBounds> stacks_;  // each fiber's stack, for the crash report
  std::vector<std::exception_ptr> errors_;
  std::vector<model::Tick> clock_;
  std::vector<Wait> wait_;
  std::vector<std::uint64_t> seen_;
  std::vector<void*> value_;                         // what a thread returned
  std::vector<std::vector<std::uint32_t>> joiners_;  // who waits in pthread_join for it
  std::vector<std::uint8_t> detached_, joined_;
  struct MpiWait {
    const char* call = nullptr;
    int peer = 0, tag = 0;
  };
  std::vector<MpiWait> mpi_wait_;                    // the MPI call each waits in
  std::vector<std::vector<std::uint32_t>> threads_;  // per node: the threads its rank made
  // Per node.
  std::vector<std::uint64_t> delivered_;
  std::vector<model::Tick> mu_busy_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> q_;
  std::vector<Pending> pending_;
  // Per rank, its descriptors the MU may still be sending (MUSPI_CheckDescComplete).
  struct Sending {
    std::uint32_t fifo;
    std::uint64_t seq;
    model::Tick done;
  };
  std::vector<std::vector<Sending>> sending_;
  std::vector<std::uint32_t> free_;
  std::uint64_t seq_ = 0;
  model::Tick now_ = 0, poll_, inject_;
  Barrier gi_;
};

}  // namespace

std::unique_ptr<Machine> make_sim_machine(const model::Params& p, const nlohmann::json& args, model::MuTiming& mu,
                                          traces::TraceWriter* trace) {
  return std::make_unique<SimMachine>(p, args, mu, trace);
}

}  // namespace hopsim::bgq
