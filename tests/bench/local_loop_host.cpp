// Host program of the instrumentation benchmark: one launch of k_local_loop.
#include <stdcl.h>

#include "hopsim/epiphany_host.hpp"
#include "hopsim/epiphany_package.hpp"

namespace {
void host(hopsim::epiphany::HostContext& ctx) {
  const int reps = ctx.args()["reps"].get<int>();
  int* out = static_cast<int*>(clmalloc(stdacc, 16 * sizeof(int), 0));
  cl_kernel k = clsym(stdacc, clopen(stdacc, nullptr, CLLD_NOW), "k_local_loop", CLLD_NOW);
  clndrange_t ndr = clndrange_init1d(0, 16, 16);
  clforka(stdacc, 0, k, &ndr, CL_EVENT_WAIT, out, reps);
  hopsim::epiphany::LaunchRecord r;
  r.method = "local_loop";
  r.n = reps;
  r.seconds = ctx.device().last_launch().seconds;
  r.cycles = ctx.device().last_launch().cycles;
  r.digest = hopsim::epiphany::fnv1a(out, 16 * sizeof(int));
  ctx.record(std::move(r));
}
}  // namespace

extern "C" void hopsim_package(hopsim::epiphany::KernelPackage& p) {
  p.name = "local-loop";
  p.family = "epiphany";
  p.description = "benchmark: tight local loops with one remote store per repetition";
  p.args = {hopsim::epiphany::ArgDecl{"reps", 2000, "repetitions of the 1024-int sum", 1, 100000000, {}}};
  p.symbols = {{"k_local_loop", nullptr}};
  p.host_main = host;
}
