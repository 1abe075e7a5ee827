#include "hopsim/bgq/model/flow_torus.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "hopsim/bgq/model/mu.hpp"
#include "hopsim/network/model/scenario.hpp"

namespace hopsim::bgq::model {

network::model::GenericNetwork FlowTorus::network_for(const Params& p) {
  const nlohmann::json doc = {
      {"network", {{"preset", "bgq-torus"}, {"dims", std::vector<int>(p.dims.begin(), p.dims.end())}}}};
  return network::model::load_traffic_scenario(doc, "machine.torus_flow_control").config.generic;
}

FlowTorus::FlowTorus(const Params& p, const network::model::GenericNetwork& g)
    : net_(g, 1),
      tpc_(g.link_width / p.link_bandwidth * kTicksPerCycle),
      desc_lat_(to_ticks(p.mu_descriptor_latency)),
      desc_ovh_(to_ticks(p.mu_descriptor_overhead)),
      eng_tpb_(kTicksPerCycle / p.mu_engine_bandwidth),
      rx_tpb_(kTicksPerCycle / p.mu_rx_bandwidth),
      engines_(net_.nodes()),
      rx_free_(net_.nodes(), 0),
      next_ch_(net_.nodes(), 0) {
  if (g.endpoint_channels != 2 * kDims)
    throw std::invalid_argument("BG/Q torus with flow control: the network needs one injection channel per link (10)");
}

std::uint32_t FlowTorus::channels_of(std::uint64_t torus_fifo_map) {
  std::uint32_t ch = 0;
  for (std::uint32_t d = 0; d < static_cast<std::uint32_t>(kDims); ++d) {
    if ((torus_fifo_map & (MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP >> (2 * d))) != 0) ch |= 1u << (2 * d);
    if ((torus_fifo_map & (MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AM >> (2 * d))) != 0) ch |= 1u << (2 * d + 1);
  }
  return ch != 0 ? ch : (1u << (2 * kDims)) - 1;
}

void FlowTorus::on_link(std::function<void(const LinkUse&)> f) {
  if (!f) {
    net_.on_hop(nullptr);
    return;
  }
  net_.on_hop([this, f = std::move(f)](const network::model::flow::FlowNet::Hop& h) {
    // FlowNet's ports are 2 x dimension (+ 1 for the - way), as link_index numbers a node's links.
    const Tick chunks = static_cast<Tick>(std::llround(net_.flits(h.bytes) * tpc_));
    f(LinkUse{h.tag, link_index(h.router, static_cast<int>(h.port / 2), h.port % 2 == 0 ? +1 : -1), h.bytes,
              tick_of(h.asked), tick_of(h.head), tick_of(h.tail + 1), chunks});
  });
}

Tick FlowTorus::tick_of(std::int64_t cycle) const { return static_cast<Tick>(std::llround(cycle * tpc_)); }

std::int64_t FlowTorus::cycle_of(Tick t) const {
  auto c = static_cast<std::int64_t>(std::ceil(static_cast<double>(t) / tpc_));
  while (c > 0 && tick_of(c - 1) >= t) --c;  // rounding
  while (tick_of(c) < t) ++c;
  return c;
}

Tick FlowTorus::inject(std::uint32_t id, std::uint32_t src, std::uint32_t fifo, std::uint32_t dst, std::uint64_t length,
                       Tick t, bool dynamic, std::uint64_t torus_fifo_map) {
  const std::uint32_t chans = channels_of(torus_fifo_map);
  auto& engines = engines_[src];
  auto it = std::find_if(engines.begin(), engines.end(), [&](const auto& e) { return e.first == fifo; });
  if (it == engines.end()) it = engines.insert(engines.end(), {fifo, Tick{0}});
  Tick cur = std::max(t + desc_lat_, it->second);
  const std::uint64_t packets = packetise(length).packets;
  if (desc_.size() <= id) desc_.resize(id + 1);
  desc_[id] = Desc{static_cast<std::uint32_t>(packets), 0};
  for (std::uint64_t i = 0; i < packets; ++i) {
    const std::uint32_t pay = packet_payload(length, i);
    cur += static_cast<Tick>(std::ceil(pay * eng_tpb_));
    ready_.push({cycle_of(cur), seq_++, src, dst, packet_wire_bytes(pay), id, chans, !dynamic});
  }
  it->second = cur + desc_ovh_;
  return it->second;
}

bool FlowTorus::step(Tick limit, const std::function<void(std::uint32_t, Tick)>& arrived) {
  bool any = false;
  const std::function<void(const network::model::flow::Delivered&)> done =
      [&](const network::model::flow::Delivered& d) {
        --open_;
        hops_ += static_cast<std::uint64_t>(d.hops);
        // The reception side writes the packet's payload chunks after its tail is in.
        const Tick in = tick_of(d.arrival);
        const Tick start = std::max(in, rx_free_[d.dst]);
        rx_free_[d.dst] = start + static_cast<Tick>(std::ceil((d.bytes - MUHWI_PACKET_HEADER_BYTES) * rx_tpb_));
        Desc& x = desc_[d.tag];
        x.last = std::max(x.last, rx_free_[d.dst]);
        if (--x.left == 0) {
          arrived(d.tag, x.last);
          any = true;
        }
      };
  while (!any && busy()) {
    std::int64_t c = net_.now();
    if (open_ == 0 || net_.deadlocked()) {
      if (ready_.empty())  // packets in the network, none can move, none to come
        throw network::model::NetworkDeadlock("BG/Q torus (machine.torus_flow_control=1): " + net_.deadlock_report());
      c = std::max(c, ready_.top().cycle);  // nothing moves before the next packet enters
    }
    if (tick_of(c) >= limit) break;
    if (c > net_.now()) net_.run_until(c, done);
    while (!ready_.empty() && ready_.top().cycle <= c) {
      const Ready r = ready_.top();
      ready_.pop();
      // The packet enters the next of its map's channels, in turn from the node's last one.
      std::uint32_t& next = next_ch_[r.src];
      const std::uint32_t rest = r.chans & ~((1u << next) - 1);
      const auto ch = static_cast<std::uint32_t>(std::countr_zero(rest != 0 ? rest : r.chans));
      next = ch + 1 == 2 * kDims ? 0 : ch + 1;
      net_.add(c, r.src, r.dst, r.bytes, r.id, r.det, ch);
      ++open_;
    }
    net_.run_until(c + 1, done);
  }
  return any;
}

}  // namespace hopsim::bgq::model
