#pragma once
// The BG/Q torus with credit flow control and virtual channels behind the
// messaging unit (machine.torus_flow_control=1): the routers of the
// bgq-torus network preset (models/network's FlowNet: the dynamic VC beside
// the bubble escape VC, tokens per VC, dynamic or deterministic routing per
// descriptor) in place of the link calendars (docs/bgq.md).
//
// Contract:
//  * inject() is called in nondecreasing tick order (a simulation using
//    this torus injects in model-time order), with length > 0 (the MU
//    refuses empty descriptors). It returns the tick the
//    descriptor's injection engine is done: the engine reads each packet's
//    payload at its bandwidth and hands it to the network's injection
//    queue, which holds every packet handed to it (unbounded). The
//    descriptor's Torus_FIFO_Map names the injection channels (one per
//    torus link direction, AP AM BP .. EM); a node's packets enter the
//    next of their map's channels, in turn, as they enter the network;
//    a map naming none of them (local, priority or system FIFOs only) deals
//    them to all ten.
//  * step(limit, arrived) runs the network a cycle at a time while cycles
//    start before tick `limit` and it has work, and returns after the first
//    cycle in which a descriptor completed: arrived(id, tick) with the tick
//    its last payload byte is in the destination's memory (at or after
//    that cycle's start). Nothing injected later can change an arrival
//    already reported.
//  * on_link(f): f sees each packet's use of each torus link as step()
//    runs it (for traces and the viewer's hop traffic).
//  * busy() while a packet waits or travels. A network whose packets can no
//    longer move throws hopsim::network::model::NetworkDeadlock naming the
//    cycle of waiting channels.
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "hopsim/bgq/model/network.hpp"
#include "hopsim/bgq/model/params.hpp"
#include "hopsim/network/model/flow.hpp"

namespace hopsim::bgq::model {

class FlowTorus {
 public:
  // The bgq-torus preset's network on p's torus extents.
  static network::model::GenericNetwork network_for(const Params& p);
  FlowTorus(const Params& p, const network::model::GenericNetwork& g);

  Tick inject(std::uint32_t id, std::uint32_t src, std::uint32_t fifo, std::uint32_t dst, std::uint64_t length, Tick t,
              bool dynamic, std::uint64_t torus_fifo_map);
  // The injection channels a Torus_FIFO_Map names: bit 2 x dim for the +
  // link of dim, 2 x dim + 1 for the - link (FlowNet's port order); all ten
  // when it names no torus FIFO.
  static std::uint32_t channels_of(std::uint64_t torus_fifo_map);
  bool step(Tick limit, const std::function<void(std::uint32_t, Tick)>& arrived);
  bool busy() const { return !ready_.empty() || open_ > 0; }

  std::uint64_t packet_hops() const { return hops_; }

  // A packet on a torus link: its descriptor (inject's id), the link
  // (link_index), its bytes on the wire, the tick its head asked for an
  // output at the link's router, the ticks its head went and its tail was
  // through (later than start + busy when other packets' chunks interleaved),
  // and the link time its own chunks took.
  struct LinkUse {
    std::uint32_t desc, link, bytes;
    Tick asked, start, end, busy;
  };
  void on_link(std::function<void(const LinkUse&)> f);

 private:
  struct Ready {  // a packet the engine has read, waiting to enter the network
    std::int64_t cycle;
    std::uint64_t seq;
    std::uint32_t src, dst, bytes, id, chans;  // chans: the injection channels it may take
    bool det;
    bool operator>(const Ready& o) const { return cycle != o.cycle ? cycle > o.cycle : seq > o.seq; }
  };
  struct Desc {  // a descriptor in flight
    std::uint32_t left = 0;
    Tick last = 0;
  };
  Tick tick_of(std::int64_t cycle) const;
  std::int64_t cycle_of(Tick t) const;  // the first cycle starting at or after t

  network::model::flow::FlowNet net_;
  double tpc_;
  Tick desc_lat_, desc_ovh_;
  double eng_tpb_, rx_tpb_;
  std::vector<std::vector<std::pair<std::uint32_t, Tick>>> engines_;  // per node: (FIFO, free from)
  std::vector<Tick> rx_free_;                                         // per node: its reception side is free from
  std::vector<std::uint32_t> next_ch_;                                // per node: the channel dealt to next
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready_;
  std::vector<Desc> desc_;  // by id
  std::uint64_t seq_ = 0, hops_ = 0;
  std::uint32_t open_ = 0;  // packets in the network
};

}  // namespace hopsim::bgq::model
