#include "flow.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace hopsim::network::model::flow {

namespace {
constexpr std::uint32_t kRelease = 0x80000000u;  // credit word: the out-VC is free again
}

FlowNet::FlowNet(const GenericNetwork& g, std::uint64_t seed)
    : g_(g),
      topo_(g.dims, std::vector<bool>(g.dims.size(), g.torus)),
      nd_(static_cast<int>(g.dims.size())),
      n_(static_cast<std::uint32_t>(topo_.num_nodes())),
      ports_(static_cast<std::uint32_t>(2 * g.dims.size() + 1)),
      v_(static_cast<std::uint32_t>(g.vcs)),
      hop_(std::llround(g.hop_latency)),
      rd_(g.routing_delay),
      va_(g.vc_alloc_delay),
      sa_(g.sw_alloc_delay),
      ch_(g.channel_latency),
      credit_(g.credit_delay),
      inj_(std::llround(g.endpoint_latency - g.hop_latency) + g.channel_latency - 1),
      buf_(g.vc_buffer),
      wait_tail_(g.wait_for_tail_credit),
      dateline_(g.torus ? g.dateline : 0),
      rng_(seed ^ 0x5eed0f10c0000000ull) {
  coord_.resize(static_cast<std::size_t>(n_) * static_cast<std::size_t>(nd_));
  nbr_.assign(static_cast<std::size_t>(n_) * ports_, kNone);
  link_.assign(static_cast<std::size_t>(n_) * ports_, topo::kNoLink);
  for (std::uint32_t r = 0; r < n_; ++r)
    for (int d = 0; d < nd_; ++d) {
      coord_[static_cast<std::size_t>(r) * static_cast<std::size_t>(nd_) + static_cast<std::size_t>(d)] =
          topo_.coord_of(r, d);
      for (int dir = 0; dir < 2; ++dir) {
        const topo::LinkId l = topo_.link(r, d, dir == 0 ? +1 : -1);
        if (l == topo::kNoLink) continue;
        const std::size_t at = static_cast<std::size_t>(r) * ports_ + static_cast<std::size_t>(2 * d + dir);
        link_[at] = l;
        nbr_[at] = topo_.link_target(l);
      }
    }
  const std::uint64_t all = v_ >= 64 ? ~0ull : (1ull << v_) - 1;
  out_.resize(static_cast<std::size_t>(n_) * ports_ + n_);
  for (auto& o : out_) o.free_vcs = all;
  credits_.assign(out_.size() * v_, static_cast<std::int32_t>(buf_));
  ivc_.resize(static_cast<std::size_t>(n_) * ports_ * v_);
  srcq_.resize(n_);
  queue_len_.assign(n_, 0);
  busy_.assign(topo_.num_links(), 0);
  // Every event lies less than `span` cycles ahead of the current cycle.
  const std::int64_t span = hop_ + inj_ + credit_ + ch_ + buf_ + va_ + sa_ + rd_ + 5;
  std::int64_t w = 1;
  while (w < span) w <<= 1;
  mask_ = w - 1;
  wheel_.resize(static_cast<std::size_t>(w) * kKinds);
}

int FlowNet::hops(std::uint32_t a, std::uint32_t b) const {
  int h = 0;
  for (int d = 0; d < nd_; ++d) {
    const int delta = std::abs(coord_[b * nd_ + d] - coord_[a * nd_ + d]);
    h += g_.torus ? std::min(delta, g_.dims[static_cast<std::size_t>(d)] - delta) : delta;
  }
  return h;
}

std::uint32_t FlowNet::flits(std::uint32_t bytes) const {
  return static_cast<std::uint32_t>(std::max(1.0, std::ceil(bytes / g_.link_width - 1e-9)));
}

double FlowNet::zero_load(std::uint32_t a, std::uint32_t b, std::uint32_t bytes) const {
  return g_.endpoint_latency + g_.hop_latency * hops(a, b) + flits(bytes);
}

void FlowNet::schedule(std::int64_t t, Kind k, std::uint32_t a, std::uint32_t b) {
  wheel_[static_cast<std::size_t>(t & mask_) * kKinds + k].push_back({a, b});
  ++pending_;
}

void FlowNet::push(Fifo& f, std::uint32_t p) {
  pkt_[p].next = kNone;
  if (f.tail == kNone) {
    f.head = p;
  } else {
    pkt_[f.tail].next = p;
  }
  f.tail = p;
}

void FlowNet::pop(Fifo& f) {
  f.head = pkt_[f.head].next;
  if (f.head == kNone) f.tail = kNone;
}

std::uint32_t FlowNet::alloc_packet() {
  if (!free_pkt_.empty()) {
    const std::uint32_t p = free_pkt_.back();
    free_pkt_.pop_back();
    return p;
  }
  pkt_.emplace_back();
  return static_cast<std::uint32_t>(pkt_.size() - 1);
}

void FlowNet::add(std::int64_t gen, std::uint32_t src, std::uint32_t dst, std::uint32_t bytes) {
  const std::uint32_t p = alloc_packet();
  Pkt& q = pkt_[p];
  q = Pkt{};
  q.src = src;
  q.dst = dst;
  q.bytes = bytes;
  q.flits = flits(bytes);
  q.gen = gen;
  q.issue = gen;
  q.ivc = kNone;
  q.up = kNone;
  q.out = n_ * ports_ + src;  // the node's injection channel
  q.ovc = kNone;
  push(srcq_[src], p);
  ++queue_len_[src];
  if (srcq_[src].head == p) request_va(p, gen);
}

// Dimension order (dimension 0 first); on a torus the shorter way round,
// ties at random as BookSim2 does. Sets the output port and the VC class.
void FlowNet::route(std::uint32_t p, std::uint32_t r) {
  Pkt& q = pkt_[p];
  if (r == q.dst) {
    q.out = r * ports_ + ports_ - 1;  // ejection
    return;
  }
  int d = 0;
  while (coord_[r * nd_ + d] == coord_[q.dst * nd_ + d]) ++d;
  const int cur = coord_[r * nd_ + d], dest = coord_[q.dst * nd_ + d];
  const int k = g_.dims[static_cast<std::size_t>(d)];
  if (d != q.dim) {  // entering a dimension
    q.dim = d;
    if (!g_.torus) {
      q.dir = dest > cur ? 0 : 1;
    } else {
      const int fwd = ((dest - cur) % k + k) % k;
      q.dir = 2 * fwd < k ? 0 : 2 * fwd > k ? 1 : static_cast<std::uint8_t>(rng_() & 1u);
    }
    q.cls = 0;
    if (dateline_ == 2) q.cls = (q.dir == 0 && cur > dest) || (q.dir == 1 && dest < cur) ? 1 : 0;
  }
  // The dateline: the wrap-around link and every hop after it use class 1.
  if (dateline_ == 1 && ((q.dir == 0 && cur == k - 1) || (q.dir == 1 && cur == 0))) q.cls = 1;
  q.out = r * ports_ + static_cast<std::uint32_t>(2 * d + q.dir);
  if (nbr_[q.out] == kNone) {  // a ring of two nodes may have one link between them
    q.dir ^= 1u;
    q.out ^= 1u;
  }
}

std::uint64_t FlowNet::class_mask(const Pkt& q) const {
  const std::uint64_t all = v_ >= 64 ? ~0ull : (1ull << v_) - 1;
  if (dateline_ == 0 || q.out >= n_ * ports_) return all;  // no classes; injection takes any VC
  const std::uint32_t half = v_ / 2;
  const std::uint64_t low = (1ull << half) - 1;
  return q.cls == 0 ? low : all & ~low;
}

std::uint32_t FlowNet::in_port_of(std::uint32_t p) const {
  const Pkt& q = pkt_[p];
  return q.ivc == kNone ? 0 : (q.ivc / v_) % ports_;
}

void FlowNet::request_va(std::uint32_t p, std::int64_t at) {
  Pkt& q = pkt_[p];
  q.ready = at;
  if (q.out < n_ * ports_ && q.out % ports_ == ports_ - 1) {  // ejection: no VC to wait for
    q.ovc = kNone;
    request_sa(p, at + va_);
    return;
  }
  Out& o = out_[q.out];
  o.va_wait.push_back(p);
  if (o.va_at != at) {
    schedule(at, kVa, q.out);
    o.va_at = at;
  }
}

void FlowNet::request_sa(std::uint32_t p, std::int64_t at) {
  Pkt& q = pkt_[p];
  q.ready = at;
  Out& o = out_[q.out];
  o.sa_wait.push_back(p);
  const std::int64_t t = std::max(at, o.free_at);
  if (o.sa_at != t) {
    schedule(t, kSa, q.out);
    o.sa_at = t;
  }
}

void FlowNet::became_front(std::uint32_t ivc, std::int64_t at) {
  const std::uint32_t p = ivc_[ivc].head;
  route(p, ivc / v_ / ports_);
  request_va(p, std::max(at, pkt_[p].ready));
}

void FlowNet::on_credit(std::uint32_t ovc, std::uint32_t word) {
  const std::uint32_t o = ovc / v_;
  Out& out = out_[o];
  credits_[ovc] += static_cast<std::int32_t>(word & ~kRelease);
  if ((word & kRelease) != 0) {
    out.free_vcs |= 1ull << (ovc % v_);
    if (!out.va_wait.empty() && out.va_at != now_) {
      schedule(now_, kVa, o);
      out.va_at = now_;
    }
  }
  if ((word & ~kRelease) != 0 && !out.sa_wait.empty()) {
    const std::int64_t t = std::max(now_, out.free_at);
    if (out.sa_at != t) {
      schedule(t, kSa, o);
      out.sa_at = t;
    }
  }
}

void FlowNet::on_arrive(std::uint32_t p) {
  Pkt& q = pkt_[p];
  Fifo& f = ivc_[q.ivc];
  push(f, p);
  q.ready = now_ + rd_;
  if (f.head == p) became_front(q.ivc, now_ + rd_);
}

// VC allocation on output `o`: requesters whose request is due, served
// round-robin by input port (then in arrival order), each taking a free VC of
// its class (round-robin over the VCs); several VCs may be granted a cycle.
void FlowNet::on_va(std::uint32_t o) {
  Out& out = out_[o];
  const bool terminal = o >= n_ * ports_;
  for (;;) {
    std::size_t best = out.va_wait.size();
    std::uint32_t best_key = ports_;
    std::uint64_t best_free = 0;
    for (std::size_t i = 0; i < out.va_wait.size(); ++i) {
      const Pkt& q = pkt_[out.va_wait[i]];
      if (q.ready > now_) continue;
      const std::uint64_t m = class_mask(q) & out.free_vcs;
      if (m == 0) continue;
      const std::uint32_t key = (in_port_of(out.va_wait[i]) + ports_ - out.va_rr) % ports_;
      if (key < best_key) {
        best_key = key;
        best = i;
        best_free = m;
      }
    }
    if (best == out.va_wait.size()) return;
    const std::uint32_t p = out.va_wait[best];
    const std::uint64_t after = out.vc_rr >= 64 ? 0 : best_free & ~((1ull << out.vc_rr) - 1);
    const auto v = static_cast<std::uint32_t>(std::countr_zero(after != 0 ? after : best_free));
    out.free_vcs &= ~(1ull << v);
    out.vc_rr = (v + 1) % v_;
    out.va_rr = (in_port_of(p) + 1) % ports_;
    out.va_wait.erase(out.va_wait.begin() + static_cast<std::ptrdiff_t>(best));
    pkt_[p].ovc = o * v_ + v;
    request_sa(p, now_ + (terminal ? 0 : va_));
  }
}

// Switch allocation on output `o`: one packet at a time holds the channel
// for its flits; requesters due, with credits for the whole packet, served
// round-robin by input port.
void FlowNet::on_sa(std::uint32_t o) {
  Out& out = out_[o];
  if (out.free_at > now_) {
    if (out.sa_at != out.free_at) {
      schedule(out.free_at, kSa, o);
      out.sa_at = out.free_at;
    }
    return;
  }
  const bool terminal = o >= n_ * ports_;
  const bool eject = !terminal && o % ports_ == ports_ - 1;
  std::size_t best = out.sa_wait.size();
  std::uint32_t best_key = ports_;
  for (std::size_t i = 0; i < out.sa_wait.size(); ++i) {
    const Pkt& q = pkt_[out.sa_wait[i]];
    if (q.ready > now_) continue;
    if (!eject && credits_[q.ovc] < static_cast<std::int32_t>(q.flits)) continue;
    const std::uint32_t key = (in_port_of(out.sa_wait[i]) + ports_ - out.sa_rr) % ports_;
    if (key < best_key) {
      best_key = key;
      best = i;
    }
  }
  if (best == out.sa_wait.size()) return;
  const std::uint32_t p = out.sa_wait[best];
  out.sa_wait.erase(out.sa_wait.begin() + static_cast<std::ptrdiff_t>(best));
  Pkt& q = pkt_[p];
  const auto len = static_cast<std::int64_t>(q.flits);
  out.free_at = now_ + len;
  out.sa_rr = (in_port_of(p) + 1) % ports_;
  if (!out.sa_wait.empty() && out.sa_at != out.free_at) {
    schedule(out.free_at, kSa, o);
    out.sa_at = out.free_at;
  }
  if (!eject) credits_[q.ovc] -= static_cast<std::int32_t>(q.flits);

  // The packet leaves its buffer (or source queue) flit by flit.
  if (q.ivc == kNone) {
    Fifo& f = srcq_[q.src];
    pop(f);
    --queue_len_[q.src];
    q.issue = now_;
    ++in_network_;
    if (f.head != kNone) request_va(f.head, std::max(now_ + len, pkt_[f.head].gen));
  } else {
    const std::uint32_t ivc = q.ivc;
    pop(ivc_[ivc]);
    schedule(now_ + sa_ + len - 1 + credit_ + ch_, kCredit, q.up, q.flits | (wait_tail_ ? kRelease : 0));
    if (ivc_[ivc].head != kNone) became_front(ivc, now_ + len);
  }
  if (!eject && !wait_tail_) schedule(now_ + len, kCredit, q.ovc, kRelease);

  if (eject) {
    // The ejection channel takes one cycle whatever channel_latency is.
    const Delivered d{q.src, q.dst, q.bytes, q.gen, q.issue, now_ + (hop_ - rd_ - va_ - ch_ + 1) + len, q.hops};
    --in_network_;
    free_pkt_.push_back(p);
    (*done_)(d);
    return;
  }
  const std::uint32_t v = q.ovc % v_;
  q.up = q.ovc;
  q.ovc = kNone;
  if (terminal) {
    const std::uint32_t r = q.src;
    q.ivc = ((r * ports_) + ports_ - 1) * v_ + v;
    schedule(now_ + inj_, kArrive, p);
    return;
  }
  const std::uint32_t r = o / ports_, port = o % ports_;
  const std::uint32_t next = nbr_[o];
  q.ivc = (next * ports_ + port) * v_ + v;
  ++q.hops;
  const std::int64_t a = std::max(now_, win_start_), b = std::min(now_ + len, win_end_);
  if (b > a) busy_[link_[static_cast<std::size_t>(r) * ports_ + port]] += static_cast<std::uint64_t>(b - a);
  schedule(now_ + hop_ - rd_ - va_, kArrive, p);
}

void FlowNet::run_until(std::int64_t t, const std::function<void(const Delivered&)>& done) {
  done_ = &done;
  while (now_ < t) {
    if (pending_ == 0) {
      now_ = t;
      break;
    }
    const std::size_t base = static_cast<std::size_t>(now_ & mask_) * kKinds;
    for (std::size_t k = 0; k < kKinds; ++k) {
      auto& evs = wheel_[base + k];
      for (std::size_t i = 0; i < evs.size(); ++i) {
        const Ev e = evs[i];
        --pending_;
        switch (static_cast<Kind>(k)) {
          case kCredit:
            on_credit(e.a, e.b);
            break;
          case kArrive:
            on_arrive(e.a);
            break;
          case kVa:
            on_va(e.a);
            break;
          default:
            on_sa(e.a);
            break;
        }
      }
      evs.clear();
    }
    ++now_;
  }
  done_ = nullptr;
}

std::string FlowNet::deadlock_report() const {
  auto router_name = [&](std::uint32_t r) {
    std::string s = "(";
    for (int d = 0; d < nd_; ++d) s += (d ? "," : "") + std::to_string(coord_[r * nd_ + d]);
    return s + ")";
  };
  // An input VC by the channel it belongs to: "(1,0)->(2,0) vc 3".
  auto channel_name = [&](std::uint32_t ivc) {
    const std::uint32_t r = ivc / v_ / ports_, port = (ivc / v_) % ports_, v = ivc % v_;
    if (port == ports_ - 1) return "injection at " + router_name(r) + " vc " + std::to_string(v);
    const std::uint32_t from = nbr_[r * ports_ + (port ^ 1u)];
    return router_name(from) + "->" + router_name(r) + " vc " + std::to_string(v);
  };
  // The input VC a waiting head waits for: one its request could take, all held.
  auto waits_for = [&](std::uint32_t ivc) -> std::uint32_t {
    const std::uint32_t p = ivc_[ivc].head;
    if (p == kNone) return kNone;
    const Pkt& q = pkt_[p];
    if (q.out >= n_ * ports_ || q.out % ports_ == ports_ - 1) return kNone;
    std::uint32_t v = 0;
    if (q.ovc != kNone) {
      v = q.ovc % v_;
    } else {
      v = static_cast<std::uint32_t>(std::countr_zero(class_mask(q)));
    }
    return (nbr_[q.out] * ports_ + q.out % ports_) * v_ + v;
  };
  std::uint64_t stuck = 0;
  for (const Fifo& f : ivc_)
    for (std::uint32_t p = f.head; p != kNone; p = pkt_[p].next) ++stuck;
  std::string s = "the network deadlocked at cycle " + std::to_string(now_) + ": " + std::to_string(stuck) +
                  " packets in routers, none can move";
  for (std::uint32_t start = 0; start < ivc_.size(); ++start) {
    if (ivc_[start].head == kNone) continue;
    std::vector<std::uint32_t> path;
    std::uint32_t at = start;
    while (at != kNone && std::find(path.begin(), path.end(), at) == path.end() && path.size() < ivc_.size()) {
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
