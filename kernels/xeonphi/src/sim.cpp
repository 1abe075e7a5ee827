// Simulated transport: host and target in one process under a simulated
// clock. Every message and transfer is costed by the xeonphi offload model
// (models/xeonphi): the host's send (software + programmed-I/O writes of the
// message and its flag), the flight over PCIe (and the inter-socket link
// when the host thread sits on the far socket), the card's polling,
// dispatch and the function's declared compute at the card clock, the result
// message back; transfers by the card's DMA engines (reads for copy-in,
// posted writes for copy-out). The offloaded functions run for real, so the
// data are those of a native run.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends.hpp"
#include "hopsim/common/error.hpp"
#include "hopsim/xeonphi/model.hpp"

namespace ham::offload::detail {
namespace {

using hopsim::xeonphi::OffloadModel;

nlohmann::json overrides(const std::vector<std::string>& sets) {
  nlohmann::json j = nlohmann::json::object();
  for (const std::string& s : sets) {
    const auto eq = s.find('=');
    const std::string name = s.substr(0, eq), value = s.substr(eq + 1);
    // Numbers stay numbers; anything else ("90 ns") is parsed with its unit.
    char* end = nullptr;
    const double x = std::strtod(value.c_str(), &end);
    if (!value.empty() && end == value.c_str() + value.size()) j[name] = x;
    else j[name] = value;
  }
  return j;
}

// Simulated time is kept in whole picoseconds so that equal operations take
// exactly equal times (no rounding drift as the clock grows).
using ps_t = std::int64_t;
ps_t ps(double seconds) { return static_cast<ps_t>(std::llround(seconds * 1e12)); }

class SimRuntime final : public Runtime {
 public:
  explicit SimRuntime(const Options& o)
      : o_(o),
        model_(hopsim::xeonphi::load_machine(o.preset, overrides(o.sets)),
               hopsim::xeonphi::Placement{o.host_core}),
        ring_free_(o.buffers, 0) {}

  ~SimRuntime() override {
    for (auto& [p, size] : heap_) std::free(p);
  }

  node_t this_node() const override { return on_target_ ? 1 : 0; }
  node_t num_nodes() const override { return 2; }
  const Options& options() const override { return o_; }

  std::uint64_t send(node_t node, std::uint32_t key, const void* body, std::size_t body_size,
                     std::size_t result_size) override {
    if (on_target_) throw hopsim::Error("HAM: a function running on the target cannot offload further");
    check_node(node);
    if (sizeof(MsgHeader) + body_size > o_.message_size)
      throw hopsim::Error(fmt::format(
          "HAM active message of {} B (+{} B header) does not fit the message buffer of {} B (--ham-message-size); "
          "messages are not split: pass large data with put/get",
          body_size, sizeof(MsgHeader), o_.message_size));
    if (result_size > o_.message_size)
      throw hopsim::Error(fmt::format("HAM result of {} B does not fit the message buffer of {} B (--ham-message-size)",
                                      result_size, o_.message_size));
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
    host_t_ = std::max(host_t_, ring) + ps(model_.host_send_busy(body_size));
    const ps_t arrival = host_t_ + ps(model_.host_to_card_flight(body_size));
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
    p.message = true;
    const std::uint64_t ticket = next_ticket_++;
    pending_.emplace(ticket, std::move(p));
    return ticket;
  }

  bool test(std::uint64_t ticket) override {
    const Pending& p = find(ticket);
    host_t_ += ps(model_.machine().host.poll_period);  // one look at the flag
    return host_t_ >= p.ready;
  }

  void wait(std::uint64_t ticket, void* result, std::size_t result_size) override {
    auto it = pending_.find(ticket);
    if (it == pending_.end()) throw std::logic_error("HAM sim: unknown ticket");
    Pending p = std::move(it->second);
    pending_.erase(it);
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
    return transfer(model_.copy_in(bytes));
  }

  std::uint64_t get(node_t node, const void* src, void* dst, std::size_t bytes) override {
    check_node(node);
    check_heap(src, bytes, "get: the source");
    std::memcpy(dst, src, bytes);
    return transfer(model_.copy_out(bytes));
  }

  void* target_alloc(std::size_t bytes) override {
    const std::size_t need = (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64;
    if (heap_used_ + need > o_.card_memory)
      throw hopsim::Error(fmt::format("target heap exhausted: {} B more would exceed {} B (--ham-card-memory)", need,
                                      o_.card_memory));
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
    std::free(p);
    heap_.erase(it);
  }

  std::int64_t now_ps() override { return host_t_; }

  void charge_cycles(double cycles) override {
    if (!on_target_) throw hopsim::Error("charge_cycles() is for functions running on the target");
    charged_ += cycles;
  }

  void shutdown() override {}

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
  std::uint64_t transfer(double duration) {
    const ps_t start = std::max(host_t_, dma_free_);
    Pending p;
    p.ready = start + ps(duration);
    dma_free_ = p.ready;
    host_t_ += ps(model_.machine().host.rma_overhead);
    const std::uint64_t ticket = next_ticket_++;
    pending_.emplace(ticket, std::move(p));
    return ticket;
  }

  void check_node(node_t node) const {
    if (node != 1)
      throw hopsim::Error(fmt::format("HAM node {} does not exist: the targets are 1..1 (node 0 is the host)", node));
  }

  void check_heap(const void* p, std::size_t bytes, const char* what) const {
    const char* c = static_cast<const char*>(p);
    auto it = heap_.upper_bound(const_cast<void*>(p));
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
  std::map<void*, std::size_t> heap_;
  std::size_t heap_used_ = 0;
};

}  // namespace

std::unique_ptr<Runtime> make_sim_runtime(const Options& o) { return std::make_unique<SimRuntime>(o); }

}  // namespace ham::offload::detail
