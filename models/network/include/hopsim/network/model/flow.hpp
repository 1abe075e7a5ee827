#pragma once
// The generic network with flow control (GenericNetwork::flow_control):
// input-queued virtual-channel routers with credits, simulated event by
// event in cycle order (docs/traffic.md, "Flow control").
//
// Contract:
//  * The driver hands packets to a node's source queue with add() at the
//    cycle they are generated, after run_until() has processed every event
//    before that cycle; cycles never go backwards.
//  * run_until(t) processes every event before cycle t, in cycle order and,
//    inside a cycle, credits, then flit arrivals, then VC allocation, then
//    switch allocation (one flit per output per cycle); a delivered packet is
//    reported to the callback with its tail's arrival cycle (which may lie
//    after t).
//  * The callbacks (delivered, issued, hop) record; they do not call add().
//    They are called on the caller's thread before run_until() returns, in
//    cycle order and, inside a cycle, by destination node (delivered),
//    source queue (issued) or router and port (hop).
//  * With several threads, add() hands the packet to its node's band, which
//    takes it into the source queue when the run goes on.
//  * deadlocked() is true when packets sit in routers and no event is left
//    that could ever move one (every one waits for a VC or credits another
//    waiting packet holds); deadlock_report() names a cycle of waiting
//    channels.
// Nothing here depends on host time; the same seed gives the same run
// whatever the number of threads.
//
// Threads: the routers are split into `threads` bands of consecutive ids,
// each simulated by its own thread, all in step one cycle at a time. Flits
// and credits between bands take at least one cycle (channel_latency >= 1),
// so a band's events for cycle t+1 are all known once every band has
// finished cycle t: the bands exchange them at a barrier after each cycle.
// The run does not depend on how the routers are split: no choice depends
// on the order in which one cycle's events of a kind are handled (a torus
// tie is decided by a hash of the packet and the router, adaptive VC
// allocation handles a cycle's outputs in id order, callbacks are sorted).
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "hopsim/network/model/patterns.hpp"
#include "hopsim/network/model/traffic.hpp"
#include "hopsim/topo/topology.hpp"

namespace hopsim::network::model::flow {

struct Delivered {
  std::uint32_t src, dst, bytes;
  std::int64_t gen, issue;  // generated; head left the source queue
  std::int64_t arrival;     // the tail at the destination
  int hops;
  std::uint32_t tag;  // the driver's, from add()
};

class FlowNet {
 public:
  // threads: the routers' bands, each simulated by its own thread (1: the
  // caller's thread alone); at most the number of routers.
  FlowNet(const GenericNetwork& g, std::uint64_t seed, unsigned threads = 1);
  FlowNet(const FlowNet&) = delete;
  FlowNet& operator=(const FlowNet&) = delete;
  ~FlowNet();
  unsigned threads() const { return static_cast<unsigned>(parts_.size()); }
  // The default thread count for a network of `routers` on this host: 1
  // below 256 routers (too little work per cycle to share), else up to the
  // host's hardware threads, at most 8 and one per 128 routers.
  static unsigned auto_threads(std::uint32_t routers);
  // How several bands run: each on its thread, all on the caller's thread,
  // or (the default) whichever has been faster on this host lately. The
  // results are the same.
  enum class Schedule { automatic, threads, one_thread };
  void set_schedule(Schedule s);
  std::uint32_t nodes() const { return n_; }
  std::size_t links() const { return topo_.num_links(); }
  int hops(std::uint32_t a, std::uint32_t b) const;
  std::uint32_t flits(std::uint32_t bytes) const;
  // endpoint_latency + hops x hop_latency + flits, as the link-calendar model.
  double zero_load(std::uint32_t a, std::uint32_t b, std::uint32_t bytes) const;

  // A packet generated at cycle gen. `tag` comes back in its Delivered;
  // `deterministic`: under min_adapt it keeps to dimension order on the
  // escape VCs (the BG/Q's deterministic packets), else it is ignored.
  // `channel`: the injection channel (0 .. endpoint_channels-1), kAny: the
  // node's channels in turn.
  static constexpr std::uint32_t kAny = 0xffffffffu;
  void add(std::int64_t gen, std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, std::uint32_t tag = 0,
           bool deterministic = false, std::uint32_t channel = kAny);
  // Called with a packet's tag and the cycle its tail leaves the source queue.
  void on_issued(std::function<void(std::uint32_t, std::int64_t)> f) { issued_ = std::move(f); }
  // A packet's use of a network link (not an injection or ejection channel),
  // reported when its tail is sent on: the router and its output port (2 x
  // dimension, + 1 for the - way), the packet's tag and bytes, the cycle its
  // head asked for an output there (its route known), and the cycles of its
  // head's and tail's switch grants (the tail goes on after `tail`).
  struct Hop {
    std::uint32_t router, port, tag, bytes;
    std::int64_t asked, head, tail;
  };
  void on_hop(std::function<void(const Hop&)> f);
  void run_until(std::int64_t t, const std::function<void(const Delivered&)>& done);
  std::int64_t now() const { return parts_[0]->now; }
  std::size_t queued(std::uint32_t node) const;  // packets in a node's source queues
  bool deadlocked() const;
  std::string deadlock_report() const;

  // Flits sent on each network link inside [start, end) (SA grants).
  void set_window(std::int64_t start, std::int64_t end) {
    win_start_ = start;
    win_end_ = end;
  }
  std::uint64_t busy_window(std::size_t l) const { return busy_[l]; }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  // A packet's state on its way (read at every hop), and the rest.
  struct Pkt {
    std::uint32_t dst = 0, flits = 0;
    std::uint16_t hops = 0;
    std::int8_t dim = -1;           // dimension being travelled
    std::uint8_t dir = 0, cls = 0;  // direction (0 = +, 1 = -), VC class
    bool det = false;               // dimension order on the escape VCs
  };
  struct PktInfo {
    std::uint32_t src = 0, bytes = 0, tag = 0;
    std::uint32_t seq = 0;            // in the order added, for tie()
    std::int64_t gen = 0, issue = 0;  // generated; head left the source queue
  };
  // An input VC (or, past the routers' VCs, a node's source queue): its
  // packets in order and the allocation state of the front one. 32 bytes,
  // two to a cache line: the state of a hop is what limits the speed.
  struct InVc {
    std::int64_t ready = 0;                  // cycle the front's current request may be served
    std::uint32_t out = kNone, ovc = kNone;  // output (adaptive, before VC allocation: the dimension-order one)
    std::uint32_t head = kNone;              // the front packet
    std::uint32_t sent = 0;                  // flits of the front packet sent on
    std::uint16_t first = 0, count = 0;      // ring of packet ids in slots_
    std::uint16_t occ = 0;                   // flits present (flits arrive and leave in order)
    bool in_sa = false;
  };
  // The input VCs waiting on an output, in arrival order: up to kInline in
  // place (so that a lightly loaded output is one cache line), more on the heap.
  class WaitList {
   public:
    WaitList() = default;
    WaitList(const WaitList&) = delete;
    WaitList& operator=(const WaitList&) = delete;
    WaitList(WaitList&& o) noexcept : n_(o.n_), cap_(o.cap_) {
      if (o.cap_ == kInline) {
        in_ = o.in_;
      } else {
        heap_ = o.heap_;
        o.heap_ = nullptr;
        o.cap_ = kInline;
      }
      o.n_ = 0;
    }
    WaitList& operator=(WaitList&&) = delete;
    ~WaitList() {
      if (cap_ != kInline) delete[] heap_;
    }
    std::uint32_t size() const { return n_; }
    bool empty() const { return n_ == 0; }
    std::uint32_t operator[](std::uint32_t i) const { return data()[i]; }
    std::uint32_t front() const { return data()[0]; }
    const std::uint32_t* begin() const { return data(); }
    const std::uint32_t* end() const { return data() + n_; }
    void push_back(std::uint32_t v) {
      if (n_ == cap_) grow();
      data()[n_++] = v;
    }
    void erase_at(std::uint32_t i) {
      std::uint32_t* d = data();
      for (--n_; i < n_; ++i) d[i] = d[i + 1];  // short lists: no call to memmove
    }
    void remove(std::uint32_t v) { erase_at(static_cast<std::uint32_t>(std::find(begin(), end(), v) - begin())); }

   private:
    static constexpr std::uint32_t kInline = 4;
    std::uint32_t* data() { return cap_ == kInline ? in_.data() : heap_; }
    const std::uint32_t* data() const { return cap_ == kInline ? in_.data() : heap_; }
    void grow() {
      auto* d = new std::uint32_t[std::size_t{2} * cap_];
      std::copy(data(), data() + n_, d);
      if (cap_ != kInline) delete[] heap_;
      heap_ = d;
      cap_ *= 2;
    }
    std::uint32_t n_ = 0, cap_ = kInline;
    std::array<std::uint32_t, kInline> in_{};
    std::uint32_t* heap_ = nullptr;
  };
  struct Out {
    std::int64_t va_at = -1;
    std::uint64_t free_vcs = 0;  // bit v: out-VC v not held
    std::uint32_t va_rr = 0, vc_rr = 0;
    WaitList va_wait, sa_wait;  // input VCs
  };
  enum Kind : std::uint8_t { kCredit, kFlit, kVa, kSa, kKinds };  // a cycle's events run in this order
  struct Ev {
    std::uint32_t a, b;  // credit: out-VC, flits (+ release bit); flit: input VC, packet (+ head bit); va/sa: out port
  };
  struct Far {  // an event for another band
    std::int64_t t;
    Kind k;
    std::uint32_t a, b;
  };
  struct Added {  // add()'s arguments
    std::int64_t gen;
    std::uint32_t src, dst, bytes, tag, seq, ch;
    bool det;
  };
  struct Issued {
    std::int64_t at;
    std::uint32_t source, tag;
  };
  // A band of routers [lo, hi) (with their nodes' source queues and
  // injection channels) and everything its thread writes while it runs.
  struct alignas(64) Part {
    std::uint32_t id = 0, lo = 0, hi = 0;
    std::int64_t now = 0;
    std::vector<std::vector<Ev>> wheel;  // (cycle mod W) x kind
    // Events scheduled less events handled (this band's share of the total;
    // an event for another band counts here until that band handles it).
    std::int64_t pending = 0;
    std::int64_t in_network = 0;                       // packets issued here less packets ejected here
    std::array<std::vector<std::vector<Far>>, 2> far;  // (cycle parity) x destination band
    // Switch allocation scratch: per output, the granted sa_wait index and
    // its sub-input; per sub-input, the accept round it was last seen in and
    // its first granting output.
    std::vector<std::uint32_t> grant, gsub, best_key, best_out;
    std::vector<std::uint64_t> seen;
    std::uint64_t epoch = 0;
    std::vector<std::uint32_t> freed;        // ids of packets delivered here, free
    std::uint32_t fresh = 0, fresh_end = 0;  // ids never used, for this band
    std::vector<Added> adds;                 // packets added for this band's nodes, not taken yet
    std::vector<Delivered> delivered;
    std::vector<Issued> issued;
    std::vector<Hop> hops;
    std::array<std::int64_t, 2> pending_at{};  // `pending` at the end of the last cycles, by parity
    std::int64_t cycles = 0;                   // cycles simulated (the first band: all bands')
  };

  void schedule(Part& P, std::int64_t t, Kind k, std::uint32_t a, std::uint32_t b = 0);
  void post(Part& P, std::uint32_t router, std::int64_t t, Kind k, std::uint32_t a, std::uint32_t b);
  Part& part_of_node(std::uint32_t node) { return *parts_[band_[node]]; }
  std::uint32_t front(std::uint32_t ivc) const { return ivc_[ivc].head; }
  std::uint32_t cand(std::uint32_t ivc) const { return adaptive_ ? cand_[ivc] : 0; }
  void start(Part& P, std::uint32_t ivc, std::int64_t at);
  void route(std::uint32_t p, std::uint32_t r);
  void request_va(Part& P, std::uint32_t ivc, std::int64_t at);
  void request_sa(Part& P, std::uint32_t ivc, std::int64_t at);
  void wake_sa(Part& P, std::uint32_t o, std::int64_t at);
  bool eligible(const Part& P, std::uint32_t ivc) const;
  void on_credit(Part& P, std::uint32_t ovc, std::uint32_t word);
  void on_flit(Part& P, std::uint32_t ivc, std::uint32_t word);
  void on_va(Part& P, std::uint32_t o);
  std::uint32_t select(std::uint32_t ivc, std::uint32_t o, std::uint64_t& free, std::uint32_t& v);
  void on_sa(Part& P, std::uint32_t unit);
  void send_flit(Part& P, std::uint32_t o, std::uint32_t i);
  void cycle(Part& P);                     // handles P's events of cycle P.now
  void run_part(Part& P, std::int64_t t);  // P's share of run_until(t), with the other bands
  void run_inline(std::int64_t t);         // run_until(t), every band on this thread
  void take_adds(Part& P);
  void take_far(Part& P);
  void tune();
  std::int64_t pending_total(std::size_t parity) const;
  void barrier();
  void worker(std::uint32_t id);
  void flush(const std::function<void(const Delivered&)>& done);
  std::uint32_t sub_input(std::uint32_t ivc) const { return in_port_of(ivc) * speedup_ + sub_of_vc_[vc_of(ivc)]; }
  // Ids with power-of-two strides (no division on the hot paths): output
  // o = router << pshift | port (then one injection channel per node),
  // out-VC = o << vshift | vc, input VC = (router << pshift | port) << vshift | vc
  // (then one source queue per node).
  std::uint32_t out_id(std::uint32_t r, std::uint32_t port) const { return r << pshift_ | port; }
  std::uint32_t out_router(std::uint32_t o) const { return o >> pshift_; }
  std::uint32_t out_port(std::uint32_t o) const { return o & pmask_; }
  std::uint32_t vc_of(std::uint32_t id) const { return id & vmask_; }
  std::uint32_t ovc_out(std::uint32_t ovc) const { return ovc >> vshift_; }
  std::uint32_t ivc_router(std::uint32_t ivc) const { return ivc >> (vshift_ + pshift_); }
  std::uint32_t ivc_port(std::uint32_t ivc) const { return (ivc >> vshift_) & pmask_; }
  bool is_terminal(std::uint32_t o) const { return o >= router_outs_; }
  bool is_eject(std::uint32_t o) const { return o < router_outs_ && out_port(o) >= local_; }
  bool is_source(std::uint32_t ivc) const { return ivc >= router_ivcs_; }
  std::uint32_t in_port_of(std::uint32_t ivc) const { return is_source(ivc) ? 0 : ivc_port(ivc); }
  // Past the routers' outputs and input VCs: per node and injection channel
  // (node x endpoint_channels + channel) an injection output and a source queue.
  std::uint32_t source_of(std::uint32_t node, std::uint32_t ch) const { return router_ivcs_ + node * chans_ + ch; }
  std::uint32_t upstream_ovc(std::uint32_t ivc, std::uint32_t& router) const;
  std::uint32_t downstream_ivc(std::uint32_t o, std::uint32_t v) const;
  std::uint64_t class_mask(std::uint32_t ivc) const;
  std::uint64_t vc_mask(std::uint32_t ivc, std::uint32_t o) const;
  std::uint64_t bubble(std::uint32_t ivc, std::uint32_t o, std::uint64_t m)
      const;  // m less the bubble VCs too full  // the out-VCs of output o the front may take
  std::uint32_t productive_ports(std::uint32_t p, std::uint32_t r) const;
  std::uint32_t minimal_dirs(int d, int cur, int dest) const;
  bool on_escape(std::uint32_t ivc) const { return stay_ && ivc_port(ivc) < local_ && vc_of(ivc) < escapes_; }
  std::uint32_t alloc_packet(Part& P);
  void reserve(Part& P, std::size_t need);
  void take(Part& P, const Added& a);
  // A packet's state; with several bands one to a cache line.
  Pkt& pkt(std::uint32_t p) { return pkt_[static_cast<std::size_t>(p) << pkt_pad_]; }
  const Pkt& pkt(std::uint32_t p) const { return pkt_[static_cast<std::size_t>(p) << pkt_pad_]; }
  PktInfo& info(std::uint32_t p) { return info_[static_cast<std::size_t>(p) << info_pad_]; }
  const PktInfo& info(std::uint32_t p) const { return info_[static_cast<std::size_t>(p) << info_pad_]; }
  bool tie(std::uint32_t p, std::uint32_t r) const;  // a torus tie's direction (0: +)

  GenericNetwork g_;
  topo::Topology topo_;
  int nd_;
  std::uint32_t n_, ports_, v_;           // routers, ports per router (2 x dims + local), VCs per port
  std::uint32_t local_, chans_;           // the first local port (2 x dims), local ports (endpoint channels)
  std::vector<std::uint32_t> next_chan_;  // per node: the injection channel of its next packet
  std::uint32_t pshift_ = 0, pmask_ = 0, vshift_ = 0, vmask_ = 0, router_outs_ = 0, router_ivcs_ = 0;
  std::vector<std::uint32_t> sub_of_vc_;  // vc mod input_speedup
  std::int64_t hop_, rd_, va_, sa_, ch_, credit_, inj_, buf_;
  std::uint32_t speedup_;
  bool wait_tail_;
  int dateline_;
  bool adaptive_, stay_, select_rr_;
  std::uint32_t escapes_ = 0;          // adaptive: escape VCs 0 .. escapes_-1
  std::uint64_t adaptive_vcs_ = 0;     // adaptive: the other VCs
  std::uint64_t salt_;                 // from the seed, for tie()
  std::vector<int> coord_;             // node x dim
  std::vector<std::uint32_t> nbr_;     // router x port (directions only) -> router, kNone
  std::vector<topo::LinkId> link_;     // router x port -> link id
  std::vector<Out> out_;               // router outs (r x ports + port), then one injection port per node
  std::vector<std::int16_t> credits_;  // out port x VC (vc_buffer <= 4096)
  // Switch allocation per router, then per injection channel (its unit): the
  // cycle it last ran, the cycle it is scheduled for, and (routers) bit q
  // when output q has switch requests. iSLIP pointers per output (over
  // sub-inputs) and per sub-input (over outputs); one router's scratch.
  struct Unit {
    std::int64_t last_sa = -1, sa_at = -1;
    std::uint32_t sa_mask = 0;
  };
  std::vector<Unit> unit_;
  std::vector<std::uint16_t> gptr_, aptr_;  // sub-inputs <= 16 ports x 64
  std::vector<std::uint16_t> vptr_;         // per sub-input: the VC its request comes from first
  std::vector<std::uint16_t> vptr_next_;    // per VC v: the pointer after a grant to v, (v + input_speedup) mod vcs
  std::vector<InVc> ivc_;  // router input VCs ((r x ports + port) x VC), then one source queue per node
  // Adaptive routing only, per input VC: bit p when the front asks port p
  // (before VC allocation); adaptive_selection 1: a round-robin pointer over
  // (port, VC) pairs.
  std::vector<std::uint32_t> cand_, sel_;
  std::vector<std::uint32_t> slots_;  // vc_buffer packet slots per router input VC
  std::vector<std::deque<std::uint32_t>> srcq_;
  std::vector<Pkt> pkt_;
  std::vector<PktInfo> info_;
  std::uint32_t pkt_pad_ = 0, info_pad_ = 0;  // log2 of the slots per packet
  std::uint32_t next_seq_ = 0;                // packets added, for tie()
  std::int64_t mask_ = 0;                     // wheel slots - 1
  std::int64_t win_start_ = 0, win_end_ = 0;
  std::vector<std::uint64_t> busy_;
  std::function<void(std::uint32_t, std::int64_t)> issued_;
  std::function<void(const Hop&)> hop_cb_;
  std::vector<std::int64_t> hop_asked_, hop_head_;  // on_hop only, per input VC: its front's
  // The bands (threads), each router's and node's band.
  std::vector<std::unique_ptr<Part>> parts_;
  std::vector<std::uint16_t> band_;
  std::vector<std::uint32_t> untaken_;  // several bands: per node, packets added and not yet taken
  // Threads beyond the caller's: a run starts when `go_` changes (the target
  // cycle in `target_`), `stop_` ends them; the barrier counts arrivals and
  // moves `phase_` on; waiters that stopped spinning sleep on it.
  std::vector<std::thread> workers_;
  Schedule schedule_ = Schedule::automatic;
  bool inline_ = true;  // the bands run on the caller's thread
  std::int64_t tune_cycles_ = -1;
  int windows_ = 0, probe_gap_ = 8;  // windows since the last try, and between tries
  bool trying_ = false;              // this window runs the other way
  std::chrono::steady_clock::time_point tune_start_{};
  std::array<double, 2> ns_per_cycle_{-1, -1};  // last measured: threads, one thread
  std::int64_t target_ = 0;
  alignas(64) std::atomic<std::uint32_t> go_{0};
  std::atomic<bool> stop_{false};
  alignas(64) std::atomic<std::uint32_t> arrived_{0};
  alignas(64) std::atomic<std::uint32_t> phase_{0};
  std::atomic<std::uint32_t> sleepers_{0};
};

}  // namespace hopsim::network::model::flow
