// The host model: exact timings computed by hand for small cases, and the
// strict reading of profiles.
#include <catch2/catch.hpp>

#include "hopsim/common/error.hpp"
#include "hopsim/host/model.hpp"
#include "hopsim/host/profile.hpp"

namespace hh = hopsim::host;

namespace {
// Flat tables make hand computation easy.
hh::Profile flat() {
  hh::Profile p;
  p.name = "flat";
  p.cores = 2;
  p.sizes = {4096, 1 << 24};
  p.memcpy_bw = {4e9, 4e9};
  p.memcpy_bw_all = {100e9, 100e9};
  p.read_bw = {2e9, 2e9};
  p.cma_bw = {1e9, 1e9};
  p.c2c_latency = 1e-6;
  p.syscall = 1e-7;
  p.switch_cost = 0;
  p.cma_call = 1e-6;
  p.cma_per_page = 1e-7;
  p.remap_call = 1e-5;
  p.remap_per_page = 1e-7;
  for (const char* k :
       {"cores", "sizes", "memcpy_bw", "memcpy_bw_all", "read_bw", "cma_bw", "c2c_latency", "syscall", "switch_cost",
        "cma_call", "cma_per_page", "remap_call", "remap_per_page", "background_load", "cma_ok"})
    p.sources[k] = "test";
  return p;
}
}  // namespace

TEST_CASE("host model: timings of the three paths on an idle two-core machine", "[host][model]") {
  const auto p = flat();
  const double S = 1 << 20, L = 1e-6;
  std::vector<hh::SimCell> cells(4);
  cells[0].path = hh::CopyPath::zero_copy;
  cells[1].path = hh::CopyPath::zero_copy;
  cells[1].remap = true;
  cells[2].path = hh::CopyPath::cma;
  cells[3].path = hh::CopyPath::double_copy;
  cells[3].chunk = 1 << 20;  // one chunk per message, one slot
  cells[3].slots = 1;
  for (auto& c : cells) {
    c.size = 1 << 20;
    c.iters = 4;
  }
  const auto r = hh::simulate_ring(p, cells);
  // Zero copy: control message (L), then the checksum read (S / read_bw).
  CHECK(r[0].seconds == Approx(4 * (L + S / 2e9)).epsilon(1e-9));
  // Remap adds remap_call + 256 pages per message.
  CHECK(r[1].seconds == Approx(4 * (L + 1e-5 + 256 * 1e-7 + S / 2e9)).epsilon(1e-9));
  // CMA: post (L), write (S / cma_bw), done flag (L), read.
  CHECK(r[2].seconds == Approx(4 * (2 * L + S / 1e9 + S / 2e9)).epsilon(1e-9));
  // Double copy, one slot: copy in (S / memcpy_bw), flag (L), copy out, free
  // slot seen by the next message... each step: in, L, out, read; the slot
  // was freed by the copy-out one L before it is needed again.
  CHECK(r[3].seconds == Approx(4 * (2 * S / 4e9 + L + S / 2e9)).epsilon(1e-9));
  CHECK(r[0].bandwidth == Approx(S * 4 / r[0].seconds));
}

TEST_CASE("host model: a memory system too slow for both cores slows both", "[host][model]") {
  auto p = flat();
  // Two reads at 2e9 B/s each ask for 4e9 B/s; the memory system gives
  // 2 x memcpy_bw_all = 2e9 B/s: every read takes twice as long.
  p.memcpy_bw_all = {1e9, 1e9};
  hh::SimCell c;
  c.path = hh::CopyPath::zero_copy;
  c.size = 1 << 20;
  c.iters = 3;
  const auto r = hh::simulate_ring(p, {c});
  CHECK(r[0].seconds == Approx(3 * (1e-6 + 2 * double(1 << 20) / 2e9)).epsilon(1e-9));
}

TEST_CASE("host model: more processes than cores share them", "[host][model]") {
  auto p = flat();
  p.memcpy_bw_all = {1e12, 1e12};
  hh::SimCell c;
  c.path = hh::CopyPath::zero_copy;
  c.size = 1 << 20;
  c.iters = 2;
  c.procs = 4;  // 4 reads on 2 cores: each at half speed
  const auto r = hh::simulate_ring(p, {c});
  CHECK(r[0].seconds == Approx(2 * (1e-6 + 2 * double(1 << 20) / 2e9)).epsilon(1e-9));
}

TEST_CASE("host model: background load takes its share of the cores", "[host][model]") {
  auto p = flat();
  p.memcpy_bw_all = {1e12, 1e12};
  hh::SimCell c;
  c.path = hh::CopyPath::zero_copy;
  c.size = 1 << 20;
  c.iters = 2;
  c.procs = 4;
  // Two background processes: each read gets 2 / (4 + 2) of a core.
  p.background_load = 2;
  const auto q = hh::simulate_ring(p, {c});
  CHECK(q[0].seconds == Approx(2 * (1e-6 + 3 * double(1 << 20) / 2e9)).epsilon(1e-9));
}

TEST_CASE("host model rejects a ring of one and CMA on a machine without it", "[host][model]") {
  auto p = flat();
  hh::SimCell c;
  c.procs = 1;
  CHECK_THROWS_WITH(hh::simulate_ring(p, {c}), Catch::Contains("a ring of 1 process"));
  c.procs = 2;
  c.path = hh::CopyPath::cma;
  p.cma_ok = false;
  CHECK_THROWS_WITH(hh::simulate_ring(p, {c}), Catch::Contains("CMA is not available"));
}

TEST_CASE("profiles round-trip and bad ones are rejected naming the key", "[host][profile]") {
  const auto p = flat();
  const auto j = p.to_json();
  const auto q = hh::Profile::from_json(j, "t.json");
  CHECK(q.cores == 2);
  CHECK(q.read_bw == p.read_bw);
  CHECK(q.c2c_latency == p.c2c_latency);
  CHECK(q.at(q.memcpy_bw, 65536) == Approx(4e9));

  auto bad = j;
  bad["params"]["l3_size"] = {{"value", 1}, {"unit", "B"}, {"source", "x"}};
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"), Catch::Contains("t.json.params.l3_size: unknown parameter"));
  bad = j;
  bad["params"]["c2c_latency"]["unit"] = "ns";
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"),
                    Catch::Contains("c2c_latency.unit: 'ns' but this parameter is in s"));
  bad = j;
  bad["params"].erase("syscall");
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"), Catch::Contains("t.json.params.syscall: missing parameter"));
  bad = j;
  bad["params"]["read_bw"]["value"] = {1e9};
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"), Catch::Contains("read_bw: 1 entries but 'sizes' has 2"));
  bad = j;
  bad["params"]["memcpy_bw"]["source"] = "";
  CHECK_THROWS_WITH(hh::Profile::from_json(bad, "t.json"), Catch::Contains("every parameter needs a source"));
  bad = j;
  bad["params"]["cores"]["value"] = 0;
  CHECK_THROWS_AS(hh::Profile::from_json(bad, "t.json"), hopsim::ConfigError);
}

TEST_CASE("the 32-way SMP preset loads with a source for every parameter", "[host][profile]") {
  const auto p = hh::load_profile("host-smp32");
  CHECK(p.cores == 32);
  for (const auto& [k, v] : p.sources) CHECK_FALSE(v.empty());
}
