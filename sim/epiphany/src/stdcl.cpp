// hopsim's stdcl (stdcl.h): contexts, shared memory, kernel arguments,
// NDRanges run in turns on the cores or on host threads, and the kernel
// side (work-item functions, barrier). Kernels come from a hopsim package
// (`hopsim run`) or, in a host program with its own main(), from clcc and
// clopen (coprthr.cpp, through the Standalone interface).
#include <algorithm>
#include <array>
#include <barrier>
#include <cstdarg>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "barrier.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/epiphany/device.hpp"
#include "hopsim/epiphany_host.hpp"
#include "hopsim/ocl_kernel.h"
#include "stdcl_runtime.hpp"

using hopsim::Error;
using hopsim::KernelError;
using hopsim::epiphany::Device;
namespace sc = hopsim::epiphany::stdcl;

namespace {
hopsim_cl_context g_acc{false};
hopsim_cl_context g_cpu{true};
hopsim_cl_event g_done{};
sc::Standalone* g_standalone = nullptr;

// clmalloc hands out external memory first fit in 64-byte blocks; clfree
// gives a block back, joined with the free blocks beside it. Reset per device.
std::mutex g_alloc_mutex;
std::map<std::uint64_t, std::uint64_t> g_free;  // offset -> bytes, no two adjacent
std::map<std::uint64_t, std::uint64_t> g_used;  // offset -> bytes
const Device* g_alloc_owner = nullptr;
std::uint64_t g_alloc_base = 0;  // the owner's external memory base
std::set<void*> g_cpu_blocks;
constexpr std::align_val_t kCpuAlign{64};    // stdcpu's allocations (host memory)
std::deque<hopsim_cl_kernel> g_pkg_kernels;  // stable addresses: cl_kernel handles point here

// A work item's ids, as the work-item functions return them.
struct Item {
  std::array<std::size_t, 3> gid = {0, 0, 0};
  std::array<std::size_t, 3> lid = {0, 0, 0};
  std::array<std::size_t, 3> grp = {0, 0, 0};
};
// The launch in progress on the device, and each core's current work item.
const sc::Launch* g_launch = nullptr;
const std::function<void()>* g_item_call = nullptr;
std::vector<Item> g_core_items;
// On host threads (stdcpu): the thread's work item and its group's barrier.
thread_local Item* t_cpu_item = nullptr;
thread_local const sc::Launch* t_cpu_launch = nullptr;
thread_local std::barrier<>* t_cpu_barrier = nullptr;

void set_item(Item& it, const sc::Launch& l, std::size_t group, std::size_t local) {
  for (unsigned d = 0; d < 3; ++d) {
    it.grp[d] = group % l.ngroups[d];
    group /= l.ngroups[d];
    it.lid[d] = local % l.lsize[d];
    local /= l.lsize[d];
    it.gid[d] = l.off[d] + it.grp[d] * l.lsize[d] + it.lid[d];
  }
}

// Outside clfork (a kernel the device launches itself, as hopsim's own
// tests do) every core is one work item of a single work-group.
const sc::Launch& whole_device() {
  thread_local sc::Launch l;
  const auto n = Device::current().params().num_cores();
  l.gsize[0] = l.lsize[0] = l.group_items = n;
  l.cores = n;
  l.kernel = "the kernel";
  return l;
}
const Item& current_item() {
  if (t_cpu_item) return *t_cpu_item;
  if (g_launch) return g_core_items.at(Device::current_core());
  thread_local Item it;
  it.gid[0] = it.lid[0] = Device::current_core();
  return it;
}
const sc::Launch& current_launch() {
  if (t_cpu_launch) return *t_cpu_launch;
  return g_launch ? *g_launch : whole_device();
}

// A call of the C API: errors of a host program with its own main() stop
// it with the message (C has no exceptions); a package's host gets them thrown.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  if (!g_standalone) return f();
  try {
    return f();
  } catch (const KernelError& e) {
    hopsim::epiphany::stop_process(e.what(), 5);
  } catch (const std::exception& e) {
    hopsim::epiphany::stop_process(e.what(), 1);
  }
}

Device& device_of(CONTEXT* cp, const char* fn) {
  if (!cp) throw Error(fmt::format("{}: the context is NULL", fn));
  if (g_standalone) g_standalone->ensure_device();
  return Device::current();
}

void check_devnum(unsigned devnum, const char* fn) {
  if (devnum != 0) throw Error(fmt::format("{}: device {} does not exist (a context has device 0)", fn, devnum));
}

// The work items of one launch on host threads: each work-group's items
// on threads of their own (they may meet at a barrier), group after group.
void run_on_host_threads(const sc::Launch& l, const std::function<void()>& call) {
  constexpr std::size_t kMaxGroupThreads = 1024;
  if (l.group_items > kMaxGroupThreads)
    throw Error(fmt::format("clfork: {}: a work-group of {} work items on stdcpu (at most {} host threads)", l.kernel,
                            l.group_items, kMaxGroupThreads));
  for (std::size_t g = 0; g < l.groups; ++g) {
    std::barrier<> group_barrier(static_cast<std::ptrdiff_t>(l.group_items));
    std::vector<std::exception_ptr> errors(l.group_items);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < l.group_items; ++i) {
      threads.emplace_back([&, i] {
        Item it;
        set_item(it, l, g, i);
        t_cpu_item = &it;
        t_cpu_launch = &l;
        t_cpu_barrier = &group_barrier;
        try {
          call();
        } catch (...) {
          errors[i] = std::current_exception();
          group_barrier.arrive_and_drop();  // the others do not wait for it at a barrier
        }
        t_cpu_item = nullptr;
        t_cpu_launch = nullptr;
        t_cpu_barrier = nullptr;
      });
    }
    for (auto& t : threads) t.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }
}

// The arguments of `krn` as its wrapper takes them; throws if one is unset.
std::vector<void*> argument_pointers(cl_kernel krn) {
  std::vector<void*> ptrs;
  for (std::size_t i = 0; i < krn->params.size(); ++i) {
    if (i >= krn->args.size() || krn->args[i].empty())
      throw Error(fmt::format("clfork: {}: argument {} is not set (clarg_set, clarg_set_global)", krn->name, i));
    ptrs.push_back(krn->args[i].data());
  }
  return ptrs;
}

void set_arg(cl_kernel krn, unsigned argnum, std::size_t size, const void* value, const char* fn) {
  if (!krn) throw Error(fmt::format("{}: the kernel is NULL (did clsym find it?)", fn));
  if (!krn->program)
    throw Error(fmt::format("{}: {} is a kernel of a hopsim package: pass its arguments to clforka", fn, krn->name));
  if (argnum >= krn->params.size())
    throw Error(
        fmt::format("{}: {} has {} arguments; there is no argument {}", fn, krn->name, krn->params.size(), argnum));
  const auto& p = krn->params[argnum];
  if (size != p.size)
    throw Error(
        fmt::format("{}: argument {} of {} is {} bytes; {} bytes were given", fn, argnum, krn->name, p.size, size));
  if (krn->args.size() < krn->params.size()) krn->args.resize(krn->params.size());
  const auto* b = static_cast<const unsigned char*>(value);
  krn->args[argnum].assign(b, b + size);
}

}  // namespace

CONTEXT* stdacc = &g_acc;
CONTEXT* stddev = &g_acc;
CONTEXT* stdcpu = &g_cpu;

namespace hopsim::epiphany::stdcl {

void set_standalone(Standalone* s) { g_standalone = s; }
Standalone* standalone() { return g_standalone; }

cl_event run_fork(CONTEXT* cp, unsigned devnum, cl_kernel krn, const clndrange_t* ndr,
                  const std::function<void()>& call);

Launch plan(const clndrange_t* ndr, unsigned cores, const std::string& kernel) {
  if (!ndr) throw Error(fmt::format("clfork: {}: the ndrange is NULL", kernel));
  if (ndr->dim < 1 || ndr->dim > 3)
    throw Error(fmt::format("clfork: {}: an ndrange has 1 to 3 dimensions, not {}", kernel, ndr->dim));
  Launch l;
  l.kernel = kernel;
  l.dim = static_cast<unsigned>(ndr->dim);
  l.cores = cores;
  l.groups = 1;
  l.group_items = 1;
  for (unsigned d = 0; d < l.dim; ++d) {
    const std::size_t g = ndr->gtsize[d];
    std::size_t local = ndr->ltsize[d];
    if (g == 0) throw Error(fmt::format("clfork: {}: the global size of dimension {} is 0", kernel, d));
    if (local == 0) {  // the largest work-group of at most `cores` items that divides the range
      local = std::min<std::size_t>(g, cores);
      while (g % local != 0) --local;
    }
    if (g % local != 0)
      throw Error(fmt::format("clfork: {}: the local size {} does not divide the global size {} (dimension {})", kernel,
                              local, g, d));
    l.off[d] = ndr->gtoff[d];
    l.gsize[d] = g;
    l.lsize[d] = local;
    l.ngroups[d] = g / local;
    l.groups *= l.ngroups[d];
    l.group_items *= local;
  }
  l.groups_per_turn = l.group_items <= cores ? cores / l.group_items : 0;
  return l;
}

cl_event fork(CONTEXT* cp, unsigned devnum, cl_kernel krn, const clndrange_t* ndr, const std::function<void()>& call) {
  return guarded([&] { return run_fork(cp, devnum, krn, ndr, call); });
}

cl_event run_fork(CONTEXT* cp, unsigned devnum, cl_kernel krn, const clndrange_t* ndr,
                  const std::function<void()>& call) {
  check_devnum(devnum, "clfork");
  if (!cp) throw Error("clfork: the context is NULL");
  if (!krn) throw Error("clfork: the kernel is NULL (did clsym find it?)");
  if (cp->cpu) {
    if (krn->program && !krn->cpu_fn) throw Error(fmt::format("clfork: {} has no host build for stdcpu", krn->name));
    if (!krn->program) throw Error(fmt::format("clfork: {} is a hopsim package's kernel: run it on stdacc", krn->name));
    run_on_host_threads(plan(ndr, std::thread::hardware_concurrency(), krn->name), call);
    return &g_done;
  }
  Device& d = device_of(cp, "clfork");
  // A hopsim package's kernels address the cores by id: one work item per core.
  if (!krn->program && (!ndr || ndr->dim != 1 || ndr->gtsize[0] != d.params().num_cores()))
    throw Error(fmt::format("clforka: {}: the ndrange has {} work items but the device has {} cores", krn->name,
                            ndr ? ndr->gtsize[0] : 0, d.params().num_cores()));
  const Launch l = plan(ndr, d.params().num_cores(), krn->name);
  auto run = [&] {
    g_core_items.assign(d.params().num_cores(), Item{});
    g_launch = &l;
    g_item_call = &call;
    try {
      if (g_standalone) {
        g_standalone->launch(krn);
      } else {
        d.launch([] { __hopsim_cl_core(); });
      }
    } catch (...) {
      g_launch = nullptr;
      g_item_call = nullptr;
      throw;
    }
    g_launch = nullptr;
    g_item_call = nullptr;
  };
  if (g_standalone) {
    g_standalone->call(run);
  } else {
    run();
  }
  return &g_done;
}

void (*entry(cl_kernel krn))() {
  if (t_cpu_item) return krn->cpu_fn;
  if (krn->program) return krn->device_fn;
  if (krn->per_core.empty()) return krn->fn;
  return krn->per_core.at(Device::current_core());
}

}  // namespace hopsim::epiphany::stdcl

extern "C" {

void* clmalloc(CONTEXT* cp, std::size_t size, int) {
  return guarded([&]() -> void* {
    if (cp && cp->cpu) {
      void* p = ::operator new(std::max<std::size_t>(size, 1), kCpuAlign);
      const std::lock_guard lock(g_alloc_mutex);
      g_cpu_blocks.insert(p);
      return p;
    }
    auto& d = device_of(cp, "clmalloc");
    const std::lock_guard lock(g_alloc_mutex);
    if (g_alloc_owner != &d) {
      g_alloc_owner = &d;
      g_alloc_base = d.map().emem_base();
      g_used.clear();
      g_free = {{0, d.map().emem_size() / 64 * 64}};
    }
    const std::uint64_t need = std::max<std::uint64_t>((std::uint64_t{size} + 63) / 64 * 64, 64);
    const auto hole = std::find_if(g_free.begin(), g_free.end(), [&](const auto& f) { return f.second >= need; });
    if (hole == g_free.end()) {
      std::uint64_t in_use = 0;
      for (const auto& [off, bytes] : g_used) in_use += bytes;
      throw Error(fmt::format(
          "clmalloc: {} bytes do not fit in the device's {} bytes of shared memory ({} bytes allocated, not freed)",
          size, d.map().emem_size(), in_use));
    }
    const auto [off, bytes] = *hole;
    g_free.erase(hole);
    if (bytes > need) g_free.emplace(off + need, bytes - need);
    g_used.emplace(off, need);
    return reinterpret_cast<void*>(std::uint64_t{d.map().emem_base()} + off);
  });
}

void clfree(void* p) {
  const std::lock_guard lock(g_alloc_mutex);
  if (g_cpu_blocks.erase(p) > 0) {
    ::operator delete(p, kCpuAlign);
    return;
  }
  if (!g_alloc_owner) return;
  const auto used = g_used.find(reinterpret_cast<std::uint64_t>(p) - g_alloc_base);
  if (used == g_used.end()) return;  // not a clmalloc block (NULL, or freed already)
  auto [off, bytes] = *used;
  g_used.erase(used);
  // Joined with the free blocks just after and just before it.
  if (const auto next = g_free.find(off + bytes); next != g_free.end()) {
    bytes += next->second;
    g_free.erase(next);
  }
  if (auto prev = g_free.lower_bound(off); prev != g_free.begin()) {
    --prev;
    if (prev->first + prev->second == off) {
      prev->second += bytes;
      return;
    }
  }
  g_free.emplace(off, bytes);
}

cl_event clmsync(CONTEXT* cp, unsigned devnum, void*, int) {
  return guarded([&] {
    check_devnum(devnum, "clmsync");
    if (!cp) throw Error("clmsync: the context is NULL");
    // Host and device share the memory; a fence is all that is needed.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return &g_done;
  });
}

void* clopen(CONTEXT* cp, const char* file, int flags) {
  return guarded([&]() -> void* {
    if (!cp) throw Error("clopen: the context is NULL");
    if (g_standalone) return g_standalone->open(file, flags);
    if (file)
      throw Error(fmt::format("clopen: {}: a hopsim package's kernels come from the package (clopen NULL)", file));
    return &g_acc;
  });
}

void* clbuild(CONTEXT* cp, void* handle, const char* options, int) {
  return guarded([&]() -> void* {
    if (!cp) throw Error("clbuild: the context is NULL");
    if (!g_standalone) return handle;  // a package's kernels are built with it
    return g_standalone->build(handle, options);
  });
}

int clclose(CONTEXT*, void* handle) {
  return guarded([&] { return g_standalone ? g_standalone->close(handle) : 0; });
}

cl_kernel clsym(CONTEXT* cp, void* handle, const char* name, int) {
  return guarded([&]() -> cl_kernel {
    if (!cp) throw Error("clsym: the context is NULL");
    if (!name) throw Error("clsym: the kernel name is NULL");
    if (g_standalone) return g_standalone->sym(handle, name);
    const auto& pkg = hopsim::epiphany::HostContext::current().package();
    for (const auto& s : pkg.symbols) {
      if (s.name != name) continue;
      hopsim_cl_kernel k;
      k.name = s.name;
      k.fn = s.fn;
      if (pkg.resolve) {
        for (std::uint32_t c = 0; c < Device::current().params().num_cores(); ++c)
          k.per_core.push_back(pkg.resolve(s.name, c));
      }
      for (auto& known : g_pkg_kernels)
        if (known.fn == k.fn && known.per_core == k.per_core) return &known;
      g_pkg_kernels.push_back(std::move(k));
      return &g_pkg_kernels.back();
    }
    throw Error(fmt::format("clsym: kernel {} has no symbol '{}'", pkg.name, name));
  });
}

clndrange_t clndrange_init1d(std::size_t gtoff0, std::size_t gtsize0, std::size_t ltsize0) {
  clndrange_t r{};
  r.dim = 1;
  r.gtoff[0] = gtoff0;
  r.gtsize[0] = gtsize0;
  r.ltsize[0] = ltsize0;
  return r;
}

clndrange_t clndrange_init2d(std::size_t gtoff0, std::size_t gtsize0, std::size_t ltsize0, std::size_t gtoff1,
                             std::size_t gtsize1, std::size_t ltsize1) {
  clndrange_t r = clndrange_init1d(gtoff0, gtsize0, ltsize0);
  r.dim = 2;
  r.gtoff[1] = gtoff1;
  r.gtsize[1] = gtsize1;
  r.ltsize[1] = ltsize1;
  return r;
}

clndrange_t clndrange_init3d(std::size_t gtoff0, std::size_t gtsize0, std::size_t ltsize0, std::size_t gtoff1,
                             std::size_t gtsize1, std::size_t ltsize1, std::size_t gtoff2, std::size_t gtsize2,
                             std::size_t ltsize2) {
  clndrange_t r = clndrange_init2d(gtoff0, gtsize0, ltsize0, gtoff1, gtsize1, ltsize1);
  r.dim = 3;
  r.gtoff[2] = gtoff2;
  r.gtsize[2] = gtsize2;
  r.ltsize[2] = ltsize2;
  return r;
}

int clarg_set(CONTEXT*, cl_kernel krn, unsigned argnum, std::size_t size, const void* value) {
  return guarded([&] {
    if (!value) throw Error("clarg_set: the value is NULL");
    set_arg(krn, argnum, size, value, "clarg_set");
    return 0;
  });
}

int clarg_set_global(CONTEXT*, cl_kernel krn, unsigned argnum, const void* ptr) {
  return guarded([&] {
    if (krn && argnum < krn->params.size() && krn->params[argnum].cls != 'p')
      throw Error(fmt::format("clarg_set_global: argument {} of {} is not a pointer", argnum, krn->name));
    set_arg(krn, argnum, sizeof(ptr), static_cast<const void*>(&ptr), "clarg_set_global");
    return 0;
  });
}

cl_event clfork(CONTEXT* cp, unsigned devnum, cl_kernel krn, clndrange_t* ndr, int) {
  return guarded([&] {
    if (krn && !krn->program)
      throw Error(fmt::format("clfork: {} is a kernel of a hopsim package: run it with clforka", krn->name));
    const std::vector<void*> args = krn ? argument_pointers(krn) : std::vector<void*>{};
    return sc::fork(cp, devnum, krn, ndr, [&] {
      auto* wrapper = t_cpu_item ? krn->cpu_wrapper : krn->device_wrapper;
      wrapper(args.data());
    });
  });
}

// C's clforka: the arguments as a variadic call passes them, read by the
// kernel's parameters (promoted: float as double, short as int).
cl_event clforka(CONTEXT* cp, unsigned devnum, cl_kernel krn, clndrange_t* ndr, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  std::string error;
  if (!krn) error = "clforka: the kernel is NULL (did clsym find it?)";
  for (std::size_t i = 0; krn && error.empty() && i < krn->params.size(); ++i) {
    const sc::Param p = krn->params[i];
    std::array<unsigned char, 8> buf{};
    if (p.cls == 'p') {
      void* v = va_arg(ap, void*);
      std::memcpy(buf.data(), &v, sizeof v);
    } else if (p.cls == 'i' && p.size <= 4) {
      const int v = va_arg(ap, int);
      std::memcpy(buf.data(), &v, p.size);  // little-endian: the low bytes
    } else if (p.cls == 'i' && p.size == 8) {
      const long long v = va_arg(ap, long long);
      std::memcpy(buf.data(), &v, 8);
    } else if (p.cls == 'f' && p.size == 4) {
      const auto v = static_cast<float>(va_arg(ap, double));
      std::memcpy(buf.data(), &v, 4);
    } else if (p.cls == 'f' && p.size == 8) {
      const double v = va_arg(ap, double);
      std::memcpy(buf.data(), &v, 8);
    } else {
      error = fmt::format("clforka: argument {} of {} is a {}-byte vector: set it with clarg_set, then clfork", i,
                          krn->name, p.size);
      break;
    }
    if (krn->args.size() < krn->params.size()) krn->args.resize(krn->params.size());
    krn->args[i].assign(buf.begin(), buf.begin() + p.size);
  }
  va_end(ap);
  if (!error.empty()) return guarded([&]() -> cl_event { throw Error(error); });
  return clfork(cp, devnum, krn, ndr, flags);
}

int clflush(CONTEXT* cp, unsigned devnum, int) {
  return guarded([&] {
    check_devnum(devnum, "clflush");
    if (!cp) throw Error("clflush: the context is NULL");
    return 0;  // clfork and clmsync finish before they return: nothing is queued
  });
}

int clwait(CONTEXT* cp, unsigned devnum, int) {
  return guarded([&] {
    check_devnum(devnum, "clwait");
    if (!cp) throw Error("clwait: the context is NULL");
    return 0;
  });
}

std::clock_t hopsim_clock() {
  return guarded([] {
    const double s = g_standalone ? g_standalone->host_seconds() : Device::current().host_seconds();
    return static_cast<std::clock_t>(s * CLOCKS_PER_SEC);
  });
}

// ---- kernel side ----

void __hopsim_cl_core(void) {  // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): runtime ABI
  if (!g_launch || !g_item_call) throw KernelError("a stdcl program ran on a core without a clfork");
  const sc::Launch& l = *g_launch;
  const std::uint32_t core = Device::current_core();
  Item& it = g_core_items.at(core);
  if (l.groups_per_turn > 0) {
    const std::size_t slot = core / l.group_items, local = core % l.group_items;
    if (slot >= l.groups_per_turn) return;  // a turn holds whole groups only
    for (std::size_t g = slot; g < l.groups; g += l.groups_per_turn) {
      set_item(it, l, g, local);
      (*g_item_call)();
    }
    return;
  }
  for (std::size_t g = 0; g < l.groups; ++g) {
    for (std::size_t i = core; i < l.group_items; i += l.cores) {
      set_item(it, l, g, i);
      (*g_item_call)();
    }
  }
}

unsigned int get_work_dim(void) { return current_launch().dim; }
unsigned int get_global_id(unsigned int dim) { return dim < 3 ? static_cast<unsigned>(current_item().gid[dim]) : 0; }
unsigned int get_local_id(unsigned int dim) { return dim < 3 ? static_cast<unsigned>(current_item().lid[dim]) : 0; }
unsigned int get_group_id(unsigned int dim) { return dim < 3 ? static_cast<unsigned>(current_item().grp[dim]) : 0; }
unsigned int get_global_size(unsigned int dim) {
  return dim < 3 ? static_cast<unsigned>(current_launch().gsize[dim]) : 1;
}
unsigned int get_local_size(unsigned int dim) {
  return dim < 3 ? static_cast<unsigned>(current_launch().lsize[dim]) : 1;
}
unsigned int get_num_groups(unsigned int dim) {
  return dim < 3 ? static_cast<unsigned>(current_launch().ngroups[dim]) : 1;
}
unsigned int get_global_offset(unsigned int dim) {
  return dim < 3 ? static_cast<unsigned>(current_launch().off[dim]) : 0;
}

// The work-group barrier. On the device: e-lib's flip-flop through the
// group's first core, on flags the runtime keeps in each core's reserved
// area, plus the runtime's own software cost (barrier_overhead,
// calibrated). A group runs on cores first .. first + items - 1.
void barrier(int) {
  if (t_cpu_barrier) {
    t_cpu_barrier->arrive_and_wait();
    return;
  }
  const sc::Launch& l = current_launch();
  auto& d = Device::current();
  const std::uint32_t self = Device::current_core();
  if (l.groups_per_turn == 0)
    throw KernelError(fmt::format(
        "barrier: {}: a work-group of {} work items cannot meet at a barrier on {} cores (its items run in turns); "
        "use a local size of at most {}",
        l.kernel, l.group_items, l.cores, l.cores));
  const auto n = static_cast<std::uint32_t>(l.group_items);
  const std::uint32_t first = self / n * n;
  auto flags = [&](std::uint32_t core) { return d.windows().core(core) + hopsim::epiphany::kRuntimeAreaOffset; };
  d.compute(d.params().barrier_overhead);
  hopsim::epiphany::api::flipflop_barrier(
      reinterpret_cast<volatile char*>(flags(self)), self - first, n, [&](unsigned i) {
        return reinterpret_cast<std::uint64_t>(i == 0 ? flags(first) + (self - first) : flags(first + i));
      });
}

}  // extern "C"

namespace hopsim::epiphany::stdcl {

std::vector<std::pair<std::string, std::vector<Param>>> parse_signatures(const std::string& record,
                                                                         const std::string& what) {
  std::vector<std::pair<std::string, std::vector<Param>>> out;
  auto bad = [&](const std::string& part) {
    return Error(
        fmt::format("{}: the kernel record '{}' is malformed (rebuild it with this hopsim's clcc)", what, part));
  };
  std::size_t pos = 0;
  while (pos < record.size()) {
    const std::size_t end = record.find(';', pos);
    if (end == std::string::npos) throw bad(record.substr(pos));
    const std::string entry = record.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0) throw bad(entry);
    std::vector<Param> params;
    std::size_t p = colon + 1;
    while (p < entry.size()) {
      std::size_t comma = entry.find(',', p);
      if (comma == std::string::npos) comma = entry.size();
      const std::string tok = entry.substr(p, comma - p);
      if (tok.size() < 2 || tok.size() > 4 || std::string("pifv").find(tok[0]) == std::string::npos ||
          tok.find_first_not_of("0123456789", 1) != std::string::npos)
        throw bad(entry);
      Param prm;
      prm.cls = tok[0];
      prm.size = static_cast<unsigned>(std::stoul(tok.substr(1)));
      params.push_back(prm);
      p = comma + 1;
    }
    out.emplace_back(entry.substr(0, colon), std::move(params));
  }
  return out;
}

}  // namespace hopsim::epiphany::stdcl
