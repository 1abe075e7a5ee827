#include <nlohmann/json.hpp>

#include "hopsim/runtime/kernel_registry.hpp"
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
  using hopsim::runtime::ArgDecl;
  hopsim::runtime::KernelPackage p;
  p.name = "passing";
  p.family = "epiphany";
  p.description = "inter-core value passing on the E16 (unicast, multicast, broadcast, broadcast no wait)";
  std::vector<std::string> names;
  for (const auto& [m, s] : passing::methods()) names.push_back(m);
  p.args = {
      ArgDecl{"repeat", 100, "passes per launch (the original: 100000)", 1, 10000000, {}},
      ArgDecl{"n_min", 1, "smallest number of ints per core", 1, 16, {}},
      ArgDecl{"n_max", 16, "largest number of ints per core", 1, 16, {}},
      ArgDecl{"methods",
              nlohmann::json::array({"unicast", "multicast", "broadcast", "broadcastNoWait", "broadcastNoWaitFixed"}),
              "methods to launch, in this order for each n", 0, 0, names},
      ArgDecl{"expect_faulty", nlohmann::json::array({"broadcastNoWait"}),
              "methods that reproduce a known bug of the original: their data mismatches are reported, not fatal", 0,
              0, names, true},
  };
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
  p.host_main = passing::host_main;
  hopsim::runtime::register_package(std::move(p));
}
