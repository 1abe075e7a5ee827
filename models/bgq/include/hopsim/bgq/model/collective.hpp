#pragma once
// The BG/Q collective network as the messaging unit uses it: class routes
// (each node's part in a tree over the torus links), the tree they
// describe, and the combining the routers do (MU_CollectiveNetworkHeader.h
// op codes on words of 4..512 bytes). Native and simulated runs share this
// code, so they compute the same result; they differ only in when it lands.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "hopsim/bgq/model/mu_hw.h"
#include "hopsim/bgq/model/network.hpp"

namespace hopsim::bgq::model {

inline constexpr int kClassRoutes = BGQ_COLL_CLASS_MAX_CLASSROUTES;
// Class route 0 is the job's user comm-world route, set on every node
// before the program starts (as CNK sets it up for the job's block).
inline constexpr int kCommWorldRoute = 0;

// The collective fields of a descriptor made by MUSPI_CreateCollective*.
struct CollectiveFields {
  std::uint32_t type = 0;         // MUHWI_COLLECTIVE_TYPE_*
  std::uint32_t op = 0;           // MUHWI_COLLECTIVE_OP_CODE_*
  std::uint32_t word_length = 0;  // bytes
  std::uint32_t route = 0;        // class route 0..15
};
inline bool is_collective(const MUHWI_Descriptor_t& d) {
  return d.PacketHeader.NetworkHeader.collective.Data_Packet_Type == MUHWI_COLLECTIVE_DATA_PACKET_TYPE;
}
CollectiveFields collective_fields(const MUHWI_Descriptor_t& d);
// Checks what the MU checks when it fetches a collective descriptor: a
// non-zero length, a payload address, a collective FIFO in the
// Torus_FIFO_Map (CUSER or CSYSTEM), a direct-put or memory-FIFO packet
// type, a known collective type and, for a reduce, a root inside the
// torus. KernelError naming the node and the field.
void check_collective_descriptor(const MUHWI_Descriptor_t& d, const Torus& torus, std::uint32_t src);
// Human-readable op code ("unsigned add", ...); "op code 0x.." if unknown.
std::string op_name(std::uint32_t op);

// Checks a class route as Kernel_SetCollectiveClassRoute does; 0 when
// valid, else the driver's return code (1: more than one output link,
// 2: the output has the local bit, 3: the input lacks the local bit...,
// 4: a link both in and out).
int check_class_route(const ClassRoute_t& cr);

// The class-route bit of the link from `node` in dimension `dim`, direction `dir`.
std::uint16_t class_link_bit(int dim, int dir);

// The comm-world route of every node: a tree rooted at node 0 in which
// each node's parent is one hop towards the root in its first dimension
// (A first) whose coordinate is not the root's, the shorter way round
// (+ on a tie). Its depth is the sum over dimensions of extent / 2.
std::vector<ClassRoute_t> comm_world_routes(const Torus& t);

// A tree: who contributes, each node's parent and depth (hops from the root).
struct RouteTree {
  std::uint32_t root = 0;
  std::vector<std::uint32_t> members;  // nodes whose input has the local bit, in node order
  std::vector<int> depth;              // per node; -1 if not in the tree
  int max_depth = 0;
};
// Builds the tree of route `id` from every node's route (`set[n]` false:
// node n has not set it). KernelError naming the route and the node for an
// output link into a node that has not set the route or does not take that
// link as input, no root, more than one root, or a cycle.
RouteTree build_tree(const Torus& t, int id, const std::vector<ClassRoute_t>& routes,
                     const std::vector<std::uint8_t>& set);

// acc = acc OP in over `bytes` bytes of `word_length`-byte words (host byte
// order). KernelError (naming `who`) for a length that is not a multiple
// of the word, or an op code and word length the model does not combine
// (floating point: 8-byte words; integer add/min/max: 4 or 8 bytes; the
// bitwise ops: any length).
void combine(const CollectiveFields& f, std::uint8_t* acc, const std::uint8_t* in, std::uint64_t bytes,
             const std::string& who);

// Timing of one collective (simulated runs). Each contribution's first
// packet leaves its node `mu_descriptor_latency` after its MU took the
// descriptor and climbs its depth in hops (`hop_latency` each); the routers
// combine packet by packet, so the combined stream leaves the root once the
// last contribution has climbed, then runs down to every node, pipelined:
// a node's last byte arrives the stream's serialisation on one link after
// its first, and is written at `mu_rx_bandwidth`. The tree's links are not
// reserved on the point-to-point link calendars (see docs/bgq.md).
struct CollectiveSchedule {
  Tick at_root = 0;  // the first combined packet leaves the root
  Tick stream = 0;   // the whole message on one link
  Tick rx_last = 0;  // writing the last packet's payload at a receiver
  Tick hop = 0;
  Tick engine_per_byte_x16 = 0;  // injection engine read time, ticks per 16 bytes
  // When node at `depth` has its last byte in memory.
  Tick arrival(int depth) const { return at_root + static_cast<Tick>(depth) * hop + stream + rx_last; }
  // When a contributor's MU has sent its last packet (MUSPI_CheckDescComplete).
  Tick sent(Tick taken, int depth, std::uint64_t length) const;
};
// `taken`: when each contributor's MU took its descriptor; `depth`: its hops from the root.
CollectiveSchedule schedule_collective(const Params& p, const std::vector<Tick>& taken, const std::vector<int>& depth,
                                       std::uint64_t length);

}  // namespace hopsim::bgq::model
