#pragma once
// Inside hopsim's stdcl (stdcl.h): kernels, NDRanges as turns on the
// cores, and the host programs with their own main() (COPRTHR programs,
// coprthr.cpp) that reach the device through e-hal.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stdcl.h"

namespace hopsim::epiphany::stdcl {

// One kernel parameter as clcc recorded it: its class ('p' pointer, 'i'
// integer, 'f' floating point, 'v' vector) and its size in bytes.
struct Param {
  char cls = 'i';
  unsigned size = 4;
};

// Parses clcc's record of a program's kernels, "name:p8,i4,f4;name2:...;",
// into (name, parameters); throws Error naming `what` if it is malformed.
std::vector<std::pair<std::string, std::vector<Param>>> parse_signatures(const std::string& record,
                                                                         const std::string& what);

// An NDRange as it runs: work-groups in turns, one work item per core (or
// host thread). With groups of at most `cores` items a turn holds
// groups_per_turn whole groups; a larger group runs in turns of its own and
// cannot meet at a barrier (groups_per_turn 0).
struct Launch {
  unsigned dim = 1;
  std::array<std::size_t, 3> off = {0, 0, 0};
  std::array<std::size_t, 3> gsize = {1, 1, 1};
  std::array<std::size_t, 3> lsize = {1, 1, 1};
  std::array<std::size_t, 3> ngroups = {1, 1, 1};
  std::size_t groups = 1;       // work-groups in all
  std::size_t group_items = 1;  // work items per group
  unsigned cores = 1;
  std::size_t groups_per_turn = 1;
  std::string kernel;  // for messages
};

// The launch of `ndr` on `cores` cores; throws Error naming the kernel if
// the NDRange is not one (sizes 0, a global size that the local size does
// not divide, more than 3 dimensions).
Launch plan(const clndrange_t* ndr, unsigned cores, const std::string& kernel);

// A host program with its own main(): the device is e-hal's (created on
// first use, HOPSIM_MODE), its kernels come from clcc and clopen.
class Standalone {
 public:
  virtual ~Standalone() = default;
  // Creates the device if there is none yet (e_init's).
  virtual void ensure_device() = 0;
  // Runs f as a host access to the device (simulated: at the host's time).
  virtual void call(const std::function<void()>& f) = 0;
  virtual double host_seconds() = 0;
  // clopen, clbuild, clclose, clsym (handle NULL: the kernels clcc linked in).
  virtual void* open(const char* file, int flags) = 0;
  virtual void* build(void* handle, const char* options) = 0;
  virtual int close(void* handle) = 0;
  virtual cl_kernel sym(void* handle, const char* name) = 0;
  // Runs the current launch of `krn` (stdcl's __hopsim_cl_core on every
  // core, through the program's main) and returns when it is done; called
  // inside call().
  virtual void launch(cl_kernel krn) = 0;
};
// Set once by the e-hal library, in a host program with its own main().
void set_standalone(Standalone* s);
Standalone* standalone();

}  // namespace hopsim::epiphany::stdcl

// The calling core's part of the launch in progress: its work items, turn
// after turn (the main() of a program clcc built calls it on every core).
extern "C" void __hopsim_cl_core(void);  // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)

struct hopsim_cl_context {
  bool cpu = false;
};

struct hopsim_cl_event {
  bool complete = true;
};

struct hopsim_cl_kernel {
  std::string name;
  void (*fn)() = nullptr;            // a package's built-in kernel: the entry every core calls
  std::vector<void (*)()> per_core;  // or each core's copy (kernel libraries)
  const void* program = nullptr;     // a COPRTHR program (clcc, clopen): its device build
  void (*device_fn)() = nullptr;
  void (*device_wrapper)(void* const*) = nullptr;  // calls the kernel with arguments by index
  void (*cpu_fn)() = nullptr;                      // its host build (stdcpu)
  void (*cpu_wrapper)(void* const*) = nullptr;
  std::vector<hopsim::epiphany::stdcl::Param> params;  // as clcc recorded them
  std::vector<std::vector<unsigned char>> args;        // clarg_set's values, by index
};
