#include "hopsim/network/model/traffic.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

#include "hopsim/epiphany/model/mesh_timing.hpp"
#include "hopsim/network/model/flow.hpp"
#include "hopsim/topo/topology.hpp"

namespace hopsim::network::model {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("traffic: " + what);
}

std::string num(double v) {
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

constexpr double kTicks = epiphany::model::kTicksPerCycle;  // half-cycle ticks inside both networks

std::uint64_t to_ticks(double cycles) {
  const double t = std::ceil(cycles * kTicks - 1e-9);
  return t <= 0 ? 0 : static_cast<std::uint64_t>(t);
}

// ---- The two networks behind one small interface ----

struct Sent {
  double writer_free;  // cycles: when the source may issue its next packet
  double arrival;      // cycles: the packet's tail at the destination
};

// The Epiphany cMesh (MeshTiming).
class EmeshNet {
 public:
  explicit EmeshNet(const TrafficConfig& c) : p_(params(c)), mesh_(p_) {}
  std::uint32_t nodes() const { return p_.num_cores(); }
  std::size_t links() const { return mesh_.topology().num_links(); }
  std::uint64_t busy_ticks(std::size_t l) const { return mesh_.stats(epiphany::model::Net::cmesh, l).busy_ticks; }
  void set_window(double start, double end) { mesh_.set_window(start, end); }
  std::uint64_t busy_window_ticks(std::size_t l) const {
    return mesh_.stats(epiphany::model::Net::cmesh, l).window_ticks;
  }
  int hops(std::uint32_t a, std::uint32_t b) const {
    const auto c = static_cast<std::uint32_t>(p_.cols);
    return std::abs(static_cast<int>(a / c) - static_cast<int>(b / c)) +
           std::abs(static_cast<int>(a % c) - static_cast<int>(b % c));
  }
  double zero_load(std::uint32_t a, std::uint32_t b, std::uint32_t) const {
    return mesh_.zero_load_write_latency(a, b);
  }
  Sent send(std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, double t) {
    mesh_.set_horizon(t);
    const auto w = mesh_.write(src, dst, bytes, t);
    return {w.writer_free, w.arrival};
  }

 private:
  static epiphany::model::Params params(const TrafficConfig& c) {
    epiphany::model::Params p = c.net;
    p.rows = c.rows;
    p.cols = c.cols;
    return p;
  }
  epiphany::model::Params p_;
  epiphany::model::MeshTiming mesh_;
};

// Any N-D mesh or torus with dimension-order routing (dimension 0 first).
class GenericNet {
 public:
  explicit GenericNet(const GenericNetwork& g)
      : g_(g),
        topo_(g.dims, std::vector<bool>(g.dims.size(), g.torus)),
        nd_(static_cast<int>(g.dims.size())),
        n_(static_cast<std::uint32_t>(topo_.num_nodes())),
        cal_(topo_.num_links() + n_),
        busy_(topo_.num_links(), 0),
        inject_free_(n_, 0),
        hop_(to_ticks(g.hop_latency)),
        endpoint_(to_ticks(g.endpoint_latency)),
        buffer_(to_ticks(g.buffer)) {
    coord_.resize(static_cast<std::size_t>(n_) * nd_);
    out_.resize(static_cast<std::size_t>(n_) * nd_ * 2);
    for (std::uint32_t v = 0; v < n_; ++v)
      for (int d = 0; d < nd_; ++d) {
        const std::size_t at =
            static_cast<std::size_t>(v) * static_cast<std::size_t>(nd_) + static_cast<std::size_t>(d);
        coord_[at] = topo_.coord_of(v, d);
        out_[at * 2] = topo_.link(v, d, +1);
        out_[at * 2 + 1] = topo_.link(v, d, -1);
      }
    target_.resize(topo_.num_links());
    for (std::size_t l = 0; l < target_.size(); ++l) target_[l] = topo_.link_target(static_cast<topo::LinkId>(l));
  }
  std::uint32_t nodes() const { return n_; }
  std::size_t links() const { return topo_.num_links(); }
  std::uint64_t busy_ticks(std::size_t l) const { return busy_[l]; }
  // Busy ticks inside [start, end) cycles, whenever the packet was sent: a link reserved at
  // issue for a time past the window's end counts only the part inside it.
  void set_window(double start, double end) {
    win_start_ = to_ticks(start);
    win_end_ = to_ticks(end);
    busy_window_.assign(busy_.size(), 0);
  }
  std::uint64_t busy_window_ticks(std::size_t l) const { return busy_window_.empty() ? 0 : busy_window_[l]; }
  int hops(std::uint32_t a, std::uint32_t b) const {
    int h = 0;
    for (int d = 0; d < nd_; ++d) h += std::abs(steps(d, a, b));
    return h;
  }
  // Serialisation in ticks: ceil(bytes / link_width) cycles, at least one.
  std::uint64_t ser(std::uint32_t bytes) const {
    const double cycles = std::max(1.0, std::ceil(bytes / g_.link_width - 1e-9));
    return static_cast<std::uint64_t>(cycles) * static_cast<std::uint64_t>(kTicks);
  }
  double zero_load(std::uint32_t a, std::uint32_t b, std::uint32_t bytes) const {
    return static_cast<double>(endpoint_ + hop_ * static_cast<std::uint64_t>(hops(a, b)) + ser(bytes)) / kTicks;
  }
  Sent send(std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, double t) {
    const std::uint64_t now = to_ticks(t), dur = ser(bytes);
    horizon_ = std::max(horizon_, now);
    // Injection channel: the source's packets leave one after another.
    const std::uint64_t s0 = std::max(now, inject_free_[src]);
    inject_free_[src] = s0 + dur;
    std::uint64_t tt = s0 + endpoint_;
    std::uint32_t cur = src;
    int hops = 0;
    for (int d = 0; d < nd_; ++d) {
      const int k = steps(d, cur, dst);
      const int dir = k >= 0 ? 0 : 1;
      for (int i = std::abs(k); i > 0; --i) {
        const topo::LinkId l = out_[(cur * nd_ + d) * 2 + dir];
        const std::uint64_t s = reserve(l, tt, dur);
        busy_[l] += dur;
        if (!busy_window_.empty()) {
          const std::uint64_t a = std::max(s, win_start_), b = std::min(s + dur, win_end_);
          if (b > a) busy_window_[l] += b - a;
        }
        tt = s + hop_;
        cur = target_[l];
        ++hops;
      }
    }
    // Ejection channel.
    const std::uint64_t e = reserve(topo_.num_links() + dst, tt, dur);
    const std::uint64_t arrival = e + dur;
    // The source issues again once its packet left the injection channel and
    // the network had room for it (contention beyond `buffer` holds it back).
    const std::uint64_t zero = endpoint_ + hop_ * static_cast<std::uint64_t>(hops) + dur;
    std::uint64_t free = s0 + dur;
    if (arrival > now + zero + buffer_) free = std::max(free, arrival - zero - buffer_);
    return {static_cast<double>(free) / kTicks, static_cast<double>(arrival) / kTicks};
  }

 private:
  // Signed steps from a to b along d: the shorter way on a torus (ties +1).
  int steps(int d, std::uint32_t a, std::uint32_t b) const {
    const int delta = coord_[b * nd_ + d] - coord_[a * nd_ + d];
    if (!g_.torus) return delta;
    const int k = g_.dims[static_cast<std::size_t>(d)];
    const int fwd = ((delta % k) + k) % k, back = (k - fwd) % k;
    return fwd <= back ? fwd : -back;
  }
  std::uint64_t reserve(std::size_t l, std::uint64_t t, std::uint64_t dur) {
    auto& c = cal_[l];
    c.advance(horizon_);
    return c.reserve(t, dur);
  }

  GenericNetwork g_;
  topo::Topology topo_;
  int nd_;
  std::uint32_t n_;
  std::vector<int> coord_;
  std::vector<topo::LinkId> out_;
  std::vector<std::uint32_t> target_;               // link -> the node it leads to
  std::vector<epiphany::model::LinkCalendar> cal_;  // network links, then one ejection channel per node
  std::vector<std::uint64_t> busy_;
  std::vector<std::uint64_t> inject_free_;
  std::uint64_t hop_, endpoint_, buffer_, horizon_ = 0;
  std::uint64_t win_start_ = 0, win_end_ = 0;
  std::vector<std::uint64_t> busy_window_;  // empty until set_window
};

// One node's injection process: the cycles at which it generates packets.
class Source {
 public:
  Source(const TrafficConfig& c, std::uint32_t node)
      : load_(c.offered_load), bursty_(c.bursty), geo_(c.offered_load < 1 ? c.offered_load : 0.5) {
    // One stream per (seed, node): the node index in the high bits keeps
    // the splitmix64 sequences of different nodes far apart.
    rng_.seed(c.seed ^ (static_cast<std::uint64_t>(node) << 40) ^ 0x7a11000000000000ull);
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
  std::int64_t gap() { return load_ >= 1 ? 0 : geo_(rng_); }
  // Idle cycles between bursts: geometric with mean off_mean_ (>= 1 cycle when the mean allows it).
  std::int64_t off_period() {
    if (off_mean_ <= 0) return 0;
    if (off_mean_ >= 1) return 1 + std::geometric_distribution<std::int64_t>(1.0 / off_mean_)(rng_);
    return std::geometric_distribution<std::int64_t>(1.0 / (1.0 + off_mean_))(rng_);
  }

  Rng rng_;
  double load_;
  bool bursty_;
  std::geometric_distribution<std::int64_t> geo_;  // Bernoulli gaps (made once: its log(1 - p) is not free)
  double end_burst_ = 1, off_mean_ = 0;
  std::int64_t next_ = 0;
};

// Packet sizes: one fixed size, or a weighted mix drawn per packet.
class SizePicker {
 public:
  explicit SizePicker(const TrafficConfig& cfg)
      : sizes_(cfg.packet_sizes),
        fixed_(
            static_cast<std::uint32_t>(cfg.packet_sizes.empty() ? cfg.packet_bytes : cfg.packet_sizes.front().bytes)) {
    std::vector<double> weights;
    weights.reserve(sizes_.size());
    for (const auto& s : sizes_) weights.push_back(s.weight);
    pick_ = std::discrete_distribution<std::size_t>(weights.begin(), weights.end());
  }
  std::uint32_t operator()(Rng& rng) {
    return sizes_.size() > 1 ? static_cast<std::uint32_t>(sizes_[pick_(rng)].bytes) : fixed_;
  }

 private:
  const std::vector<PacketSize>& sizes_;
  std::uint32_t fixed_;
  std::discrete_distribution<std::size_t> pick_;
};

// The measurement window [start, end), the drain limit, and the "last
// part" of the window that the queue-growth test looks at.
struct Window {
  double start, end, limit, tail_from;
  explicit Window(const TrafficConfig& cfg)
      : start(cfg.warmup),
        end(cfg.warmup + cfg.measure),
        limit(end + cfg.drain_limit),
        tail_from(end - cfg.measure / 4) {}
};

// What the run measured: the packets generated inside the window, the
// links' busy ticks at its edges.
struct Tally {
  std::vector<double> latency;
  double sum_net = 0, sum_src = 0, sum_hops = 0, sum_zero = 0, max_arrival = 0, tail_delay = 0, tail_zero = 0;
  std::uint64_t accepted = 0, tail_count = 0, simulated = 0;
  std::vector<std::uint64_t> busy_start, busy_end;
  bool timed_out = false;
};

template <class Net>
void snapshot(Net& net, std::vector<std::uint64_t>& v) {
  v.resize(net.links());
  for (std::size_t l = 0; l < v.size(); ++l) v[l] = net.busy_ticks(l);
}

// One packet generated at `gen`, issued at `t`, delivered as `w`.
template <class Net>
void record(Net& net, const Window& win, std::uint32_t node, std::uint32_t dst, std::uint32_t bytes, double gen,
            double t, const Sent& w, Tally& tally) {
  ++tally.simulated;
  if (w.arrival >= win.start && w.arrival < win.end) ++tally.accepted;
  if (!(gen >= win.start && gen < win.end)) return;
  tally.latency.push_back(w.arrival - gen);
  tally.sum_net += w.arrival - t;
  tally.sum_src += t - gen;
  tally.sum_hops += net.hops(node, dst);
  const double zero = net.zero_load(node, dst, bytes);
  tally.sum_zero += zero;
  tally.max_arrival = std::max(tally.max_arrival, w.arrival);
  if (gen >= win.tail_from) {
    tally.tail_delay += w.arrival - gen;
    tally.tail_zero += zero;
    ++tally.tail_count;
  }
}

// Averages, percentiles (nearest rank), link utilisation and saturation.
TrafficResult summarise(Tally& tally, const TrafficConfig& cfg, std::uint32_t n, const Window& win) {
  TrafficResult r;
  r.offered = cfg.offered_load;
  r.accepted = static_cast<double>(tally.accepted) / (static_cast<double>(n) * cfg.measure);
  auto& latency = tally.latency;
  r.packets_measured = latency.size();
  r.packets_simulated = tally.simulated;
  if (!latency.empty()) {
    const auto m = static_cast<double>(latency.size());
    double sum = 0;
    for (double l : latency) sum += l;
    r.avg_latency = sum / m;
    r.avg_network_latency = tally.sum_net / m;
    r.avg_source_delay = tally.sum_src / m;
    r.avg_hops = tally.sum_hops / m;
    r.avg_zero_load = tally.sum_zero / m;
    auto pct = [&](double q) {
      const auto k = static_cast<std::size_t>(std::ceil(q * m)) - 1;
      auto it = latency.begin() + static_cast<std::ptrdiff_t>(std::min(k, latency.size() - 1));
      std::nth_element(latency.begin(), it, latency.end());
      return *it;
    };
    r.p50_latency = pct(0.50);
    r.p99_latency = pct(0.99);
  }
  const std::size_t nlinks = tally.busy_end.size();
  r.link_utilisation.resize(nlinks);
  for (std::size_t l = 0; l < nlinks; ++l)
    r.link_utilisation[l] = static_cast<double>(tally.busy_end[l] - tally.busy_start[l]) / kTicks / cfg.measure;
  // Queues grow without bound (in the source queues, or inside the network
  // when buffers are large enough that sources never stall): the mean total
  // latency of the last quarter's packets exceeds 10x their zero-load latency
  // (or the configured limit, as BookSim2's absolute latency_thres).
  const double limit = cfg.saturation_latency > 0 ? cfg.saturation_latency * static_cast<double>(tally.tail_count)
                                                  : 10 * tally.tail_zero;
  const bool queues_grow = tally.tail_count > 0 && tally.tail_delay > limit;
  r.saturated = tally.timed_out || tally.max_arrival > win.limit || queues_grow;
  if (r.packets_measured == 0 && !r.saturated)
    throw std::invalid_argument("load " + num(cfg.offered_load) + ": no packet was generated in the " +
                                num(cfg.measure) + " measured cycles (phases.measure) on " + std::to_string(n) +
                                " nodes, so there is no latency to report: raise phases.measure or the load");
  return r;
}

// One injection process per node.
std::vector<Source> sources(const TrafficConfig& cfg, std::uint32_t n) {
  std::vector<Source> src;
  src.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) src.emplace_back(cfg, i);
  return src;
}

template <class Net>
TrafficResult run_on(Net& net, const TrafficConfig& cfg) {
  const std::vector<int> dims = shape(cfg);
  const std::uint32_t n = net.nodes();
  const HotspotSpec hot{cfg.hotspot_fraction, cfg.hotspot_node};
  SizePicker packet_bytes(cfg);
  const Window win(cfg);
  std::vector<Source> src = sources(cfg, n);

  using Ev = std::pair<double, std::uint32_t>;  // (issue time, node); ties by node id
  std::priority_queue<Ev, std::vector<Ev>, std::greater<>> heap;
  std::uint32_t pending = 0;  // nodes that still have a measured packet to issue
  for (std::uint32_t i = 0; i < n; ++i) {
    heap.emplace(static_cast<double>(src[i].next()), i);
    if (static_cast<double>(src[i].next()) < win.end) ++pending;
  }

  if constexpr (requires { net.set_window(0.0, 0.0); }) net.set_window(win.start, win.end);
  Tally tally;
  while (pending > 0) {
    const auto [t, node] = heap.top();
    if (t > win.limit) {
      tally.timed_out = true;
      break;
    }
    heap.pop();
    if (tally.busy_start.empty() && t >= win.start) snapshot(net, tally.busy_start);
    if (tally.busy_end.empty() && t >= win.end) snapshot(net, tally.busy_end);
    Source& s = src[node];
    const auto gen = static_cast<double>(s.next());
    const std::uint32_t dst = destination(cfg.pattern, node, dims, s.rng(), hot);
    const std::uint32_t bytes = packet_bytes(s.rng());
    const Sent w = net.send(node, dst, bytes, t);
    record(net, win, node, dst, bytes, gen, t, w, tally);
    s.advance();
    const auto next = static_cast<double>(s.next());
    if (gen < win.end && next >= win.end) --pending;
    heap.emplace(std::max(next, w.writer_free), node);
  }
  if (tally.busy_start.empty()) snapshot(net, tally.busy_start);
  if (tally.busy_end.empty()) snapshot(net, tally.busy_end);
  if constexpr (requires { net.busy_window_ticks(0); }) {
    // Busy time clipped to the window (reservations are made at issue, for later cycles).
    for (std::size_t l = 0; l < tally.busy_end.size(); ++l) {
      tally.busy_start[l] = 0;
      tally.busy_end[l] = net.busy_window_ticks(l);
    }
  }
  return summarise(tally, cfg, n, win);
}

// The flow-controlled network: packets wait in their sources' queues and
// the network decides when they leave and arrive, event by event.
TrafficResult run_flow(const TrafficConfig& cfg) {
  const std::vector<int> dims = shape(cfg);
  std::uint32_t routers = 1;
  for (const int k : dims) routers *= static_cast<std::uint32_t>(k);
  flow::FlowNet net(cfg.generic, cfg.seed, cfg.threads != 0 ? cfg.threads : flow::FlowNet::auto_threads(routers));
  const std::uint32_t n = net.nodes();
  const HotspotSpec hot{cfg.hotspot_fraction, cfg.hotspot_node};
  SizePicker packet_bytes(cfg);
  const Window win(cfg);
  std::vector<Source> src = sources(cfg, n);
  using Ev = std::pair<std::int64_t, std::uint32_t>;  // (generation cycle, node)
  std::priority_queue<Ev, std::vector<Ev>, std::greater<>> heap;
  std::uint32_t pending = 0;  // nodes that still generate a measured packet
  for (std::uint32_t i = 0; i < n; ++i) {
    heap.emplace(src[i].next(), i);
    if (static_cast<double>(src[i].next()) < win.end) ++pending;
  }
  net.set_window(static_cast<std::int64_t>(std::ceil(win.start)), static_cast<std::int64_t>(std::ceil(win.end)));
  // A source queue this long means its packets wait far beyond 10x the
  // network's zero-load latency (at most one packet leaves per cycle): saturated.
  // Sources stop adding to a queue that long (memory stays bounded).
  int diameter = 0;
  for (const int k : dims) diameter += cfg.generic.torus ? k / 2 : k - 1;
  const double zero_max = cfg.generic.endpoint_latency + cfg.generic.hop_latency * diameter + 1;
  const auto queue_limit = static_cast<std::size_t>(10 * zero_max + 1000);

  Tally tally;
  std::uint64_t outstanding = 0;  // measured packets not delivered yet
  const std::function<void(const flow::Delivered&)> done = [&](const flow::Delivered& d) {
    const auto gen = static_cast<double>(d.gen);
    if (gen >= win.start && gen < win.end) --outstanding;
    const Sent w{0, static_cast<double>(d.arrival)};
    record(net, win, d.src, d.dst, d.bytes, gen, static_cast<double>(d.issue), w, tally);
  };
  for (;;) {
    const auto [t, node] = heap.top();
    if (static_cast<double>(t) > win.limit) {
      tally.timed_out = true;
      break;
    }
    net.run_until(t, done);
    if (pending == 0 && outstanding == 0) break;
    if (net.deadlocked()) throw NetworkDeadlock(describe(cfg) + ": " + net.deadlock_report());
    heap.pop();
    Source& s = src[node];
    const std::uint32_t dst = destination(cfg.pattern, node, dims, s.rng(), hot);
    const std::uint32_t bytes = packet_bytes(s.rng());
    const auto gen = static_cast<double>(t);
    if (net.queued(node) < queue_limit) {
      net.add(t, node, dst, bytes);
      if (gen >= win.start && gen < win.end) ++outstanding;
    } else {
      // Saturated: the queue stays full (the network still carries all it can,
      // so the accepted load is right), the packets beyond it are not kept.
      tally.timed_out = true;
    }
    s.advance();
    if (gen < win.end && static_cast<double>(s.next()) >= win.end) --pending;
    heap.emplace(s.next(), node);
  }
  tally.busy_start.assign(net.links(), 0);
  tally.busy_end.resize(net.links());
  for (std::size_t l = 0; l < net.links(); ++l)
    tally.busy_end[l] = net.busy_window(l) * static_cast<std::uint64_t>(kTicks);
  TrafficResult r = summarise(tally, cfg, n, win);
  r.host_threads = net.threads();
  return r;
}

// The flow-control parameters (GenericNetwork::flow_control).
void validate_flow(const GenericNetwork& g) {
  require(g.vcs >= 1 && g.vcs <= 64, "vcs must be 1..64 virtual channels per port, got " + std::to_string(g.vcs));
  require(g.vc_buffer >= 1 && g.vc_buffer <= 4096,
          "vc_buffer must be 1..4096 flits, got " + std::to_string(g.vc_buffer));
  require(g.credit_delay >= 0 && g.credit_delay <= 1000,
          "credit_delay must be 0..1000 cycles, got " + std::to_string(g.credit_delay));
  require(g.channel_latency >= 1 && g.channel_latency <= 1000,
          "channel_latency must be 1..1000 cycles, got " + std::to_string(g.channel_latency));
  require(g.input_speedup >= 1 && g.input_speedup <= 64,
          "input_speedup must be 1..64, got " + std::to_string(g.input_speedup));
  require(g.routing_delay >= 0 && g.vc_alloc_delay >= 0 && g.sw_alloc_delay >= 0,
          "routing_delay, vc_alloc_delay and sw_alloc_delay must be >= 0 cycles");
  require(std::floor(g.hop_latency) == g.hop_latency && std::floor(g.endpoint_latency) == g.endpoint_latency,
          "with flow_control, hop_latency and endpoint_latency are whole cycles, got " + num(g.hop_latency) + " and " +
              num(g.endpoint_latency));
  require(g.hop_latency >= g.routing_delay + g.vc_alloc_delay + g.sw_alloc_delay + g.channel_latency,
          "hop_latency (" + num(g.hop_latency) +
              " cycles) must hold the router pipeline: routing_delay + vc_alloc_delay + sw_alloc_delay + "
              "channel_latency = " +
              std::to_string(g.routing_delay + g.vc_alloc_delay + g.sw_alloc_delay + g.channel_latency));
  require(g.endpoint_latency >= g.hop_latency - g.channel_latency + 2,
          "with flow_control, endpoint_latency (" + num(g.endpoint_latency) +
              " cycles) must hold the destination router's pass with its 1-cycle ejection channel and a "
              "1-cycle injection channel: at least hop_latency - channel_latency + 2 = " +
              num(g.hop_latency - g.channel_latency + 2));
  require(g.endpoint_channels >= 1 && g.endpoint_channels <= 16,
          "endpoint_channels must be 1..16, got " + std::to_string(g.endpoint_channels));
  // At most 8 dimensions: a router has at most 2 x 8 + 16 = 32 ports (its port masks are 32 bits).
  require(g.adaptive_selection == 0 || g.adaptive_selection == 1,
          "adaptive_selection must be 0 or 1, got " + std::to_string(g.adaptive_selection));
  require(g.dateline >= 0 && g.dateline <= 3, "dateline must be 0, 1, 2 or 3, got " + std::to_string(g.dateline));
  require(!g.torus || g.dateline != 3 || !g.wait_for_tail_credit,
          "dateline=3 (bubble flow control) needs wait_for_tail_credit=0: its VCs queue whole packets");
  require(!g.torus || g.dateline == 0 || g.dateline == 3 || g.vcs >= 2,
          "the torus's dateline VC classes need vcs >= 2 (one VC per class), got vcs " + std::to_string(g.vcs) +
              " (dateline=0 runs without classes, and may deadlock)");
  if (g.routing == GenericNetwork::Routing::min_adapt) {
    const bool classes = g.torus && (g.dateline == 1 || g.dateline == 2);
    require(g.stay_on_escape || !g.torus || g.dateline == 3,
            "stay_on_escape=0 on a torus needs dateline=3 (bubble flow control): with dateline classes a packet "
            "re-entering the escape VCs mid-ring could close a cycle");
    require(g.vcs >= (classes ? 3 : 2), std::string("routing min_adapt needs vcs >= ") + (classes ? "3" : "2") + ": " +
                                            (classes ? "two escape VCs (one per dateline class)" : "one escape VC") +
                                            " and at least one adaptive VC, got vcs " + std::to_string(g.vcs));
  }
}

}  // namespace

std::vector<int> shape(const TrafficConfig& cfg) {
  if (cfg.network == NetworkKind::generic) return cfg.generic.dims;
  return {cfg.rows, cfg.cols};
}

std::string describe(const TrafficConfig& cfg) {
  std::string s;
  for (int d : shape(cfg)) {
    if (!s.empty()) s += 'x';
    s += std::to_string(d);
  }
  if (cfg.network == NetworkKind::emesh) return s + " eMesh";
  return s + (cfg.generic.torus ? " torus" : " mesh");
}

void validate(const TrafficConfig& c) {
  const auto dims = shape(c);
  std::uint64_t n = 1;
  if (c.network == NetworkKind::emesh) {
    require(c.rows >= 1 && c.cols >= 1,
            "mesh must be at least 1x1, got " + std::to_string(c.rows) + "x" + std::to_string(c.cols));
  } else {
    const auto& g = c.generic;
    require(!g.dims.empty() && g.dims.size() <= 8,
            "a network needs 1 to 8 dimensions, got " + std::to_string(g.dims.size()));
    for (int d : g.dims) {
      require(d >= 1 && d <= 65536, "every extent must be 1..65536, got " + describe(c));
      n *= static_cast<std::uint64_t>(d);
    }
    require(n <= (1u << 22), "at most 4194304 nodes, got " + std::to_string(n));
    require(g.hop_latency >= 0 && g.hop_latency <= 1000 && std::floor(g.hop_latency * 2) == g.hop_latency * 2,
            "hop_latency must be 0..1000 cycles in steps of 0.5, got " + num(g.hop_latency));
    require(g.endpoint_latency >= 0 && g.endpoint_latency <= 1000 &&
                std::floor(g.endpoint_latency * 2) == g.endpoint_latency * 2,
            "endpoint_latency must be 0..1000 cycles in steps of 0.5, got " + num(g.endpoint_latency));
    require(g.link_width > 0 && g.link_width <= 1e6,
            "link_width must be > 0 bytes per cycle, got " + num(g.link_width));
    require(g.buffer >= 0 && g.buffer <= 1e9, "buffer must be 0..1e9 cycles, got " + num(g.buffer));
    if (g.flow_control) validate_flow(g);
  }
  require(c.offered_load > 0 && c.offered_load <= 1,
          "offered_load must be in (0, 1] packets per node per cycle, got " + num(c.offered_load));
  const int max_bytes = c.network == NetworkKind::emesh ? 8 : (1 << 20);
  const std::string which = c.network == NetworkKind::emesh ? " (one eMesh packet)" : "";
  auto check_bytes = [&](int b, const std::string& what) {
    require(b >= 1 && b <= max_bytes,
            what + " must be 1.." + std::to_string(max_bytes) + which + ", got " + std::to_string(b));
  };
  if (c.packet_sizes.empty()) check_bytes(c.packet_bytes, "packet_bytes");
  if (c.network == NetworkKind::generic && c.generic.flow_control) {
    // Bubble flow control: a VC holds two of the largest packets (one entering a ring needs that much room).
    if (c.generic.torus && c.generic.dateline == 3) {
      int largest = c.packet_bytes;
      if (!c.packet_sizes.empty()) largest = 0;
      for (const auto& s : c.packet_sizes) largest = std::max(largest, s.bytes);
      const double flits = std::max(1.0, std::ceil(largest / c.generic.link_width - 1e-9));
      require(2 * flits <= c.generic.vc_buffer,
              "dateline=3 (bubble flow control) needs vc_buffer >= two of the largest packets, 2 x " + num(flits) +
                  " flits, got " + std::to_string(c.generic.vc_buffer));
    }
  }
  for (const auto& s : c.packet_sizes) {
    check_bytes(s.bytes, "packet_sizes bytes");
    require(s.weight > 0 && std::isfinite(s.weight), "packet_sizes weight must be > 0, got " + num(s.weight));
  }
  require(c.warmup >= 0 && c.measure > 0 && c.drain_limit >= 0 && std::isfinite(c.warmup + c.measure + c.drain_limit),
          "need warmup >= 0, measure > 0 and drain_limit >= 0 cycles");
  require(!c.bursty || c.burst_mean >= 1, "burst_mean must be >= 1 packet, got " + num(c.burst_mean));
  if (c.network == NetworkKind::emesh) n = static_cast<std::uint64_t>(c.rows) * static_cast<std::uint64_t>(c.cols);
  if (c.pattern == Pattern::hotspot) {
    require(c.hotspot_node < n,
            "hotspot_node " + std::to_string(c.hotspot_node) + " out of range for " + std::to_string(n) + " nodes");
    require(c.hotspot_fraction >= 0 && c.hotspot_fraction <= 1,
            "hotspot_fraction must be in [0, 1], got " + num(c.hotspot_fraction));
  }
  // The pattern's shape constraints (power of two, square): throws from destination().
  Rng probe(0);
  (void)destination(c.pattern, 0, dims, probe, HotspotSpec{c.hotspot_fraction, c.hotspot_node});
}

double zero_load_latency(const TrafficConfig& cfg, std::uint32_t src, std::uint32_t dst, int bytes) {
  const auto dims = shape(cfg);
  std::uint64_t n = 1;
  for (int d : dims) n *= static_cast<std::uint64_t>(std::max(d, 0));
  require(src < n && dst < n, "zero_load_latency: node out of range");
  if (bytes < 0) bytes = cfg.packet_bytes;
  if (cfg.network == NetworkKind::generic) {
    GenericNet net(cfg.generic);
    return net.zero_load(src, dst, static_cast<std::uint32_t>(bytes));
  }
  const auto cols = static_cast<std::uint32_t>(cfg.cols);
  const int hops = std::abs(static_cast<int>(src / cols) - static_cast<int>(dst / cols)) +
                   std::abs(static_cast<int>(src % cols) - static_cast<int>(dst % cols));
  return cfg.net.write_overhead + cfg.net.hop_latency * (hops + 1);
}

TrafficResult run_traffic(const TrafficConfig& cfg) {
  validate(cfg);
  using Clock = std::chrono::steady_clock;
  auto timed = [&](auto& net, Clock::time_point t0) {
    const auto t1 = Clock::now();
    TrafficResult r = run_on(net, cfg);
    r.host_setup_seconds = std::chrono::duration<double>(t1 - t0).count();
    r.host_run_seconds = std::chrono::duration<double>(Clock::now() - t1).count();
    return r;
  };
  const auto t0 = Clock::now();
  if (cfg.network == NetworkKind::generic && cfg.generic.flow_control) {
    TrafficResult r = run_flow(cfg);
    r.host_run_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
  }
  if (cfg.network == NetworkKind::generic) {
    GenericNet net(cfg.generic);
    return timed(net, t0);
  }
  EmeshNet net(cfg);
  return timed(net, t0);
}

std::vector<TrafficResult> latency_curve(TrafficConfig base, double step, double max_load,
                                         const std::function<void(const TrafficResult&)>& each) {
  require(step > 0 && step <= 1, "latency_curve: step must be in (0, 1], got " + num(step));
  require(max_load > 0 && max_load <= 1, "latency_curve: max_load must be in (0, 1], got " + num(max_load));
  std::vector<TrafficResult> out;
  for (int i = 1;; ++i) {
    const double load = step * i;
    if (load > max_load + 1e-9) break;
    base.offered_load = std::min(load, 1.0);
    out.push_back(run_traffic(base));
    if (each) each(out.back());
    if (out.back().saturated) break;
  }
  return out;
}

}  // namespace hopsim::network::model
