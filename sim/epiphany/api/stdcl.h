// hopsim's stdcl: the host-side subset of Brown Deer COPRTHR's stdcl that
// the Epiphany passing programs use, same names and semantics, running the
// kernels on hopsim's device (native threads or the simulated chip).
//
// clock(): on the Parallella the host program brackets clforka with
// clock(); its ticks are microseconds of host CPU time, and the host spins
// while the kernel runs, so they follow the kernel's run time. hopsim maps
// clock() in host programs that include this header to the device model's
// host clock: simulated microseconds in a simulated run, wall-clock
// microseconds in a native run.
#ifndef HOPSIM_STDCL_H
#define HOPSIM_STDCL_H

#include <cstddef>
#include <ctime>
#include <functional>
#include <vector>

typedef int cl_int;
typedef unsigned int cl_uint;
typedef float cl_float;

struct hopsim_cl_context;
typedef hopsim_cl_context CONTEXT;
extern CONTEXT* stdacc;  // the accelerator context (the Epiphany)
extern CONTEXT* stddev;  // alias, as in stdcl

struct hopsim_cl_kernel {
  const char* name;
  void (*fn)();                 // the entry every core calls (built-in packages)
  std::vector<void (*)()> per_core;  // or each core's own copy (kernel libraries)
};
typedef hopsim_cl_kernel* cl_kernel;

struct clndrange_t {
  std::size_t dim;
  std::size_t gtoff[3];
  std::size_t gtsize[3];
  std::size_t ltsize[3];
};

#define CLLD_NOW 1
#define CLLD_DEFER 2
#define CL_MEM_RO 0x01
#define CL_MEM_WO 0x02
#define CL_MEM_RW 0x04
#define CL_MEM_HOST 0x0100
#define CL_MEM_DEVICE 0x0200
#define CL_EVENT_WAIT 0x1000
#define CL_EVENT_NOWAIT 0x2000

// Device memory shared with the host (external memory on the Epiphany).
void* clmalloc(CONTEXT* cp, std::size_t size, int flags);
void clfree(void* p);
// Makes host writes visible to the device (CL_MEM_DEVICE) or device writes to the host (CL_MEM_HOST).
int clmsync(CONTEXT* cp, unsigned devnum, void* p, int flags);
void* clopen(CONTEXT* cp, const char* file, int flags);
int clclose(CONTEXT* cp, void* handle);
cl_kernel clsym(CONTEXT* cp, void* handle, const char* name, int flags);
clndrange_t clndrange_init1d(std::size_t gtoff0, std::size_t gtsize0, std::size_t ltsize0);
int clwait(CONTEXT* cp, unsigned devnum, int flags);

namespace hopsim::epiphany::stdcl {
// Runs `call` on every core of the device; checks the ndrange matches it.
void fork(CONTEXT* cp, unsigned devnum, cl_kernel krn, const clndrange_t* ndr, const std::function<void()>& call);
// The entry of `krn` the calling core runs.
void (*entry(cl_kernel krn))();
}  // namespace hopsim::epiphany::stdcl

// Launches `krn` on every core with the given arguments and (with
// CL_EVENT_WAIT) returns when all cores are done.
template <class... Args>
int clforka(CONTEXT* cp, unsigned devnum, cl_kernel krn, clndrange_t* ndr, int /*flags*/, Args... args) {
  hopsim::epiphany::stdcl::fork(cp, devnum, krn, ndr, [=] {
    auto fn = reinterpret_cast<void (*)(Args...)>(hopsim::epiphany::stdcl::entry(krn));
    fn(args...);
  });
  return 0;
}

std::clock_t hopsim_clock();
namespace std {
using ::hopsim_clock;
}
#define clock() hopsim_clock()

#endif
