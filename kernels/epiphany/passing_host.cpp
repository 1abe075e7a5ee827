// Host program of the passing experiment, mirroring the original's stdcl
// launch loop: for n = 1..16 and each method, clforka the kernel on the 16
// cores bracketed by clock(), and write one `n,method,ticks` line. After
// each launch the host reads the cores' arrays back and checks every slot.
#include <stdcl.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/epiphany_host.hpp"
#include "hopsim/epiphany_package.hpp"
#include "passing.h"

namespace passing {
namespace {
constexpr int kCores = 16;
constexpr int kStride = 256;  // ints of the debug buffer per core (the kernels' DEBUG_STRIDE)
}  // namespace

const std::vector<std::pair<std::string, std::string>>& methods() {
  static const std::vector<std::pair<std::string, std::string>> m{
      {"unicast", "k_passUni"},
      {"multicast", "k_passMulti"},
      {"broadcast", "k_passBroadcastWait"},
      {"broadcastNoWait", "k_passBroadcastNoWait"},
      {"broadcastNoWaitFixed", "k_passBroadcastNoWaitFixed"},
      {"unicastBroken", "k_passUniBroken"},
      {"writeOutside", "k_writeOutside"},
      {"deadlock", "k_deadlock"},
  };
  return m;
}

std::vector<hopsim::epiphany::Metric> metrics(const std::vector<hopsim::epiphany::LaunchRecord>& recs,
                                              const nlohmann::json& args, const std::string& machine);

void describe(hopsim::epiphany::KernelPackage& p) {
  using hopsim::epiphany::ArgDecl;
  p.family = "epiphany";
  std::vector<std::string> names;
  for (const auto& [m, s] : methods()) {
    names.push_back(m);
    p.symbols.push_back({s, nullptr});
  }
  p.args = {
      ArgDecl{"repeat", 100, "passes per launch (the original: 100000)", 1, 10000000, {}},
      ArgDecl{"n_min", 1, "smallest number of ints per core", 1, 16, {}},
      ArgDecl{"n_max", 16, "largest number of ints per core", 1, 16, {}},
      ArgDecl{"methods",
              nlohmann::json::array({"unicast", "multicast", "broadcast", "broadcastNoWait", "broadcastNoWaitFixed"}),
              "methods to launch, in this order for each n", 0, 0, names},
      ArgDecl{"expect_faulty", nlohmann::json::array({"broadcastNoWait"}),
              "methods that reproduce a known bug of the original: their data mismatches are reported, not fatal", 0, 0,
              names, true},
  };
  p.host_main = host_main;
  p.metrics = metrics;
}

// The published figures (nickoppen blog 2015-03-27): host clock() ticks
// around one clforka of 100000 repeats, with about 119000 ticks of launch
// overhead, averaged over n = 1..16. A simulated run predicts them by
// scaling each launch to 100000 repeats and adding that overhead; only a
// run on the e16g301 covering n = 1..16 says anything about them.
std::vector<hopsim::epiphany::Metric> metrics(const std::vector<hopsim::epiphany::LaunchRecord>& recs,
                                              const nlohmann::json& args, const std::string& machine) {
  std::vector<hopsim::epiphany::Metric> out;
  if (machine != "e16g301" || args["n_min"].get<int>() != 1 || args["n_max"].get<int>() != 16) return out;
  const double repeat = args["repeat"].get<int>();
  static const std::vector<std::pair<std::string, std::string>> names{
      {"broadcast", "broadcast (barrier after each target)"},
      {"unicast", "unicast ring"},
      {"multicast", "multicast (bicast) ring"},
      {"broadcastNoWait", "broadcast no wait"},
      {"broadcastNoWaitFixed", "broadcast no wait (corrected)"}};
  for (const auto& [method, configuration] : names) {
    double sum = 0;
    int count = 0;
    for (const auto& r : recs) {
      if (r.method != method) continue;
      sum += r.seconds * 1e6 * (100000.0 / repeat) + 119000.0;
      ++count;
    }
    if (count == 16)
      out.push_back({"epiphany-e16g301", "passing", configuration, "host_ticks_mean", sum / 16, "ticks"});
  }
  return out;
}

void host_main(hopsim::epiphany::HostContext& ctx) {
  const auto& a = ctx.args();
  const int repeat = a["repeat"].get<int>();
  const int n_min = a["n_min"].get<int>();
  const int n_max = a["n_max"].get<int>();
  if (n_min > n_max) throw hopsim::ConfigError(fmt::format("kernel.args.n_min: {} is above n_max {}", n_min, n_max));
  const auto wanted = a["methods"].get<std::vector<std::string>>();
  const auto faulty = a["expect_faulty"].get<std::vector<std::string>>();

  cl_int* debug = static_cast<cl_int*>(clmalloc(stdacc, kCores * kStride * sizeof(cl_int), 0));
  void* h = clopen(stdacc, nullptr, CLLD_NOW);
  std::vector<std::pair<std::string, cl_kernel>> kernels;
  for (const auto& w : wanted) {
    for (const auto& [name, sym] : methods())
      if (name == w) kernels.emplace_back(name, clsym(stdacc, h, sym.c_str(), CLLD_NOW));
  }
  clndrange_t ndr = clndrange_init1d(0, kCores, kCores);

  const std::string csv_path = ctx.output_file("pass", "csv");
  std::ofstream fout(csv_path);
  if (!fout) throw hopsim::Error("cannot write " + csv_path);

  const std::size_t total = static_cast<std::size_t>(n_max - n_min + 1) * kernels.size();
  std::size_t done = 0;
  // A launch's work grows with n: the progress's ETA weighs each launch by n.
  double work_total = 0, work_done = 0;
  for (int n = n_min; n <= n_max; ++n) work_total += static_cast<double>(n) * static_cast<double>(kernels.size());
  for (int n = n_min; n <= n_max; ++n) {
    for (const auto& [method, krn] : kernels) {
      std::fill(debug, debug + kCores * kStride, -1);
      clmsync(stdacc, 0, debug, CL_MEM_DEVICE | CL_EVENT_WAIT);

      const std::clock_t tstart = clock();
      clforka(stdacc, 0, krn, &ndr, CL_EVENT_WAIT, n, debug, repeat);
      const std::clock_t tend = clock();

      fout << n << "," << method << "," << (tend - tstart) << std::endl;
      clmsync(stdacc, 0, debug, CL_MEM_HOST | CL_EVENT_WAIT);

      hopsim::epiphany::LaunchRecord r;
      r.method = method;
      r.n = n;
      r.ticks = static_cast<double>(tend - tstart);
      r.seconds = ctx.device().last_launch().seconds;
      r.cycles = ctx.device().last_launch().cycles;
      r.known_faulty = std::find(faulty.begin(), faulty.end(), method) != faulty.end();
      // Every core must hold every slot s as s + 100.
      for (int core = 0; core < kCores; ++core) {
        for (int slot = 0; slot < kCores; ++slot) {
          for (int k = 0; k < n; ++k) {
            const int got = debug[core * kStride + slot * n + k];
            ++r.checked;
            if (got == slot + 100) continue;
            ++r.mismatch_count;
            if (r.mismatches.size() < 16)
              r.mismatches.push_back(
                  fmt::format("core {} slot {} item {}: expected {}, got {}", core, slot, k, slot + 100, got));
          }
        }
      }
      r.digest = hopsim::epiphany::fnv1a(debug, kCores * kStride * sizeof(cl_int));
      ctx.record(std::move(r));
      work_done += n;
      ctx.progress(++done, total, fmt::format("{} n={}", method, n), work_done / work_total);
    }
  }
}

}  // namespace passing
