// Host program of the hello-mesh example: one launch, then a check that
// every core heard from exactly its mesh neighbours.
#include <stdcl.h>

#include <string>

#include "hopsim/epiphany_host.hpp"
#include "hopsim/epiphany_package.hpp"

namespace {
void host(hopsim::epiphany::HostContext& ctx) {
  const int rounds = ctx.args()["rounds"].get<int>();
  int* out = static_cast<int*>(clmalloc(stdacc, 16 * 4 * sizeof(int), 0));
  void* h = clopen(stdacc, nullptr, CLLD_NOW);
  cl_kernel k = clsym(stdacc, h, "k_hello", CLLD_NOW);
  clndrange_t ndr = clndrange_init1d(0, 16, 16);
  const std::clock_t t0 = clock();
  clforka(stdacc, 0, k, &ndr, CL_EVENT_WAIT, out, rounds);
  const std::clock_t t1 = clock();
  clmsync(stdacc, 0, out, CL_MEM_HOST | CL_EVENT_WAIT);

  hopsim::epiphany::LaunchRecord r;
  r.method = "hello";
  r.n = rounds;
  r.ticks = static_cast<double>(t1 - t0);
  r.seconds = ctx.device().last_launch().seconds;
  r.cycles = ctx.device().last_launch().cycles;
  for (int g = 0; g < 16; ++g) {
    const int row = g / 4, col = g % 4;
    const int nb[4] = {row > 0 ? g - 4 : -1, row < 3 ? g + 4 : -1, col < 3 ? g + 1 : -1, col > 0 ? g - 1 : -1};
    for (int k = 0; k < 4; ++k) {
      const int expect = nb[k] < 0 ? 0 : (((32 + nb[k] / 4) << 6) | (8 + nb[k] % 4));
      ++r.checked;
      if (out[g * 4 + k] != expect) {
        ++r.mismatch_count;
        r.mismatches.push_back("core " + std::to_string(g) + " direction " + std::to_string(k) + ": expected " +
                               std::to_string(expect) + ", got " + std::to_string(out[g * 4 + k]));
      }
    }
  }
  r.digest = hopsim::epiphany::fnv1a(out, 16 * 4 * sizeof(int));
  ctx.record(std::move(r));
}
}  // namespace

extern "C" void hopsim_package(hopsim::epiphany::KernelPackage& p) {
  p.name = "hello-mesh";
  p.family = "epiphany";
  p.description = "out-of-tree example: every core greets its mesh neighbours with raw stores";
  p.args = {hopsim::epiphany::ArgDecl{"rounds", 10, "greeting rounds", 1, 1000000, {}}};
  p.symbols = {{"k_hello", nullptr}};
  p.host_main = host;
}
