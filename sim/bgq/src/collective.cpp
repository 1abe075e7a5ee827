// Collectives on the messaging unit, shared by the simulated and the
// threads machine: class routes per node, the tree they describe, the
// contributions of each collective and its combined result. The machines
// decide when a result lands (simulated: CollectiveSchedule; native: when
// the last contribution is in, by the thread that made it).
#include <cstring>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "machine.hpp"

namespace hopsim::bgq {

void Machine::init_collectives() {
  const auto n = static_cast<std::size_t>(size());
  routes_[model::kCommWorldRoute] = model::comm_world_routes(*torus_);
  route_set_[model::kCommWorldRoute].assign(n, 1);
  std::array<std::uint8_t, model::kClassRoutes> alloc{};
  alloc[model::kCommWorldRoute] = 1;
  alloc[model::kClassRoutes - 1] = 1;  // the system's
  route_alloc_.assign(n, alloc);
}

int32_t Machine::allocate_class_route(std::uint32_t id, bool allocate) {
  if (id >= model::kClassRoutes) return -1;
  const std::lock_guard<std::mutex> lock(coll_mutex_);
  auto& a = route_alloc_[static_cast<std::size_t>(current_rank())][id];
  if (allocate == (a != 0)) return -1;  // already allocated / not allocated
  a = allocate ? 1 : 0;
  return 0;
}

std::vector<std::uint32_t> Machine::free_class_routes() {
  const std::lock_guard<std::mutex> lock(coll_mutex_);
  std::vector<std::uint32_t> out;
  const auto& a = route_alloc_[static_cast<std::size_t>(current_rank())];
  for (std::uint32_t i = 0; i < model::kClassRoutes; ++i)
    if (!a[i]) out.push_back(i);
  return out;
}

int32_t Machine::set_class_route(std::uint32_t id, const ClassRoute_t& cr) {
  if (id >= model::kClassRoutes) return -1;
  const auto r = static_cast<std::size_t>(current_rank());
  const std::lock_guard<std::mutex> lock(coll_mutex_);
  if (!route_alloc_[r][id]) return -1;
  if (const int rc = model::check_class_route(cr); rc != 0) return rc;
  if (routes_[id].empty()) {
    routes_[id].assign(static_cast<std::size_t>(size()), ClassRoute_t{0, 0});
    route_set_[id].assign(static_cast<std::size_t>(size()), 0);
  }
  routes_[id][r] = cr;
  route_set_[id][r] = 1;
  trees_[id].reset();
  return 0;
}

namespace {
std::string describe(const model::CollectiveFields& f, std::uint64_t length) {
  static constexpr std::array<const char*, 4> kType = {"a broadcast", "?", "an allreduce", "a reduce"};
  return fmt::format("{} of {} bytes ({}, {}-byte words)", kType[(f.type >> 3) & 3], length, model::op_name(f.op),
                     f.word_length);
}
}  // namespace

std::optional<CollectiveDone> Machine::collective_contribute(CollectivePart part) {
  const auto f = model::collective_fields(part.desc);
  const std::uint32_t node = part.node;
  const std::lock_guard<std::mutex> lock(coll_mutex_);
  if (route_set_[f.route].empty() || !route_set_[f.route][node])
    throw KernelError(
        fmt::format("rank {}: collective on class route {}, which this node has not set "
                    "(Kernel_AllocateCollectiveClassRoute and Kernel_SetCollectiveClassRoute; route 0 "
                    "is the job's comm world)",
                    node, f.route));
  if (!trees_[f.route])
    trees_[f.route] = std::make_shared<const model::RouteTree>(
        model::build_tree(*torus_, static_cast<int>(f.route), routes_[f.route], route_set_[f.route]));
  const auto& tree = trees_[f.route];
  if (tree->depth[node] < 0 || (routes_[f.route][node].input & BGQ_CLASS_INPUT_LINK_LOCAL) == 0)
    throw KernelError(
        fmt::format("rank {}: collective on class route {}, to which this node contributes nothing "
                    "(no local bit in its input)",
                    node, f.route));
  CollectiveDone done;
  done.fields = f;
  done.tree = tree;
  if (f.type == MUHWI_COLLECTIVE_TYPE_BROADCAST) {
    done.source = node;
    done.result = part.data;
    done.parts.push_back(std::move(part));
    for (std::uint32_t m : tree->members) done.receivers.emplace_back(m, 0);
    return done;
  }
  if (coll_seq_.empty()) coll_seq_.assign(static_cast<std::size_t>(size()), {});
  const std::uint64_t number = coll_seq_[node][f.route]++;
  const auto key = std::make_pair(f.route, number);
  auto& parts = open_[key].parts;
  parts.emplace(node, std::move(part));
  if (parts.size() < tree->members.size()) return std::nullopt;
  // Every member is in: check that they agree, then combine in node order.
  const auto& first = parts.begin()->second;
  for (const auto& [n, p] : parts) {
    const auto g = model::collective_fields(p.desc);
    if (g.type != f.type || g.op != f.op || g.word_length != f.word_length ||
        p.desc.Message_Length != first.desc.Message_Length)
      throw KernelError(fmt::format("class route {}, collective {}: node {} injected {}, node {} {}", f.route, number,
                                    first.node,
                                    describe(model::collective_fields(first.desc), first.desc.Message_Length), n,
                                    describe(g, p.desc.Message_Length)));
  }
  done.result = first.data;
  const std::string who = fmt::format("class route {}", f.route);
  for (auto it = std::next(parts.begin()); it != parts.end(); ++it)
    model::combine(f, done.result.data(), it->second.data.data(), done.result.size(), who);
  for (auto& [n, p] : parts) done.parts.push_back(std::move(p));
  open_.erase(key);
  if (f.type == MUHWI_COLLECTIVE_TYPE_REDUCE) {
    const auto c = model::destination_coords(done.parts.front().desc.PacketHeader.NetworkHeader.collective.Destination);
    const std::uint32_t root = torus_->node_at(c);
    const auto k = std::find_if(done.parts.begin(), done.parts.end(), [&](const auto& p) { return p.node == root; });
    if (k == done.parts.end())
      throw KernelError(
          fmt::format("class route {}: reduce to node {}, which is not in the route's tree", f.route, root));
    done.source = root;
    done.receivers.emplace_back(root, static_cast<std::size_t>(k - done.parts.begin()));
  } else {
    done.source = tree->root;
    for (std::size_t k = 0; k < done.parts.size(); ++k) done.receivers.emplace_back(done.parts[k].node, k);
  }
  return done;
}

CollectivePart Machine::take_collective(std::uint32_t r, std::uint32_t fifo, std::uint64_t seq,
                                        const MUHWI_Descriptor_t& d, model::Tick taken) {
  model::check_collective_descriptor(d, torus(), r);
  auto& st = rank(static_cast<int>(r));
  st.packets += model::packetise(d.Message_Length).packets;
  st.bytes += d.Message_Length;
  CollectivePart part{r, fifo, seq, d, {}, taken};
  const auto* b = reinterpret_cast<const std::uint8_t*>(d.Pa_Payload);
  part.data.assign(b, b + d.Message_Length);
  return part;
}

void Machine::collective_deliver(const CollectiveDone& c, std::size_t k, bool atomic) {
  const auto [node, part] = c.receivers[k];
  const auto& d = c.parts[part].desc;
  auto& mu = rank(static_cast<int>(node)).mu;
  const std::uint64_t length = c.result.size();
  const auto packets = (length + MUHWI_PACKET_MAX_PAYLOAD - 1) / MUHWI_PACKET_MAX_PAYLOAD;
  for (std::uint64_t i = 0; i < packets; ++i) {
    const std::uint32_t pay = model::packet_payload(length, i);
    const std::uint64_t off = i * MUHWI_PACKET_MAX_PAYLOAD;
    if (model::packet_type(d) == MUHWI_PACKET_TYPE_PUT)
      model::receive_direct_put(mu, node, c.source, d, off, c.result.data() + off, pay, atomic);
    else
      model::receive_memory_fifo(mu, node, c.source, d, off, c.result.data() + off, pay);
  }
}

}  // namespace hopsim::bgq

// ---------------------------------------------------------------- SPI ----

using hopsim::bgq::Machine;

extern "C" {

int32_t Kernel_QueryCollectiveClassRoutes(uint32_t* n, uint32_t* ids, size_t size) {
  if (!n || !ids) return -1;
  const auto free = Machine::current()->free_class_routes();
  if (size < free.size() * sizeof(uint32_t)) return -1;
  *n = static_cast<uint32_t>(free.size());
  std::copy(free.begin(), free.end(), ids);
  return 0;
}

int32_t Kernel_AllocateCollectiveClassRoute(uint32_t id) { return Machine::current()->allocate_class_route(id, true); }
int32_t Kernel_DeallocateCollectiveClassRoute(uint32_t id) {
  return Machine::current()->allocate_class_route(id, false);
}
int32_t Kernel_SetCollectiveClassRoute(uint32_t id, ClassRoute_t* cr) {
  if (!cr) return -1;
  return Machine::current()->set_class_route(id, *cr);
}

namespace {
int fill_collective(MUHWI_Descriptor_t* d, const MUSPI_BaseDescriptorInfoFields_t& b,
                    const MUSPI_CollectiveDescriptorInfoFields_t& c, uint8_t type) {
  const unsigned w = c.Word_Length;
  if (w < 4 || w > 512 || (w & (w - 1)) != 0 || c.Class_Route >= hopsim::bgq::model::kClassRoutes) return -1;
  hopsim::bgq::set_base_fields(*d, b);
  auto& h = d->PacketHeader.NetworkHeader.collective;
  h.Data_Packet_Type = MUHWI_COLLECTIVE_DATA_PACKET_TYPE;
  h.Byte1 = static_cast<uint8_t>((c.Op_Code & 0xF0u) | static_cast<unsigned>(std::countr_zero(w)));
  h.Byte2 = static_cast<uint8_t>(c.Class_Route << 4);
  h.Byte3 = c.Misc;
  h.Destination = b.Dest;
  h.Byte8 = static_cast<uint8_t>(type | 16);
  return 0;
}
}  // namespace

int MUSPI_CreateCollectiveDirectPutDescriptor(MUHWI_Descriptor_t* d, MUSPI_CollectiveDirectPutDescriptorInfo_t* info) {
  if (fill_collective(d, info->Base, info->Collective, MUHWI_PACKET_TYPE_PUT) != 0) return -1;
  hopsim::bgq::set_direct_put_fields(*d, info->DirectPut);
  return 0;
}

int MUSPI_CreateCollectiveMemoryFIFODescriptor(MUHWI_Descriptor_t* d,
                                               MUSPI_CollectiveMemoryFIFODescriptorInfo_t* info) {
  if (fill_collective(d, info->Base, info->Collective, MUHWI_PACKET_TYPE_FIFO) != 0) return -1;
  hopsim::bgq::set_memory_fifo_fields(*d, info->MemFIFO);
  return 0;
}

}  // extern "C"
