// Simulated transport: host and target in one process under a simulated
// clock. Every message and transfer is costed by the xeonphi offload model
// (models/xeonphi): the host's send (software + programmed-I/O writes of the
// message and its flag), the flight over PCIe (and the inter-socket link
// when the host thread sits on the far socket), the card's polling,
// dispatch and the function's declared compute at the card clock, the result
// message back; transfers by the card's DMA engines (reads for copy-in,
// posted writes for copy-out). The offloaded functions run for real, so the
// data are those of a native run.
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "backends.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/strict_json.hpp"
#include "hopsim/traces/run_options.hpp"
#include "hopsim/traces/writer.hpp"
#include "hopsim/xeonphi/model/model.hpp"

namespace ham::offload::detail {
namespace {

using hopsim::xeonphi::model::OffloadModel;

// --ham-set NAME=VALUE as the scenario's --set parses it (numbers stay
// numbers; anything else, "90 ns", is parsed with its unit by the model).
nlohmann::json overrides(const std::vector<std::string>& sets) {
  nlohmann::json j = nlohmann::json::object();
  for (const std::string& s : sets) hopsim::apply_override(j, s);
  return j;
}

// Simulated time is kept in whole picoseconds so that equal operations take
// exactly equal times (no rounding drift as the clock grows).
using ps_t = std::int64_t;
ps_t ps(double seconds) { return static_cast<ps_t>(std::llround(seconds * 1e12)); }

// Records the simulated run into a hopsim trace (--ham-trace). Nodes: the
// host sockets, the root complex (on the card's socket), the card and its DMA
// engine; links: the inter-socket link both ways (net "qpi", latency only in
// the model, so no busy time), PCIe downstream and upstream (net "pcie").
// Times are card cycles. Transaction bytes are what the sender puts on the
// link as payload (message header + body + flag; DMA data rounded to whole
// lines); PCIe link counters carry the same bytes, the TLPs as packets and
// the serialisation time of the wire bytes (headers, framing, DLLPs) as busy.
class Tracer {
 public:
  static constexpr std::int64_t kRootComplex = 100;
  // Card k (1..N): node card(k) and its DMA engine dma(k); PCIe links
  // down(k) (root complex to card) and up(k).
  static std::int64_t card(node_t k) { return 200 + 2 * static_cast<std::int64_t>(k - 1); }
  static std::int64_t dma(node_t k) { return card(k) + 1; }
  static std::int64_t down(node_t k) { return 1 + 2 * static_cast<std::int64_t>(k - 1); }
  static std::int64_t up(node_t k) { return down(k) + 1; }

  Tracer(const Options& o, const OffloadModel& m, node_t cards) : m_(m), clock_(m.machine().card.clock) {
    const auto& h = m.machine().host;
    host_ = m.placement().socket(h);
    card_socket_ = h.card_socket;
    nlohmann::json sc;
    const auto& cl = command_line();
    sc["program"] = cl.empty() ? std::string("ham") : cl.front();
    nlohmann::json args = nlohmann::json::array();
    for (std::size_t i = 1; i < cl.size(); ++i)
      if (cl[i].rfind("--ham-", 0) != 0 &&
          !(cl[i - 1].rfind("--ham-", 0) == 0 && cl[i - 1].find('=') == std::string::npos))
        args.push_back(cl[i]);
    sc["arguments"] = args;
    sc["ham"] = {{"mode", "sim"},
                 {"preset", o.preset},
                 {"sets", o.sets},
                 {"host_core", o.host_core},
                 {"targets", cards},
                 {"message_size", o.message_size},
                 {"buffers", o.buffers},
                 {"card_memory", o.card_memory},
                 {"trace_detail", o.trace_detail}};
    auto meta = hopsim::traces::run_meta("xeonphi", sc.dump(), m.machine().name, "sim", 0, clock_);
    meta.extra["clock"] = "card";
    meta.extra["host_socket"] = std::to_string(host_);
    const auto detail = hopsim::traces::parse_detail(o.trace_detail);
    if (!detail)
      throw hopsim::ConfigError(
          fmt::format("--ham-trace-detail: '{}' is not counters, transactions or hops", o.trace_detail));
    try {
      w_ = std::make_unique<hopsim::traces::TraceWriter>(
          o.trace, meta, *detail,
          hopsim::traces::run_writer_options(o.trace_window, o.trace_max_size, clock_, "--ham-trace-window"));
    } catch (const std::exception& e) {
      throw hopsim::ConfigError(fmt::format("--ham-trace: cannot write the trace {}: {}", o.trace, e.what()));
    }
    for (int s = 0; s < h.sockets; ++s)
      w_->add_node({s, fmt::format("host socket {}", s), "host", fmt::format("[\"host\",\"socket{}\"]", s)});
    w_->add_node({kRootComplex, "root complex", "root-complex",
                  fmt::format("[\"host\",\"socket{}\",\"root-complex\"]", card_socket_)});
    for (node_t k = 1; k <= cards; ++k) {
      // One card keeps the plain names; several are numbered as their nodes.
      const std::string c = cards == 1 ? std::string("card") : fmt::format("card {}", k);
      const std::string path = cards == 1 ? std::string("\"card\"") : fmt::format("\"card{}\"", k);
      w_->add_node({card(k), c, "card", fmt::format("[{}]", path)});
      w_->add_node({dma(k), c + " DMA engine", "dma", fmt::format("[{},\"dma\"]", path)});
    }
    for (int a = 0; a < h.sockets; ++a)
      for (int b = 0; b < h.sockets; ++b)
        if (a != b) w_->add_link({qpi(a, b), "qpi", a, b, fmt::format("socket {} -> socket {}", a, b)});
    for (node_t k = 1; k <= cards; ++k) {
      const std::string of = cards == 1 ? std::string() : fmt::format(" to card {}", k);
      w_->add_link({down(k), "pcie", kRootComplex, card(k), "PCIe downstream" + of});
      w_->add_link({up(k), "pcie", card(k), kRootComplex, "PCIe upstream" + of});
    }
  }

  static std::int64_t qpi(int a, int b) { return 1000 + 64 * a + b; }
  double cyc(ps_t t) const { return static_cast<double>(t) * 1e-12 * clock_; }
  double cyc_s(double seconds) const { return seconds * clock_; }
  std::int64_t host() const { return host_; }
  bool far() const { return host_ != card_socket_; }
  hopsim::traces::TraceWriter& writer() { return *w_; }

  // One transfer over PCIe (down: host to card) and, when the host thread
  // sits on the far socket, the inter-socket link. `pcie_at`: when it enters
  // the PCIe link; `pcie_end`: when its last byte reaches the other side.
  // `k`: the card whose link it crosses.
  void record(const char* kind, node_t k, std::int64_t src, std::int64_t dst, bool down, std::uint64_t bytes,
              const hopsim::xeonphi::model::TlpCount& wire, ps_t inject, ps_t arrive, ps_t pcie_at, ps_t pcie_end) {
    arrive = std::max(arrive, inject);
    pcie_end = std::max(pcie_end, pcie_at);
    const auto& link = m_.link();
    const double fwd_busy = cyc_s(link.serialise(wire.forward_wire_bytes));
    const double rev_busy = cyc_s(link.serialise(wire.reverse_wire_bytes));
    const std::int64_t fwd = down ? this->down(k) : up(k), rev = down ? up(k) : this->down(k);
    const auto b = static_cast<std::int64_t>(bytes);
    w_->add_link_sample(fwd, cyc(pcie_at), b, fwd_busy, 0, static_cast<std::int64_t>(wire.data_tlps));
    if (wire.request_tlps || wire.reverse_wire_bytes)
      w_->add_link_sample(rev, cyc(pcie_at), 0, rev_busy, 0, static_cast<std::int64_t>(wire.request_tlps));
    const std::int64_t hop_qpi = down ? qpi(host_, card_socket_) : qpi(card_socket_, host_);
    // The inter-socket crossing: before PCIe going down, after it coming up.
    const ps_t q0 = down ? inject : pcie_end, q1 = down ? pcie_at : std::max(arrive, pcie_end);
    if (far()) w_->add_link_sample(hop_qpi, cyc(q0), b, 0, 0, static_cast<std::int64_t>(wire.data_tlps));
    if (!w_->records_transactions()) return;
    const std::int64_t id = w_->add_transaction({0, src, dst, b, cyc(inject), cyc(arrive), kind});
    if (!w_->records_hops()) return;
    if (far() && down) w_->add_hop({id, hop_qpi, cyc(q0), cyc(std::max(q1, q0))});
    w_->add_hop({id, fwd, cyc(pcie_at), cyc(pcie_end)});
    if (far() && !down) w_->add_hop({id, hop_qpi, cyc(q0), cyc(std::max(q1, q0))});
  }

  void state(std::int64_t pe, hopsim::traces::PeState st, ps_t a, ps_t b) {
    if (b > a && w_->records_transactions()) w_->add_pe_state(pe, st, cyc(a), cyc(b));
  }

  void finish() { w_->finish(); }
  void fail(const std::string& reason) { w_->mark_incomplete(reason); }

 private:
  const OffloadModel& m_;
  double clock_;
  int host_ = 0, card_socket_ = 0;
  std::unique_ptr<hopsim::traces::TraceWriter> w_;
};

class SimRuntime final : public Runtime {
 public:
  explicit SimRuntime(const Options& o)
      : o_(o),
        model_(hopsim::xeonphi::model::load_machine(o.preset, overrides(o.sets)),
               hopsim::xeonphi::model::Placement{o.host_core}),
        cards_(static_cast<std::size_t>(std::max(1, o.targets))) {
    for (Card& c : cards_) c.ring_free.assign(o.buffers, 0);
    if (!o.trace.empty()) trace_ = std::make_unique<Tracer>(o_, model_, num_nodes() - 1);
  }

  ~SimRuntime() override {
    for (auto& [p, block] : heap_) std::free(p);  // NOLINT(cppcoreguidelines-no-malloc): target heap blocks
  }
  SimRuntime(const SimRuntime&) = delete;
  SimRuntime& operator=(const SimRuntime&) = delete;

  node_t this_node() const override { return on_target_; }
  node_t num_nodes() const override { return static_cast<node_t>(cards_.size()) + 1; }
  std::string node_name(node_t node) const override {
    // As natively, so that a program printing names prints the same in both modes.
    if (node != 0) return fmt::format("target {}", node);
    std::array<char, 256> h{};
    return gethostname(h.data(), h.size() - 1) == 0 ? std::string(h.data()) : std::string("host");
  }
  const Options& options() const override { return o_; }

  std::uint64_t send(node_t node, std::uint32_t key, const void* body, std::size_t body_size,
                     std::size_t result_size) override {
    if (on_target_ != 0) throw hopsim::Error("HAM: a function running on a target cannot offload further");
    check_node(node);
    check_message_fits(o_, body_size, result_size);
    std::size_t live = 0;
    for (const auto& [t, p] : pending_) live += p.message ? 1 : 0;
    if (live >= o_.buffers)
      throw hopsim::Error(fmt::format(
          "HAM: all {} result slots belong to futures not yet collected with get(); call get() on earlier futures "
          "(or raise --ham-buffers)",
          o_.buffers));

    // The host may reuse a request buffer once the card has consumed it.
    Card& card = card_of(node);
    ps_t& ring = card.ring_free[card.sent % o_.buffers];
    ++card.sent;
    const ps_t send_start = std::max(host_t_, ring);
    host_t_ = send_start + ps(model_.host_send_busy(body_size));
    const ps_t arrival = host_t_ + ps(model_.host_to_card_flight(body_size));
    if (trace_) {
      const auto& m = model_.machine();
      const ps_t pio = send_start + ps(m.host.send_overhead);
      trace_->record("message", node, trace_->host(), Tracer::card(node), true,
                     m.scif.message_header + body_size + m.scif.flag_bytes, pio_wire(m.scif.message_header + body_size),
                     pio, arrival, pio + ps(model_.crossing()), host_t_ + ps(model_.crossing() + m.pcie.link_latency));
    }
    const ps_t start = std::max(arrival, card.free);

    Pending p;
    p.result.assign(result_size, 0);
    on_target_ = node;
    charged_ = 0;
    try {
      Registry::handler(key)(body, p.result.data());
    } catch (const std::exception& e) {
      p.failed = true;
      p.error = e.what();
    }
    on_target_ = 0;
    const ps_t done = start + ps(model_.card_execute(charged_));
    ring = done;
    card.free = done + ps(model_.card_send_busy(result_size));
    p.ready = card.free + ps(model_.card_to_host_flight(result_size));
    p.node = node;
    if (trace_) {
      const auto& m = model_.machine();
      trace_->state(Tracer::card(node), hopsim::traces::PeState::compute, start, done);
      const ps_t pio = done + ps(m.card.send_cycles / m.card.clock);
      trace_->record("result", node, Tracer::card(node), trace_->host(), false,
                     m.scif.message_header + result_size + m.scif.flag_bytes,
                     pio_wire(m.scif.message_header + result_size), pio, p.ready, pio,
                     card.free + ps(m.pcie.link_latency));
    }
    p.message = true;
    const std::uint64_t ticket = next_ticket_++;
    pending_.emplace(ticket, std::move(p));
    return ticket;
  }

  bool test(std::uint64_t ticket) override {
    const Pending& p = find(ticket);
    const ps_t before = host_t_;
    host_t_ += ps(model_.machine().host.poll_period);  // one look at the flag
    if (trace_) trace_->state(trace_->host(), hopsim::traces::PeState::polling, before, host_t_);
    return host_t_ >= p.ready;
  }

  void wait(std::uint64_t ticket, void* result, std::size_t result_size) override {
    auto it = pending_.find(ticket);
    if (it == pending_.end()) throw std::logic_error("HAM sim: unknown ticket");
    Pending p = std::move(it->second);
    pending_.erase(it);
    // A transfer's times are final now: later transfers start after it completed.
    if (trace_ && p.transfer) trace_transfer(p.node, p.start, p.ready, p.in, p.bytes);
    if (trace_) trace_->state(trace_->host(), hopsim::traces::PeState::polling, host_t_, p.ready);
    host_t_ = std::max(host_t_, p.ready) + (p.message ? ps(model_.host_receive()) : 0);
    if (p.failed) throw hopsim::KernelError(fmt::format("offloaded function failed on node {}: {}", p.node, p.error));
    if (result_size) std::memcpy(result, p.result.data(), std::min(result_size, p.result.size()));
  }

  std::uint64_t put(const void* src, node_t node, void* dst, std::size_t bytes) override {
    check_node(node);
    check_heap(node, dst, bytes, "put: the destination");
    std::memcpy(dst, src, bytes);
    return transfer(node, true, bytes);
  }

  std::uint64_t get(node_t node, const void* src, void* dst, std::size_t bytes) override {
    check_node(node);
    check_heap(node, src, bytes, "get: the source");
    std::memcpy(dst, src, bytes);
    return transfer(node, false, bytes);
  }

  void* target_alloc(std::size_t bytes) override {
    if (on_target_ == 0) throw hopsim::Error("target_alloc runs on a target");
    Card& card = card_of(on_target_);
    const std::size_t need = (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64;
    if (card.heap_used + need > o_.card_memory)
      throw hopsim::Error(
          fmt::format("target heap exhausted: {} B more would exceed {} B (--ham-card-memory)", need, o_.card_memory));
    void* p = std::aligned_alloc(64, need);
    if (!p) throw hopsim::Error("target heap: host allocation failed");
    heap_[p] = Block{need, on_target_};
    card.heap_used += need;
    return p;
  }

  void target_free(void* p) override {
    const auto it = heap_.find(p);
    if (it == heap_.end() || it->second.node != on_target_)
      throw hopsim::Error("free: pointer was not allocated on this target");
    card_of(on_target_).heap_used -= it->second.bytes;
    std::free(p);  // NOLINT(cppcoreguidelines-no-malloc): the target heap hands out aligned_alloc blocks
    heap_.erase(it);
  }

  std::int64_t now_ps() override { return host_t_; }

  void charge_cycles(double cycles) override {
    if (on_target_ == 0) throw hopsim::Error("charge_cycles() is for functions running on a target");
    charged_ += cycles;
  }

  void shutdown() override {
    if (trace_) {
      for (const auto& [ticket, p] : pending_)
        if (p.transfer) trace_transfer(p.node, p.start, p.ready, p.in, p.bytes);
      std::unique_ptr<Tracer> t = std::move(trace_);
      t->finish();
    }
  }

  void run_failed(const std::string& reason) override {
    if (trace_) trace_->fail(reason);
  }

  std::string describe() const override {
    const auto& m = model_.machine();
    const auto& link = model_.link();
    const int core = o_.host_core;
    return fmt::format(
        "# HOPSIM_HAM_MODE              sim (modelled PCIe offload path, {} card(s))\n"
        "# HOPSIM_HAM_PRESET            {}\n"
        "# HOPSIM_HAM_PCIE              Gen{} x{}, {:.3f} GB/s raw, {:.3f} GB/s payload per direction\n"
        "# HOPSIM_HAM_HOST_CORE         {} (socket {}, {} the card)\n"
        "# HOPSIM_HAM_BUFFERS           {}",
        cards_.size(), m.name, m.pcie.gen, m.pcie.lanes, link.raw_bytes_per_s() / 1e9, link.payload_bytes_per_s() / 1e9,
        core < 0 ? std::string("not pinned") : std::to_string(core), model_.placement().socket(m.host),
        model_.placement().far(m.host) ? "far from" : "near", o_.buffers);
  }

 private:
  struct Pending {
    ps_t ready = 0;
    node_t node = 1;
    // A DMA transfer: when the card's engines took it, its direction and size.
    bool transfer = false, in = false;
    ps_t start = 0;
    std::size_t bytes = 0;
    bool message = false;
    bool failed = false;
    std::string error;
    std::vector<unsigned char> result;
  };

  const Pending& find(std::uint64_t ticket) const {
    const auto it = pending_.find(ticket);
    if (it == pending_.end()) throw std::logic_error("HAM sim: unknown ticket");
    return it->second;
  }

  // Card k's state: when its core is free, its request
  // buffers, its heap in use, the messages sent to it.
  struct Card {
    ps_t free = 0;
    std::vector<ps_t> ring_free;
    std::size_t heap_used = 0;
    std::uint64_t sent = 0;
  };
  struct Block {
    std::size_t bytes = 0;
    node_t node = 1;
  };
  Card& card_of(node_t k) { return cards_[static_cast<std::size_t>(k - 1)]; }

  // A DMA transfer started now: the host is busy for the driver call. Each
  // card's engines serve one transfer at a time; transfers of several cards
  // share the root complex and, from the far socket, the inter-socket link
  // (model::share_dma). A new transfer may slow those still moving data, so
  // every transfer since the path was last idle is scheduled again and the
  // pending ones get their new completion times.
  std::uint64_t transfer(node_t node, bool in, std::size_t bytes) {
    bool idle = true;
    for (std::size_t i = 0; i < flows_.size(); ++i) idle = idle && flow_ps(times_[i].ready) <= host_t_;
    if (idle) {
      flows_.clear();
      flow_tickets_.clear();
      flow_base_ = host_t_;
    }
    hopsim::xeonphi::model::DmaFlow f;
    f.card = node;
    f.issue = static_cast<double>(host_t_ - flow_base_) * 1e-12;
    f.phases = model_.dma_phases(bytes, in);
    f.down = in;
    f.crosses_sockets = model_.placement().far(model_.machine().host);
    flows_.push_back(f);
    const std::uint64_t ticket = next_ticket_++;
    flow_tickets_.push_back(ticket);
    Pending p;
    p.node = node;
    p.transfer = true;
    p.in = in;
    p.bytes = bytes;
    pending_.emplace(ticket, std::move(p));
    times_ = hopsim::xeonphi::model::share_dma(flows_, model_.machine().host);
    for (std::size_t i = 0; i < flows_.size(); ++i) {
      const auto it = pending_.find(flow_tickets_[i]);
      if (it == pending_.end()) continue;
      it->second.start = flow_ps(times_[i].start);
      it->second.ready = flow_ps(times_[i].ready);
    }
    host_t_ += ps(model_.machine().host.rma_overhead);
    return ticket;
  }
  ps_t flow_ps(double seconds) const { return flow_base_ + ps(seconds); }

  // Wire traffic of a message of `bytes` (header included) and its flag, as programmed-I/O writes.
  hopsim::xeonphi::model::TlpCount pio_wire(std::uint64_t bytes) const {
    const auto& link = model_.link();
    const auto& sc = model_.machine().scif;
    hopsim::xeonphi::model::TlpCount a = link.write_tlps(bytes, sc.pio_tlp_bytes),
                                     f = link.write_tlps(sc.flag_bytes, sc.pio_tlp_bytes);
    a.data_tlps += f.data_tlps;
    a.request_tlps += f.request_tlps;
    a.payload_bytes += f.payload_bytes;
    a.forward_wire_bytes += f.forward_wire_bytes;
    a.reverse_wire_bytes += f.reverse_wire_bytes;
    a.dllps += f.dllps;
    return a;
  }

  // A DMA transfer as three transactions: the host's doorbell to the card,
  // the data (copy-in: the card's DMA reads host memory, completions travel
  // down; copy-out: it writes host memory), the completion flag to the host.
  // Their times split the model's copy_in/copy_out figure the same way.
  void trace_transfer(node_t k, ps_t start, ps_t ready, bool in, std::size_t bytes) {
    const auto& m = model_.machine();
    const auto& link = model_.link();
    const ps_t x = ps(model_.crossing());
    const ps_t door = start + ps(m.host.rma_overhead);
    const ps_t door_end = door + ps(link.write_time(m.scif.flag_bytes, m.scif.pio_tlp_bytes)) + x;
    const auto door_wire = link.write_tlps(m.scif.flag_bytes, m.scif.pio_tlp_bytes);
    trace_->record("doorbell", k, trace_->host(), Tracer::card(k), true, m.scif.flag_bytes, door_wire, door, door_end,
                   door + x, door_end);
    const auto flag_wire = link.write_tlps(m.scif.flag_bytes);
    const double completion = model_.dma_phases(bytes, in).after;
    const ps_t data_start = door_end + ps(m.card.dma_setup);
    const ps_t data_end = std::max(data_start, ready - ps(completion));
    const std::uint64_t a = m.card.dma_alignment;
    const std::uint64_t moved = (bytes + a - 1) / a * a;
    if (in)
      trace_->record("put", k, trace_->host(), Tracer::dma(k), true, moved, link.read_tlps(moved), data_start, data_end,
                     data_start + x, data_end);
    else
      trace_->record("get", k, Tracer::dma(k), trace_->host(), false, moved, link.write_tlps(moved), data_start,
                     data_end, data_start, data_end - x);
    trace_->record("dma-done", k, Tracer::dma(k), trace_->host(), false, m.scif.flag_bytes, flag_wire, data_end, ready,
                   data_end, ready - x);
    trace_->state(Tracer::dma(k), hopsim::traces::PeState::compute, data_start, data_end);
  }

  void check_node(node_t node) const {
    if (node < 1 || node >= num_nodes())
      throw hopsim::Error(
          fmt::format("HAM node {} does not exist: the targets are 1..{} (node 0 is the host)", node, num_nodes() - 1));
  }

  void check_heap(node_t node, const void* p, std::size_t bytes, const char* what) const {
    const char* c = static_cast<const char*>(p);
    auto it = heap_.upper_bound(p);
    if (it != heap_.begin()) {
      --it;
      const char* b = static_cast<const char*>(it->first);
      if (c >= b && c + bytes <= b + it->second.bytes && it->second.node == node) return;
    }
    throw hopsim::Error(fmt::format("{} ({} B) is not inside memory allocated on target {}", what, bytes, node));
  }

  Options o_;
  OffloadModel model_;
  std::vector<Card> cards_;  // card k at [k - 1]
  ps_t host_t_ = 0;
  double charged_ = 0;
  node_t on_target_ = 0;  // the card whose function runs now; 0: the host runs
  std::uint64_t next_ticket_ = 0;
  // DMA transfers since the shared path was last idle (times relative to flow_base_).
  std::vector<hopsim::xeonphi::model::DmaFlow> flows_;
  std::vector<hopsim::xeonphi::model::DmaTimes> times_;
  std::vector<std::uint64_t> flow_tickets_;
  ps_t flow_base_ = 0;
  std::unordered_map<std::uint64_t, Pending> pending_;
  std::map<void*, Block, std::less<>> heap_;  // every card's heap blocks
  std::unique_ptr<Tracer> trace_;             // last: refers to model_
};

}  // namespace

std::unique_ptr<Runtime> make_sim_runtime(const Options& o) { return std::make_unique<SimRuntime>(o); }

}  // namespace ham::offload::detail
