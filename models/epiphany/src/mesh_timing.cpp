#include "hopsim/epiphany/mesh_timing.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace hopsim::epiphany {

const char* net_name(Net n) {
  switch (n) {
    case Net::cmesh: return "cmesh";
    case Net::rmesh: return "rmesh";
    case Net::xmesh: return "xmesh";
  }
  return "?";
}

double LinkCalendar::reserve(double t, double dur) {
  // First live interval that ends after t (most requests land near the end).
  std::size_t i = busy_.size();
  while (i > head_ && busy_[i - 1].end > t) --i;
  double start = t;
  while (i < busy_.size() && busy_[i].start < start + dur) {
    start = std::max(start, busy_[i].end);
    ++i;
  }
  const double end = start + dur;
  // Merge with touching neighbours so a stream stays one interval.
  const bool join_prev = i > head_ && busy_[i - 1].end == start;
  const bool join_next = i < busy_.size() && busy_[i].start == end;
  if (join_prev && join_next) {
    busy_[i - 1].end = busy_[i].end;
    busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(i));
  } else if (join_prev) {
    busy_[i - 1].end = end;
  } else if (join_next) {
    busy_[i].start = start;
  } else {
    busy_.insert(busy_.begin() + static_cast<std::ptrdiff_t>(i), Busy{start, end});
  }
  return start;
}

void LinkCalendar::prune(double horizon) {
  while (head_ < busy_.size() && busy_[head_].end <= horizon) ++head_;
  if (head_ > 32 && head_ * 2 > busy_.size()) {
    busy_.erase(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
}

MeshTiming::MeshTiming(const Params& p)
    : p_(p), mesh_(topo::make_mesh2d(p.rows, p.cols)), n_(p.num_cores()) {
  mesh_links_ = mesh_.num_links();
  routes_.resize(static_cast<std::size_t>(n_) * n_);
  for (std::uint32_t s = 0; s < n_; ++s) {
    for (std::uint32_t d = 0; d < n_; ++d) {
      const auto r = topo::route_xy(mesh_, s, d);
      auto& out = routes_[s * n_ + d];
      out.reserve(r.size());
      for (auto l : r) out.push_back(static_cast<std::uint16_t>(l));
    }
  }
  const std::size_t per_net = mesh_links_ + 2 * n_ + 1;
  for (int k = 0; k < kNets; ++k) {
    cal_[k].resize(per_net);
    stats_[k].resize(per_net);
  }
  // An eMesh packet carries up to 8 data bytes with its address; it holds a
  // link for ceil(8 / width) cycles (one cycle at the native 8 B/cycle).
  ser_ = std::max(1.0, std::ceil(8.0 / p_.link_width));
}

std::string MeshTiming::link_name(std::size_t link) const {
  if (link < mesh_links_) {
    const auto a = mesh_.coord_of(mesh_.link_source(static_cast<topo::LinkId>(link)));
    const auto b = mesh_.coord_of(mesh_.link_target(static_cast<topo::LinkId>(link)));
    return fmt::format("({},{})->({},{})", a[0], a[1], b[0], b[1]);
  }
  link -= mesh_links_;
  if (link < n_) return fmt::format("inject {}", link);
  link -= n_;
  if (link < n_) return fmt::format("eject {}", link);
  return "elink";
}

void MeshTiming::set_horizon(double cycles) {
  // Calendars prune themselves lazily when next touched.
  if (cycles > horizon_) horizon_ = cycles;
}

double MeshTiming::reserve(Net net, std::size_t link, double t, double dur, std::uint32_t bytes) {
  const int k = static_cast<int>(net);
  auto& cal = cal_[k][link];
  cal.prune(horizon_);
  const double s = cal.reserve(t, dur);
  auto& st = stats_[k][link];
  st.bytes += bytes;
  st.packets += 1;
  st.busy += dur;
  st.stall += s - t;
  return s;
}

// One packet from `src`'s injection port through the routers to `dst_router`,
// then into `eject_core`'s memory, or onto the eLink. Returns the arrival.
double MeshTiming::send(Net net, std::uint32_t src, std::uint32_t dst_router, std::uint32_t eject_core,
                        bool to_elink, std::uint32_t bytes, double t, double* inject_start) {
  double s = reserve(net, mesh_links_ + src, t, ser_, bytes);
  if (inject_start) *inject_start = s;
  double tt = s + p_.hop_latency;  // the source router
  for (auto l : route(src, dst_router)) {
    s = reserve(net, l, tt, ser_, bytes);
    tt = s + p_.hop_latency;
  }
  if (to_elink) {
    const double dur = std::max(1.0, bytes / p_.elink_width);
    s = reserve(net, mesh_links_ + 2 * n_, tt, dur, bytes);
    return s + dur + p_.elink_latency;
  }
  return reserve(net, mesh_links_ + n_ + eject_core, tt, ser_, bytes);
}

WriteTiming MeshTiming::write(std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, double t,
                              unsigned chunk_max) {
  WriteTiming w{t, t, 0.0};
  std::uint32_t left = bytes;
  double issue = t;
  do {
    const std::uint32_t chunk = std::min<std::uint32_t>(left, chunk_max);
    double inj = 0;
    const double arr = send(Net::cmesh, src, dst, dst, false, chunk, issue + p_.write_overhead, &inj);
    w.arrival = std::max(w.arrival, arr);
    // The core may issue again once the mesh interface accepted this packet.
    const double accepted = inj - p_.write_overhead + ser_;
    const double next = std::max(issue + p_.store_issue, accepted);
    w.stall += next - (issue + p_.store_issue);
    issue = next;
    left -= chunk;
  } while (left > 0);
  w.writer_free = issue;
  return w;
}

WriteTiming MeshTiming::write_emem(std::uint32_t src, std::uint32_t bytes, double t, unsigned chunk_max) {
  // The eLink sits on the east edge of the chip: route to the east router of src's row.
  const std::uint32_t edge = (src / p_.cols) * p_.cols + (p_.cols - 1);
  WriteTiming w{t, t, 0.0};
  std::uint32_t left = bytes;
  double issue = t;
  do {
    const std::uint32_t chunk = std::min<std::uint32_t>(left, chunk_max);
    double inj = 0;
    const double arr = send(Net::xmesh, src, edge, 0, true, chunk, issue + p_.write_overhead, &inj);
    w.arrival = std::max(w.arrival, arr);
    const double accepted = inj - p_.write_overhead + ser_;
    const double next = std::max(issue + p_.store_issue, accepted);
    w.stall += next - (issue + p_.store_issue);
    issue = next;
    left -= chunk;
  } while (left > 0);
  w.writer_free = issue;
  return w;
}

double MeshTiming::read(std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, double t,
                        double ready_at_dst) {
  // One read request per 8-byte word, pipelined; each answered by a cMesh write.
  double done = t;
  std::uint32_t left = bytes;
  double issue = t;
  do {
    const std::uint32_t chunk = std::min<std::uint32_t>(left, 8);
    const double req = send(Net::rmesh, src, dst, dst, false, 8, issue + p_.write_overhead, nullptr);
    const double data = std::max(req, ready_at_dst);
    done = std::max(done, send(Net::cmesh, dst, src, src, false, chunk, data + p_.write_overhead, nullptr));
    issue += p_.store_issue;
    left -= chunk;
  } while (left > 0);
  return done;
}

double MeshTiming::read_emem(std::uint32_t src, std::uint32_t bytes, double t) {
  const std::uint32_t edge = (src / p_.cols) * p_.cols + (p_.cols - 1);
  double done = t;
  std::uint32_t left = bytes;
  double issue = t;
  do {
    const std::uint32_t chunk = std::min<std::uint32_t>(left, 8);
    const double req = send(Net::xmesh, src, edge, 0, true, 8, issue + p_.write_overhead, nullptr);
    // The answer crosses the eLink back and enters the mesh at the edge router.
    const double back = req + p_.elink_latency + chunk / p_.elink_width;
    done = std::max(done, send(Net::xmesh, edge, src, src, false, chunk, back, nullptr));
    issue += p_.store_issue;
    left -= chunk;
  } while (left > 0);
  return done;
}

double MeshTiming::zero_load_write_latency(std::uint32_t src, std::uint32_t dst) const {
  const double routers = static_cast<double>(route(src, dst).size()) + 1.0;
  return p_.write_overhead + p_.hop_latency * routers;
}

}  // namespace hopsim::epiphany
