#include "stdcl.h"

#include <atomic>
#include <cstring>
#include <deque>
#include <string>

#include <fmt/format.h>

#include "barrier.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/epiphany/device.hpp"
#include "hopsim/epiphany_host.hpp"
#include "hopsim/ocl_kernel.h"

using hopsim::epiphany::Device;

struct hopsim_cl_context {
  int unused;
};

namespace {
hopsim_cl_context g_acc{};
// clmalloc hands out external memory from a bump pointer, reset per run.
std::uint64_t g_next = 0;
const Device* g_alloc_owner = nullptr;
std::deque<hopsim_cl_kernel> g_kernels;  // stable addresses: cl_kernel handles point here
}  // namespace

CONTEXT* stdacc = &g_acc;
CONTEXT* stddev = &g_acc;

void* clmalloc(CONTEXT*, std::size_t size, int) {
  auto& d = Device::current();
  if (g_alloc_owner != &d) {
    g_alloc_owner = &d;
    g_next = 0;
  }
  const std::uint64_t off = (g_next + 63) / 64 * 64;
  if (off + size > d.map().emem_size())
    throw hopsim::Error(fmt::format("clmalloc: {} bytes do not fit in the device's {} bytes of shared memory", size,
                                    d.map().emem_size()));
  g_next = off + size;
  return reinterpret_cast<void*>(std::uint64_t{d.map().emem_base()} + off);
}

void clfree(void*) {}

int clmsync(CONTEXT*, unsigned, void*, int) {
  // Host and device share the windows; a fence is all that is needed.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return 0;
}

void* clopen(CONTEXT*, const char*, int) { return &g_acc; }
int clclose(CONTEXT*, void*) { return 0; }

cl_kernel clsym(CONTEXT*, void*, const char* name, int) {
  const auto& pkg = hopsim::epiphany::HostContext::current().package();
  for (const auto& s : pkg.symbols) {
    if (s.name != name) continue;
    hopsim_cl_kernel k{s.name.c_str(), s.fn, {}};
    if (pkg.resolve) {
      for (std::uint32_t c = 0; c < Device::current().params().num_cores(); ++c)
        k.per_core.push_back(pkg.resolve(s.name, c));
    }
    for (auto& known : g_kernels)
      if (known.fn == k.fn && known.per_core == k.per_core) return &known;
    g_kernels.push_back(std::move(k));
    return &g_kernels.back();
  }
  throw hopsim::Error(fmt::format("clsym: kernel {} has no symbol '{}'", pkg.name, name));
}

clndrange_t clndrange_init1d(std::size_t gtoff0, std::size_t gtsize0, std::size_t ltsize0) {
  clndrange_t r{};
  r.dim = 1;
  r.gtoff[0] = gtoff0;
  r.gtsize[0] = gtsize0;
  r.ltsize[0] = ltsize0;
  return r;
}

int clwait(CONTEXT*, unsigned, int) { return 0; }

std::clock_t hopsim_clock() { return static_cast<std::clock_t>(Device::current().host_seconds() * CLOCKS_PER_SEC); }

namespace hopsim::epiphany::stdcl {
void (*entry(cl_kernel krn))() {
  if (krn->per_core.empty()) return krn->fn;
  return krn->per_core.at(Device::current_core());
}

void fork(CONTEXT*, unsigned devnum, cl_kernel krn, const clndrange_t* ndr, const std::function<void()>& call) {
  auto& d = Device::current();
  if (devnum != 0) throw Error(fmt::format("clforka: device {} does not exist (the accelerator is device 0)", devnum));
  if (!krn) throw Error("clforka: kernel is NULL (clsym failed?)");
  if (!ndr || ndr->gtsize[0] != d.params().num_cores())
    throw Error(fmt::format("clforka: {}: the ndrange has {} work items but the device has {} cores", krn->name,
                            ndr ? ndr->gtsize[0] : 0, d.params().num_cores()));
  d.launch(call);
}
}  // namespace hopsim::epiphany::stdcl

// ---- kernel side ----
extern "C" {

unsigned int get_global_id(unsigned int dim) { return dim == 0 ? Device::current_core() : 0; }
unsigned int get_local_id(unsigned int dim) { return get_global_id(dim); }
unsigned int get_global_size(unsigned int dim) { return dim == 0 ? Device::current().params().num_cores() : 1; }

// The workgroup barrier: e-lib's flip-flop through core 0 on flags the
// runtime keeps in each core's reserved area, plus the runtime's own
// software cost (barrier_overhead, calibrated).
void barrier(int) {
  auto& d = Device::current();
  const std::uint32_t self = Device::current_core();
  auto flags = [&](std::uint32_t core) { return d.windows().core(core) + hopsim::epiphany::kRuntimeAreaOffset; };
  d.compute(d.params().barrier_overhead);
  hopsim::epiphany::api::flipflop_barrier(
      reinterpret_cast<volatile char*>(flags(self)), self, d.params().num_cores(),
      [&](unsigned i) { return reinterpret_cast<std::uint64_t>(i == 0 ? flags(0) + self : flags(i)); });
}

}  // extern "C"
