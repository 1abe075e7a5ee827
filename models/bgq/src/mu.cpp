#include "hopsim/bgq/model/mu.hpp"

#include <cstring>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"

namespace hopsim::bgq::model {

Packetisation packetise(std::uint64_t length) {
  if (length == 0) throw KernelError("MU descriptor: Message_Length is 0 (a descriptor must move at least one byte)");
  Packetisation p;
  p.packets = (length + MUHWI_PACKET_MAX_PAYLOAD - 1) / MUHWI_PACKET_MAX_PAYLOAD;
  p.last_payload = packet_payload(length, p.packets - 1);
  const std::uint64_t full = p.packets - 1;
  p.chunks = full * (1 + MUHWI_PACKET_MAX_PAYLOAD / MUHWI_PAYLOAD_CHUNK_SIZE) +
             packet_wire_bytes(p.last_payload) / MUHWI_PAYLOAD_CHUNK_SIZE;
  p.wire_bytes = p.chunks * MUHWI_PAYLOAD_CHUNK_SIZE;
  return p;
}

std::array<int, kDims> destination_coords(MUHWI_Destination_t dest) {
  const std::uint32_t v = dest.Destination;
  return {static_cast<int>((v >> MUHWI_DEST_A_SHIFT) & 63), static_cast<int>((v >> MUHWI_DEST_B_SHIFT) & 63),
          static_cast<int>((v >> MUHWI_DEST_C_SHIFT) & 63), static_cast<int>((v >> MUHWI_DEST_D_SHIFT) & 63),
          static_cast<int>((v >> MUHWI_DEST_E_SHIFT) & 63)};
}

MUHWI_Destination_t make_destination(int a, int b, int c, int d, int e) {
  MUHWI_Destination_t r;
  r.Destination = (static_cast<std::uint32_t>(a & 63) << MUHWI_DEST_A_SHIFT) |
                  (static_cast<std::uint32_t>(b & 63) << MUHWI_DEST_B_SHIFT) |
                  (static_cast<std::uint32_t>(c & 63) << MUHWI_DEST_C_SHIFT) |
                  (static_cast<std::uint32_t>(d & 63) << MUHWI_DEST_D_SHIFT) |
                  (static_cast<std::uint32_t>(e & 63) << MUHWI_DEST_E_SHIFT);
  return r;
}

// A direct put and a memory-FIFO packet keep the put offset in different
// places of the MU header: the packet type says which.
std::uint64_t put_offset(const MUHWI_Descriptor_t& d) {
  if (packet_type(d) == MUHWI_PACKET_TYPE_FIFO) {
    const auto& h = d.PacketHeader.messageUnitHeader.Packet_Types.Memory_FIFO;
    return (static_cast<std::uint64_t>(h.Put_Offset_MSB) << 32) | h.Put_Offset_LSB;
  }
  const auto& h = d.PacketHeader.messageUnitHeader.Packet_Types.Direct_Put;
  return (static_cast<std::uint64_t>(h.Put_Offset_MSB) << 32) | h.Put_Offset_LSB;
}

void set_put_offset(MUHWI_Descriptor_t& d, std::uint64_t offset) {
  if (packet_type(d) == MUHWI_PACKET_TYPE_FIFO) {
    auto& h = d.PacketHeader.messageUnitHeader.Packet_Types.Memory_FIFO;
    h.Put_Offset_MSB = static_cast<std::uint16_t>((offset >> 32) & 0x1F);
    h.Put_Offset_LSB = static_cast<std::uint32_t>(offset & 0xFFFFFFFFu);
    return;
  }
  auto& h = d.PacketHeader.messageUnitHeader.Packet_Types.Direct_Put;
  h.Put_Offset_MSB = static_cast<std::uint8_t>((offset >> 32) & 0xFF);
  h.Put_Offset_LSB = static_cast<std::uint32_t>(offset & 0xFFFFFFFFu);
}

std::uint32_t check_descriptor(const MUHWI_Descriptor_t& d, const Torus& torus, std::uint32_t src) {
  if (d.Message_Length == 0)
    throw KernelError(
        fmt::format("node {}: MU descriptor with Message_Length 0 (a descriptor must move at least one byte)", src));
  if (d.Pa_Payload == 0) throw KernelError(fmt::format("node {}: MU descriptor with payload address 0", src));
  const auto type = packet_type(d);
  if (type == MUHWI_PACKET_TYPE_PACED_GET)
    throw KernelError(fmt::format("node {}: MU descriptor of packet type paced get, which hopsim does not model", src));
  if (type == MUHWI_PACKET_TYPE_GET && d.Message_Length % MUHWI_DESCRIPTOR_SIZE_IN_BYTES != 0)
    throw KernelError(
        fmt::format("node {}: remote-get descriptor of {} bytes: its payload must be whole 64-byte descriptors", src,
                    d.Message_Length));
  if (d.PacketHeader.NetworkHeader.pt2pt.Data_Packet_Type != MUHWI_PT2PT_DATA_PACKET_TYPE)
    throw KernelError(
        fmt::format("node {}: MU descriptor is not point-to-point (Data_Packet_Type 0x{:02x}); build it with "
                    "MUSPI_CreatePt2Pt*Descriptor or MUSPI_CreateCollective*Descriptor",
                    src, d.PacketHeader.NetworkHeader.pt2pt.Data_Packet_Type));
  if ((d.Torus_FIFO_Map & 0xFFF8u) == 0)
    throw KernelError(fmt::format("node {}: MU descriptor with an empty Torus_FIFO_Map", src));
  const auto c = destination_coords(d.PacketHeader.NetworkHeader.pt2pt.Destination);
  if (!torus.contains(c)) {
    const auto& e = torus.dims();
    throw KernelError(
        fmt::format("node {}: MU descriptor destination ({},{},{},{},{}) is outside the {}x{}x{}x{}x{} torus", src,
                    c[0], c[1], c[2], c[3], c[4], e[0], e[1], e[2], e[3], e[4]));
  }
  return torus.node_at(c);
}

namespace {
std::uint64_t bat_entry(const BaseAddressTable& n, std::uint32_t dst_node, std::uint32_t src, unsigned id,
                        const char* what) {
  if (id >= kBatEntries || !n.bat_allocated[id] || !n.bat_set[id])
    throw KernelError(
        fmt::format("direct put from node {} to node {}: {} base-address id {} is not {} at the destination", src,
                    dst_node, what, id,
                    id >= kBatEntries      ? "a valid id (0..543)"
                    : !n.bat_allocated[id] ? "allocated (Kernel_AllocateBaseAddressTable)"
                                           : "set (MUSPI_SetBaseAddress)"));
  return n.bat[id];
}
}  // namespace

PutTarget direct_put_target(const BaseAddressTable& n, std::uint32_t dst_node, std::uint32_t src,
                            const MUHWI_Descriptor_t& d, std::uint64_t msg_offset) {
  const auto& h = d.PacketHeader.messageUnitHeader.Packet_Types.Direct_Put;
  const std::uint64_t base = bat_entry(n, dst_node, src, h.Rec_Payload_Base_Address_Id, "payload");
  const std::uint64_t cbase = bat_entry(n, dst_node, src, h.Rec_Counter_Base_Address_Id, "counter");
  // The opcode may come with the base address (MUSPI_GetAtomicAddress) or
  // with the offset (MUSPI_GetAtomicOffsetFromBaseAddress): the MU adds them.
  const std::uint64_t full = cbase + h.Counter_Offset;
  const std::uint64_t caddr = full & MUHWI_ATOMIC_ADDRESS_MASK;
  if (caddr % 8 != 0)
    throw KernelError(
        fmt::format("direct put from node {} to node {}: reception counter address 0x{:x} is not 8-byte "
                    "aligned",
                    src, dst_node, caddr));
  if (caddr == 0)
    throw KernelError(fmt::format("direct put from node {} to node {}: reception counter address is 0", src, dst_node));
  if (base == 0)
    throw KernelError(fmt::format("direct put from node {} to node {}: payload base address is 0", src, dst_node));
  const std::uint64_t op = (full >> MUHWI_ATOMIC_OPCODE_SHIFT) & 0xF;
  if (op != MUHWI_ATOMIC_OPCODE_STORE_ADD && op != 0)
    throw KernelError(
        fmt::format("direct put from node {} to node {}: counter base address uses atomic opcode {}, the MU "
                    "store-adds (MUHWI_ATOMIC_OPCODE_STORE_ADD)",
                    src, dst_node, op));
  return {base + put_offset(d) + msg_offset, caddr};
}

void receive_direct_put(NodeMu& n, std::uint32_t dst_node, std::uint32_t src, const MUHWI_Descriptor_t& d,
                        std::uint64_t msg_offset, const void* data, std::uint32_t bytes, bool atomic) {
  const PutTarget t = direct_put_target(n, dst_node, src, d, msg_offset);
  std::memcpy(reinterpret_cast<void*>(t.payload), data, bytes);
  // The MU store-adds minus the payload bytes (two's complement).
  auto* counter = reinterpret_cast<std::uint64_t*>(t.counter);
  if (atomic)
    std::atomic_ref<std::uint64_t>(*counter).fetch_sub(bytes, std::memory_order_release);
  else
    *counter -= bytes;
}

void receive_memory_fifo(NodeMu& n, std::uint32_t dst_node, std::uint32_t src, const MUHWI_Descriptor_t& d,
                         std::uint64_t msg_offset, const void* data, std::uint32_t bytes) {
  const unsigned id = d.PacketHeader.messageUnitHeader.Packet_Types.Memory_FIFO.Rec_FIFO_Id;
  std::lock_guard<std::mutex> lock(n.rec_mutex);
  RecFifo* fifo = id < kRecFifos ? n.rec.find(id) : nullptr;
  if (fifo == nullptr || !fifo->enabled)
    throw KernelError(fmt::format("memory-FIFO packet from node {} to node {}: reception FIFO {} is not {}", src,
                                  dst_node, id, id >= kRecFifos ? "a valid id (0..271)" : "initialised and enabled"));
  auto& f = *fifo;
  const std::uint64_t need = packet_wire_bytes(bytes);
  if (need > f.capacity)
    throw KernelError(
        fmt::format("memory-FIFO packet from node {} to node {}: reception FIFO {} holds {} bytes, less than one "
                    "packet of {} bytes",
                    src, dst_node, id, f.capacity, need));
  RecPacket p;
  p.header = d.PacketHeader;
  // The MU adds the packet's offset in the message to the descriptor's put offset.
  const std::uint64_t put = put_offset(d) + msg_offset;
  auto& mh = p.header.messageUnitHeader.Packet_Types.Memory_FIFO;
  mh.Put_Offset_MSB = static_cast<std::uint16_t>((put >> 32) & 0x1F);
  mh.Put_Offset_LSB = static_cast<std::uint32_t>(put);
  p.header.NetworkHeader.pt2pt.Byte8 =
      static_cast<std::uint8_t>((p.header.NetworkHeader.pt2pt.Byte8 & 0xC0u) |
                                ((packet_wire_bytes(bytes) / MUHWI_PAYLOAD_CHUNK_SIZE - 1) & 0x1F));
  const auto* b = static_cast<const std::uint8_t*>(data);
  p.payload.assign(b, b + bytes);
  if (!f.held.empty() || f.used + need > f.capacity) {
    f.held.push_back(std::move(p));
    return;
  }
  f.used += need;
  f.packets.push_back(std::move(p));
}

RecFifo& RecFifos::operator[](std::uint32_t g) {
  if (RecFifo* f = find(g)) return *f;
  fifos_.emplace_back(g, std::make_unique<RecFifo>());
  return *fifos_.back().second;
}

RecFifo* RecFifos::find(std::uint32_t g) {
  for (auto& [id, f] : fifos_)
    if (id == g) return f.get();
  return nullptr;
}

void admit_held(RecFifo& f) {
  while (!f.held.empty()) {
    const std::uint64_t need = packet_wire_bytes(static_cast<std::uint32_t>(f.held.front().payload.size()));
    if (f.used + need > f.capacity) return;
    f.used += need;
    f.packets.push_back(std::move(f.held.front()));
    f.held.pop_front();
  }
}

std::uint32_t remote_get_fifo(const NodeMu& n, std::uint32_t dst_node, std::uint32_t src_node,
                              const MUHWI_Descriptor_t& d) {
  const unsigned id = d.PacketHeader.messageUnitHeader.Packet_Types.Remote_Get.Rget_Inj_FIFO_Id;
  if (id >= kInjFifos || !n.inj_allocated[id])
    throw KernelError(
        fmt::format("remote get from node {} to node {}: injection FIFO {} is not allocated at the destination",
                    src_node, dst_node, id));
  return id;
}

}  // namespace hopsim::bgq::model
