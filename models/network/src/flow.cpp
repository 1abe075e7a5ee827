#include "hopsim/network/model/flow.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace hopsim::network::model::flow {

namespace {
constexpr std::uint32_t kRelease = 0x80000000u;  // credit word: the out-VC is free again
// (a + m - b) mod m for a, b < m, without a division.
std::uint32_t rotated(std::uint32_t a, std::uint32_t b, std::uint32_t m) { return a >= b ? a - b : a + m - b; }

std::uint64_t mix(std::uint64_t x) {  // SplitMix64's finaliser
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Waits until `a` is no longer `old`: spinning for a while (a band's
// partner usually arrives within microseconds), then asleep, counted in
// `sleepers` so that the changer knows to wake it.
void await_change(const std::atomic<std::uint32_t>& a, std::uint32_t old, std::atomic<std::uint32_t>& sleepers) {
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + std::chrono::microseconds(200);
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (a.load(std::memory_order_acquire) != old) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (Clock::now() > until) break;
  }
  sleepers.fetch_add(1);
  while (a.load() == old) a.wait(old);
  sleepers.fetch_sub(1);
}

void change(std::atomic<std::uint32_t>& a, const std::atomic<std::uint32_t>& sleepers) {
  a.fetch_add(1);
  if (sleepers.load() != 0) a.notify_all();
}
}  // namespace

unsigned FlowNet::auto_threads(std::uint32_t routers) {
  if (routers < 256) return 1;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return std::min({hw, 8u, routers / 128});
}

FlowNet::FlowNet(const GenericNetwork& g, std::uint64_t seed, unsigned threads)
    : g_(g),
      topo_(g.dims, std::vector<bool>(g.dims.size(), g.torus)),
      nd_(static_cast<int>(g.dims.size())),
      n_(static_cast<std::uint32_t>(topo_.num_nodes())),
      ports_(static_cast<std::uint32_t>(2 * g.dims.size()) + static_cast<std::uint32_t>(g.endpoint_channels)),
      v_(static_cast<std::uint32_t>(g.vcs)),
      local_(static_cast<std::uint32_t>(2 * g.dims.size())),
      chans_(static_cast<std::uint32_t>(g.endpoint_channels)),
      next_chan_(n_, 0),
      hop_(std::llround(g.hop_latency)),
      rd_(g.routing_delay),
      va_(g.vc_alloc_delay),
      sa_(g.sw_alloc_delay),
      ch_(g.channel_latency),
      credit_(g.credit_delay),
      inj_(std::llround(g.endpoint_latency - g.hop_latency) + g.channel_latency - 1),
      buf_(g.vc_buffer),
      speedup_(static_cast<std::uint32_t>(g.input_speedup)),
      wait_tail_(g.wait_for_tail_credit),
      dateline_(g.torus ? g.dateline : 0),
      adaptive_(g.routing == GenericNetwork::Routing::min_adapt),
      stay_(g.stay_on_escape),
      select_rr_(g.adaptive_selection == 1),
      salt_(mix(seed ^ 0x5eed0f10c0000000ull)) {
  while ((1u << pshift_) < ports_) ++pshift_;
  while ((1u << vshift_) < v_) ++vshift_;
  pmask_ = (1u << pshift_) - 1;
  vmask_ = (1u << vshift_) - 1;
  if ((static_cast<std::uint64_t>(n_) + 1) << (pshift_ + vshift_) >= kNone)
    throw std::invalid_argument("traffic: the network is too large for flow control (routers x ports x VCs)");
  router_outs_ = n_ << pshift_;
  router_ivcs_ = router_outs_ << vshift_;
  for (std::uint32_t v = 0; v < v_; ++v) {
    sub_of_vc_.push_back(v % speedup_);
    vptr_next_.push_back(static_cast<std::uint16_t>((v + speedup_) % v_));
  }
  coord_.resize(static_cast<std::size_t>(n_) * static_cast<std::size_t>(nd_));
  nbr_.assign(router_outs_, kNone);
  link_.assign(router_outs_, topo::kNoLink);
  for (std::uint32_t r = 0; r < n_; ++r)
    for (int d = 0; d < nd_; ++d) {
      coord_[static_cast<std::size_t>(r) * static_cast<std::size_t>(nd_) + static_cast<std::size_t>(d)] =
          topo_.coord_of(r, d);
      for (int dir = 0; dir < 2; ++dir) {
        const topo::LinkId l = topo_.link(r, d, dir == 0 ? +1 : -1);
        if (l == topo::kNoLink) continue;
        const std::size_t at = out_id(r, static_cast<std::uint32_t>(2 * d + dir));
        link_[at] = l;
        nbr_[at] = topo_.link_target(l);
      }
    }
  const std::uint64_t all = v_ >= 64 ? ~0ull : (1ull << v_) - 1;
  if (adaptive_) {
    escapes_ = dateline_ == 1 || dateline_ == 2 ? 2 : 1;
    adaptive_vcs_ = all & ~((1ull << escapes_) - 1);
  }
  out_.resize(static_cast<std::size_t>(router_outs_) + static_cast<std::size_t>(n_) * chans_);
  for (auto& o : out_) o.free_vcs = all;
  credits_.assign(out_.size() << vshift_, static_cast<std::int16_t>(buf_));
  unit_.resize(static_cast<std::size_t>(n_) * (1 + chans_));
  gptr_.assign(router_outs_, 0);
  aptr_.assign(static_cast<std::size_t>(n_) * ports_ * speedup_, 0);
  vptr_.resize(aptr_.size());
  for (std::size_t i = 0; i < vptr_.size(); ++i) vptr_[i] = static_cast<std::uint16_t>(i % speedup_);
  ivc_.resize(static_cast<std::size_t>(router_ivcs_) + static_cast<std::size_t>(n_) * chans_);
  if (adaptive_) {
    cand_.assign(ivc_.size(), 0);
    sel_.assign(ivc_.size(), 0);
  }
  slots_.resize(static_cast<std::size_t>(router_ivcs_) * static_cast<std::size_t>(buf_));
  srcq_.resize(static_cast<std::size_t>(n_) * chans_);
  busy_.assign(topo_.num_links(), 0);
  // Every event lies less than `span` cycles ahead of the current cycle.
  const std::int64_t span = hop_ + inj_ + credit_ + ch_ + va_ + sa_ + rd_ + 4;
  std::int64_t w = 1;
  while (w < span) w <<= 1;
  mask_ = w - 1;
  const std::uint32_t bands = std::clamp(threads, 1u, std::min(n_, 1024u));
  band_.resize(n_);
  for (std::uint32_t i = 0; i < bands; ++i) {
    auto part = std::make_unique<Part>();
    Part& P = *part;
    P.id = i;
    P.lo = static_cast<std::uint32_t>(static_cast<std::uint64_t>(n_) * i / bands);
    P.hi = static_cast<std::uint32_t>(static_cast<std::uint64_t>(n_) * (i + 1) / bands);
    for (std::uint32_t r = P.lo; r < P.hi; ++r) band_[r] = static_cast<std::uint16_t>(i);
    P.wheel.resize(static_cast<std::size_t>(w) * kKinds);
    for (auto& f : P.far) f.resize(bands);
    P.grant.assign(ports_, kNone);
    P.gsub.assign(ports_, 0);
    P.seen.assign(static_cast<std::size_t>(ports_) * speedup_, 0);
    P.best_key.assign(P.seen.size(), 0);
    P.best_out.assign(P.seen.size(), 0);
    parts_.push_back(std::move(part));
  }
  // Bands keep apart the packets they write: each packet on its own cache line.
  static_assert(sizeof(Pkt) == 16 && sizeof(PktInfo) == 32, "4 and 2 to a cache line");
  if (bands > 1) {
    pkt_pad_ = 2;
    info_pad_ = 1;
  }
  if (bands > 1) untaken_.assign(n_, 0);
  for (std::uint32_t i = 1; i < bands; ++i) workers_.emplace_back(&FlowNet::worker, this, i);
}

FlowNet::~FlowNet() {
  if (workers_.empty()) return;
  stop_ = true;
  change(go_, sleepers_);
  go_.notify_all();
  for (auto& w : workers_) w.join();
}

bool FlowNet::deadlocked() const {
  std::int64_t pending = 0, in_network = 0;
  for (const auto& P : parts_) {
    pending += P->pending + static_cast<std::int64_t>(P->adds.size());
    in_network += P->in_network;
  }
  return pending == 0 && in_network > 0;
}

int FlowNet::hops(std::uint32_t a, std::uint32_t b) const {
  int h = 0;
  for (int d = 0; d < nd_; ++d) {
    const int delta = std::abs(coord_[b * nd_ + d] - coord_[a * nd_ + d]);
    h += g_.torus ? std::min(delta, g_.dims[static_cast<std::size_t>(d)] - delta) : delta;
  }
  return h;
}

std::size_t FlowNet::queued(std::uint32_t node) const {
  std::size_t q = 0;
  for (std::uint32_t ch = 0; ch < chans_; ++ch) q += srcq_[source_of(node, ch) - router_ivcs_].size();
  if (!untaken_.empty()) q += untaken_[node];
  return q;
}

std::uint32_t FlowNet::flits(std::uint32_t bytes) const {
  return static_cast<std::uint32_t>(std::max(1.0, std::ceil(bytes / g_.link_width - 1e-9)));
}

double FlowNet::zero_load(std::uint32_t a, std::uint32_t b, std::uint32_t bytes) const {
  return g_.endpoint_latency + g_.hop_latency * hops(a, b) + flits(bytes);
}

[[gnu::always_inline]] inline void FlowNet::schedule(Part& P, std::int64_t t, Kind k, std::uint32_t a,
                                                     std::uint32_t b) {
  P.wheel[static_cast<std::size_t>(t & mask_) * kKinds + k].push_back({a, b});
  ++P.pending;
}

// An event at `router`, which may lie in another band (it is then handed
// over at the end of this cycle: t is at least one cycle ahead).
[[gnu::always_inline]] inline void FlowNet::post(Part& P, std::uint32_t router, std::int64_t t, Kind k, std::uint32_t a,
                                                 std::uint32_t b) {
  if (router - P.lo < P.hi - P.lo) {
    schedule(P, t, k, a, b);
    return;
  }
  P.far[static_cast<std::size_t>(P.now & 1)][band_[router]].push_back({t, k, a, b});
  ++P.pending;
}

bool FlowNet::tie(std::uint32_t p, std::uint32_t r) const {
  return (mix(salt_ ^ (static_cast<std::uint64_t>(info(p).seq) << 32 | r)) & 1u) != 0;
}

// A packet id for band P: one it delivered, else one of its new ones.
std::uint32_t FlowNet::alloc_packet(Part& P) {
  if (!P.freed.empty()) {
    const std::uint32_t p = P.freed.back();
    P.freed.pop_back();
    return p;
  }
  if (P.fresh == P.fresh_end) reserve(P, 1);
  return P.fresh++;
}

// New packet ids for band P, at least `need` beyond those it has; only
// while no band runs (the packets' storage may move).
void FlowNet::reserve(Part& P, std::size_t need) {
  const std::size_t have = P.freed.size() + (P.fresh_end - P.fresh);
  if (have >= need) return;
  const std::size_t ids = pkt_.size() >> pkt_pad_;
  const std::size_t more = std::max(need - have, std::max<std::size_t>(ids / 4, 256));
  if (ids + more >= kRelease)
    throw std::length_error("traffic: more than 2^31 packets in the network with flow control at once");
  for (std::uint32_t p = P.fresh; p < P.fresh_end; ++p) P.freed.push_back(p);
  pkt_.resize((ids + more) << pkt_pad_);
  info_.resize((ids + more) << info_pad_);
  P.fresh = static_cast<std::uint32_t>(ids);
  P.fresh_end = static_cast<std::uint32_t>(ids + more);
}

// The out-VC whose credits an input VC's flits return: the upstream
// router's output toward it, or the node's injection channel; `router` the
// router (or node) it belongs to.
[[gnu::always_inline]] inline std::uint32_t FlowNet::upstream_ovc(std::uint32_t ivc, std::uint32_t& router) const {
  const std::uint32_t r = ivc_router(ivc), port = ivc_port(ivc), v = vc_of(ivc);
  if (port >= local_) {
    router = r;
    return (router_outs_ + r * chans_ + (port - local_)) << vshift_ | v;
  }
  router = nbr_[out_id(r, port ^ 1u)];
  return out_id(router, port) << vshift_ | v;
}

[[gnu::always_inline]] inline std::uint32_t FlowNet::downstream_ivc(std::uint32_t o, std::uint32_t v) const {
  if (is_terminal(o)) {  // injection channel ch of node t / chans_
    const std::uint32_t t = o - router_outs_;
    return out_id(t / chans_, local_ + t % chans_) << vshift_ | v;
  }
  return out_id(nbr_[o], out_port(o)) << vshift_ | v;
}

void FlowNet::add(std::int64_t gen, std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, std::uint32_t tag,
                  bool deterministic, std::uint32_t channel) {
  std::uint32_t ch = channel;
  if (ch == kAny) {
    ch = next_chan_[src];
    next_chan_[src] = ch + 1 == chans_ ? 0 : ch + 1;
  }
  const Added a{gen, src, dst, bytes, tag, next_seq_++, ch, deterministic};
  Part& P = part_of_node(src);
  // With several bands the node's own band takes the packet when the run
  // goes on, so that its state stays in that band's cache.
  if (parts_.size() > 1) {
    P.adds.push_back(a);
    ++untaken_[src];
  } else {
    take(P, a);
  }
}

// Band P's node a.src takes a new packet into its source queue.
void FlowNet::take(Part& P, const Added& a) {
  const std::uint32_t p = alloc_packet(P);
  Pkt& q = pkt(p);
  q = Pkt{};
  q.dst = a.dst;
  q.flits = flits(a.bytes);
  q.det = a.det && adaptive_;
  info(p) = PktInfo{a.src, a.bytes, a.tag, a.seq, a.gen, a.gen};
  const std::uint32_t s = source_of(a.src, a.ch);
  auto& sq = srcq_[s - router_ivcs_];
  sq.push_back(p);
  if (sq.size() == 1) {
    ivc_[s].head = p;
    start(P, s, a.gen);
  }
}

void FlowNet::on_hop(std::function<void(const Hop&)> f) {
  hop_cb_ = std::move(f);
  hop_asked_.assign(hop_cb_ ? ivc_.size() : 0, 0);
  hop_head_.assign(hop_asked_.size(), 0);
}

// The front packet of an input VC (or source queue) starts its allocation.
void FlowNet::start(Part& P, std::uint32_t ivc, std::int64_t at) {
  InVc& in = ivc_[ivc];
  const std::uint32_t p = front(ivc);
  if (is_source(ivc)) {
    in.out = router_outs_ + (ivc - router_ivcs_);
  } else {
    const std::uint32_t r = ivc_router(ivc);
    const bool adapt = adaptive_ && !on_escape(ivc) && r != pkt(p).dst && !pkt(p).det;
    // An adaptive packet takes the escape VCs as if it entered the network here.
    if (adapt) pkt(p).dim = -1;
    route(p, r);
    const Pkt& q = pkt(p);
    // At its destination a packet leaves by the ejection channel of the link it came in on.
    const std::uint32_t port = ivc_port(ivc);
    const std::uint32_t eject = port >= local_ ? port : local_ + (chans_ == 1 ? 0 : port % chans_);
    in.out = out_id(r, r == q.dst ? eject : static_cast<std::uint32_t>(2 * q.dim + q.dir));
    if (adaptive_) cand_[ivc] = adapt ? productive_ports(p, r) : 0;
    if (hop_cb_) hop_asked_[ivc] = at;
  }
  in.sent = 0;
  in.ovc = kNone;
  request_va(P, ivc, at);
}

// The shortest ways from coordinate cur to dest != cur in dimension d: bit 0
// the + way, bit 1 the - way (both on a torus when they are equally long).
std::uint32_t FlowNet::minimal_dirs(int d, int cur, int dest) const {
  if (!g_.torus) return dest > cur ? 1u : 2u;
  const int k = g_.dims[static_cast<std::size_t>(d)];
  const int fwd = ((dest - cur) % k + k) % k;
  return 2 * fwd < k ? 1u : 2 * fwd > k ? 2u : 3u;
}

// Dimension order (dimension 0 first); on a torus the shorter way round,
// ties at random as BookSim2 does (by a hash of the packet and the router,
// whatever the order of the cycle's events). Sets the direction and the VC
// class of the hop leaving router r.
void FlowNet::route(std::uint32_t p, std::uint32_t r) {
  Pkt& q = pkt(p);
  if (r == q.dst) return;
  int d = 0;
  while (coord_[r * nd_ + d] == coord_[q.dst * nd_ + d]) ++d;
  const int cur = coord_[r * nd_ + d], dest = coord_[q.dst * nd_ + d];
  const int k = g_.dims[static_cast<std::size_t>(d)];
  if (d != q.dim) {  // entering a dimension
    q.dim = static_cast<std::int8_t>(d);
    const std::uint32_t dirs = minimal_dirs(d, cur, dest);
    q.dir = dirs == 1u ? 0 : dirs == 2u ? 1 : static_cast<std::uint8_t>(tie(p, r) ? 1 : 0);
    if (nbr_[out_id(r, static_cast<std::uint32_t>(2 * d + q.dir))] == kNone)
      q.dir ^= 1u;  // a ring of two nodes may have one link between them
    q.cls = 0;
    if (dateline_ == 2) q.cls = (q.dir == 0 && cur > dest) || (q.dir == 1 && dest < cur) ? 1 : 0;
  }
  // The dateline: the wrap-around link and every hop after it use class 1.
  if (dateline_ == 1 && ((q.dir == 0 && cur == k - 1) || (q.dir == 1 && cur == 0))) q.cls = 1;
}

// Minimal adaptive routing: every port that brings the packet closer (on a
// torus, both ways round when they are equally short).
std::uint32_t FlowNet::productive_ports(std::uint32_t p, std::uint32_t r) const {
  const Pkt& q = pkt(p);
  std::uint32_t ports = 0;
  for (int d = 0; d < nd_; ++d) {
    const int cur = coord_[r * nd_ + d], dest = coord_[q.dst * nd_ + d];
    if (cur == dest) continue;
    const std::uint32_t dirs = minimal_dirs(d, cur, dest);
    for (std::uint32_t dir = 0; dir < 2; ++dir) {
      const std::uint32_t port = static_cast<std::uint32_t>(2 * d) + dir;
      if ((dirs >> dir & 1u) != 0 && nbr_[out_id(r, port)] != kNone) ports |= 1u << port;
    }
    if ((ports >> (2 * d) & 3u) == 0) ports |= 1u << (2 * d + (dirs == 1u ? 1 : 0));  // a ring of two, one link
  }
  return ports;
}

// Bubble flow control (dateline 3): a packet takes a bubble VC (the escape
// VC, or every VC in dimension order) only with room for itself, and for two
// packets when it enters a ring (from the local port or another dimension),
// so every ring keeps a free packet slot. VCs queue whole packets
// (wait_for_tail_credit=0, the credits count free slots).
std::uint64_t FlowNet::bubble(std::uint32_t ivc, std::uint32_t o, std::uint64_t m) const {
  const std::uint64_t bubbles = adaptive_ ? 1u : ~0ull;
  const std::uint32_t in_port = ivc_port(ivc);
  const bool enters = in_port >= local_ || in_port >> 1 != out_port(o) >> 1;
  const auto need = static_cast<std::int32_t>(pkt(front(ivc)).flits * (enters ? 2 : 1));
  for (std::uint64_t b = m & bubbles; b != 0; b &= b - 1) {
    const auto v = static_cast<std::uint32_t>(std::countr_zero(b));
    if (credits_[o << vshift_ | v] < need) m &= ~(1ull << v);
  }
  return m;
}

// Adaptive routing: on an escape VC only its class's escape VC of the
// dimension-order output; else any adaptive VC of a productive output and,
// on the dimension-order output, the escape VC of the packet's class.
[[gnu::always_inline]] inline std::uint64_t FlowNet::vc_mask(std::uint32_t ivc, std::uint32_t o) const {
  if (!adaptive_ || is_source(ivc)) return class_mask(ivc);
  const std::uint64_t escape = 1ull << (escapes_ == 2 ? pkt(front(ivc)).cls : 0u);
  if (on_escape(ivc) || pkt(front(ivc)).det) return escape;
  return o == ivc_[ivc].out ? adaptive_vcs_ | escape : adaptive_vcs_;
}

[[gnu::always_inline]] inline std::uint64_t FlowNet::class_mask(std::uint32_t ivc) const {
  const std::uint64_t all = v_ >= 64 ? ~0ull : (1ull << v_) - 1;
  if (dateline_ == 0 || dateline_ == 3 || is_source(ivc)) return all;  // no classes; injection takes any VC
  const std::uint32_t half = v_ / 2;
  const std::uint64_t low = (1ull << half) - 1;
  return pkt(front(ivc)).cls == 0 ? low : all & ~low;
}

void FlowNet::request_va(Part& P, std::uint32_t ivc, std::int64_t at) {
  InVc& in = ivc_[ivc];
  in.ready = at;
  if (is_eject(in.out)) {  // the ejection channel: no VC to wait for
    request_sa(P, ivc, at + va_);
    return;
  }
  const std::uint32_t asks = cand(ivc);
  if (asks == 0) {
    Out& o = out_[in.out];
    o.va_wait.push_back(ivc);
    if (o.va_at != at) {
      schedule(P, at, kVa, in.out);
      o.va_at = at;
    }
    return;
  }
  // Adaptive: the front waits on every productive output; the first grant wins.
  const std::uint32_t r = ivc_router(ivc);
  for (std::uint32_t m = asks; m != 0; m &= m - 1) {
    const std::uint32_t oid = out_id(r, static_cast<std::uint32_t>(std::countr_zero(m)));
    Out& o = out_[oid];
    o.va_wait.push_back(ivc);
    if (o.va_at != at) {
      schedule(P, at, kVa, oid);
      o.va_at = at;
    }
  }
}

[[gnu::always_inline]] inline void FlowNet::request_sa(Part& P, std::uint32_t ivc, std::int64_t at) {
  InVc& in = ivc_[ivc];
  in.ready = at;
  in.in_sa = true;
  out_[in.out].sa_wait.push_back(ivc);
  if (!is_terminal(in.out)) unit_[out_router(in.out)].sa_mask |= 1u << out_port(in.out);
  wake_sa(P, in.out, at);
}

// Switch allocation runs per router (or injection channel) and cycle.
[[gnu::always_inline]] inline void FlowNet::wake_sa(Part& P, std::uint32_t o, std::int64_t at) {
  if (out_[o].sa_wait.empty()) return;
  const std::uint32_t unit = is_terminal(o) ? n_ + (o - router_outs_) : out_router(o);
  at = std::max(at, std::max(P.now, unit_[unit].last_sa + 1));
  if (unit_[unit].sa_at != at) {
    schedule(P, at, kSa, unit);
    unit_[unit].sa_at = at;
  }
}

// The front's next flit can go: its request is due, the flit is here, and
// the out-VC has a credit for it.
[[gnu::always_inline]] inline bool FlowNet::eligible(const Part& P, std::uint32_t ivc) const {
  const InVc& in = ivc_[ivc];
  if (in.ready > P.now) return false;
  if (!is_source(ivc) && in.occ == 0) return false;
  return is_eject(in.out) || credits_[in.ovc] > 0;
}

void FlowNet::on_credit(Part& P, std::uint32_t ovc, std::uint32_t word) {
  const std::uint32_t o = ovc_out(ovc);
  Out& out = out_[o];
  credits_[ovc] = static_cast<std::int16_t>(credits_[ovc] + static_cast<std::int32_t>(word & ~kRelease));
  if ((word & kRelease) != 0) out.free_vcs |= 1ull << vc_of(ovc);
  // A freed VC, or with bubble flow control a freed slot, may answer a waiting request.
  if (((word & kRelease) != 0 || dateline_ == 3) && !out.va_wait.empty() && out.va_at != P.now) {
    schedule(P, P.now, kVa, o);
    out.va_at = P.now;
  }
  if ((word & ~kRelease) != 0) wake_sa(P, o, P.now);
}

void FlowNet::on_flit(Part& P, std::uint32_t ivc, std::uint32_t word) {
  InVc& in = ivc_[ivc];
  ++in.occ;
  if ((word & kRelease) != 0) {  // a head: the packet joins the VC's queue
    const std::uint32_t p = word & ~kRelease;
    if (in.count++ == 0) {  // the front: kept in `head`, its slot is not read
      in.head = p;
      start(P, ivc, P.now + rd_);
    } else {
      std::uint32_t at = in.first + in.count - 1u;  // < 2 x vc_buffer
      if (at >= static_cast<std::uint32_t>(buf_)) at -= static_cast<std::uint32_t>(buf_);
      slots_[static_cast<std::size_t>(ivc) * static_cast<std::size_t>(buf_) + at] = p;
    }
    return;
  }
  if (in.in_sa) wake_sa(P, in.out, in.ready);  // a body flit the front may be waiting for
}

// Adaptive routing, once output `o` grants input VC `ivc`: withdraws its
// requests from the other productive outputs and selects the output (and,
// by the round-robin rule, the VC `v`) it takes; `free` becomes the free
// VCs of that output it may use.
std::uint32_t FlowNet::select(std::uint32_t ivc, std::uint32_t o, std::uint64_t& free, std::uint32_t& v) {
  InVc& in = ivc_[ivc];
  std::uint32_t& asks = cand_[ivc];
  const std::uint64_t best_free = free;
  std::uint32_t to = o;
  const std::uint32_t r = out_router(o);
  auto free_of = [&](std::uint32_t x) { return (x == o ? best_free : out_[x].free_vcs) & adaptive_vcs_; };
  for (std::uint32_t m = asks; m != 0; m &= m - 1) {
    const std::uint32_t other = out_id(r, static_cast<std::uint32_t>(std::countr_zero(m)));
    if (other == o) continue;
    out_[other].va_wait.remove(ivc);
  }
  if (select_rr_) {
    // The first free adaptive (output port, VC) pair from the input
    // VC's round-robin pointer (BookSim2's separable input-first VC
    // allocator); no adaptive VC free: the escape VC here.
    const std::uint32_t pairs = ports_ << vshift_;
    std::uint32_t best_rot = pairs;
    for (std::uint32_t m = asks; m != 0; m &= m - 1) {
      const auto port = static_cast<std::uint32_t>(std::countr_zero(m));
      for (std::uint64_t f = free_of(out_id(r, port)); f != 0; f &= f - 1) {
        const std::uint32_t pair = port << vshift_ | static_cast<std::uint32_t>(std::countr_zero(f));
        const std::uint32_t rot = rotated(pair, sel_[ivc], pairs);
        if (rot < best_rot) {
          best_rot = rot;
          to = out_id(r, port);
          v = pair & vmask_;
        }
      }
    }
    if (v != kNone) {
      const std::uint32_t pair = out_port(to) << vshift_ | v;
      sel_[ivc] = pair + 1 == pairs ? 0 : pair + 1;
    }
  } else {
    // The productive output with the most free adaptive VCs (ties: the
    // dimension-order one, else this one).
    auto key = [&](std::uint32_t x) { return 2 * std::popcount(free_of(x)) + (x == in.out ? 1 : 0); };
    int most = key(o);
    for (std::uint32_t m = asks; m != 0; m &= m - 1) {
      const std::uint32_t other = out_id(r, static_cast<std::uint32_t>(std::countr_zero(m)));
      if (other == o) continue;
      const int k = key(other);
      if (k > most) {
        most = k;
        to = other;
      }
    }
  }
  if (to != o) free = out_[to].free_vcs & adaptive_vcs_;
  asks = 0;
  in.out = to;
  return to;
}

// VC allocation on output `o`: requesters whose request is due, served
// round-robin by input port (then in arrival order), each taking a free VC of
// its class (round-robin over the VCs); several VCs may be granted a cycle.
void FlowNet::on_va(Part& P, std::uint32_t o) {
  Out& out = out_[o];
  const bool terminal = is_terminal(o);
  while (!out.va_wait.empty()) {
    std::uint32_t best = out.va_wait.size();
    std::uint32_t best_key = ports_;
    std::uint64_t best_free = 0;
    for (std::uint32_t i = 0; i < out.va_wait.size(); ++i) {
      const std::uint32_t ivc = out.va_wait[i];
      if (ivc_[ivc].ready > P.now) continue;
      std::uint64_t m = vc_mask(ivc, o) & out.free_vcs;
      if (dateline_ == 3 && !terminal) m = bubble(ivc, o, m);
      if (m == 0) continue;
      const std::uint32_t key = rotated(in_port_of(ivc), out.va_rr, ports_);
      if (key < best_key) {
        best_key = key;
        best = i;
        best_free = m;
      }
    }
    if (best == out.va_wait.size()) return;
    const std::uint32_t ivc = out.va_wait[best];
    InVc& in = ivc_[ivc];
    out.va_rr = in_port_of(ivc) + 1 == ports_ ? 0 : in_port_of(ivc) + 1;
    out.va_wait.erase_at(best);
    std::uint32_t to = o, v = kNone;  // the output granted, its VC
    if (cand(ivc) != 0) to = select(ivc, o, best_free, v);
    Out& t = out_[to];
    if (v == kNone) {
      if ((best_free & adaptive_vcs_) != 0) best_free &= adaptive_vcs_;  // adaptive VCs before the escape VC
      const std::uint64_t after = t.vc_rr >= 64 ? 0 : best_free & ~((1ull << t.vc_rr) - 1);
      v = static_cast<std::uint32_t>(std::countr_zero(after != 0 ? after : best_free));
      t.vc_rr = v + 1 == v_ ? 0 : v + 1;
    }
    t.free_vcs &= ~(1ull << v);
    in.ovc = to << vshift_ | v;
    request_sa(P, ivc, P.now + (terminal ? 0 : va_));
  }
}

// Switch allocation at router (or, past the routers, injection channel)
// `unit`: one flit per output and at most one per sub-input (input port x
// input_speedup, VC v on sub-input v mod input_speedup) each cycle, matched
// as BookSim2's iSLIP does in one iteration: every output grants the first
// requesting sub-input from its round-robin pointer, every sub-input accepts
// the first granting output from its own; pointers move past an accepted
// match only. Packets on different VCs interleave flit by flit.
void FlowNet::on_sa(Part& P, std::uint32_t unit) {
  if (unit_[unit].last_sa == P.now) return;
  unit_[unit].last_sa = P.now;
  if (unit >= n_) {  // an injection channel: its queue's front alone
    const std::uint32_t o = router_outs_ + (unit - n_);
    Out& out = out_[o];
    if (!out.sa_wait.empty() && eligible(P, out.sa_wait.front())) send_flit(P, o, 0);
    if (!out.sa_wait.empty()) {
      const std::uint32_t w = out.sa_wait.front();
      if (credits_[ivc_[w].ovc] > 0) wake_sa(P, o, P.now + 1);
    }
    return;
  }
  const std::uint32_t r = unit, subs = ports_ * speedup_;
  // Grant: every output with a flit ready picks the first sub-input from its pointer.
  std::uint32_t gmask = 0;
  for (std::uint32_t m = unit_[r].sa_mask; m != 0; m &= m - 1) {
    const auto q = static_cast<std::uint32_t>(std::countr_zero(m));
    const std::uint32_t o = out_id(r, q);
    const auto& wait = out_[o].sa_wait;
    std::uint32_t best_key = subs * v_;
    for (std::uint32_t i = 0; i < wait.size(); ++i) {
      if (!eligible(P, wait[i])) continue;
      const std::uint32_t sub = sub_input(wait[i]);
      // The sub-input from the output's pointer; within it, the VC from the sub-input's own.
      const std::uint32_t key = rotated(sub, gptr_[o], subs) * v_ +
                                rotated(vc_of(wait[i]), vptr_[static_cast<std::size_t>(r) * subs + sub], v_);
      if (key < best_key) {
        best_key = key;
        P.grant[q] = i;
        P.gsub[q] = sub;
        if (key == 0) break;
      }
    }
    if (best_key < subs * v_) gmask |= 1u << q;
  }
  if (gmask == 0) return;  // woken again by a credit, a flit or a grant
  // Accept: every sub-input takes the first granting output from its pointer.
  std::uint32_t amask = gmask;
  if ((gmask & (gmask - 1)) != 0) {
    ++P.epoch;
    for (std::uint32_t m = gmask; m != 0; m &= m - 1) {
      const auto q = static_cast<std::uint32_t>(std::countr_zero(m));
      const std::uint32_t sub = P.gsub[q];
      const std::uint32_t key = rotated(q, aptr_[static_cast<std::size_t>(r) * subs + sub], ports_);
      if (P.seen[sub] != P.epoch || key < P.best_key[sub]) {
        P.seen[sub] = P.epoch;
        P.best_key[sub] = key;
        P.best_out[sub] = q;
      }
    }
    amask = 0;
    for (std::uint32_t m = gmask; m != 0; m &= m - 1) {
      const auto q = static_cast<std::uint32_t>(std::countr_zero(m));
      if (P.best_out[P.gsub[q]] == q) amask |= 1u << q;
    }
  }
  for (std::uint32_t m = amask; m != 0; m &= m - 1) {
    const auto q = static_cast<std::uint32_t>(std::countr_zero(m));
    const std::uint32_t sub = P.gsub[q];
    gptr_[out_id(r, q)] = static_cast<std::uint16_t>(sub + 1 == subs ? 0 : sub + 1);
    aptr_[static_cast<std::size_t>(r) * subs + sub] = static_cast<std::uint16_t>(q + 1 == ports_ ? 0 : q + 1);
    vptr_[static_cast<std::size_t>(r) * subs + sub] = vptr_next_[vc_of(out_[out_id(r, q)].sa_wait[P.grant[q]])];
    send_flit(P, out_id(r, q), P.grant[q]);
  }
  // Again next cycle when a flit could go then (else a credit, flit or grant wakes it).
  for (std::uint32_t m = unit_[r].sa_mask; m != 0; m &= m - 1) {
    const std::uint32_t o = out_id(r, static_cast<std::uint32_t>(std::countr_zero(m)));
    for (const std::uint32_t w : out_[o].sa_wait) {
      const InVc& x = ivc_[w];
      if (x.occ > 0 && (is_eject(o) || credits_[x.ovc] > 0)) {
        wake_sa(P, o, P.now + 1);
        return;
      }
    }
  }
}

// Sends the next flit of the input VC at sa_wait[i] of output `o`.
void FlowNet::send_flit(Part& P, std::uint32_t o, std::uint32_t i) {
  Out& out = out_[o];
  const std::uint32_t ivc = out.sa_wait[i];
  InVc& in = ivc_[ivc];
  const std::uint32_t p = in.head;
  Pkt& q = pkt(p);
  const bool source = is_source(ivc), eject = is_eject(o);
  const std::uint32_t k = in.sent++;
  const bool head = k == 0, tail = k + 1 == q.flits;
  if (!eject) --credits_[in.ovc];
  if (source) {
    if (head) {
      info(p).issue = P.now;
      ++P.in_network;
    }
  } else {
    // The flit leaves the buffer when switch allocation completes; its credit follows.
    --in.occ;
    std::uint32_t up = 0;
    const std::uint32_t ovc = upstream_ovc(ivc, up);
    post(P, up, P.now + sa_ + credit_ + ch_, kCredit, ovc, 1u | (tail && wait_tail_ ? kRelease : 0));
  }
  if (eject) {
    if (tail) {
      // The ejection channel takes one cycle whatever channel_latency is.
      const PktInfo& f = info(p);
      P.delivered.push_back(
          Delivered{f.src, q.dst, f.bytes, f.gen, f.issue, P.now + (hop_ - rd_ - va_ - ch_ + 1) + 1, q.hops, f.tag});
      --P.in_network;
      P.freed.push_back(p);
    }
  } else {
    const std::uint32_t down = downstream_ivc(o, vc_of(in.ovc));
    if (source) {
      schedule(P, P.now + inj_, kFlit, down, head ? (p | kRelease) : p);
    } else {
      if (head) ++q.hops;
      if (P.now >= win_start_ && P.now < win_end_) ++busy_[link_[o]];
      post(P, ivc_router(down), P.now + hop_ - rd_ - va_, kFlit, down, head ? (p | kRelease) : p);
      if (hop_cb_) {
        if (head) hop_head_[ivc] = P.now;
        if (tail)
          P.hops.push_back(
              Hop{out_router(o), out_port(o), info(p).tag, info(p).bytes, hop_asked_[ivc], hop_head_[ivc], P.now});
      }
    }
    if (tail && !wait_tail_) schedule(P, P.now + 1, kCredit, in.ovc, kRelease);
  }
  if (tail) {
    in.in_sa = false;
    out.sa_wait.erase_at(i);
    if (out.sa_wait.empty() && !is_terminal(o)) unit_[out_router(o)].sa_mask &= ~(1u << out_port(o));
    if (source) {
      auto& sq = srcq_[ivc - router_ivcs_];
      sq.pop_front();
      if (issued_) P.issued.push_back(Issued{P.now, ivc, info(p).tag});
      if (!sq.empty()) {
        in.head = sq.front();
        start(P, ivc, std::max(P.now + 1, info(in.head).gen));
      }
    } else {
      in.first = static_cast<std::uint16_t>(in.first + 1 == buf_ ? 0 : in.first + 1);
      if (--in.count > 0) {
        in.head = slots_[static_cast<std::size_t>(ivc) * static_cast<std::size_t>(buf_) + in.first];
        start(P, ivc, P.now + 1);
      }
    }
  }
}

void FlowNet::cycle(Part& P) {
  const std::size_t base = static_cast<std::size_t>(P.now & mask_) * kKinds;
  for (std::size_t k = 0; k < kKinds; ++k) {
    auto& evs = P.wheel[base + k];
    // Adaptive routing: a request waits on several outputs and the first
    // grant takes it, so the outputs go in a fixed order (each at most once a cycle).
    if (k == kVa && adaptive_) std::sort(evs.begin(), evs.end(), [](const Ev& x, const Ev& y) { return x.a < y.a; });
    // Handlers append to this cycle's later kinds only, never to `evs`; indexing stays safe either way.
    for (std::size_t i = 0; i < evs.size(); ++i) {  // NOLINT(modernize-loop-convert)
      const Ev e = evs[i];
      --P.pending;
      switch (static_cast<Kind>(k)) {
        case kCredit:
          on_credit(P, e.a, e.b);
          break;
        case kFlit:
          on_flit(P, e.a, e.b);
          break;
        case kVa:
          on_va(P, e.a);
          break;
        default:
          on_sa(P, e.a);
          break;
      }
    }
    evs.clear();
  }
}

std::int64_t FlowNet::pending_total(std::size_t parity) const {
  std::int64_t sum = 0;
  for (const auto& P : parts_) sum += P->pending_at[parity];
  return sum;
}

// Every band in step: cycle by cycle, each takes the events the others
// handed it in the last cycle, handles its own, and waits for the others.
// All bands decide alike from the counts of the last cycle's end.
void FlowNet::run_part(Part& P, std::int64_t t) {
  if (parts_.size() == 1) {
    while (P.now < t) {
      if (P.pending == 0) {
        P.now = t;
        break;
      }
      cycle(P);
      ++P.now;
    }
    return;
  }
  take_adds(P);
  while (P.now < t) {
    if (pending_total(static_cast<std::size_t>(P.now & 1)) == 0) {
      P.now = t;
      break;
    }
    take_far(P);
    cycle(P);
    ++P.now;
    ++P.cycles;
    P.pending_at[static_cast<std::size_t>(P.now & 1)] = P.pending;
    barrier();
  }
  barrier();  // the caller reads every band after this
}

void FlowNet::take_adds(Part& P) {
  for (const Added& a : P.adds) {
    take(P, a);
    --untaken_[a.src];
  }
  P.adds.clear();
}

// The events the other bands handed band P in the last cycle.
void FlowNet::take_far(Part& P) {
  const auto last = static_cast<std::size_t>((P.now - 1) & 1);
  for (const auto& Q : parts_) {
    auto& in = Q->far[last][P.id];
    for (const Far& f : in) P.wheel[static_cast<std::size_t>(f.t & mask_) * kKinds + f.k].push_back({f.a, f.b});
    in.clear();
  }
}

// Every band on the caller's thread, one after the other each cycle, as
// they would run in step.
void FlowNet::run_inline(std::int64_t t) {
  for (const auto& P : parts_) take_adds(*P);
  Part& first = *parts_[0];
  while (first.now < t) {
    std::int64_t pending = 0;
    for (const auto& P : parts_) pending += P->pending;
    if (pending == 0) {
      for (const auto& P : parts_) P->now = t;
      break;
    }
    for (const auto& P : parts_) {
      take_far(*P);
      cycle(*P);
    }
    for (const auto& P : parts_) ++P->now;
    ++first.cycles;
  }
}

void FlowNet::barrier() {
  const std::uint32_t phase = phase_.load(std::memory_order_acquire);
  if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == parts_.size()) {
    arrived_.store(0, std::memory_order_relaxed);
    change(phase_, sleepers_);
  } else {
    await_change(phase_, phase, sleepers_);
  }
}

void FlowNet::worker(std::uint32_t id) {
  std::uint32_t seen = 0;  // go_ before the first run (this thread may start after it)
  for (;;) {
    await_change(go_, seen, sleepers_);
    seen = go_.load();
    if (stop_) return;
    run_part(*parts_[id], target_);
  }
}

void FlowNet::run_until(std::int64_t t, const std::function<void(const Delivered&)>& done) {
  if (now() >= t) return;
  if (parts_.size() == 1) {
    run_part(*parts_[0], t);
  } else if (inline_) {
    run_inline(t);
  } else {
    for (const auto& P : parts_) {
      reserve(*P, P->adds.size());
      P->pending_at[static_cast<std::size_t>(P->now & 1)] = P->pending + static_cast<std::int64_t>(P->adds.size());
    }
    target_ = t;
    change(go_, sleepers_);
    run_part(*parts_[0], t);
  }
  if (parts_.size() > 1 && schedule_ == Schedule::automatic) tune();
  flush(done);
}

void FlowNet::set_schedule(Schedule s) {
  schedule_ = s;
  inline_ = s != Schedule::threads;
  tune_cycles_ = -1;
}

// Automatic schedule: the host time per simulated cycle (the caller's time
// between runs included), measured over windows of kWindow cycles, on the
// caller's thread alone (first) and on the bands' threads; the faster goes
// on, the other is tried again for a shorter window after `probe_gap_`
// windows, a gap that doubles (up to 128) each time the try loses. Where the host's cores
// are busy with other work, threads waiting for each other at every cycle
// can take several times longer than one thread doing all bands.
void FlowNet::tune() {
  constexpr std::int64_t kWindow = 256, kTry = 64;
  using Clock = std::chrono::steady_clock;
  const std::int64_t cycles = parts_[0]->cycles;
  const auto now = Clock::now();
  if (tune_cycles_ < 0) {  // a window starts
    tune_cycles_ = cycles;
    tune_start_ = now;
    return;
  }
  if (cycles - tune_cycles_ < (trying_ ? kTry : kWindow)) return;
  const double ns =
      std::chrono::duration<double, std::nano>(now - tune_start_).count() / static_cast<double>(cycles - tune_cycles_);
  const bool was_try = trying_;
  ns_per_cycle_[inline_ ? 1 : 0] = ns;
  const bool faster_inline = ns_per_cycle_[1] >= 0 && ns_per_cycle_[1] < ns_per_cycle_[0];
  if (was_try) {
    trying_ = false;
    if (faster_inline != inline_)
      probe_gap_ = std::min(probe_gap_ * 2, 128);  // the try lost
    else
      probe_gap_ = 8;
    inline_ = faster_inline;
    windows_ = 0;
  } else if (ns_per_cycle_[inline_ ? 0 : 1] < 0 || ++windows_ >= probe_gap_) {
    trying_ = true;  // one window the other way
    inline_ = !inline_;
  }
  tune_cycles_ = cycles;
  tune_start_ = now;
}

namespace {
// Every band's records of one kind in the order `less` gives (stable: a
// band's own order where it says nothing), handed to `call`, then cleared.
template <class Parts, class T, class Less, class Call>
void hand_over(const Parts& parts, std::vector<T> Parts::value_type::element_type::*field, Less less, Call call) {
  std::vector<T>* one = nullptr;
  std::vector<T> all;
  std::size_t bands = 0;
  for (const auto& P : parts) {
    auto& v = (*P).*field;
    if (v.empty()) continue;
    if (++bands == 1) {
      one = &v;
    } else {
      if (bands == 2) all.insert(all.end(), one->begin(), one->end());
      all.insert(all.end(), v.begin(), v.end());
    }
  }
  if (bands == 0) return;
  std::vector<T>& v = bands == 1 ? *one : all;
  if (v.size() <= 64) {  // a cycle's few: insertion sort, stable, no buffer
    for (std::size_t i = 1; i < v.size(); ++i)
      for (std::size_t j = i; j > 0 && less(v[j], v[j - 1]); --j) std::swap(v[j], v[j - 1]);
  } else if (!std::is_sorted(v.begin(), v.end(), less)) {
    std::stable_sort(v.begin(), v.end(), less);
  }
  for (const T& x : v) call(x);
  for (const auto& P : parts) ((*P).*field).clear();
}
}  // namespace

// The callbacks, in cycle order and then by destination, source queue or
// router and port (a band's own order inside one of those is the same
// however the routers are split).
void FlowNet::flush(const std::function<void(const Delivered&)>& done) {
  hand_over(
      parts_, &Part::delivered,
      [](const Delivered& x, const Delivered& y) {
        return x.arrival != y.arrival ? x.arrival < y.arrival : x.dst < y.dst;
      },
      [&](const Delivered& d) { done(d); });
  hand_over(
      parts_, &Part::issued,
      [](const Issued& x, const Issued& y) { return x.at != y.at ? x.at < y.at : x.source < y.source; },
      [&](const Issued& i) { issued_(i.tag, i.at); });
  hand_over(
      parts_, &Part::hops,
      [](const Hop& x, const Hop& y) {
        return x.tail != y.tail ? x.tail < y.tail : x.router != y.router ? x.router < y.router : x.port < y.port;
      },
      [&](const Hop& h) { hop_cb_(h); });
}

std::string FlowNet::deadlock_report() const {
  auto router_name = [&](std::uint32_t r) {
    std::string s = "(";
    for (int d = 0; d < nd_; ++d) s += (d ? "," : "") + std::to_string(coord_[r * nd_ + d]);
    return s + ")";
  };
  // An input VC by the channel it belongs to: "(1,0)->(2,0) vc 3".
  auto channel_name = [&](std::uint32_t ivc) {
    const std::uint32_t r = ivc_router(ivc), port = ivc_port(ivc), v = vc_of(ivc);
    if (port >= local_) return "injection at " + router_name(r) + " vc " + std::to_string(v);
    const std::uint32_t from = nbr_[out_id(r, port ^ 1u)];
    return router_name(from) + "->" + router_name(r) + " vc " + std::to_string(v);
  };
  // The input VC a waiting front waits for: the one its out-VC leads to, or,
  // waiting for an out-VC, the first of its class (all are held).
  auto waits_for = [&](std::uint32_t ivc) -> std::uint32_t {
    const InVc& in = ivc_[ivc];
    if (in.count == 0 || in.out == kNone || is_eject(in.out)) return kNone;
    const std::uint32_t v =
        in.ovc != kNone ? vc_of(in.ovc) : static_cast<std::uint32_t>(std::countr_zero(vc_mask(ivc, in.out)));
    return downstream_ivc(in.out, v);
  };
  const std::uint32_t routers = router_ivcs_;
  std::uint64_t stuck = 0;
  for (std::uint32_t i = 0; i < routers; ++i) stuck += ivc_[i].count;
  std::string s = "the network deadlocked at cycle " + std::to_string(now()) + ": " + std::to_string(stuck) +
                  " packets in routers, none can move";
  for (std::uint32_t start = 0; start < routers; ++start) {
    if (ivc_[start].count == 0) continue;
    std::vector<std::uint32_t> path;
    std::uint32_t at = start;
    while (at != kNone && std::find(path.begin(), path.end(), at) == path.end() && path.size() < routers) {
      path.push_back(at);
      at = waits_for(at);
    }
    if (at == kNone) continue;
    const auto from = std::find(path.begin(), path.end(), at);
    const auto len = path.end() - from;
    s += "; " + std::to_string(len) + " channels wait for each other in a cycle: ";
    int shown = 0;
    for (auto it = from; it != path.end() && shown < 12; ++it, ++shown) s += channel_name(*it) + " -> ";
    if (len > 12) s += "... -> ";
    s += channel_name(*from);
    return s;
  }
  return s;
}

}  // namespace hopsim::network::model::flow
