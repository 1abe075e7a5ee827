#include "hopsim/bgq/model/network.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"

namespace hopsim::bgq::model {

// ---- Calendar ----

void Calendar::prune(Tick horizon) {
  while (head_ < iv_.size() && iv_[head_].second <= horizon) ++head_;
  if (head_ > 64 && head_ * 2 > iv_.size()) {
    iv_.erase(iv_.begin(), iv_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
}

std::size_t Calendar::find(Tick t) const {
  // Usually the request is near the end: scan back a little, then bisect.
  std::size_t n = iv_.size();
  if (n == head_ || iv_[n - 1].second <= t) return n;
  auto it = std::upper_bound(iv_.begin() + static_cast<std::ptrdiff_t>(head_), iv_.end(), t,
                             [](Tick v, const std::pair<Tick, Tick>& iv) { return v < iv.second; });
  return static_cast<std::size_t>(it - iv_.begin());
}

Tick Calendar::earliest(Tick t, Tick dur, Tick horizon) {
  prune(horizon);
  Tick c = std::max(t, horizon);
  for (std::size_t i = find(c); i < iv_.size(); ++i) {
    if (c + dur <= iv_[i].first) return c;
    c = std::max(c, iv_[i].second);
  }
  return c;
}

Tick Calendar::reserve(Tick t, Tick dur, Tick horizon) {
  prune(horizon);
  Tick c = std::max(t, horizon);
  std::size_t i = find(c);
  for (; i < iv_.size(); ++i) {
    if (c + dur <= iv_[i].first) break;
    c = std::max(c, iv_[i].second);
  }
  if (dur == 0) return c;
  const Tick e = c + dur;
  // Insert [c, e) before index i, merging with touching neighbours.
  const bool join_prev = i > head_ && iv_[i - 1].second == c;
  const bool join_next = i < iv_.size() && iv_[i].first == e;
  if (join_prev && join_next) {
    iv_[i - 1].second = iv_[i].second;
    iv_.erase(iv_.begin() + static_cast<std::ptrdiff_t>(i));
  } else if (join_prev) {
    iv_[i - 1].second = e;
  } else if (join_next) {
    iv_[i].first = c;
  } else {
    iv_.insert(iv_.begin() + static_cast<std::ptrdiff_t>(i), {c, e});
  }
  return c;
}

// ---- Torus ----

Torus::Torus(const std::array<int, kDims>& dims)
    : dims_(dims), topo_(topo::make_torus(std::vector<int>(dims.begin(), dims.end()))) {
  nodes_ = static_cast<std::uint32_t>(topo_.num_nodes());
  coords_.resize(static_cast<std::size_t>(nodes_) * kDims);
  nbr_.resize(static_cast<std::size_t>(nodes_) * 2 * kDims);
  for (std::uint32_t n = 0; n < nodes_; ++n) {
    for (int d = 0; d < kDims; ++d) {
      coords_[n * kDims + static_cast<std::uint32_t>(d)] = static_cast<std::uint8_t>(topo_.coord_of(n, d));
      for (int dir : {+1, -1}) {
        const auto l = topo_.link(n, d, dir);
        nbr_[link_index(n, d, dir)] = l == topo::kNoLink ? n : topo_.link_target(l);
      }
    }
  }
}

std::array<int, kDims> Torus::coords(std::uint32_t node) const {
  std::array<int, kDims> c{};
  for (int d = 0; d < kDims; ++d) c[static_cast<std::size_t>(d)] = coord(node, d);
  return c;
}

bool Torus::contains(const std::array<int, kDims>& c) const {
  for (int d = 0; d < kDims; ++d)
    if (c[static_cast<std::size_t>(d)] < 0 || c[static_cast<std::size_t>(d)] >= dims_[static_cast<std::size_t>(d)])
      return false;
  return true;
}

std::uint32_t Torus::node_at(const std::array<int, kDims>& c) const {
  return topo_.node_at(std::span<const int>(c.data(), c.size()));
}

int Torus::steps(std::uint32_t a, std::uint32_t b, int dim) const {
  const int ext = dims_[static_cast<std::size_t>(dim)];
  const int fwd = ((coord(b, dim) - coord(a, dim)) % ext + ext) % ext;
  const int back = (ext - fwd) % ext;
  return fwd <= back ? fwd : -back;
}

int Torus::hops(std::uint32_t a, std::uint32_t b) const {
  int h = 0;
  for (int d = 0; d < kDims; ++d) h += std::abs(steps(a, b, d));
  return h;
}

// ---- Network ----

Network::Network(const Params& p)
    : p_(p), torus_(p.dims), hop_(to_ticks(p.hop_latency)), ticks_per_byte_(kTicksPerCycle / p.link_bandwidth) {
  cal_.resize(static_cast<std::size_t>(torus_.nodes()) * 2 * kDims);
  link_bytes_.assign(cal_.size(), 0);
}

Tick Network::link_ticks(std::uint32_t wire_bytes) const {
  return static_cast<Tick>(std::ceil((wire_bytes + p_.link_packet_overhead) * ticks_per_byte_));
}

Sent Network::send(std::uint32_t src, std::uint32_t dst, std::uint32_t wire_bytes, Tick t, bool dynamic,
                   std::vector<std::uint32_t>* path) {
  const Tick ser = link_ticks(wire_bytes);
  ++packets_;
  if (src == dst) return {t, t + ser, 0};  // the MU's local loopback
  std::array<int, kDims> left{};
  int total = 0;
  for (int d = 0; d < kDims; ++d) {
    left[static_cast<std::size_t>(d)] = torus_.steps(src, dst, d);
    total += std::abs(left[static_cast<std::size_t>(d)]);
  }
  std::uint32_t cur = src;
  Tick first = 0, start = t;
  for (int h = 0; h < total; ++h) {
    int dim = -1;
    if (dynamic) {
      Tick best = ~Tick{0};
      for (int d = 0; d < kDims; ++d) {
        const int s = left[static_cast<std::size_t>(d)];
        if (s == 0) continue;
        const Tick e = cal_[link_index(cur, d, s > 0 ? 1 : -1)].earliest(t, ser, horizon_);
        if (e < best) {
          best = e;
          dim = d;
        }
      }
    } else {
      for (int d = 0; d < kDims && dim < 0; ++d)
        if (left[static_cast<std::size_t>(d)] != 0) dim = d;
    }
    auto& s = left[static_cast<std::size_t>(dim)];
    const int dir = s > 0 ? 1 : -1;
    const auto link = link_index(cur, dim, dir);
    start = cal_[link].reserve(t, ser, horizon_);
    if (obs_) [[unlikely]]
      obs_->hop(link, t, start, ser, wire_bytes);
    if (h == 0) first = start;
    link_bytes_[link] += wire_bytes;
    if (path) path->push_back(link);
    s -= dir;
    cur = torus_.neighbour(cur, dim, dir);
    t = start + hop_;  // the head reaches the next router
  }
  packet_hops_ += static_cast<std::uint64_t>(total);
  return {first, start + hop_ + ser, total};
}

// ---- MuTiming ----

MuTiming::MuTiming(const Params& p)
    : net_(p),
      desc_lat_(to_ticks(p.mu_descriptor_latency)),
      desc_ovh_(to_ticks(p.mu_descriptor_overhead)),
      eng_tpb_(kTicksPerCycle / p.mu_engine_bandwidth),
      rx_tpb_(kTicksPerCycle / p.mu_rx_bandwidth) {
  rx_.resize(net_.torus().nodes());
  engines_.resize(net_.torus().nodes());
}

MuTiming::Result MuTiming::inject(std::uint32_t src, std::uint32_t fifo, std::uint32_t dst, std::uint64_t length,
                                  Tick t, bool dynamic) {
  auto& engines = engines_[src];
  auto it = std::find_if(engines.begin(), engines.end(), [&](const auto& e) { return e.first == fifo; });
  if (it == engines.end()) it = engines.insert(engines.end(), {fifo, Tick{0}});
  Tick& engine = it->second;
  Tick cur = std::max(t + desc_lat_, engine);
  Tick last = 0;
  const Tick horizon = net_.horizon();
  const std::uint64_t packets = (length + 511) / 512;
  for (std::uint64_t i = 0; i < packets; ++i) {
    const std::uint64_t rest = length - i * 512;
    const auto pay = static_cast<std::uint32_t>(rest < 512 ? rest : 512);
    const Tick ready = cur + static_cast<Tick>(std::ceil(pay * eng_tpb_));
    const std::uint32_t wire = 32 + (pay + 31) / 32 * 32;
    const Sent s = net_.send(src, dst, wire, ready, dynamic);
    cur = std::max(ready, s.first_start);
    const Tick rx_dur = static_cast<Tick>(std::ceil(pay * rx_tpb_));
    const Tick rx_start = rx_[dst].reserve(s.arrival, rx_dur, horizon);
    last = std::max(last, rx_start + rx_dur);
  }
  engine = cur + desc_ovh_;
  return {last, engine};
}

}  // namespace hopsim::bgq::model
