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

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "backends.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/strict_json.hpp"
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
  static constexpr std::int64_t kRootComplex = 100, kCard = 200, kDma = 201;
  static constexpr std::int64_t kPcieDown = 1, kPcieUp = 2;

  Tracer(const Options& o, const OffloadModel& m) : m_(m), clock_(m.machine().card.clock) {
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
      w_ = std::make_unique<hopsim::traces::TraceWriter>(o.trace, meta, *detail);
    } catch (const std::exception& e) {
      throw hopsim::ConfigError(fmt::format("--ham-trace: cannot write the trace {}: {}", o.trace, e.what()));
    }
    for (int s = 0; s < h.sockets; ++s)
      w_->add_node({s, fmt::format("host socket {}", s), "host", fmt::format("[\"host\",\"socket{}\"]", s)});
    w_->add_node({kRootComplex, "root complex", "root-complex",
                  fmt::format("[\"host\",\"socket{}\",\"root-complex\"]", card_socket_)});
    w_->add_node({kCard, "card", "card", "[\"card\"]"});
    w_->add_node({kDma, "card DMA engine", "dma", "[\"card\",\"dma\"]"});
    for (int a = 0; a < h.sockets; ++a)
      for (int b = 0; b < h.sockets; ++b)
        if (a != b) w_->add_link({qpi(a, b), "qpi", a, b, fmt::format("socket {} -> socket {}", a, b)});
    w_->add_link({kPcieDown, "pcie", kRootComplex, kCard, "PCIe downstream"});
    w_->add_link({kPcieUp, "pcie", kCard, kRootComplex, "PCIe upstream"});
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
  void record(const char* kind, std::int64_t src, std::int64_t dst, bool down, std::uint64_t bytes,
              const hopsim::xeonphi::model::TlpCount& wire, ps_t inject, ps_t arrive, ps_t pcie_at, ps_t pcie_end) {
    arrive = std::max(arrive, inject);
    pcie_end = std::max(pcie_end, pcie_at);
    const auto& link = m_.link();
    const double fwd_busy = cyc_s(link.serialise(wire.forward_wire_bytes));
    const double rev_busy = cyc_s(link.serialise(wire.reverse_wire_bytes));
    const std::int64_t fwd = down ? kPcieDown : kPcieUp, rev = down ? kPcieUp : kPcieDown;
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
        ring_free_(o.buffers, 0) {
    if (!o.trace.empty()) trace_ = std::make_unique<Tracer>(o_, model_);
  }

  ~SimRuntime() override {
    for (auto& [p, size] : heap_) std::free(p);  // NOLINT(cppcoreguidelines-no-malloc): target heap blocks
  }
  SimRuntime(const SimRuntime&) = delete;
  SimRuntime& operator=(const SimRuntime&) = delete;

  node_t this_node() const override { return on_target_ ? 1 : 0; }
  node_t num_nodes() const override { return 2; }
  const Options& options() const override { return o_; }

  std::uint64_t send(node_t node, std::uint32_t key, const void* body, std::size_t body_size,
                     std::size_t result_size) override {
    if (on_target_) throw hopsim::Error("HAM: a function running on the target cannot offload further");
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
    ps_t& ring = ring_free_[sent_ % o_.buffers];
    ++sent_;
    const ps_t send_start = std::max(host_t_, ring);
    host_t_ = send_start + ps(model_.host_send_busy(body_size));
    const ps_t arrival = host_t_ + ps(model_.host_to_card_flight(body_size));
    if (trace_) {
      const auto& m = model_.machine();
      const ps_t pio = send_start + ps(m.host.send_overhead);
      trace_->record("message", trace_->host(), Tracer::kCard, true,
                     m.scif.message_header + body_size + m.scif.flag_bytes, pio_wire(m.scif.message_header + body_size),
                     pio, arrival, pio + ps(model_.crossing()), host_t_ + ps(model_.crossing() + m.pcie.link_latency));
    }
    const ps_t start = std::max(arrival, card_free_);

    Pending p;
    p.result.assign(result_size, 0);
    on_target_ = true;
    charged_ = 0;
    try {
      Registry::handler(key)(body, p.result.data());
    } catch (const std::exception& e) {
      p.failed = true;
      p.error = e.what();
    }
    on_target_ = false;
    const ps_t done = start + ps(model_.card_execute(charged_));
    ring = done;
    card_free_ = done + ps(model_.card_send_busy(result_size));
    p.ready = card_free_ + ps(model_.card_to_host_flight(result_size));
    if (trace_) {
      const auto& m = model_.machine();
      trace_->state(Tracer::kCard, hopsim::traces::PeState::compute, start, done);
      const ps_t pio = done + ps(m.card.send_cycles / m.card.clock);
      trace_->record(
          "result", Tracer::kCard, trace_->host(), false, m.scif.message_header + result_size + m.scif.flag_bytes,
          pio_wire(m.scif.message_header + result_size), pio, p.ready, pio, card_free_ + ps(m.pcie.link_latency));
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
    if (trace_) trace_->state(trace_->host(), hopsim::traces::PeState::polling, host_t_, p.ready);
    host_t_ = std::max(host_t_, p.ready) + (p.message ? ps(model_.host_receive()) : 0);
    if (p.failed) throw hopsim::KernelError("offloaded function failed on node 1: " + p.error);
    if (result_size) std::memcpy(result, p.result.data(), std::min(result_size, p.result.size()));
  }

  void discard(std::uint64_t ticket) noexcept override {
    // The call has run (its effects on the target are there); its result is dropped.
    pending_.erase(ticket);
  }

  std::uint64_t put(const void* src, node_t node, void* dst, std::size_t bytes) override {
    check_node(node);
    check_heap(dst, bytes, "put: the destination");
    std::memcpy(dst, src, bytes);
    return transfer(model_.copy_in(bytes), true, bytes);
  }

  std::uint64_t get(node_t node, const void* src, void* dst, std::size_t bytes) override {
    check_node(node);
    check_heap(src, bytes, "get: the source");
    std::memcpy(dst, src, bytes);
    return transfer(model_.copy_out(bytes), false, bytes);
  }

  void* target_alloc(std::size_t bytes) override {
    const std::size_t need = (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64;
    if (heap_used_ + need > o_.card_memory)
      throw hopsim::Error(
          fmt::format("target heap exhausted: {} B more would exceed {} B (--ham-card-memory)", need, o_.card_memory));
    void* p = std::aligned_alloc(64, need);
    if (!p) throw hopsim::Error("target heap: host allocation failed");
    heap_[p] = need;
    heap_used_ += need;
    return p;
  }

  void target_free(void* p) override {
    const auto it = heap_.find(p);
    if (it == heap_.end()) throw hopsim::Error("free: pointer was not allocated on this target");
    heap_used_ -= it->second;
    std::free(p);  // NOLINT(cppcoreguidelines-no-malloc): the target heap hands out aligned_alloc blocks
    heap_.erase(it);
  }

  std::int64_t now_ps() override { return host_t_; }

  void charge_cycles(double cycles) override {
    if (!on_target_) throw hopsim::Error("charge_cycles() is for functions running on the target");
    charged_ += cycles;
  }

  void shutdown() override {
    if (trace_) {
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
        "# HOPSIM_HAM_MODE              sim (modelled PCIe offload path)\n"
        "# HOPSIM_HAM_PRESET            {}\n"
        "# HOPSIM_HAM_PCIE              Gen{} x{}, {:.3f} GB/s raw, {:.3f} GB/s payload per direction\n"
        "# HOPSIM_HAM_HOST_CORE         {} (socket {}, {} the card)\n"
        "# HOPSIM_HAM_BUFFERS           {}",
        m.name, m.pcie.gen, m.pcie.lanes, link.raw_bytes_per_s() / 1e9, link.payload_bytes_per_s() / 1e9,
        core < 0 ? std::string("not pinned") : std::to_string(core), model_.placement().socket(m.host),
        model_.placement().far(m.host) ? "far from" : "near", o_.buffers);
  }

 private:
  struct Pending {
    ps_t ready = 0;
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

  // A DMA transfer started now: the host is busy for the driver call; the
  // engines serve one transfer at a time.
  std::uint64_t transfer(double duration, bool in, std::size_t bytes) {
    const ps_t start = std::max(host_t_, dma_free_);
    Pending p;
    p.ready = start + ps(duration);
    if (trace_) trace_transfer(start, p.ready, in, bytes);
    dma_free_ = p.ready;
    host_t_ += ps(model_.machine().host.rma_overhead);
    const std::uint64_t ticket = next_ticket_++;
    pending_.emplace(ticket, std::move(p));
    return ticket;
  }

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
  void trace_transfer(ps_t start, ps_t ready, bool in, std::size_t bytes) {
    const auto& m = model_.machine();
    const auto& link = model_.link();
    const ps_t x = ps(model_.crossing());
    const ps_t door = start + ps(m.host.rma_overhead);
    const ps_t door_end = door + ps(link.write_time(m.scif.flag_bytes, m.scif.pio_tlp_bytes)) + x;
    const auto door_wire = link.write_tlps(m.scif.flag_bytes, m.scif.pio_tlp_bytes);
    trace_->record("doorbell", trace_->host(), Tracer::kCard, true, m.scif.flag_bytes, door_wire, door, door_end,
                   door + x, door_end);
    const auto flag_wire = link.write_tlps(m.scif.flag_bytes);
    const double completion = (in ? model_.card_to_host_flight(m.scif.flag_bytes) : 0.5 * m.host.poll_period) +
                              link.serialise(flag_wire.forward_wire_bytes);
    const ps_t data_start = door_end + ps(m.card.dma_setup);
    const ps_t data_end = std::max(data_start, ready - ps(completion));
    const std::uint64_t a = m.card.dma_alignment;
    const std::uint64_t moved = (bytes + a - 1) / a * a;
    if (in)
      trace_->record("put", trace_->host(), Tracer::kDma, true, moved, link.read_tlps(moved), data_start, data_end,
                     data_start + x, data_end);
    else
      trace_->record("get", Tracer::kDma, trace_->host(), false, moved, link.write_tlps(moved), data_start, data_end,
                     data_start, data_end - x);
    trace_->record("dma-done", Tracer::kDma, trace_->host(), false, m.scif.flag_bytes, flag_wire, data_end, ready,
                   data_end, ready - x);
    trace_->state(Tracer::kDma, hopsim::traces::PeState::compute, data_start, data_end);
  }

  void check_node(node_t node) const {
    if (node != 1)
      throw hopsim::Error(fmt::format("HAM node {} does not exist: the targets are 1..1 (node 0 is the host)", node));
  }

  void check_heap(const void* p, std::size_t bytes, const char* what) const {
    const char* c = static_cast<const char*>(p);
    auto it = heap_.upper_bound(p);
    if (it != heap_.begin()) {
      --it;
      const char* b = static_cast<const char*>(it->first);
      if (c >= b && c + bytes <= b + it->second) return;
    }
    throw hopsim::Error(fmt::format("{} ({} B) is not inside memory allocated on the target", what, bytes));
  }

  Options o_;
  OffloadModel model_;
  std::vector<ps_t> ring_free_;
  ps_t host_t_ = 0, card_free_ = 0, dma_free_ = 0;
  double charged_ = 0;
  bool on_target_ = false;
  std::uint64_t sent_ = 0, next_ticket_ = 0;
  std::unordered_map<std::uint64_t, Pending> pending_;
  std::map<void*, std::size_t, std::less<>> heap_;
  std::size_t heap_used_ = 0;
  std::unique_ptr<Tracer> trace_;  // last: refers to model_
};

}  // namespace

std::unique_ptr<Runtime> make_sim_runtime(const Options& o) { return std::make_unique<SimRuntime>(o); }

}  // namespace ham::offload::detail
