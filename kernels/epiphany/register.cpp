#include <nlohmann/json.hpp>

#include "hopsim/epiphany_package.hpp"
#include "passing.h"

extern "C" {
void k_passUni(int, int*, int);
void k_passMulti(int, int*, int);
void k_passBroadcastWait(int, int*, int);
void k_passBroadcastNoWait(int, int*, int);
void k_passBroadcastNoWaitFixed(int, int*, int);
void k_passUniBroken(int, int*, int);
void k_writeOutside(int, int*, int);
void k_deadlock(int, int*, int);
}

namespace {
template <class F>
void (*erase(F* f))() {
  return reinterpret_cast<void (*)()>(f);
}
}  // namespace

void hopsim_register_epiphany_kernels() {
  hopsim::epiphany::KernelPackage p;
  passing::describe(p);
  p.name = "passing";
  p.description =
      "inter-core value passing on the E16 (unicast, multicast, broadcast, broadcast no wait), e-lib writes";
  p.symbols = {
      {"k_passUni", erase(&k_passUni)},
      {"k_passMulti", erase(&k_passMulti)},
      {"k_passBroadcastWait", erase(&k_passBroadcastWait)},
      {"k_passBroadcastNoWait", erase(&k_passBroadcastNoWait)},
      {"k_passBroadcastNoWaitFixed", erase(&k_passBroadcastNoWaitFixed)},
      {"k_passUniBroken", erase(&k_passUniBroken)},
      {"k_writeOutside", erase(&k_writeOutside)},
      {"k_deadlock", erase(&k_deadlock)},
  };
  hopsim::epiphany::register_package(std::move(p));
}

namespace {
// Linked into hopsim as an object library: the kernels are registered when it loads.
[[maybe_unused]] const bool registered = (hopsim_register_epiphany_kernels(), true);
}  // namespace
