#include <cxxabi.h>
#include <sched.h>
#include <sys/personality.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "backends.hpp"
#include "ham/offload/main_explicit.hpp"
#include "ham/offload/offload.hpp"
#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/scenario.hpp"
#include "hopsim/core/units.hpp"

namespace ham::offload::detail {

void check_message_fits(const Options& o, std::size_t body_size, std::size_t result_size) {
  if (sizeof(MsgHeader) + body_size > o.message_size)
    throw hopsim::Error(fmt::format(
        "HAM active message of {} B (+{} B header) does not fit the message buffer of {} B (--ham-message-size); "
        "messages are not split: pass large data with put/get",
        body_size, sizeof(MsgHeader), o.message_size));
  if (result_size > o.message_size)
    throw hopsim::Error(fmt::format("HAM result of {} B does not fit the message buffer of {} B (--ham-message-size)",
                                    result_size, o.message_size));
}

namespace {

struct Entry {
  std::string name;
  handler_fn fn;
};

struct RegistryState {
  std::vector<Entry> entries;
  bool finalized = false;
};

RegistryState& registry() {
  static RegistryState s;
  return s;
}

std::unique_ptr<Runtime>& current() {
  static std::unique_ptr<Runtime> rt;
  return rt;
}

// Bounds of the runtime's sizes: with them the shared memory a native run maps (buffers x (64 B + message
// size) for the results, the same plus the card memory per target) stays far below 2^64 bytes.
constexpr std::size_t kMaxMessageSize = std::size_t{1} << 30;              // 1 GiB
constexpr std::size_t kMaxCardMemory = std::size_t{1} << 40;               // 1 TiB
constexpr std::size_t kMaxCore = CPU_SETSIZE - 1;                          // the highest CPU sched_setaffinity can name
constexpr std::size_t kNoLimit = std::numeric_limits<std::size_t>::max();  // the option checks its own range

// A whole number from 0 to `max` (`what` says what the limit is).
std::size_t parse_size(const std::string& key, const std::string& v, std::size_t max = kNoLimit,
                       const char* what = "") {
  std::size_t pos = 0;
  unsigned long long x = 0;
  bool too_big = false;
  try {
    x = std::stoull(v, &pos);
  } catch (const std::out_of_range&) {
    too_big = true;
    pos = v.size();
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos != v.size() || v.empty() || v[0] == '-')
    throw hopsim::ConfigError(fmt::format("{}: '{}' is not a non-negative whole number", key, v));
  if (too_big || x > max)
    throw hopsim::ConfigError(max == kNoLimit ? fmt::format("{}: {} is too large", key, v)
                                              : fmt::format("{}: {} is more than {}, {}", key, v, max, what));
  return static_cast<std::size_t>(x);
}

}  // namespace

// ------------------------------------------------------------ registry

int Registry::add(const char* type_name, handler_fn fn) {
  RegistryState& r = registry();
  if (r.finalized)
    throw std::logic_error(std::string("HAM message type registered after the registry was sorted: ") + type_name);
  r.entries.push_back({type_name, fn});
  return static_cast<int>(r.entries.size());
}

void Registry::finalize() {
  RegistryState& r = registry();
  if (r.finalized) return;
  std::sort(r.entries.begin(), r.entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  r.entries.erase(
      std::unique(r.entries.begin(), r.entries.end(), [](const Entry& a, const Entry& b) { return a.name == b.name; }),
      r.entries.end());
  r.finalized = true;
}

std::uint32_t Registry::key(const char* type_name) {
  RegistryState& r = registry();
  if (!r.finalized)
    throw hopsim::Error(
        "HAM message sent before the runtime started (ham/offload.hpp starts it before main; with HAM_EXPLICIT, "
        "ham_init does)");
  const auto it = std::lower_bound(r.entries.begin(), r.entries.end(), type_name,
                                   [](const Entry& e, const char* n) { return e.name < n; });
  if (it == r.entries.end() || it->name != type_name)
    throw hopsim::Error(std::string("HAM message type not registered: ") + type_name);
  return static_cast<std::uint32_t>(it - r.entries.begin());
}

handler_fn Registry::handler(std::uint32_t key) {
  const RegistryState& r = registry();
  if (key >= r.entries.size())
    throw hopsim::Error(
        fmt::format("HAM message with handler key {} but only {} handlers are registered", key, r.entries.size()));
  return r.entries[key].fn;
}

std::vector<std::string> Registry::names() {
  std::vector<std::string> out;
  for (const Entry& e : registry().entries) out.push_back(e.name);
  return out;
}

// ------------------------------------------------------------ runtime

Runtime& runtime() {
  if (!current())
    throw hopsim::Error("no HAM-Offload runtime is running (include ham/offload.hpp, which starts it before main)");
  return *current();
}

bool has_runtime() { return current() != nullptr; }

namespace {
// The host's clock when the runtime started (HOPSIM_REPORT's time base).
std::int64_t& started_ps() {
  static std::int64_t t = 0;
  return t;
}

// HOPSIM_REPORT=FILE (set by `hopsim run` for a HAM program): the host
// writes the run's time on its own clock (simulated in sim mode, wall
// natively) from the runtime's start to its end.
void write_report(Runtime& rt) {
  const char* path = std::getenv("HOPSIM_REPORT");
  if (path == nullptr || *path == '\0' || rt.this_node() != 0) return;
  const double seconds = static_cast<double>(rt.now_ps() - started_ps()) * 1e-12;
  const char* mode = rt.options().mode == Mode::sim ? "sim" : rt.options().mode == Mode::mpi ? "mpi" : "native";
  hopsim::write_file_atomic(path, fmt::format("{{\"seconds\": {:.12g}, \"mode\": \"{}\", \"targets\": {}}}\n", seconds,
                                              mode, rt.num_nodes() - 1));
}
}  // namespace

int start(const Options& o, bool serve_and_exit) {
  if (current()) throw hopsim::Error("a HAM-Offload runtime is already running in this process");
  Registry::finalize();
  if (o.mode == Mode::sim) {
    current() = make_sim_runtime(o);
    started_ps() = current()->now_ps();
    return -1;
  }
  if (o.mode == Mode::mpi && !launched_by_mpirun())
    throw hopsim::ConfigError(
        "--ham-mode mpi: not launched by mpirun (no OMPI_COMM_WORLD_SIZE in the environment); launch it with "
        "mpirun -np N+1 PROGRAM ... --ham-mode mpi (N targets)");
  std::unique_ptr<Runtime> rt = o.mode == Mode::mpi ? make_mpi_runtime(o) : make_native_runtime(o);
  const bool target = rt->this_node() != 0;
  current() = std::move(rt);
  if (!target) {
    started_ps() = current()->now_ps();
    return -1;
  }
  const int rc = current()->serve_target();
  if (serve_and_exit) std::_Exit(rc);  // the target never returns from here
  return rc;
}

void stop() {
  if (!current()) return;
  try {
    current()->shutdown();
    write_report(*current());
  } catch (...) {
    current().reset();
    throw;
  }
  current().reset();
}

namespace {
std::string& deferred() {
  static std::string e;
  return e;
}
std::vector<node_descriptor>& descriptors() {
  static std::vector<node_descriptor> d;
  return d;
}
}  // namespace

void defer_error(const std::string& what) noexcept {
  try {
    if (deferred().empty()) deferred() = what.empty() ? std::string("a dropped future's call failed") : what;
  } catch (...) {
  }
}

namespace {

// Whether this process's addresses are not randomised: the kernel's
// randomize_va_space is 0, or the process runs with ADDR_NO_RANDOMIZE. Then
// every rank of an mpirun job of one program has the same program image
// at the same addresses.
bool fixed_layout() {
  const int p = personality(0xffffffff);
  if (p != -1 && (p & ADDR_NO_RANDOMIZE) != 0) return true;
  std::ifstream f("/proc/sys/kernel/randomize_va_space");
  int v = -1;
  return f >> v && v == 0;
}

// --ham-mode mpi with the implicit main: before anything else, the program
// runs itself again with address randomisation off (as `setarch -R`), so
// that host and targets agree on code, data and vtable addresses as the
// processes of a fork do. Nothing happens when randomisation is off
// already, was turned off by this once (HOPSIM_HAM_FIXED_LAYOUT in the
// environment), or the kernel refuses (a seccomp filter): then messages
// carrying vtables are refused (check_vtable_travel).
void fix_layout(const std::vector<std::string>& args) {
  if (fixed_layout() || std::getenv("HOPSIM_HAM_FIXED_LAYOUT") != nullptr) return;
  const int current = personality(0xffffffff);
  if (current == -1 || personality(static_cast<unsigned long>(current) | ADDR_NO_RANDOMIZE) == -1) return;
  setenv("HOPSIM_HAM_FIXED_LAYOUT", "1", 1);
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  argv.reserve(copy.size() + 1);
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::fflush(nullptr);
  execv("/proc/self/exe", argv.data());
  personality(static_cast<unsigned long>(current));  // exec failed: go on as we are
}

}  // namespace

void check_vtable_travel(const char* message_type) {
  if (runtime().options().mode != Mode::mpi) return;
  static const bool fixed = fixed_layout();  // the layout does not change while the process runs
  if (fixed) return;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> readable(abi::__cxa_demangle(message_type, nullptr, nullptr, &status),
                                                       &std::free);
  throw hopsim::Error(fmt::format(
      "HAM message {} carries an object with virtual functions, whose vtable pointer is the host process's; in "
      "--ham-mode mpi the target is another process, where that address may not hold the vtable (address "
      "randomisation is on, and hopsim could not turn it off for this run), so hopsim refuses it (HAM-Offload "
      "would send it): pass plain data, run --ham-mode native or sim, or start it under `setarch -R`",
      status == 0 && readable ? readable.get() : message_type));
}

std::string take_deferred_error() { return std::exchange(deferred(), std::string()); }

std::uintptr_t allocate_bytes(std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(runtime().target_alloc(bytes));
}
void free_bytes(std::uintptr_t p) { runtime().target_free(reinterpret_cast<void*>(p)); }
void move_bytes(std::uintptr_t dst, std::uintptr_t src, std::size_t bytes) {
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
}

// ------------------------------------------------------------ options

std::string options_help() {
  return "HAM-Offload runtime options (hopsim):\n"
         "  --ham-mode native|sim|mpi    native: target process over shared memory (default); sim: modelled PCIe "
         "path;\n"
         "                               mpi: targets are ranks 1..N of mpirun -np N+1 (Open MPI two-sided "
         "messages)\n"
         "  --ham-targets N              target nodes 1..N (default 1; mpi: from mpirun -np)\n"
         "  --ham-preset NAME            machine preset for sim mode (default knc-7120p)\n"
         "  --ham-set NAME=VALUE         override one preset parameter (repeatable)\n"
         "  --ham-cpu-affinity CORE      pin the host process to CORE (sim: the core's socket decides the\n"
         "                               inter-socket crossing)\n"
         "  --ham-target-cpu-affinity CORE  pin the native target process to CORE\n"
         "  --ham-message-size BYTES     message buffer size (default 4096; a multiple of 64, at most 1 GiB)\n"
         "  --ham-buffers N              message buffers per direction (default 256)\n"
         "  --ham-card-memory BYTES      target heap size (default 1 GiB; 4096 B to 1 TiB)\n"
         "  --ham-trace FILE.db          sim: write a hopsim trace database of the run (hopsim trace stats FILE.db)\n"
         "  --ham-trace-detail LEVEL     counters, transactions (default) or hops\n"
         "  --ham-trace-window B:E       record detail only in cycles B..E (or times: \"2 us:5 us\")\n"
         "  --ham-trace-max-size SIZE    stop recording detail past SIZE (default 1 GiB; 0: no limit)\n";
}

namespace {
// The --ham-trace* options; false for any other key.
bool parse_trace_option(Options& o, const std::string& key, const std::string& value) {
  if (key == "--ham-trace") {
    if (value.empty()) throw hopsim::ConfigError("--ham-trace: needs a file name");
    o.trace = value;
  } else if (key == "--ham-trace-detail") {
    if (value != "counters" && value != "transactions" && value != "hops")
      throw hopsim::ConfigError(fmt::format("--ham-trace-detail: '{}' is not counters, transactions or hops", value));
    o.trace_detail = value;
  } else if (key == "--ham-trace-window") {
    (void)hopsim::parse_trace_window(value, 1e9, key);  // the syntax; the card's clock later
    o.trace_window = value;
  } else if (key == "--ham-trace-max-size") {
    o.trace_max_size = hopsim::parse_quantity(std::string_view(value), hopsim::Dim::bytes, key);
  } else {
    return false;
  }
  return true;
}
}  // namespace

Options parse_options(int& argc, char** argv) {
  Options o;
  bool trace_given = false, detail_given = false;
  std::vector<char*> rest;
  rest.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--ham-", 0) != 0) {
      rest.push_back(argv[i]);
      continue;
    }
    std::string key = a, value;
    const auto eq = a.find('=');
    if (eq != std::string::npos) {
      key = a.substr(0, eq);
      value = a.substr(eq + 1);
    } else {
      if (i + 1 >= argc) throw hopsim::ConfigError(key + ": needs a value");
      value = argv[++i];
    }
    if (key == "--ham-mode") {
      if (value == "native")
        o.mode = Mode::native;
      else if (value == "sim")
        o.mode = Mode::sim;
      else if (value == "mpi")
        o.mode = Mode::mpi;
      else
        throw hopsim::ConfigError(fmt::format("--ham-mode: '{}' is not native, sim or mpi", value));
    } else if (key == "--ham-targets") {
      const std::size_t t = parse_size(key, value);
      if (t < 1 || t > kMaxTargets)
        throw hopsim::ConfigError(fmt::format("--ham-targets: {} is not in 1..{}", value, kMaxTargets));
      o.targets = static_cast<int>(t);
    } else if (key == "--ham-preset") {
      o.preset = value;
    } else if (key == "--ham-set") {
      if (value.find('=') == std::string::npos)
        throw hopsim::ConfigError(fmt::format("--ham-set: '{}' is not NAME=VALUE", value));
      o.sets.push_back(value);
    } else if (key == "--ham-cpu-affinity") {
      o.host_core = static_cast<int>(parse_size(key, value, kMaxCore, "the highest CPU number"));
    } else if (key == "--ham-target-cpu-affinity") {
      o.target_core = static_cast<int>(parse_size(key, value, kMaxCore, "the highest CPU number"));
    } else if (key == "--ham-message-size") {
      o.message_size = parse_size(key, value, kMaxMessageSize, "1 GiB, the largest message buffer");
      if (o.message_size < 64 || o.message_size % 64 != 0)
        throw hopsim::ConfigError(
            fmt::format("--ham-message-size: {} B is not a multiple of 64 B (at least 64)", o.message_size));
    } else if (key == "--ham-buffers") {
      o.buffers = parse_size(key, value);
      if (o.buffers < 1 || o.buffers > 65536)
        throw hopsim::ConfigError(fmt::format("--ham-buffers: {} is not in 1..65536", o.buffers));
    } else if (key == "--ham-card-memory") {
      o.card_memory = parse_size(key, value, kMaxCardMemory, "1 TiB, the largest target heap");
      if (o.card_memory < 4096) throw hopsim::ConfigError("--ham-card-memory: at least 4096 bytes");
    } else if (parse_trace_option(o, key, value)) {
      (key == "--ham-trace" ? trace_given : detail_given) = true;
    } else {
      throw hopsim::ConfigError(fmt::format("{}: unknown HAM runtime option\n{}", key, options_help()));
    }
  }
  if (detail_given && !trace_given)
    throw hopsim::ConfigError("--ham-trace-detail, -window, -max-size: need --ham-trace FILE.db");
  if (trace_given && o.mode != Mode::sim)
    throw hopsim::ConfigError(
        "--ham-trace: traces are written in --ham-mode sim only (a native run has no modelled PCIe path to "
        "record); add --ham-mode sim");
  for (std::size_t i = 0; i < rest.size(); ++i) argv[i] = rest[i];
  argv[rest.size()] = nullptr;
  argc = static_cast<int>(rest.size());
  return o;
}

namespace {
std::vector<std::string>& saved_command_line() {
  static std::vector<std::string> v;
  return v;
}
}  // namespace

const std::vector<std::string>& command_line() { return saved_command_line(); }

namespace {

// The exit status for the exception being handled, after one line on stderr.
int report_failure(const std::string& prog) {
  try {
    throw;
  } catch (const hopsim::ConfigError& e) {
    std::cerr << prog << ": configuration error: " << e.what() << "\n";
    return 2;
  } catch (const hopsim::DataMismatchError& e) {
    std::cerr << prog << ": data check failed: " << e.what() << "\n";
    return 3;
  } catch (const hopsim::KernelError& e) {
    std::cerr << prog << ": error on the target: " << e.what() << "\n";
    return 5;
  } catch (const hopsim::CrashError& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return hopsim::crash::exit_status(e.signal());
  } catch (const std::exception& e) {
    std::cerr << prog << ": error: " << e.what() << "\n";
    return 1;
  }
}

// Whether --ham-help is among the arguments (then the options are printed).
bool asked_for_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--ham-help") == 0) return true;
  return false;
}

// The host's end of a run: the targets finish; a failure a dropped future
// deferred is thrown as the call's error.
void finish_host() {
  stop();
  const std::string deferred_error = take_deferred_error();
  if (!deferred_error.empty())
    throw hopsim::KernelError("a call whose future was dropped without get() failed: " + deferred_error);
}

std::string& program_name() {
  static std::string p = "ham";
  return p;
}

}  // namespace

int run_main(int argc, char** argv, int (*user_main)(int, char**), int (*user_main_void)()) {
  const std::string prog = argc > 0 ? argv[0] : "ham";
  saved_command_line().assign(argv, argv + argc);
  hopsim::crash::install();
  int rc = 0;
  try {
    if (asked_for_help(argc, argv)) {
      std::cout << options_help();
      return 0;
    }
    if (!user_main && !user_main_void) throw std::logic_error("HAM: the program defines no main()");
    const Options o = parse_options(argc, argv);
    if (o.mode == Mode::mpi) fix_layout(saved_command_line());
    start(o);
    try {
      rc = user_main ? user_main(argc, argv) : user_main_void();
    } catch (...) {
      try {
        std::string reason = "the program failed";
        try {
          throw;
        } catch (const std::exception& e) {
          reason = std::string("the program failed: ") + e.what();
        } catch (...) {
        }
        if (has_runtime()) runtime().run_failed(reason);
        stop();
      } catch (const std::exception& e) {
        std::cerr << prog << ": " << e.what() << "\n";
      }
      throw;
    }
    if (rc != 0 && has_runtime()) runtime().run_failed(fmt::format("the program returned {}", rc));
    finish_host();
  } catch (...) {
    return report_failure(prog);
  }
  return rc;
}

}  // namespace ham::offload::detail

namespace ham::offload {

const node_descriptor& get_node_description(node_t node) {
  detail::Runtime& rt = detail::runtime();
  if (node < 0 || node >= rt.num_nodes())
    throw hopsim::Error(
        fmt::format("HAM node {} does not exist: the nodes are 0..{} (node 0 is the host)", node, rt.num_nodes() - 1));
  auto& d = detail::descriptors();
  if (d.size() != static_cast<std::size_t>(rt.num_nodes())) {
    d.clear();
    for (node_t n = 0; n < rt.num_nodes(); ++n) d.emplace_back(rt.node_name(n));
  }
  return d[static_cast<std::size_t>(node)];
}

bool ham_init(int* argc_ptr, char*** argv_ptr) {
  int& argc = *argc_ptr;
  char** argv = *argv_ptr;
  detail::program_name() = argc > 0 ? argv[0] : "ham";
  detail::saved_command_line().assign(argv, argv + argc);
  hopsim::crash::install();
  try {
    if (detail::asked_for_help(argc, argv)) {
      std::cout << detail::options_help();
      std::exit(0);
    }
    const detail::Options o = detail::parse_options(argc, argv);
    const int target_status = detail::start(o, false);
    if (target_status < 0) return true;
    // A target that served its host: main goes on to ham_finalise.
    std::cout.flush();
    if (target_status != 0) std::_Exit(target_status);
    return false;
  } catch (...) {
    std::exit(detail::report_failure(detail::program_name()));
  }
}

int ham_finalise() {
  if (!detail::has_runtime() || detail::runtime().this_node() != 0) return 0;
  try {
    detail::finish_host();
  } catch (...) {
    return detail::report_failure(detail::program_name());
  }
  return 0;
}

}  // namespace ham::offload
