#include "hopsim/bgq/model/collective.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "hopsim/bgq/model/mu.hpp"
#include "hopsim/core/error.hpp"

namespace hopsim::bgq::model {

CollectiveFields collective_fields(const MUHWI_Descriptor_t& d) {
  const auto& h = d.PacketHeader.NetworkHeader.collective;
  CollectiveFields f;
  f.type = h.Byte3 & MUHWI_COLLECTIVE_TYPE_MASK;
  f.op = h.Byte1 & 0xF0u;
  f.word_length = 1u << (h.Byte1 & 0x0Fu);
  f.route = (h.Byte2 >> 4) & 0x0Fu;
  return f;
}

void check_collective_descriptor(const MUHWI_Descriptor_t& d, const Torus& torus, std::uint32_t src) {
  if (d.Message_Length == 0)
    throw KernelError(fmt::format(
        "node {}: collective descriptor with Message_Length 0 (a descriptor must move at least one byte)", src));
  if (d.Pa_Payload == 0) throw KernelError(fmt::format("node {}: collective descriptor with payload address 0", src));
  const std::uint32_t type = d.PacketHeader.NetworkHeader.collective.Byte8 & 0xC0u;
  if (type != MUHWI_PACKET_TYPE_PUT && type != MUHWI_PACKET_TYPE_FIFO)
    throw KernelError(fmt::format(
        "node {}: collective descriptor of packet type 0x{:02x}: collectives are direct puts or memory-FIFO packets",
        src, type));
  if ((d.Torus_FIFO_Map & (MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CUSER | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CSYSTEM)) == 0)
    throw KernelError(
        fmt::format("node {}: collective descriptor whose Torus_FIFO_Map names no collective FIFO "
                    "(MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CUSER or _CSYSTEM)",
                    src));
  const auto f = collective_fields(d);
  if (f.type != MUHWI_COLLECTIVE_TYPE_BROADCAST && f.type != MUHWI_COLLECTIVE_TYPE_ALLREDUCE &&
      f.type != MUHWI_COLLECTIVE_TYPE_REDUCE)
    throw KernelError(fmt::format("node {}: collective descriptor of unknown collective type 0x{:02x}", src, f.type));
  if (f.type == MUHWI_COLLECTIVE_TYPE_REDUCE) {
    const auto c = destination_coords(d.PacketHeader.NetworkHeader.collective.Destination);
    if (!torus.contains(c))
      throw KernelError(fmt::format("node {}: reduce to ({},{},{},{},{}), which is outside the torus", src, c[0], c[1],
                                    c[2], c[3], c[4]));
  }
}

std::string op_name(std::uint32_t op) {
  switch (op) {
    case MUHWI_COLLECTIVE_OP_CODE_AND:
      return "and";
    case MUHWI_COLLECTIVE_OP_CODE_OR:
      return "or";
    case MUHWI_COLLECTIVE_OP_CODE_XOR:
      return "xor";
    case MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_ADD:
      return "unsigned add";
    case MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_MIN:
      return "unsigned min";
    case MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_MAX:
      return "unsigned max";
    case MUHWI_COLLECTIVE_OP_CODE_SIGNED_ADD:
      return "signed add";
    case MUHWI_COLLECTIVE_OP_CODE_SIGNED_MIN:
      return "signed min";
    case MUHWI_COLLECTIVE_OP_CODE_SIGNED_MAX:
      return "signed max";
    case MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_ADD:
      return "floating-point add";
    case MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_MIN:
      return "floating-point min";
    case MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_MAX:
      return "floating-point max";
    default:
      return fmt::format("op code 0x{:02x}", op);
  }
}

namespace {
constexpr std::uint16_t kLinkBits = 0x0FFC;  // A- .. E+
constexpr std::uint16_t kLocal = BGQ_CLASS_INPUT_LINK_LOCAL;
}  // namespace

std::uint16_t class_link_bit(int dim, int dir) {
  return static_cast<std::uint16_t>(1u << (dir < 0 ? 11 - 2 * dim : 10 - 2 * dim));
}

int check_class_route(const ClassRoute_t& cr) {
  const std::uint16_t out = cr.output & static_cast<std::uint16_t>(kLinkBits | BGQ_CLASS_LINK_IO | kLocal);
  if (std::popcount(static_cast<unsigned>(out & ~kLocal)) > 1) return 1;
  if ((cr.output & kLocal) != 0) return 2;
  if ((cr.input & kLocal) == 0) return 3;
  if ((out & cr.input & (kLinkBits | BGQ_CLASS_LINK_IO)) != 0) return 4;
  return 0;
}

std::vector<ClassRoute_t> comm_world_routes(const Torus& t) {
  std::vector<ClassRoute_t> r(t.nodes(), ClassRoute_t{kLocal, 0});
  for (std::uint32_t n = 1; n < t.nodes(); ++n) {
    for (int d = 0; d < kDims; ++d) {
      const int s = t.steps(n, 0, d);
      if (s == 0) continue;
      const int dir = s > 0 ? +1 : -1;
      r[n].output = class_link_bit(d, dir);
      r[t.neighbour(n, d, dir)].input |= class_link_bit(d, -dir);
      break;
    }
  }
  return r;
}

namespace {
// The node across the one output link of `cr` from `n`, and the input bit
// that link arrives on there; false for the root.
bool parent_of(const Torus& t, std::uint32_t n, const ClassRoute_t& cr, std::uint32_t& parent, std::uint16_t& in_bit,
               int id) {
  for (int d = 0; d < kDims; ++d)
    for (int dir : {+1, -1}) {
      if ((cr.output & class_link_bit(d, dir)) == 0) continue;
      if (t.dims()[static_cast<std::size_t>(d)] < 2)
        throw KernelError(fmt::format("class route {}: node {} sends up link {}{}, but the torus has no links in {}",
                                      id, n, "ABCDE"[d], dir > 0 ? '+' : '-', "ABCDE"[d]));
      parent = t.neighbour(n, d, dir);
      in_bit = class_link_bit(d, -dir);
      return true;
    }
  if ((cr.output & BGQ_CLASS_LINK_IO) != 0)
    throw KernelError(fmt::format("class route {}: node {} sends up the I/O link, which hopsim does not model", id, n));
  return false;
}
}  // namespace

RouteTree build_tree(const Torus& t, int id, const std::vector<ClassRoute_t>& routes,
                     const std::vector<std::uint8_t>& set) {
  const std::uint32_t n = t.nodes();
  RouteTree tree;
  tree.depth.assign(n, -1);
  std::vector<std::int64_t> parent(n, -1);
  std::vector<std::uint32_t> roots;
  for (std::uint32_t v = 0; v < n; ++v) {
    if (!set[v]) continue;
    if ((routes[v].input & kLocal) != 0) tree.members.push_back(v);
    std::uint32_t p = 0;
    std::uint16_t in_bit = 0;
    if (!parent_of(t, v, routes[v], p, in_bit, id)) {
      roots.push_back(v);
      continue;
    }
    if (!set[p])
      throw KernelError(
          fmt::format("class route {}: node {} sends up to node {}, which has not set class route {}", id, v, p, id));
    if ((routes[p].input & in_bit) == 0)
      throw KernelError(
          fmt::format("class route {}: node {} sends up to node {}, whose input does not take that link", id, v, p));
    parent[v] = p;
  }
  if (roots.empty()) throw KernelError(fmt::format("class route {}: no node is the root (every node sends up)", id));
  if (roots.size() > 1)
    throw KernelError(fmt::format("class route {}: {} roots (nodes {} and {} send nowhere); a tree has one", id,
                                  roots.size(), roots[0], roots[1]));
  tree.root = roots[0];
  tree.depth[tree.root] = 0;
  std::vector<std::uint32_t> path;
  for (std::uint32_t v = 0; v < n; ++v) {
    if (!set[v] || tree.depth[v] >= 0) continue;
    path.clear();
    std::uint32_t u = v;
    while (tree.depth[u] < 0) {
      path.push_back(u);
      if (path.size() > n) throw KernelError(fmt::format("class route {}: node {} is on a cycle, not a tree", id, v));
      u = static_cast<std::uint32_t>(parent[u]);
    }
    int d = tree.depth[u];
    std::reverse(path.begin(), path.end());
    for (const std::uint32_t w : path) tree.depth[w] = ++d;
  }
  for (std::uint32_t v : tree.members) tree.max_depth = std::max(tree.max_depth, tree.depth[v]);
  return tree;
}

namespace {
template <typename T, typename F>
void fold(std::uint8_t* acc, const std::uint8_t* in, std::uint64_t bytes, F f) {
  for (std::uint64_t i = 0; i + sizeof(T) <= bytes; i += sizeof(T)) {
    T a;
    T b;
    std::memcpy(&a, acc + i, sizeof a);
    std::memcpy(&b, in + i, sizeof b);
    a = f(a, b);
    std::memcpy(acc + i, &a, sizeof a);
  }
}
template <typename T>
bool fold_arith(std::uint32_t kind, std::uint8_t* acc, const std::uint8_t* in, std::uint64_t bytes) {
  switch (kind) {
    case 0:  // add (unsigned wraps; signed goes through unsigned to wrap the same way)
      fold<T>(acc, in, bytes, [](T a, T b) {
        if constexpr (std::is_floating_point_v<T>) {
          return a + b;
        } else {
          using U = std::make_unsigned_t<T>;
          return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
        }
      });
      return true;
    case 1:
      fold<T>(acc, in, bytes, [](T a, T b) { return std::min(a, b); });
      return true;
    case 2:
      fold<T>(acc, in, bytes, [](T a, T b) { return std::max(a, b); });
      return true;
    default:
      return false;
  }
}
}  // namespace

void combine(const CollectiveFields& f, std::uint8_t* acc, const std::uint8_t* in, std::uint64_t bytes,
             const std::string& who) {
  const std::uint32_t w = f.word_length;
  if (w < 4 || w > 512 || bytes % w != 0)
    throw KernelError(
        fmt::format("{}: a collective of {} bytes in {}-byte words (the length must be a multiple of "
                    "the word, and the word 4 to 512 bytes)",
                    who, bytes, w));
  const std::uint32_t op = f.op;
  if (op == MUHWI_COLLECTIVE_OP_CODE_AND || op == MUHWI_COLLECTIVE_OP_CODE_OR || op == MUHWI_COLLECTIVE_OP_CODE_XOR) {
    for (std::uint64_t i = 0; i < bytes; ++i)
      acc[i] = static_cast<std::uint8_t>(op == MUHWI_COLLECTIVE_OP_CODE_AND  ? acc[i] & in[i]
                                         : op == MUHWI_COLLECTIVE_OP_CODE_OR ? acc[i] | in[i]
                                                                             : acc[i] ^ in[i]);
    return;
  }
  const std::uint32_t kind = (op & 0x30u) >> 4;  // 0 add, 1 min, 2 max
  const std::uint32_t family = op & 0xC0u;       // 0x40 unsigned, 0x80 signed, 0xc0 floating point
  bool done = false;
  if (family == 0xC0u && w == 8)
    done = fold_arith<double>(kind, acc, in, bytes);
  else if (family == 0x40u && w == 4)
    done = fold_arith<std::uint32_t>(kind, acc, in, bytes);
  else if (family == 0x40u && w == 8)
    done = fold_arith<std::uint64_t>(kind, acc, in, bytes);
  else if (family == 0x80u && w == 4)
    done = fold_arith<std::int32_t>(kind, acc, in, bytes);
  else if (family == 0x80u && w == 8)
    done = fold_arith<std::int64_t>(kind, acc, in, bytes);
  if (!done)
    throw KernelError(
        fmt::format("{}: collective {} on {}-byte words is not modelled (floating point: 8-byte "
                    "words; integer add, min and max: 4 or 8 bytes; and, or, xor: any)",
                    who, op_name(op), w));
}

CollectiveSchedule schedule_collective(const Params& p, const std::vector<Tick>& taken, const std::vector<int>& depth,
                                       std::uint64_t length) {
  CollectiveSchedule s;
  s.hop = to_ticks(p.hop_latency);
  const Tick lat = to_ticks(p.mu_descriptor_latency);
  for (std::size_t i = 0; i < taken.size(); ++i)
    s.at_root = std::max(s.at_root, taken[i] + lat + static_cast<Tick>(depth[i]) * s.hop);
  const auto pk = packetise(length);
  const double tpb = kTicksPerCycle / p.link_bandwidth;
  auto ser = [&](std::uint32_t payload) {
    return static_cast<Tick>(std::ceil((packet_wire_bytes(payload) + p.link_packet_overhead) * tpb));
  };
  s.stream = (pk.packets - 1) * ser(MUHWI_PACKET_MAX_PAYLOAD) + ser(pk.last_payload);
  s.rx_last = static_cast<Tick>(std::ceil(pk.last_payload * kTicksPerCycle / p.mu_rx_bandwidth));
  s.engine_per_byte_x16 = static_cast<Tick>(std::ceil(16.0 * kTicksPerCycle / p.mu_engine_bandwidth));
  return s;
}

Tick CollectiveSchedule::sent(Tick taken, int depth, std::uint64_t length) const {
  const Tick read = taken + length * engine_per_byte_x16 / 16;
  const Tick climbed = static_cast<Tick>(depth) * hop;
  const Tick leave = at_root > climbed ? at_root - climbed : 0;
  return std::max(read, leave + stream);
}

}  // namespace hopsim::bgq::model
