#include "hopsim/epiphany_package.hpp"

extern "C" void hopsim_package(hopsim::epiphany::KernelPackage& p) {
  p.name = "raw-tests";
  p.family = "epiphany";
  p.description = "kernels for the raw-access tests";
  for (const char* k :
       {"k_remote_store", "k_remote_load", "k_flag", "k_globals", "k_atomics", "k_store_outside", "k_load_nowhere"})
    p.symbols.push_back({k, nullptr});
}
