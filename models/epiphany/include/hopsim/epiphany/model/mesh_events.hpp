#pragma once
// The eMesh routers' event counters, as a core's ctimer counts them in its
// mesh modes (ctimer config 0xF "MESH_0" takes the event code in MESHCFG
// bits [7:4], 0xE "MESH_1" the code in bits [11:8]).
//
// Event codes (the E16G301's MESHCFG encoding, as Parallella programs use
// it): 2 any wait, 3 core wait, 4 south wait, 5 north wait, 6 west wait,
// 7 east wait, 8 south-or-east wait, 9 north-or-west wait, 10 south access,
// 11 north access, 12 west access, 13 east access, 14 core access, 15 any
// access. A router has five input ports: its four neighbours and its own
// core. "Access" counts cMesh packets a port accepted; "wait" counts cycles
// in which a packet on one of the code's ports waited for its output (a
// cycle counts once however many of those ports wait in it).
//
// The log keeps what it is told in time order or not; counts are of events
// before a given tick (half cycle). Not thread-safe: the caller serialises.
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "hopsim/topo/topology.hpp"

namespace hopsim::epiphany::model {

enum class Port : std::uint8_t { south = 0, north = 1, west = 2, east = 3, core = 4 };
inline constexpr int kPorts = 5;

// Whether `code` is one of the event codes above.
bool valid_mesh_event(unsigned code);
const char* mesh_event_name(unsigned code);

class MeshEventLog {
 public:
  // `mesh` is the chip's 2-D mesh (node = row * cols + col).
  explicit MeshEventLog(const topo::Topology& mesh);

  // The input port of link `l`'s target router that the link feeds.
  Port entry_port(topo::LinkId l) const { return entry_[static_cast<std::size_t>(l)]; }

  // `n` packets accepted at `node` on `port` at tick `t`.
  void access(std::uint32_t node, Port port, std::uint64_t t, std::uint64_t n = 1);
  // A packet at `node` on `port` waited during ticks [from, to).
  void wait(std::uint32_t node, Port port, std::uint64_t from, std::uint64_t to);
  // `n` packets from core `src` to core `dst` along the dimension-ordered
  // route, at tick `t`, none waiting (native runs: no contention model).
  void route(std::uint32_t src, std::uint32_t dst, std::uint64_t t, std::uint64_t n);

  // Events of `code` at `node` before tick `before` (packets, or wait cycles).
  std::uint64_t count(std::uint32_t node, unsigned code, std::uint64_t before) const;
  void clear();

 private:
  struct PortLog {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> accesses;  // (tick, packets)
    std::vector<std::pair<std::uint64_t, std::uint64_t>> waits;     // [from, to) ticks
  };
  const topo::Topology& mesh_;
  std::vector<Port> entry_;
  std::vector<std::array<PortLog, kPorts>> nodes_;
};

}  // namespace hopsim::epiphany::model
