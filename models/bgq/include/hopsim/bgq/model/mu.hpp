#pragma once
// Functional model of the BG/Q messaging unit: descriptor checks,
// packetisation, and what a packet does when it arrives (direct put:
// payload at base-address-table entry + offset, reception counter
// store-added with minus the payload bytes; memory FIFO: appended to a
// reception FIFO). Native and simulated runs share this code, so they
// move the same bytes; they differ only in when it happens.
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hopsim/bgq/model/mu_hw.h"
#include "hopsim/bgq/model/network.hpp"

namespace hopsim::bgq::model {

// 17 groups x 4 subgroups; per subgroup 8 injection FIFOs, 4 reception
// FIFOs, 8 base-address-table entries (MU_Macros.h, MU_Fifo.h).
inline constexpr int kSubgroups = 68;
inline constexpr int kInjFifosPerSubgroup = 8;
inline constexpr int kRecFifosPerSubgroup = 4;
inline constexpr int kBatPerSubgroup = 8;
inline constexpr int kBatEntries = kSubgroups * kBatPerSubgroup;     // 544
inline constexpr int kRecFifos = kSubgroups * kRecFifosPerSubgroup;  // 272
inline constexpr int kInjFifos = kSubgroups * kInjFifosPerSubgroup;  // 544

// ---- packetisation ----
struct Packetisation {
  std::uint64_t packets = 0;       // number of packets
  std::uint32_t last_payload = 0;  // payload bytes of the last packet (1..512)
  std::uint64_t chunks = 0;        // 32-byte chunks on the wire, headers included
  std::uint64_t wire_bytes = 0;    // chunks * 32
};
// KernelError for a zero length.
Packetisation packetise(std::uint64_t message_length);
// Payload of packet i of a message (512 except possibly the last).
inline std::uint32_t packet_payload(std::uint64_t length, std::uint64_t i) {
  const std::uint64_t off = i * MUHWI_PACKET_MAX_PAYLOAD;
  const std::uint64_t rest = length - off;
  return static_cast<std::uint32_t>(rest < MUHWI_PACKET_MAX_PAYLOAD ? rest : MUHWI_PACKET_MAX_PAYLOAD);
}
// Header chunk plus payload rounded up to whole 32-byte chunks.
inline std::uint32_t packet_wire_bytes(std::uint32_t payload) {
  return MUHWI_PACKET_HEADER_BYTES +
         (payload + MUHWI_PAYLOAD_CHUNK_SIZE - 1) / MUHWI_PAYLOAD_CHUNK_SIZE * MUHWI_PAYLOAD_CHUNK_SIZE;
}

// ---- descriptor fields ----
inline std::uint32_t packet_type(const MUHWI_Descriptor_t& d) {
  return d.PacketHeader.NetworkHeader.pt2pt.Byte8 & 0xC0u;
}
inline bool dynamic_routing(const MUHWI_Descriptor_t& d) {
  return (d.PacketHeader.NetworkHeader.pt2pt.Byte2 & MUHWI_PACKET_USE_DYNAMIC_ROUTING) != 0;
}
std::array<int, kDims> destination_coords(MUHWI_Destination_t dest);
MUHWI_Destination_t make_destination(int a, int b, int c, int d, int e);
std::uint64_t put_offset(const MUHWI_Descriptor_t& d);
void set_put_offset(MUHWI_Descriptor_t& d, std::uint64_t offset);

// Checks what the MU checks when it fetches a descriptor: a non-zero
// length, a known packet type, a destination inside the torus, a
// non-empty Torus_FIFO_Map, a payload address. KernelError naming the
// node, the field and the value. Returns the destination node.
std::uint32_t check_descriptor(const MUHWI_Descriptor_t& d, const Torus& torus, std::uint32_t src_node);

// ---- a node's MU state ----
struct RecPacket {
  MUHWI_PacketHeader_t header{};
  std::vector<std::uint8_t> payload;
};

struct RecFifo {
  bool allocated = false, initialised = false, enabled = false;
  std::uint64_t capacity = 0;  // bytes of the FIFO's memory region
  std::uint64_t used = 0;      // bytes of packets waiting (chunks * 32)
  std::deque<RecPacket> packets;
  // Packets that arrived while the FIFO was full: the network holds them
  // (the hardware stops taking packets from the links) until a poll makes room.
  std::deque<RecPacket> held;
};
// Moves held packets into `f` while they fit (after a poll took some out).
void admit_held(RecFifo& f);

// A node's base address table: plain data, so a copy of it can live in
// memory shared between processes (native runs with a rank per process).
struct BaseAddressTable {
  std::array<std::uint64_t, kBatEntries> bat{};
  std::array<std::uint8_t, kBatEntries> bat_allocated{};
  std::array<std::uint8_t, kBatEntries> bat_set{};
};

// A node's reception FIFOs, made when first named: a program uses a few of
// the 272, and a full machine has 98304 nodes.
class RecFifos {
 public:
  // FIFO g (0..271), made empty if new.
  RecFifo& operator[](std::uint32_t g);
  // FIFO g if it was ever named, else null.
  RecFifo* find(std::uint32_t g);

 private:
  std::vector<std::pair<std::uint32_t, std::unique_ptr<RecFifo>>> fifos_;
};

struct NodeMu : BaseAddressTable {
  RecFifos rec;
  std::array<std::uint8_t, kInjFifos> inj_allocated{};
  std::mutex rec_mutex;  // native runs: senders append, the owner polls
};

// Where a direct-put packet of descriptor `d` lands at the destination whose
// base address table is `bat`: the payload address of the byte at
// `msg_offset` of the message and the reception counter's address.
// KernelError (naming `src_node`) for an unset base-address id, an
// unaligned or zero counter, a zero payload base or a counter opcode other
// than store-add.
struct PutTarget {
  std::uint64_t payload = 0, counter = 0;
};
PutTarget direct_put_target(const BaseAddressTable& bat, std::uint32_t dst_node, std::uint32_t src_node,
                            const MUHWI_Descriptor_t& d, std::uint64_t msg_offset);

// Applies one arriving direct-put packet: `bytes` payload bytes that sit at
// `msg_offset` of the message, taken from `data`. The counter update is an
// atomic fetch-add when `atomic` (native runs, concurrent senders).
// KernelError (naming `src_node`) for an unset base-address id or an
// unaligned counter.
void receive_direct_put(NodeMu& dst, std::uint32_t dst_node, std::uint32_t src_node, const MUHWI_Descriptor_t& d,
                        std::uint64_t msg_offset, const void* data, std::uint32_t bytes, bool atomic);
// Appends one memory-FIFO packet; when the FIFO is full the packet is held
// (RecFifo::held) until a poll makes room, as the network stalls on the
// hardware. KernelError if the FIFO is not enabled or smaller than the packet.
void receive_memory_fifo(NodeMu& dst, std::uint32_t dst_node, std::uint32_t src_node, const MUHWI_Descriptor_t& d,
                         std::uint64_t msg_offset, const void* data, std::uint32_t bytes);

// The destination's injection FIFO a remote-get packet feeds; KernelError if
// it is not allocated there.
std::uint32_t remote_get_fifo(const NodeMu& dst, std::uint32_t dst_node, std::uint32_t src_node,
                              const MUHWI_Descriptor_t& d);

}  // namespace hopsim::bgq::model
