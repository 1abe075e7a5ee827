#pragma once
// The 5D torus and its timing core. Event-driven, no per-cycle clocking:
// a packet reserves each link of its route for its serialisation time on
// that link's calendar (contention = waiting for a free slot), plus a
// per-hop latency (virtual cut-through). Requests may arrive out of time
// order; each calendar keeps its busy intervals and a request takes the
// first gap at or after its time. Intervals that end before the horizon
// (global time, which no later request can precede) are forgotten.
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "hopsim/bgq/model/params.hpp"
#include "hopsim/topo/topology.hpp"

namespace hopsim::bgq::model {

// Model time: 1/16 of a core cycle.
using Tick = std::uint64_t;
inline constexpr double kTicksPerCycle = 16.0;
inline Tick to_ticks(double cycles) { return static_cast<Tick>(std::floor(cycles * kTicksPerCycle + 0.5)); }
inline double to_cycles(Tick t) { return static_cast<double>(t) / kTicksPerCycle; }

class Calendar {
 public:
  // First start >= t at which `dur` ticks are free (nothing reserved).
  Tick earliest(Tick t, Tick dur, Tick horizon);
  // Reserves `dur` ticks at the first free start >= t; returns the start.
  Tick reserve(Tick t, Tick dur, Tick horizon);
  std::size_t intervals() const { return iv_.size() - head_; }

 private:
  void prune(Tick horizon);
  std::size_t find(Tick t) const;          // first interval (index) ending after t
  std::vector<std::pair<Tick, Tick>> iv_;  // busy [start, end), sorted, disjoint
  std::size_t head_ = 0;                   // intervals before head_ are forgotten
};

// A 5D torus A..E (all dimensions wrap) over hopsim::topo. Node ids are
// row-major over (A,B,C,D,E), E fastest; that is also the rank order of
// BG/Q's default ABCDET mapping with one rank per node.
class Torus {
 public:
  explicit Torus(const std::array<int, kDims>& dims);
  std::uint32_t nodes() const { return nodes_; }
  const std::array<int, kDims>& dims() const { return dims_; }
  int coord(std::uint32_t node, int dim) const { return coords_[node * kDims + static_cast<std::uint32_t>(dim)]; }
  std::array<int, kDims> coords(std::uint32_t node) const;
  // ConfigError-free: returns false if a coordinate lies outside the torus.
  bool contains(const std::array<int, kDims>& c) const;
  std::uint32_t node_at(const std::array<int, kDims>& c) const;
  // The neighbour across the link of `dim` in `dir` (+1/-1).
  std::uint32_t neighbour(std::uint32_t node, int dim, int dir) const {
    return nbr_[node * 2 * kDims + static_cast<std::uint32_t>(dim) * 2 + (dir > 0 ? 0 : 1)];
  }
  // Signed hop count from a to b along dim as the MU's hint bits choose it:
  // the shorter way round; on a tie (extent even, distance half of it) +.
  int steps(std::uint32_t a, std::uint32_t b, int dim) const;
  int hops(std::uint32_t a, std::uint32_t b) const;
  const topo::Topology& topology() const { return topo_; }

 private:
  std::array<int, kDims> dims_;
  std::uint32_t nodes_;
  topo::Topology topo_;
  std::vector<std::uint8_t> coords_;  // nodes * 5
  std::vector<std::uint32_t> nbr_;    // nodes * 10
};

// Link index: node * 10 + dim * 2 + (dir < 0). Extent-1 dimensions have no
// links; in an extent-2 dimension the + and - links of a node both lead to
// its one peer (two cables, as on the hardware).
inline std::uint32_t link_index(std::uint32_t node, int dim, int dir) {
  return node * 2 * kDims + static_cast<std::uint32_t>(dim) * 2 + (dir > 0 ? 0u : 1u);
}

// Sees every link reservation (for traces); null when nobody listens.
class NetObserver {
 public:
  NetObserver() = default;
  NetObserver(const NetObserver&) = delete;
  NetObserver& operator=(const NetObserver&) = delete;
  NetObserver(NetObserver&&) = delete;
  NetObserver& operator=(NetObserver&&) = delete;
  virtual ~NetObserver() = default;
  // A packet of `wire_bytes` asked for `link` at `requested` and got it over [start, start + ser).
  virtual void hop(std::uint32_t link, Tick requested, Tick start, Tick ser, std::uint32_t wire_bytes) = 0;
};

struct Sent {
  Tick first_start;  // the packet's head entered its first link
  Tick arrival;      // its last byte is at the destination's MU
  int hops;
};

class Network {
 public:
  explicit Network(const Params& p);
  const Torus& torus() const { return torus_; }
  const Params& params() const { return p_; }

  // One packet of `wire_bytes` from src to dst, ready at tick t. Dynamic
  // routing picks at each hop, among the dimensions still to correct (the
  // hint direction of each: minimal only), the link that is free soonest;
  // deterministic routing corrects A, B, C, D, E in order. `path` (if not
  // null) receives the link indices in order.
  Sent send(std::uint32_t src, std::uint32_t dst, std::uint32_t wire_bytes, Tick t, bool dynamic,
            std::vector<std::uint32_t>* path = nullptr);
  void set_observer(NetObserver* o) { obs_ = o; }
  // Lower bound on the tick of every later request.
  void set_horizon(Tick t) {
    if (t > horizon_) horizon_ = t;
  }
  Tick horizon() const { return horizon_; }
  // Serialisation ticks of `wire_bytes` on a link.
  Tick link_ticks(std::uint32_t wire_bytes) const;

  std::uint64_t packets() const { return packets_; }
  std::uint64_t packet_hops() const { return packet_hops_; }
  std::uint64_t link_bytes(std::uint32_t link) const { return link_bytes_[link]; }
  std::size_t links() const { return link_bytes_.size(); }

 private:
  Params p_;
  Torus torus_;
  std::vector<Calendar> cal_;
  std::vector<std::uint64_t> link_bytes_;
  Tick horizon_ = 0;
  NetObserver* obs_ = nullptr;
  Tick hop_;
  double ticks_per_byte_;
  std::uint64_t packets_ = 0, packet_hops_ = 0;
};

// The messaging unit's timing on top of the network: each injection FIFO
// has one engine that works its descriptors in order (fetch latency, then
// per packet: read the payload at the engine's bandwidth, hand the packet
// to the network when its first link takes it, a fixed cost per
// descriptor); each node's reception side writes payload into memory at
// its own bandwidth (a calendar, as packets arrive out of order).
class MuTiming {
 public:
  explicit MuTiming(const Params& p);
  Network& network() { return net_; }
  const Params& params() const { return net_.params(); }
  struct Result {
    Tick arrival;     // the descriptor's last payload byte is in the destination's memory
    Tick engine_end;  // its injection engine is free again
  };
  // A descriptor of `length` bytes (> 0) from `src` to `dst` on injection
  // FIFO `fifo` of src, written into the FIFO at tick t.
  Result inject(std::uint32_t src, std::uint32_t fifo, std::uint32_t dst, std::uint64_t length, Tick t, bool dynamic);
  void set_horizon(Tick t) { net_.set_horizon(t); }

 private:
  Network net_;
  std::vector<Calendar> rx_;
  std::vector<std::vector<std::pair<std::uint32_t, Tick>>> engines_;  // per node: (FIFO, free from)
  Tick desc_lat_, desc_ovh_;
  double eng_tpb_, rx_tpb_;
};

}  // namespace hopsim::bgq::model
