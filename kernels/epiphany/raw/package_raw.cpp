// The raw-pointer passing kernels as a kernel library (built with hopsim-cc).
#include "hopsim/epiphany_package.hpp"
#include "passing.h"

extern "C" void hopsim_package(hopsim::epiphany::KernelPackage& p) {
  passing::describe(p);
  p.name = "passing-raw";
  p.description = "the passing kernels in the original style: raw NEIGHBOUR_LOC stores into a stack array";
}
