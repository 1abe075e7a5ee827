#pragma once
// Event-driven timing of the eMesh: each packet reserves every link of its
// dimension-ordered route for its serialisation time (contention = waiting
// for a free slot on the link) plus a per-router latency. No per-cycle
// clocking: a write costs a few calendar look-ups, so tens of millions of
// remote writes per host second are reachable.
//
// Time is in device cycles at the interface and in half-cycle ticks inside.
// Requests may arrive out of time order (cores run ahead of global time by
// up to a quantum); each link keeps a calendar of busy ticks and a request
// takes the first free slot at or after its arrival. Ticks before the
// horizon (global time, which no later request can precede) are recycled.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hopsim/epiphany/model/mesh_events.hpp"
#include "hopsim/epiphany/model/params.hpp"
#include "hopsim/topo/topology.hpp"
#include "hopsim/traces/writer.hpp"

namespace hopsim::epiphany::model {

enum class Net : std::uint8_t { cmesh = 0, rmesh = 1, xmesh = 2 };
inline constexpr int kNets = 3;
const char* net_name(Net n);

// Occupancy of one directed link as a ring of bits, one per tick (half a
// cycle): reserving finds the first run of free ticks at or after the
// request, so requests may arrive out of time order. Each ring word carries
// the index of the 64 ticks it holds; a word whose index is behind the
// horizon reads as free, so moving the horizon costs nothing. The ring
// grows when a request lands beyond it.
class LinkCalendar {
 public:
  LinkCalendar();
  // Reserves `dur` ticks at the first free run starting >= t; returns the start.
  std::uint64_t reserve(std::uint64_t t, std::uint64_t dur) {
    if (t < base_) t = base_;
    // Fast path: the requested ticks are free and inside one word of the ring.
    if ((t & 63) + dur <= 64 && dur < 64 && t + dur <= (base_ & ~std::uint64_t{63}) + capacity_ticks()) {
      const std::uint64_t m = ((std::uint64_t{1} << dur) - 1) << (t & 63);
      auto& w = slot(t >> 6);
      if (!(w.bits & m)) {
        w.bits |= m;
        return t;
      }
    }
    return reserve_slow(t, dur);
  }
  // Forgets ticks before `horizon` (no later request can precede it).
  void advance(std::uint64_t horizon) {
    if (horizon > base_) base_ = horizon;
  }
  std::size_t capacity_ticks() const { return ring_.size() * 64; }

 private:
  struct Word {
    std::uint64_t index = ~std::uint64_t{0};  // tick >> 6 held here
    std::uint64_t bits = 0;
  };
  // The ring word of word index `idx`, reset if it held an older one.
  Word& slot(std::uint64_t idx) {
    Word& w = ring_[idx & mask_];
    if (w.index != idx) {
      w.index = idx;
      w.bits = 0;
    }
    return w;
  }
  std::uint64_t bits(std::uint64_t idx) const {
    const Word& w = ring_[idx & mask_];
    return w.index == idx ? w.bits : 0;
  }
  std::uint64_t next_free(std::uint64_t from) const;
  std::uint64_t next_busy(std::uint64_t from, std::uint64_t limit) const;
  void grow(std::uint64_t end);
  std::uint64_t reserve_slow(std::uint64_t t, std::uint64_t dur);

  std::vector<Word> ring_ = std::vector<Word>(64);
  std::uint64_t mask_ = 63;
  std::uint64_t base_ = 0;  // horizon: no request starts before it
};

inline constexpr double kTicksPerCycle = 2.0;

struct LinkStats {
  std::uint64_t bytes = 0;
  std::uint64_t packets = 0;
  std::uint64_t busy_ticks = 0;    // ticks the link was reserved
  std::uint64_t window_ticks = 0;  // of them, inside the window of set_window, whenever reserved
  std::uint64_t stall_ticks = 0;   // ticks packets waited for it
  double busy() const { return static_cast<double>(busy_ticks) / 2.0; }    // cycles
  double stall() const { return static_cast<double>(stall_ticks) / 2.0; }  // cycles
};

struct WriteTiming {
  double writer_free;  // when the writer may issue its next instruction
  double arrival;      // when the last byte is in the destination memory
  double stall;        // cycles the writer was held back by a busy injection port
};

class MeshTiming {
 public:
  explicit MeshTiming(const Params& p);

  // Posted write of `bytes` from core `src` to core `dst` (mesh indices),
  // the first store issued at `t`, on the cMesh.
  // `chunk` is the largest transaction (8 for stores of doubles, the element
  // size for DMA).
  WriteTiming write(std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, double t, unsigned chunk = 8);
  // Posted write to external memory over the xMesh and the off-chip link.
  WriteTiming write_emem(std::uint32_t src, std::uint32_t bytes, double t, unsigned chunk = 8);
  // Blocking read of `bytes` by `src` from core `dst`: one request per
  // transaction of at most `chunk` bytes (8 for loads of doubles, the element
  // size for DMA), issued one per store_issue and each holding every rMesh
  // link of its route for rmesh_interval cycles; data back as cMesh writes.
  // `ready_at_dst` is when the data exists there (a write still in flight
  // delays it). Returns when the last data is in src.
  double read(std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, double t, double ready_at_dst,
              unsigned chunk = 8);
  // Read from external memory (request over xMesh + eLink, data back the same
  // way), one request per transaction of at most `chunk` bytes.
  double read_emem(std::uint32_t src, std::uint32_t bytes, double t, unsigned chunk = 8);

  // Lower bound on the time of any future request (global time).
  void set_horizon(double cycles);
  // From now on, LinkStats::window_ticks counts the part of every
  // reservation that lies in [start, end) cycles (reservations are made
  // when a packet is sent, for later cycles).
  void set_window(double start, double end);

  // Link bookkeeping for reports: per network, mesh links first, then one
  // injection and one ejection port per core, then (xMesh) the eLink.
  std::size_t links_per_net() const { return links_[0].size(); }
  const LinkStats& stats(Net n, std::size_t link) const { return links_[static_cast<int>(n)][link].st; }
  std::string link_name(std::size_t link) const;
  const topo::Topology& topology() const { return mesh_; }
  // Uncontended one-way latency of a single write between two cores (the formula the model obeys).
  double zero_load_write_latency(std::uint32_t src, std::uint32_t dst) const;

  // Logs the routers' events (mesh_events.hpp) of every cMesh packet sent
  // from now on into `log` (null: stop); the log outlives its use here.
  void set_events(MeshEventLog* log) { events_ = log; }
  // Ticks (half cycles) of a time in cycles, as the log counts them.
  static std::uint64_t ticks(double cycles);

  // Records every packet from now on into `w` (null: stop): its nodes and
  // links first, then per packet a transaction, its hops and link samples,
  // as far as the writer's detail level asks. Node ids are core indices;
  // external memory is node num_cores(); link ids are net * links_per_net() + link.
  // Link counters are summed per `bucket_cycles` here and handed over one
  // row per link and bucket; set_trace(nullptr) flushes the last ones.
  void set_trace(traces::TraceWriter* w, double bucket_cycles = traces::Meta{}.bucket_cycles);
  // Declares the trace's nodes (cores named core<col><row> with their coreid
  // and [row,col] coordinates, external memory) and every link of the three
  // networks; set_trace does it, native runs call it on their own.
  void declare_topology(traces::TraceWriter& w) const;

 private:
  // Times inside are integer ticks (half cycles).
  std::uint64_t send(Net net, std::uint32_t src, std::uint32_t dst_router, std::uint32_t eject_core, bool to_elink,
                     std::uint32_t bytes, std::uint64_t t, std::uint64_t* inject_start);
  [[gnu::noinline, gnu::cold]] std::uint64_t send_counted(Net net, std::uint32_t src, std::uint32_t dst_router,
                                                          std::uint32_t eject_core, bool to_elink, std::uint32_t bytes,
                                                          std::uint64_t t, std::uint64_t* inject_start);
  template <bool kCounted>
  std::uint64_t send_impl(Net net, std::uint32_t src, std::uint32_t dst_router, std::uint32_t eject_core, bool to_elink,
                          std::uint32_t bytes, std::uint64_t t, std::uint64_t* inject_start);
  std::uint64_t reserve(Net net, std::size_t link, std::uint64_t t, std::uint64_t dur, std::uint32_t bytes);
  WriteTiming post(Net net, std::uint32_t src, std::uint32_t dst_router, std::uint32_t eject_core, bool to_elink,
                   std::uint32_t bytes, double t, unsigned chunk_max);
  std::span<const std::uint16_t> route(std::uint32_t src, std::uint32_t dst) const {
    const std::size_t i = static_cast<std::size_t>(src) * n_ + dst;
    return {route_links_.data() + route_off_[i], route_links_.data() + route_off_[i + 1]};
  }

  Params p_;
  topo::Topology mesh_;
  std::uint32_t n_;
  std::size_t mesh_links_;
  std::vector<std::uint32_t> route_off_;  // XY route of (src, dst): route_links_[off[i], off[i+1])
  std::vector<std::uint16_t> route_links_;
  struct Link {
    LinkCalendar cal;
    LinkStats st;
  };
  std::array<std::vector<Link>, kNets> links_;
  // A core's injection port serves only that core, in its own time order:
  // a scalar "free from" per core and network is enough.
  std::array<std::vector<std::uint64_t>, kNets> inject_free_;
  std::uint64_t win_start_ = 0, win_end_ = 0;  // ticks; empty: no window
  void count_window(LinkStats& st, std::uint64_t s, std::uint64_t dur) const {
    const std::uint64_t a = std::max(s, win_start_), b = std::min(s + dur, win_end_);
    if (b > a) st.window_ticks += b - a;
  }
  // Tracing: the hops of the packet being sent, recorded once it arrived.
  traces::TraceWriter* trace_ = nullptr;
  std::vector<traces::Hop> pending_;
  struct Bucket {
    std::int64_t bucket = -1;
    std::int64_t bytes = 0, packets = 0;
    std::uint64_t busy = 0, stall = 0;  // ticks
  };
  std::vector<Bucket> buckets_;  // per traced link id
  double bucket_cycles_ = 10000;
  bool trace_txns_ = false, trace_hops_ = false;
  // Out of line and cold, so the untraced hot path stays small enough to inline.
  [[gnu::noinline, gnu::cold]] void trace_use(Net net, std::size_t link, std::uint64_t start, std::uint64_t requested,
                                              std::uint64_t dur, std::uint32_t bytes);
  void sample(std::int64_t id, std::uint64_t start, std::uint32_t bytes, std::uint64_t dur, std::uint64_t stall);
  void flush(std::int64_t id);
  void trace_packet(Net net, std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, std::uint64_t inject,
                    std::uint64_t arrive, const char* kind);
  MeshEventLog* events_ = nullptr;
  // A packet at `node` on `port`, ready at `ready`, accepted at `accepted`.
  [[gnu::noinline, gnu::cold]] void note(std::uint32_t node, Port port, std::uint64_t ready, std::uint64_t accepted);
  std::uint64_t horizon_ = 0;  // ticks
  std::uint64_t ser_;          // ticks a packet (up to 8 data bytes) holds a cMesh or xMesh link
  std::uint64_t rser_;         // ticks a read request holds an rMesh link (rmesh_interval)
  std::uint64_t hop_;          // ticks per router
  std::uint64_t overhead_;     // ticks of write_overhead
  std::uint64_t issue_;        // ticks of store_issue
  std::uint64_t read_leg_;     // ticks of half a read's read_overhead
  std::uint64_t buffer_;       // ticks of contention the network absorbs before the writer stalls
};

}  // namespace hopsim::epiphany::model
