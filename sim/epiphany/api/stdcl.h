/* hopsim's stdcl: Brown Deer COPRTHR 1.x's stdcl host API (C and C++),
 * same names and semantics, running kernels on hopsim's Epiphany (native
 * threads or the simulated E16G301) or, with stdcpu, on host threads.
 *
 * Two kinds of host program use it:
 *  - COPRTHR programs with their own main() (C or C++), built with their
 *    Makefile against hopsim's drop-ins (-lstdcl -locl, clcc for kernels
 *    linked into the executable, clopen for kernels compiled at run time);
 *    HOPSIM_MODE=native|sim chooses the device as for eSDK programs.
 *  - hopsim's own kernel packages (hopsim-cc, `hopsim run`), whose kernels
 *    come from the package (clopen(stdacc, NULL, ...)).
 *
 * An NDRange may hold any number of work items: a turn runs as many whole
 * work-groups as the cores hold, one work item per core, and turns repeat
 * until every work item ran (as COPRTHR's Epiphany back end does).
 * barrier() synchronises the work items of one work-group; a work-group
 * larger than the device's cores cannot meet at a barrier (an error).
 *
 * clock() in C++ package hosts: on the Parallella the host program
 * brackets clforka with clock(); its ticks follow the kernel's run time.
 * hopsim maps clock() there to the device's host clock (simulated or
 * wall-clock microseconds). C hosts read simulated time through e-hal. */
#ifndef HOPSIM_STDCL_H
#define HOPSIM_STDCL_H

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#ifdef __cplusplus
#include <ctime> /* first: it undefines a clock macro, and the clock() below is one */
#include <functional>
extern "C" {
#endif

typedef signed char cl_char;
typedef unsigned char cl_uchar;
typedef short cl_short;
typedef unsigned short cl_ushort;
typedef int cl_int;
typedef unsigned int cl_uint;
typedef long long cl_long;
typedef unsigned long long cl_ulong;
typedef float cl_float;
typedef double cl_double;
typedef unsigned int cl_bool;

typedef struct hopsim_cl_context CONTEXT;
typedef struct hopsim_cl_context CLCONTEXT;
typedef struct hopsim_cl_kernel* cl_kernel;
typedef struct hopsim_cl_event* cl_event;

/* The default contexts: the accelerator (the Epiphany; stddev is the same
 * context) and the host's CPU (kernels run on host threads). */
extern CONTEXT* stdacc;
extern CONTEXT* stddev;
extern CONTEXT* stdcpu;

typedef struct clndrange_struct {
  size_t dim;
  size_t gtoff[3];
  size_t gtsize[3];
  size_t ltsize[3];
} clndrange_t;

#define CLLD_DEFAULT 0x0
#define CLLD_NOW 0x1
#define CLLD_DEFER 0x2
#define CLLD_NOBUILD 0x4

#define CL_MEM_RO 0x01
#define CL_MEM_WO 0x02
#define CL_MEM_RW 0x04
#define CL_MEM_HOST 0x0100
#define CL_MEM_DEVICE 0x0200
#define CL_MEM_NOCOPY 0x0400
#define CL_MEM_DETACHED 0x0800
#define CL_EVENT_WAIT 0x1000
#define CL_EVENT_NOWAIT 0x2000
#define CL_EVENT_RELEASE 0x4000
#define CL_KERNEL_EVENT 0x10000
#define CL_MEM_EVENT 0x20000
#define CL_ALL_EVENT (CL_KERNEL_EVENT | CL_MEM_EVENT)

/* Memory the host and the context's kernels share (external memory on the
 * Epiphany); NULL with a message when it does not fit. */
void* clmalloc(CONTEXT* cp, size_t size, int flags);
void clfree(void* p);
/* Makes host writes visible to the device (CL_MEM_DEVICE) or device
 * writes to the host (CL_MEM_HOST); the memory is shared, so this orders. */
cl_event clmsync(CONTEXT* cp, unsigned int devnum, void* p, int flags);

/* clopen(cp, "file.cl", CLLD_NOW): compiles an OpenCL C file now (clcc at
 * run time); CLLD_NOBUILD: later, by clbuild with compiler options such as
 * "-D COEF=2". NULL with a message if the file is missing or does not
 * compile. clopen(cp, NULL, flags), or a NULL handle in clsym, names the
 * kernels linked into the program with clcc. */
void* clopen(CONTEXT* cp, const char* file, int flags);
void* clbuild(CONTEXT* cp, void* handle, const char* options, int flags);
int clclose(CONTEXT* cp, void* handle);
/* The kernel `name`, or NULL (with a message) if no program has it. */
cl_kernel clsym(CONTEXT* cp, void* handle, const char* name, int flags);

clndrange_t clndrange_init1d(size_t gtoff0, size_t gtsize0, size_t ltsize0);
clndrange_t clndrange_init2d(size_t gtoff0, size_t gtsize0, size_t ltsize0, size_t gtoff1, size_t gtsize1,
                             size_t ltsize1);
clndrange_t clndrange_init3d(size_t gtoff0, size_t gtsize0, size_t ltsize0, size_t gtoff1, size_t gtsize1,
                             size_t ltsize1, size_t gtoff2, size_t gtsize2, size_t ltsize2);

/* Kernel arguments by index: a value of `size` bytes, or a pointer to
 * clmalloc'd memory (clarg_set_global). */
int clarg_set(CONTEXT* cp, cl_kernel krn, unsigned int argnum, size_t size, const void* value);
int clarg_set_global(CONTEXT* cp, cl_kernel krn, unsigned int argnum, const void* ptr);
/* Runs the kernel over the NDRange with the arguments set; the work is
 * done when it returns (the event is already complete). */
cl_event clfork(CONTEXT* cp, unsigned int devnum, cl_kernel krn, clndrange_t* ndr, int flags);
int clflush(CONTEXT* cp, unsigned int devnum, int flags);
int clwait(CONTEXT* cp, unsigned int devnum, int flags);

/* ---- implementation, not for programs ---- */
clock_t hopsim_clock(void);
/* Kernels linked in by clcc: its objects register their programs here. */
void hopsim_clcc_register(const char* source, const void* device, size_t device_size, const void* cpu, size_t cpu_size);

#ifdef __cplusplus
} /* extern "C" */

namespace hopsim::epiphany::stdcl {
// Runs `call` once per work item of `ndr` (in turns on the cores) and
// returns when all are done.
cl_event fork(CONTEXT* cp, unsigned devnum, cl_kernel krn, const clndrange_t* ndr, const std::function<void()>& call);
// The function of `krn` the calling core (or host thread) runs.
void (*entry(cl_kernel krn))();
}  // namespace hopsim::epiphany::stdcl

// Runs `krn` over `ndr` with the given arguments (the kernel's own types).
template <class... Args>
cl_event clforka(CONTEXT* cp, unsigned devnum, cl_kernel krn, clndrange_t* ndr, int /*flags*/, Args... args) {
  return hopsim::epiphany::stdcl::fork(cp, devnum, krn, ndr, [=] {
    auto fn = reinterpret_cast<void (*)(Args...)>(hopsim::epiphany::stdcl::entry(krn));
    fn(args...);
  });
}

namespace std {
using ::hopsim_clock;
}
#define clock() hopsim_clock()

#else
/* Runs `krn` over `ndr` with the arguments that follow, read by the
 * kernel's own signature (as recorded by clcc): pointers, integers and
 * floating-point values as C passes them to a variadic function. */
cl_event clforka(CONTEXT* cp, unsigned int devnum, cl_kernel krn, clndrange_t* ndr, int flags, ...);
#endif

#endif
