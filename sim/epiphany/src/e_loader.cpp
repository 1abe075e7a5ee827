// e-loader: e_load and e_load_group over hopsim's e-hal (e_hal_system.hpp).
#include <cstdio>

#include "e-loader.h"
#include "e_hal_system.hpp"
#include "hopsim/core/error.hpp"

using hopsim::epiphany::ehal::Hal;

namespace {
e_loader_diag_t g_loader_verbosity = L_D0;

int load(const char* exe, e_epiphany_t* dev, unsigned row, unsigned col, unsigned rows, unsigned cols, bool start) {
  try {
    Hal& h = Hal::require("e_load");
    if (!exe) throw hopsim::Error("e_load: no file name");
    for (unsigned r = row; r < row + rows; ++r)
      for (unsigned c = col; c < col + cols; ++c) h.load(exe, dev, r, c, false);
    if (start)
      for (unsigned r = row; r < row + rows; ++r)
        for (unsigned c = col; c < col + cols; ++c) h.start(h.core_index(dev, r, c, "e_load"));
    return E_OK;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "hopsim: e_load: %s\n", e.what());
    return E_ERR;
  }
}
}  // namespace

extern "C" {

int e_load(const char* executable, e_epiphany_t* dev, unsigned row, unsigned col, e_bool_t start) {
  return load(executable, dev, row, col, 1, 1, start != E_FALSE);
}

int e_load_group(const char* executable, e_epiphany_t* dev, unsigned row, unsigned col, unsigned rows, unsigned cols,
                 e_bool_t start) {
  return load(executable, dev, row, col, rows, cols, start != E_FALSE);
}

e_loader_diag_t e_set_loader_verbosity(e_loader_diag_t verbose) {
  const e_loader_diag_t old = g_loader_verbosity;
  g_loader_verbosity = verbose;
  return old;
}

}  // extern "C"
