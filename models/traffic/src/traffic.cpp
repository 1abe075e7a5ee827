#include "hopsim/traffic/traffic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

#include "hopsim/epiphany/mesh_timing.hpp"

namespace hopsim::traffic {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("traffic: " + what);
}

void validate(const TrafficConfig& c) {
  require(c.rows >= 1 && c.cols >= 1,
          "mesh must be at least 1x1, got " + std::to_string(c.rows) + "x" + std::to_string(c.cols));
  require(c.offered_load > 0 && c.offered_load <= 1,
          "offered_load must be in (0, 1] packets per node per cycle, got " + std::to_string(c.offered_load));
  require(c.packet_bytes >= 1 && c.packet_bytes <= 8,
          "packet_bytes must be 1..8 (one eMesh packet), got " + std::to_string(c.packet_bytes));
  require(c.warmup >= 0 && c.measure > 0 && c.drain_limit >= 0 && std::isfinite(c.warmup + c.measure + c.drain_limit),
          "need warmup >= 0, measure > 0 and drain_limit >= 0 cycles");
  require(!c.bursty || c.burst_mean >= 1, "burst_mean must be >= 1 packet, got " + std::to_string(c.burst_mean));
  const auto n = static_cast<std::uint32_t>(c.rows) * static_cast<std::uint32_t>(c.cols);
  if (c.pattern == Pattern::hotspot) {
    require(c.hotspot_node < n, "hotspot_node " + std::to_string(c.hotspot_node) + " out of range for " +
                                    std::to_string(n) + " nodes");
    require(c.hotspot_fraction >= 0 && c.hotspot_fraction <= 1,
            "hotspot_fraction must be in [0, 1], got " + std::to_string(c.hotspot_fraction));
  }
  // The pattern's shape constraints (power of two, square): throws from destination().
  Rng probe(0);
  (void)destination(c.pattern, 0, c.rows, c.cols, probe, HotspotSpec{c.hotspot_fraction, c.hotspot_node});
}

// One node's injection process: the cycles at which it generates packets.
class Source {
 public:
  Source(const TrafficConfig& c, std::uint32_t node) : load_(c.offered_load), bursty_(c.bursty) {
    std::seed_seq seq{static_cast<std::uint32_t>(c.seed), static_cast<std::uint32_t>(c.seed >> 32), node, 0x7a11u};
    rng_.seed(seq);
    if (bursty_) {
      end_burst_ = 1.0 / c.burst_mean;
      // Mean off period so that burst / (burst + off) = load.
      off_mean_ = c.burst_mean * (1.0 - load_) / load_;
      next_ = off_period();  // start in an off period at cycle 0
    } else {
      next_ = gap();
    }
  }
  std::int64_t next() const { return next_; }
  Rng& rng() { return rng_; }
  void advance() {
    if (!bursty_) {
      next_ += 1 + gap();
    } else if (std::uniform_real_distribution<double>(0, 1)(rng_) >= end_burst_) {
      next_ += 1;  // burst continues back to back
    } else {
      next_ += 1 + off_period();
    }
  }

 private:
  // Idle cycles before the next Bernoulli success.
  std::int64_t gap() { return load_ >= 1 ? 0 : std::geometric_distribution<std::int64_t>(load_)(rng_); }
  // Idle cycles between bursts: geometric with mean off_mean_ (>= 1 cycle when the mean allows it).
  std::int64_t off_period() {
    if (off_mean_ <= 0) return 0;
    if (off_mean_ >= 1) return 1 + std::geometric_distribution<std::int64_t>(1.0 / off_mean_)(rng_);
    return std::geometric_distribution<std::int64_t>(1.0 / (1.0 + off_mean_))(rng_);
  }

  Rng rng_;
  double load_;
  bool bursty_;
  double end_burst_ = 1, off_mean_ = 0;
  std::int64_t next_ = 0;
};

int manhattan(const TrafficConfig& c, std::uint32_t a, std::uint32_t b) {
  const auto cols = static_cast<std::uint32_t>(c.cols);
  const int ar = static_cast<int>(a / cols), ac = static_cast<int>(a % cols);
  const int br = static_cast<int>(b / cols), bc = static_cast<int>(b % cols);
  return std::abs(ar - br) + std::abs(ac - bc);
}

}  // namespace

double zero_load_latency(const TrafficConfig& cfg, std::uint32_t src, std::uint32_t dst) {
  const auto n = static_cast<std::uint32_t>(cfg.rows) * static_cast<std::uint32_t>(cfg.cols);
  require(cfg.rows >= 1 && cfg.cols >= 1 && src < n && dst < n, "zero_load_latency: node out of range");
  return cfg.net.write_overhead + cfg.net.hop_latency * (manhattan(cfg, src, dst) + 1);
}

TrafficResult run_traffic(const TrafficConfig& cfg) {
  validate(cfg);
  epiphany::Params p = cfg.net;
  p.rows = cfg.rows;
  p.cols = cfg.cols;
  epiphany::MeshTiming mesh(p);
  const std::uint32_t n = p.num_cores();
  const std::size_t mesh_links = mesh.topology().num_links();
  const HotspotSpec hot{cfg.hotspot_fraction, cfg.hotspot_node};
  const auto bytes = static_cast<std::uint32_t>(cfg.packet_bytes);

  const double start = cfg.warmup, end = cfg.warmup + cfg.measure, limit = end + cfg.drain_limit;
  const double tail_from = end - cfg.measure / 4;  // "last part" of the window for the queue-growth test

  std::vector<Source> src;
  src.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) src.emplace_back(cfg, i);
  std::vector<double> writer_free(n, 0.0);

  using Ev = std::pair<double, std::uint32_t>;  // (issue time, node); ties by node id
  std::priority_queue<Ev, std::vector<Ev>, std::greater<>> heap;
  std::uint32_t pending = 0;  // nodes that still have a measured packet to issue
  for (std::uint32_t i = 0; i < n; ++i) {
    heap.emplace(static_cast<double>(src[i].next()), i);
    if (static_cast<double>(src[i].next()) < end) ++pending;
  }

  std::vector<double> latency;
  double sum_net = 0, sum_src = 0, sum_hops = 0, max_arrival = 0, tail_delay = 0;
  std::uint64_t accepted = 0, tail_count = 0;
  std::vector<std::uint64_t> busy_start, busy_end;
  auto snapshot = [&](std::vector<std::uint64_t>& v) {
    v.resize(mesh_links);
    for (std::size_t l = 0; l < mesh_links; ++l) v[l] = mesh.stats(epiphany::Net::cmesh, l).busy_ticks;
  };
  bool timed_out = false;

  while (pending > 0) {
    const auto [t, node] = heap.top();
    if (t > limit) {
      timed_out = true;
      break;
    }
    heap.pop();
    if (busy_start.empty() && t >= start) snapshot(busy_start);
    if (busy_end.empty() && t >= end) snapshot(busy_end);
    Source& s = src[node];
    const auto gen = static_cast<double>(s.next());
    const std::uint32_t dst = destination(cfg.pattern, node, cfg.rows, cfg.cols, s.rng(), hot);
    mesh.set_horizon(t);
    const auto w = mesh.write(node, dst, bytes, t);
    writer_free[node] = w.writer_free;
    if (w.arrival >= start && w.arrival < end) ++accepted;
    if (gen >= start && gen < end) {
      latency.push_back(w.arrival - gen);
      sum_net += w.arrival - t;
      sum_src += t - gen;
      sum_hops += manhattan(cfg, node, dst);
      max_arrival = std::max(max_arrival, w.arrival);
      if (gen >= tail_from) {
        tail_delay += w.arrival - gen;
        ++tail_count;
      }
    }
    s.advance();
    const auto next = static_cast<double>(s.next());
    if (gen < end && next >= end) --pending;
    heap.emplace(std::max(next, writer_free[node]), node);
  }
  if (busy_start.empty()) snapshot(busy_start);
  if (busy_end.empty()) snapshot(busy_end);

  TrafficResult r;
  r.offered = cfg.offered_load;
  r.accepted = static_cast<double>(accepted) / (static_cast<double>(n) * cfg.measure);
  r.packets_measured = latency.size();
  if (!latency.empty()) {
    const double m = static_cast<double>(latency.size());
    double sum = 0;
    for (double l : latency) sum += l;
    r.avg_latency = sum / m;
    r.avg_network_latency = sum_net / m;
    r.avg_source_delay = sum_src / m;
    r.avg_hops = sum_hops / m;
    auto pct = [&](double q) {
      const auto k = static_cast<std::size_t>(std::ceil(q * m)) - 1;  // nearest rank
      auto it = latency.begin() + static_cast<std::ptrdiff_t>(std::min(k, latency.size() - 1));
      std::nth_element(latency.begin(), it, latency.end());
      return *it;
    };
    r.p50_latency = pct(0.50);
    r.p99_latency = pct(0.99);
  }
  r.link_utilisation.resize(mesh_links);
  for (std::size_t l = 0; l < mesh_links; ++l)
    r.link_utilisation[l] =
        static_cast<double>(busy_end[l] - busy_start[l]) / epiphany::kTicksPerCycle / cfg.measure;
  const double zero_load = p.write_overhead + p.hop_latency * (r.avg_hops + 1);
  // Queues grow without bound (in the source queues, or inside the network
  // when mesh_buffer is large enough that writers never stall).
  const bool queues_grow = tail_count > 0 && tail_delay / static_cast<double>(tail_count) > 10 * zero_load;
  r.saturated = timed_out || max_arrival > limit || queues_grow;
  return r;
}

std::vector<TrafficResult> latency_curve(TrafficConfig base, double step, double max_load) {
  require(step > 0 && step <= 1, "latency_curve: step must be in (0, 1], got " + std::to_string(step));
  require(max_load > 0 && max_load <= 1, "latency_curve: max_load must be in (0, 1], got " + std::to_string(max_load));
  std::vector<TrafficResult> out;
  for (int i = 1;; ++i) {
    const double load = step * i;
    if (load > max_load + 1e-9) break;
    base.offered_load = std::min(load, 1.0);
    out.push_back(run_traffic(base));
    if (out.back().saturated) break;
  }
  return out;
}

}  // namespace hopsim::traffic
