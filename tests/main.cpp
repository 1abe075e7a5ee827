#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "passing.h"

int main(int argc, char** argv) {
  hopsim_register_epiphany_kernels();
  return Catch::Session().run(argc, argv);
}
