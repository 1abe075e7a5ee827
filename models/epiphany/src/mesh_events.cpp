#include "hopsim/epiphany/model/mesh_events.hpp"

#include <algorithm>

#include "hopsim/epiphany/model/mesh_timing.hpp"

namespace hopsim::epiphany::model {

namespace {
constexpr unsigned kFirst = 2, kLast = 15;
constexpr unsigned kFirstAccess = 10;

// The ports of an event code, as a bit mask over Port.
unsigned ports_of(unsigned code) {
  constexpr unsigned all = (1u << kPorts) - 1;
  auto bit = [](Port p) { return 1u << static_cast<unsigned>(p); };
  switch (code) {
    case 2:
    case 15:
      return all;
    case 3:
    case 14:
      return bit(Port::core);
    case 4:
    case 10:
      return bit(Port::south);
    case 5:
    case 11:
      return bit(Port::north);
    case 6:
    case 12:
      return bit(Port::west);
    case 7:
    case 13:
      return bit(Port::east);
    case 8:
      return bit(Port::south) | bit(Port::east);
    case 9:
      return bit(Port::north) | bit(Port::west);
    default:
      return 0;
  }
}
}  // namespace

bool valid_mesh_event(unsigned code) { return code >= kFirst && code <= kLast; }

const char* mesh_event_name(unsigned code) {
  static constexpr std::array<const char*, 16> names{
      "off",         "reserved",    "any wait",        "core wait",       "south wait",   "north wait",
      "west wait",   "east wait",   "south-east wait", "north-west wait", "south access", "north access",
      "west access", "east access", "core access",     "any access"};
  return code < names.size() ? names[code] : "unknown";
}

MeshEventLog::MeshEventLog(const topo::Topology& mesh) : mesh_(mesh), nodes_(mesh.num_nodes()) {
  entry_.resize(mesh.num_links());
  for (std::size_t l = 0; l < mesh.num_links(); ++l) {
    const auto id = static_cast<topo::LinkId>(l);
    const auto a = mesh.coord_of(mesh.link_source(id));
    const auto b = mesh.coord_of(mesh.link_target(id));
    // Coordinates are [row, col]; row 0 is the north edge.
    if (b[0] < a[0]) {
      entry_[l] = Port::south;  // moving north: enters from the south
    } else if (b[0] > a[0]) {
      entry_[l] = Port::north;
    } else if (b[1] > a[1]) {
      entry_[l] = Port::west;  // moving east: enters from the west
    } else {
      entry_[l] = Port::east;
    }
  }
}

void MeshEventLog::access(std::uint32_t node, Port port, std::uint64_t t, std::uint64_t n) {
  auto& v = nodes_.at(node)[static_cast<std::size_t>(port)].accesses;
  if (!v.empty() && v.back().first == t) {
    v.back().second += n;
  } else {
    v.emplace_back(t, n);
  }
}

void MeshEventLog::wait(std::uint32_t node, Port port, std::uint64_t from, std::uint64_t to) {
  if (to <= from) return;
  auto& v = nodes_.at(node)[static_cast<std::size_t>(port)].waits;
  // A queue on one port waits in overlapping runs: extend the last one.
  if (!v.empty() && from <= v.back().second && from >= v.back().first) {
    v.back().second = std::max(v.back().second, to);
  } else {
    v.emplace_back(from, to);
  }
}

void MeshEventLog::route(std::uint32_t src, std::uint32_t dst, std::uint64_t t, std::uint64_t n) {
  access(src, Port::core, t, n);
  for (auto l : topo::route_xy(mesh_, src, dst)) access(mesh_.link_target(l), entry_port(l), t, n);
}

std::uint64_t MeshEventLog::count(std::uint32_t node, unsigned code, std::uint64_t before) const {
  const unsigned ports = ports_of(code);
  const auto& logs = nodes_.at(node);
  if (code >= kFirstAccess) {
    std::uint64_t n = 0;
    for (int p = 0; p < kPorts; ++p) {
      if (!(ports & (1u << p))) continue;
      for (const auto& [t, k] : logs[static_cast<std::size_t>(p)].accesses)
        if (t < before) n += k;
    }
    return n;
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
  for (int p = 0; p < kPorts; ++p) {
    if (!(ports & (1u << p))) continue;
    for (const auto& [a, b] : logs[static_cast<std::size_t>(p)].waits)
      if (a < before) runs.emplace_back(a, std::min(b, before));
  }
  std::sort(runs.begin(), runs.end());
  std::uint64_t ticks = 0, end = 0;
  for (const auto& [a, b] : runs) {
    const std::uint64_t from = std::max(a, end);
    if (b > from) ticks += b - from;
    end = std::max(end, b);
  }
  return ticks / static_cast<std::uint64_t>(kTicksPerCycle);
}

void MeshEventLog::clear() {
  for (auto& n : nodes_)
    for (auto& p : n) {
      p.accesses.clear();
      p.waits.clear();
    }
}

}  // namespace hopsim::epiphany::model
