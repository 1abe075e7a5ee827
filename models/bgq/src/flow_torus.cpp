#include "hopsim/bgq/model/flow_torus.hpp"

#include <algorithm>
#include <cmath>

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
      rx_free_(net_.nodes(), 0) {}

Tick FlowTorus::tick_of(std::int64_t cycle) const { return static_cast<Tick>(std::llround(cycle * tpc_)); }

std::int64_t FlowTorus::cycle_of(Tick t) const {
  auto c = static_cast<std::int64_t>(std::ceil(static_cast<double>(t) / tpc_));
  while (c > 0 && tick_of(c - 1) >= t) --c;  // rounding
  while (tick_of(c) < t) ++c;
  return c;
}

Tick FlowTorus::inject(std::uint32_t id, std::uint32_t src, std::uint32_t fifo, std::uint32_t dst, std::uint64_t length,
                       Tick t, bool dynamic) {
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
    ready_.push({cycle_of(cur), seq_++, src, dst, packet_wire_bytes(pay), id, !dynamic});
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
      net_.add(c, r.src, r.dst, r.bytes, r.id, r.det);
      ++open_;
    }
    net_.run_until(c + 1, done);
  }
  return any;
}

}  // namespace hopsim::bgq::model
