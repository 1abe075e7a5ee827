// A BG/Q program with its own main(), built by hopsim-mpicc: the launcher
// hopsim-mpicc links calls hopsim_bgq_program_main with the program's code
// (a shared object embedded in the executable). Every rank loads its own
// copy of that object, so each rank has its own globals and statics, as
// each node has its own memory; main(argc, argv) runs on every rank, and a
// rank that returns or calls exit() ends only itself (exit is wrapped at
// link time into hopsim_bgq_exit).
//
// Environment: HOPSIM_MODE (sim, the default, or native), HOPSIM_SCENARIO
// (a scenario file: machine preset and parameters, transport; written by
// `hopsim bgq exec`), HOPSIM_REPORT (where to write the run's summary as
// JSON), HOPSIM_QUIET (no summary line on stderr), HOPSIM_COMPUTE
// (annotated, the default, or counted).
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hopsim/bgq/run.hpp"
#include "hopsim/bgq_kernel.h"
#include "hopsim/bgq_package.hpp"
#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/log.hpp"
#include "machine.hpp"

namespace hopsim::bgq {
namespace {

// Thrown by hopsim_bgq_exit on the calling rank; caught where main was called.
struct RankExit {
  int status;
};

struct Program {
  const unsigned char* image = nullptr;
  std::size_t size = 0;
  std::vector<std::string> argv;
  std::mutex m;                // native ranks load concurrently
  std::vector<void*> handles;  // every loaded copy, closed at the end
  std::vector<int> status;     // per rank: main's return value or exit's argument
  std::string dir;             // where the ranks' copies are written (removed at the end)
};
Program g_program;

// A private copy of the program's shared object for the calling rank: a
// file of its own (the dynamic loader gives a second dlopen of a path or a
// file it already holds the first's globals), removed once it is mapped.
void* load_copy(int rank) {
  if (g_program.dir.empty()) {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/hopsim-bgq.XXXXXX";
    if (!::mkdtemp(tmpl.data()))
      throw KernelError(fmt::format("cannot make a folder for the ranks' copies of the program in {}: {}",
                                    t && *t ? t : "/tmp", std::strerror(errno)));
    g_program.dir = tmpl;
  }
  const std::string path = fmt::format("{}/rank-{}.so", g_program.dir, rank);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  if (fd < 0) throw KernelError(fmt::format("rank {}: cannot write {}: {}", rank, path, std::strerror(errno)));
  for (std::size_t off = 0; off < g_program.size;) {
    const ssize_t w = ::write(fd, g_program.image + off, g_program.size - off);
    if (w <= 0) {
      ::close(fd);
      ::unlink(path.c_str());
      throw KernelError(fmt::format("rank {}: cannot write {}: {}", rank, path, std::strerror(errno)));
    }
    off += static_cast<std::size_t>(w);
  }
  ::close(fd);
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ::unlink(path.c_str());
  if (!h) throw KernelError(fmt::format("rank {}: cannot load the program: {}", rank, ::dlerror()));
  return h;
}

// What every rank runs: its own copy's main(argc, argv).
void program_rank() {
  const int rank = Machine::current_rank();
  void* h = nullptr;
  {
    const std::lock_guard<std::mutex> lock(g_program.m);
    h = load_copy(rank);
    g_program.handles.push_back(h);
  }
  using Main = int (*)(int, char**);
  auto* entry = reinterpret_cast<Main>(::dlsym(h, "main"));
  if (!entry) throw KernelError(fmt::format("rank {}: the program has no main()", rank));
  std::vector<std::string> args = g_program.argv;  // the rank may change its argv
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int status = 0;
  try {
    status = entry(static_cast<int>(args.size()), argv.data());
  } catch (const RankExit& e) {
    status = e.status;
  }
  g_program.status[static_cast<std::size_t>(rank)] = status;
  hopsim_bgq_check("exit status", 1, status != 0 ? 1 : 0,
                   status != 0 ? fmt::format("main ended with status {}", status).c_str() : "");
}

Scenario scenario_from_env(Mode mode) {
  nlohmann::json doc;
  if (const char* path = std::getenv("HOPSIM_SCENARIO"); path && *path) {
    std::ifstream f(path);
    if (!f) throw ConfigError(fmt::format("HOPSIM_SCENARIO: cannot read {}", path));
    doc = nlohmann::json::parse(f, nullptr, false);
    if (doc.is_discarded()) throw ConfigError(fmt::format("HOPSIM_SCENARIO: {} is not JSON", path));
  } else {
    doc = {{"machine", {{"preset", "bgq"}}}};
  }
  doc["kernel"] = {{"name", "program"}, {"args", nlohmann::json::object()}};
  doc["mode"] = to_string(mode);
  // HOPSIM_COMPUTE: the compute model of a simulated run (docs/bgq.md).
  if (const char* compute = std::getenv("HOPSIM_COMPUTE"); compute && *compute) {
    const auto parsed = parse_compute_model(compute);
    if (parsed != ComputeModel::annotated && parsed != ComputeModel::counted)
      throw ConfigError(fmt::format("HOPSIM_COMPUTE={}: a BG/Q program follows annotated or counted", compute));
    doc["compute"] = {{"model", compute}};
  }
  doc["outputs"] = {{"dir", "."}, {"json", false}, {"csv", false}};
  return scenario_from_json(doc, std::getenv("HOPSIM_SCENARIO") ? std::getenv("HOPSIM_SCENARIO") : "program");
}

int run_program(int argc, char** argv) {
  const char* m = std::getenv("HOPSIM_MODE");
  const Mode mode = m && *m ? parse_mode(m, "HOPSIM_MODE") : Mode::sim;
  if (mode == Mode::both) throw ConfigError("HOPSIM_MODE: sim or native (hopsim bgq exec runs both)");
  g_program.argv.assign(argv, argv + argc);
  if (!find_kernel("program")) {
    BgqKernel k;
    k.package.name = "program";
    k.package.description = "a BG/Q program with its own main(), built by hopsim-mpicc";
    k.entry = &program_rank;
    k.counted_code = true;
    register_kernel(k);
  }
  const Scenario sc = scenario_from_env(mode);
  log::set_level(sc.resolved.contains("log") ? sc.log_level : "warn");
  const auto params = resolve_params(sc);
  g_program.status.assign(params.num_nodes(), 0);
  set_rank_stack_bytes(std::size_t{8} << 20);  // a program's main may keep big arrays on its stack
  const BgqReport r = run(sc);
  const auto& out = r.modes.at(0);
  // Each rank's status, from its "exit status" check (a process rank's own memory is not this one's).
  for (const auto& c : out.checks) {
    int rank = -1, status = 0;
    if (std::sscanf(c.what.c_str(), "rank %d exit status", &rank) == 1 &&
        std::sscanf(c.example.c_str(), "main ended with status %d", &status) == 1 && rank >= 0 &&
        static_cast<std::size_t>(rank) < g_program.status.size())
      g_program.status[static_cast<std::size_t>(rank)] = status;
  }
  int failed = 0, first = 0;
  for (const int s : g_program.status)
    if (s != 0 && failed++ == 0) first = s;
  if (const char* rep = std::getenv("HOPSIM_REPORT"); rep && *rep) {
    const nlohmann::json j = {
        {"mode", to_string(mode)},  {"ranks", g_program.status.size()}, {"exit_statuses", g_program.status},
        {"cycles", out.end_cycles}, {"host_seconds", out.wall_seconds}, {"descriptors", out.descriptors},
        {"packets", out.packets}};
    write_file_atomic(rep, j.dump(2) + "\n");
  }
  int shown = 0;
  for (std::size_t i = 0; i < g_program.status.size() && shown < 5; ++i)
    if (g_program.status[i] != 0) {
      std::cerr << fmt::format("hopsim: rank {} ended with status {}\n", i, g_program.status[i]);
      ++shown;
    }
  if (!std::getenv("HOPSIM_QUIET"))
    std::cerr << fmt::format("hopsim: bgq {} run of {} ranks: {} cycles ({:.3g} s at {:g} GHz), {} descriptors; {}\n",
                             to_string(mode), g_program.status.size(), out.end_cycles, out.end_cycles / params.clock_hz,
                             params.clock_hz / 1e9, out.descriptors,
                             failed ? fmt::format("{} ranks ended with a non-zero status (first {})", failed, first)
                                    : std::string("every rank ended with status 0"));
  for (void* h : g_program.handles) ::dlclose(h);
  g_program.handles.clear();
  if (!g_program.dir.empty()) ::rmdir(g_program.dir.c_str());
  return failed ? (first & 0xff ? first & 0xff : 1) : 0;
}

}  // namespace
}  // namespace hopsim::bgq

extern "C" {

int hopsim_bgq_program_main(int argc, char** argv, const unsigned char* image, unsigned long size) {
  hopsim::bgq::g_program.image = image;
  hopsim::bgq::g_program.size = size;
  hopsim::crash::install();
  try {
    return hopsim::bgq::run_program(argc, argv);
  } catch (const hopsim::DeadlockError& e) {
    std::fprintf(stderr, "hopsim: %s\n", e.what());
    return 6;
  } catch (const hopsim::KernelError& e) {
    std::fprintf(stderr, "hopsim: %s\n", e.what());
    return 5;
  } catch (const hopsim::ConfigError& e) {
    std::fprintf(stderr, "hopsim: %s\n", e.what());
    return 2;
  } catch (const hopsim::CrashError& e) {
    std::fprintf(stderr, "hopsim: %s\n", e.what());
    return hopsim::crash::exit_status(e.signal());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hopsim: %s\n", e.what());
    return 1;
  }
}

// exit() of a rank's code (hopsim-mpicc links it with --wrap=exit): ends
// that rank only; outside a rank, the process.
[[noreturn]] void __wrap_exit(int status) {  // NOLINT(bugprone-reserved-identifier)
  if (hopsim::bgq::Machine::current() && hopsim::bgq::Machine::current_rank() >= 0) throw hopsim::bgq::RankExit{status};
  std::exit(status);
}
}
