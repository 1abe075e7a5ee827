#include "hopsim/epiphany/model/mesh_timing.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace hopsim::epiphany::model {

const char* net_name(Net n) {
  switch (n) {
    case Net::cmesh:
      return "cmesh";
    case Net::rmesh:
      return "rmesh";
    case Net::xmesh:
      return "xmesh";
  }
  return "?";
}

namespace {
std::uint64_t to_ticks(double cycles) {
  // Round up to the tick grid; the epsilon absorbs representation error.
  const double t = std::ceil(cycles * kTicksPerCycle - 1e-9);
  return t <= 0 ? 0 : static_cast<std::uint64_t>(t);
}
double to_cycles(std::uint64_t ticks) { return static_cast<double>(ticks) / kTicksPerCycle; }
}  // namespace

std::uint64_t MeshTiming::ticks(double cycles) { return to_ticks(cycles); }

LinkCalendar::LinkCalendar() = default;

std::uint64_t LinkCalendar::next_free(std::uint64_t from) const {
  for (;;) {
    const std::uint64_t w = bits(from >> 6) | ((std::uint64_t{1} << (from & 63)) - 1);
    if (~w) return (from & ~std::uint64_t{63}) + static_cast<std::uint64_t>(__builtin_ctzll(~w));
    from = (from & ~std::uint64_t{63}) + 64;
  }
}

std::uint64_t LinkCalendar::next_busy(std::uint64_t from, std::uint64_t limit) const {
  while (from < limit) {
    const std::uint64_t w = bits(from >> 6) & ~((std::uint64_t{1} << (from & 63)) - 1);
    if (w) return std::min(limit, (from & ~std::uint64_t{63}) + static_cast<std::uint64_t>(__builtin_ctzll(w)));
    from = (from & ~std::uint64_t{63}) + 64;
  }
  return limit;
}

void LinkCalendar::grow(std::uint64_t end) {
  // Live words span [base_, end): the ring must hold them all without aliasing.
  std::size_t n = ring_.size();
  while ((base_ & ~std::uint64_t{63}) + n * 64 < end + 64) n *= 2;
  std::vector<Word> r(n);
  const std::uint64_t first = base_ >> 6;
  for (const auto& w : ring_)
    if (w.index != ~std::uint64_t{0} && w.index >= first) r[w.index & (n - 1)] = w;
  ring_ = std::move(r);
  mask_ = n - 1;
}

std::uint64_t LinkCalendar::reserve_slow(std::uint64_t t, std::uint64_t dur) {
  std::uint64_t h = t;
  for (;;) {
    if (h + dur > (base_ & ~std::uint64_t{63}) + capacity_ticks()) grow(h + dur);
    h = next_free(h);
    if (h + dur > (base_ & ~std::uint64_t{63}) + capacity_ticks()) grow(h + dur);
    const std::uint64_t busy = next_busy(h, h + dur);
    if (busy == h + dur) break;
    h = busy + 1;
  }
  for (std::uint64_t k = h; k < h + dur; ++k) slot(k >> 6).bits |= std::uint64_t{1} << (k & 63);
  return h;
}

MeshTiming::MeshTiming(const Params& p)
    : p_(p), mesh_(topo::make_mesh2d(p.rows, p.cols)), n_(p.num_cores()), mesh_links_(mesh_.num_links()) {
  route_off_.push_back(0);
  for (std::uint32_t s = 0; s < n_; ++s) {
    for (std::uint32_t d = 0; d < n_; ++d) {
      for (auto l : topo::route_xy(mesh_, s, d)) route_links_.push_back(static_cast<std::uint16_t>(l));
      route_off_.push_back(static_cast<std::uint32_t>(route_links_.size()));
    }
  }
  const std::size_t per_net = mesh_links_ + 2 * std::size_t{n_} + 1;
  for (int k = 0; k < kNets; ++k) {
    links_[k].resize(per_net);
    inject_free_[k].assign(n_, 0);
  }
  // An eMesh packet carries up to 8 data bytes with its address; it holds a
  // link for ceil(8 / width) cycles (one cycle at the native 8 B/cycle).
  ser_ = to_ticks(std::max(1.0, std::ceil(8.0 / p_.link_width)));
  // The rMesh passes one read request every rmesh_interval cycles per
  // routing direction (Architecture Reference, eMesh chapter).
  rser_ = std::max<std::uint64_t>(1, to_ticks(p_.rmesh_interval));
  hop_ = to_ticks(p_.hop_latency);
  overhead_ = to_ticks(p_.write_overhead);
  issue_ = to_ticks(p_.store_issue);
  // A read's fixed cost, split evenly between the request and the answer
  // (how the chip divides it is not published; only the sum is timed uncontended).
  read_leg_ = to_ticks(p_.read_overhead / 2);
  buffer_ = to_ticks(p_.mesh_buffer);
}

std::string MeshTiming::link_name(std::size_t link) const {
  if (link < mesh_links_) {
    const auto a = mesh_.coord_of(mesh_.link_source(static_cast<topo::LinkId>(link)));
    const auto b = mesh_.coord_of(mesh_.link_target(static_cast<topo::LinkId>(link)));
    return fmt::format("({},{})->({},{})", a[0], a[1], b[0], b[1]);
  }
  // A core's own injection and ejection channels, named by the core's (row,col).
  link -= mesh_links_;
  const bool inject = link < n_;
  if (!inject) link -= n_;
  if (link < n_) {
    const auto c = mesh_.coord_of(static_cast<topo::NodeId>(link));
    return fmt::format("{} ({},{})", inject ? "inject" : "eject", c[0], c[1]);
  }
  return "elink";
}

void MeshTiming::set_horizon(double cycles) {
  // Calendars recycle lazily when next touched.
  const std::uint64_t h = static_cast<std::uint64_t>(std::max(0.0, std::floor(cycles * kTicksPerCycle)));
  if (h > horizon_) horizon_ = h;
}

void MeshTiming::set_window(double start, double end) {
  win_start_ = ticks(start);
  win_end_ = ticks(end);
}

// Inlined into both instances of send_impl (the hot path).
[[gnu::always_inline]] inline std::uint64_t MeshTiming::reserve(Net net, std::size_t link, std::uint64_t t,
                                                                std::uint64_t dur, std::uint32_t bytes) {
  auto& l = links_[static_cast<int>(net)][link];
  l.cal.advance(horizon_);
  const std::uint64_t s = l.cal.reserve(t, dur);
  auto& st = l.st;
  st.bytes += bytes;
  st.packets += 1;
  st.busy_ticks += dur;
  st.stall_ticks += s - t;
  count_window(st, s, dur);
  return s;
}

// One packet from `src`'s injection port through the routers to `dst_router`,
// then into `eject_core`'s memory, or onto the eLink. Returns the arrival.
// The router events are logged only in the counted instance, so the hot
// uncounted one stays as lean as it was.
template <bool kCounted>
[[gnu::always_inline]] inline std::uint64_t MeshTiming::send_impl(Net net, std::uint32_t src, std::uint32_t dst_router,
                                                                  std::uint32_t eject_core, bool to_elink,
                                                                  std::uint32_t bytes, std::uint64_t t,
                                                                  std::uint64_t* inject_start) {
  const std::uint64_t ser = net == Net::rmesh ? rser_ : ser_;
  auto& free = inject_free_[static_cast<int>(net)][src];
  std::uint64_t s = std::max(t, free);
  free = s + ser;
  auto& ist = links_[static_cast<int>(net)][mesh_links_ + src].st;
  ist.bytes += bytes;
  ist.packets += 1;
  ist.busy_ticks += ser;
  ist.stall_ticks += s - t;
  count_window(ist, s, ser);
  if (trace_) [[unlikely]]
    trace_use(net, mesh_links_ + src, s, t, ser, bytes);
  if (inject_start) *inject_start = s;
  if constexpr (kCounted) note(src, Port::core, t, s);
  std::uint64_t tt = s + hop_;  // the source router
  [[maybe_unused]] Port in = Port::core;
  for (auto l : route(src, dst_router)) {
    [[maybe_unused]] const std::uint64_t ready = tt;
    s = reserve(net, l, tt, ser, bytes);
    if (trace_) [[unlikely]]
      trace_use(net, l, s, tt, ser, bytes);
    tt = s + hop_;
    if constexpr (kCounted) {
      events_->wait(mesh_.link_source(static_cast<topo::LinkId>(l)), in, ready, s);
      in = events_->entry_port(static_cast<topo::LinkId>(l));
      note(mesh_.link_target(static_cast<topo::LinkId>(l)), in, tt, tt);
    }
  }
  if (to_elink) {
    const std::uint64_t dur = std::max<std::uint64_t>(1, to_ticks(bytes / p_.elink_width));
    const std::size_t elink = mesh_links_ + 2 * std::size_t{n_};
    s = reserve(net, elink, tt, dur, bytes);
    if (trace_) [[unlikely]]
      trace_use(net, elink, s, tt, dur, bytes);
    return s + dur + to_ticks(p_.elink_latency);
  }
  const std::size_t eject = mesh_links_ + n_ + eject_core;
  [[maybe_unused]] const std::uint64_t ready = tt;
  s = reserve(net, eject, tt, ser, bytes);
  if constexpr (kCounted) events_->wait(dst_router, in, ready, s);
  if (trace_) [[unlikely]]
    trace_use(net, eject, s, tt, ser, bytes);
  return s;
}

std::uint64_t MeshTiming::send(Net net, std::uint32_t src, std::uint32_t dst_router, std::uint32_t eject_core,
                               bool to_elink, std::uint32_t bytes, std::uint64_t t, std::uint64_t* inject_start) {
  if (events_ && net == Net::cmesh) [[unlikely]]
    return send_counted(net, src, dst_router, eject_core, to_elink, bytes, t, inject_start);
  return send_impl<false>(net, src, dst_router, eject_core, to_elink, bytes, t, inject_start);
}

std::uint64_t MeshTiming::send_counted(Net net, std::uint32_t src, std::uint32_t dst_router, std::uint32_t eject_core,
                                       bool to_elink, std::uint32_t bytes, std::uint64_t t,
                                       std::uint64_t* inject_start) {
  return send_impl<true>(net, src, dst_router, eject_core, to_elink, bytes, t, inject_start);
}

[[gnu::always_inline]] inline WriteTiming MeshTiming::post(Net net, std::uint32_t src, std::uint32_t dst_router,
                                                           std::uint32_t eject_core, bool to_elink, std::uint32_t bytes,
                                                           double t, unsigned chunk_max) {
  const std::uint64_t start = to_ticks(t);
  // Zero-load time from issue to arrival; contention beyond it, less what
  // the router buffers absorb, holds the writer back (backpressure).
  const std::uint64_t zero_load = overhead_ + hop_ * (route(src, dst_router).size() + 1);
  std::uint64_t issue = start, arrival = start, stall = 0;
  std::uint32_t left = bytes;
  do {
    const std::uint32_t chunk = std::min<std::uint32_t>(left, chunk_max);
    std::uint64_t inj = 0;
    const std::uint64_t arr = send(net, src, dst_router, eject_core, to_elink, chunk, issue + overhead_, &inj);
    if (trace_) [[unlikely]]
      trace_packet(net, src, to_elink ? n_ : eject_core, chunk, issue, arr, to_elink ? "emem-write" : "write");
    arrival = std::max(arrival, arr);
    std::uint64_t next = issue + issue_;
    // The core issues again once its mesh interface accepted the packet ...
    next = std::max(next, inj - overhead_ + ser_);
    // ... and once the network has room for it.
    if (!to_elink && arr > issue + zero_load + buffer_) next = std::max(next, arr - zero_load - buffer_);
    stall += next - (issue + issue_);
    issue = next;
    left -= chunk;
  } while (left > 0);
  return WriteTiming{to_cycles(issue), to_cycles(arrival), to_cycles(stall)};
}

WriteTiming MeshTiming::write(std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, double t, unsigned chunk_max) {
  return post(Net::cmesh, src, dst, dst, false, bytes, t, chunk_max);
}

WriteTiming MeshTiming::write_emem(std::uint32_t src, std::uint32_t bytes, double t, unsigned chunk_max) {
  // The eLink sits on the east edge of the chip: route to the east router of src's row.
  const std::uint32_t edge = (src / p_.cols) * p_.cols + (p_.cols - 1);
  return post(Net::xmesh, src, edge, 0, true, bytes, t, chunk_max);
}

double MeshTiming::read(std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, double t, double ready_at_dst,
                        unsigned chunk_max) {
  // One read request per transaction, pipelined; each answered by a cMesh write.
  const std::uint64_t ready = to_ticks(ready_at_dst);
  std::uint64_t issue = to_ticks(t), done = issue;
  std::uint32_t left = bytes;
  chunk_max = std::clamp(chunk_max, 1u, 8u);
  do {
    const std::uint32_t chunk = std::min<std::uint32_t>(left, chunk_max);
    const std::uint64_t req = send(Net::rmesh, src, dst, dst, false, 8, issue + read_leg_, nullptr);
    if (trace_) [[unlikely]]
      trace_packet(Net::rmesh, src, dst, 8, issue, req, "read-request");
    const std::uint64_t data = std::max(req, ready);
    const std::uint64_t back = send(Net::cmesh, dst, src, src, false, chunk, data + read_leg_, nullptr);
    if (trace_) [[unlikely]]
      trace_packet(Net::cmesh, dst, src, chunk, data, back, "read-data");
    done = std::max(done, back);
    issue += issue_;
    left -= chunk;
  } while (left > 0);
  return to_cycles(done);
}

double MeshTiming::read_emem(std::uint32_t src, std::uint32_t bytes, double t, unsigned chunk_max) {
  const std::uint32_t edge = (src / p_.cols) * p_.cols + (p_.cols - 1);
  std::uint64_t issue = to_ticks(t), done = issue;
  std::uint32_t left = bytes;
  chunk_max = std::clamp(chunk_max, 1u, 8u);
  do {
    const std::uint32_t chunk = std::min<std::uint32_t>(left, chunk_max);
    // The request crosses the chip on the rMesh, which carries all read
    // requests (Architecture Reference, eMesh), then the eLink.
    const std::uint64_t req = send(Net::rmesh, src, edge, 0, true, 8, issue + overhead_, nullptr);
    if (trace_) [[unlikely]]
      trace_packet(Net::rmesh, src, n_, 8, issue, req, "emem-read-request");
    // The answer crosses the eLink back and enters the mesh at the edge router.
    const std::uint64_t back = req + to_ticks(p_.elink_latency + chunk / p_.elink_width);
    const std::uint64_t got = send(Net::xmesh, edge, src, src, false, chunk, back, nullptr);
    if (trace_) [[unlikely]]
      trace_packet(Net::xmesh, n_, src, chunk, back, got, "emem-read-data");
    done = std::max(done, got);
    issue += issue_;
    left -= chunk;
  } while (left > 0);
  return to_cycles(done);
}

void MeshTiming::note(std::uint32_t node, Port port, std::uint64_t ready, std::uint64_t accepted) {
  events_->wait(node, port, ready, accepted);
  events_->access(node, port, accepted);
}

void MeshTiming::trace_packet(Net, std::uint32_t src, std::uint32_t dst, std::uint32_t bytes, std::uint64_t inject,
                              std::uint64_t arrive, const char* kind) {
  if (!trace_txns_) return;
  const std::int64_t txn =
      trace_->add_transaction(traces::Transaction{0, src, dst, bytes, to_cycles(inject), to_cycles(arrive), kind});
  for (auto& h : pending_) {
    h.txn = txn;
    trace_->add_hop(h);
  }
  pending_.clear();
}

void MeshTiming::trace_use(Net net, std::size_t link, std::uint64_t start, std::uint64_t requested, std::uint64_t dur,
                           std::uint32_t bytes) {
  const auto id = static_cast<std::int64_t>(static_cast<std::size_t>(net) * links_per_net() + link);
  sample(id, start, bytes, dur, start - requested);
  if (trace_hops_) pending_.push_back(traces::Hop{0, id, to_cycles(start), to_cycles(start + dur)});
}

void MeshTiming::sample(std::int64_t id, std::uint64_t start, std::uint32_t bytes, std::uint64_t dur,
                        std::uint64_t stall) {
  const auto b = static_cast<std::int64_t>(std::floor(to_cycles(start) / bucket_cycles_));
  auto& a = buckets_[static_cast<std::size_t>(id)];
  if (a.bucket != b) {
    flush(id);
    a.bucket = b;
  }
  a.bytes += bytes;
  a.packets += 1;
  a.busy += dur;
  a.stall += stall;
}

void MeshTiming::flush(std::int64_t id) {
  auto& a = buckets_[static_cast<std::size_t>(id)];
  if (a.packets)
    trace_->add_link_sample(id, static_cast<double>(a.bucket) * bucket_cycles_, a.bytes, to_cycles(a.busy),
                            to_cycles(a.stall), a.packets);
  a = Bucket{};
}

void MeshTiming::set_trace(traces::TraceWriter* w, double bucket_cycles) {
  if (trace_)
    for (std::size_t i = 0; i < buckets_.size(); ++i) flush(static_cast<std::int64_t>(i));
  trace_ = w;
  pending_.clear();
  if (!w) return;
  bucket_cycles_ = bucket_cycles;
  trace_txns_ = w->records_transactions();
  trace_hops_ = w->records_hops();
  buckets_.assign(static_cast<std::size_t>(kNets) * links_per_net(), Bucket{});
  declare_topology(*w);
}

void MeshTiming::declare_topology(traces::TraceWriter& tw) const {
  auto* w = &tw;
  for (std::uint32_t i = 0; i < n_; ++i) {
    const int row = static_cast<int>(i / p_.cols), col = static_cast<int>(i % p_.cols);
    // Row first, as the eSDK's (row, col): core(1,2) is row 1, column 2.
    w->add_node(traces::Node{
        i, fmt::format("core({},{}) (coreid 0x{:03x})", row, col, ((p_.first_row + row) << 6) | (p_.first_col + col)),
        "core", fmt::format("[{},{}]", row, col)});
  }
  w->add_node(traces::Node{n_, "external memory", "emem", "[\"elink\"]"});
  for (int k = 0; k < kNets; ++k) {
    for (std::size_t l = 0; l < links_per_net(); ++l) {
      std::int64_t src = 0, dst = 0;
      if (l < mesh_links_) {
        src = mesh_.link_source(static_cast<topo::LinkId>(l));
        dst = mesh_.link_target(static_cast<topo::LinkId>(l));
      } else if (l < mesh_links_ + 2 * std::size_t{n_}) {
        src = dst = static_cast<std::int64_t>((l - mesh_links_) % n_);
      } else {
        src = 0;
        dst = n_;
      }
      w->add_link(traces::Link{static_cast<std::int64_t>(static_cast<std::size_t>(k) * links_per_net() + l),
                               net_name(static_cast<Net>(k)), src, dst, link_name(l)});
    }
  }
}

double MeshTiming::zero_load_write_latency(std::uint32_t src, std::uint32_t dst) const {
  const double routers = static_cast<double>(route(src, dst).size()) + 1.0;
  return p_.write_overhead + p_.hop_latency * routers;
}

}  // namespace hopsim::epiphany::model
