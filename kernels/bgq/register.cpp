// The BG/Q kernels hopsim ships, registered with the bgq family.
#include "register.h"

#include <fmt/format.h>

#include "hopsim/bgq_package.hpp"

extern "C" void hopsim_bgq_halo_main();
extern "C" void hopsim_bgq_pingpong_main();
extern "C" void hopsim_bgq_gibarrier_main();

namespace hopsim::bgq {

void register_bgq_kernels() {
  static bool done = false;
  if (done) return;
  done = true;
  BgqKernel halo;
  halo.package.name = "halo";
  halo.package.description =
      "DirectPut halo exchange to 8 neighbours of a periodic 4-D grid {A*B,C,D,E} (urbach/Qspi): four timings per loop";
  halo.package.args = {
      {"iterations", 3, "timed loops (each: comm only, comp only, no overlap, overlap)", 1, 1000000, {}, false},
      {"msg_size", 32768, "bytes per neighbour (uniform sizes)", 8, 1 << 26, {}, false},
      {"package", 2048, "bytes per descriptor (messages are sent as packages)", 8, 1 << 26, {}, false},
      {"threads", 1, "hardware threads of the overlap computation", 1, 64, {}, false},
      {"program_sizes",
       0,
       "1: the program's own sizes (16 KiB t, 48 KiB x, 32 KiB y, z) instead of msg_size",
       0,
       1,
       {},
       false},
      {"dynamic", 1, "1: dynamic routing on the dynamic VC; 0: deterministic", 0, 1, {}, false},
  };
  halo.entry = &hopsim_bgq_halo_main;
  halo.counted_code = true;  // hopsim-mpicc -c halo.cpp
  halo.metrics = [](const std::vector<Timing>& mean, const nlohmann::json& args) {
    // The published configuration: 32 nodes, 32768-byte messages in 2048-byte packages.
    std::string suffix;
    if (args["msg_size"] != 32768 || args["program_sizes"] != 0)
      suffix += args["program_sizes"] == 1 ? ", program sizes" : fmt::format(", msg {}", args["msg_size"].get<long>());
    if (args["package"] != 2048) suffix += fmt::format(", package {}", args["package"].get<long>());
    if (args["threads"] != 1) suffix += fmt::format(", {} threads", args["threads"].get<long>());
    if (args["dynamic"] != 1) suffix += ", deterministic";
    std::vector<Metric> out;
    for (const auto& t : mean)
      out.push_back({"bgq", "directput-halo", suffix.empty() ? t.what : t.what + " (" + suffix.substr(2) + ")",
                     "cycles", t.cycles, "cycles"});
    return out;
  };
  register_kernel(std::move(halo));

  BgqKernel pp;
  pp.package.name = "pingpong";
  pp.package.description =
      "memory-FIFO ping-pong between rank 0 and a partner (reception FIFO, registered receive function)";
  pp.package.args = {
      {"iterations", 10, "round trips", 1, 1000000, {}, false},
      {"msg_size", 512, "bytes per message", 1, 1 << 20, {}, false},
      {"partner", 1, "the rank that echoes", 1, 1 << 20, {}, false},
  };
  pp.entry = &hopsim_bgq_pingpong_main;
  register_kernel(std::move(pp));

  BgqKernel gi;
  gi.package.name = "gibarrier";
  gi.package.description = "the global-interrupt barrier alone (MUSPI_GIBarrierEnter / PollWithTimeout), timed";
  gi.package.args = {{"iterations", 10, "barriers", 1, 1000000, {}, false}};
  gi.entry = &hopsim_bgq_gibarrier_main;
  register_kernel(std::move(gi));
}

namespace {
// Linked into hopsim as an object library: the kernels are registered when it loads.
[[maybe_unused]] const bool registered = (register_bgq_kernels(), true);
}  // namespace

}  // namespace hopsim::bgq
