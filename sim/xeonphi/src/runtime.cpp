#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <string>

#include <fmt/format.h>

#include "backends.hpp"
#include "ham/offload.hpp"
#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"

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

std::size_t parse_size(const std::string& key, const std::string& v) {
  std::size_t pos = 0;
  unsigned long long x = 0;
  try {
    x = std::stoull(v, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos != v.size() || v.empty() || v[0] == '-')
    throw hopsim::ConfigError(fmt::format("{}: '{}' is not a non-negative whole number", key, v));
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
  if (!r.finalized) throw hopsim::Error("HAM message sent before the runtime started (ham/offload/main.hpp starts it)");
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
  if (!current()) throw hopsim::Error("no HAM-Offload runtime is running (include ham/offload/main.hpp)");
  return *current();
}

bool has_runtime() { return current() != nullptr; }

void start(const Options& o) {
  if (current()) throw hopsim::Error("a HAM-Offload runtime is already running in this process");
  Registry::finalize();
  if (o.mode == Mode::sim) {
    current() = make_sim_runtime(o);
  } else {
    if (o.mode == Mode::mpi && !launched_by_mpirun())
      throw hopsim::ConfigError(
          "--ham-mode mpi: not launched by mpirun (no OMPI_COMM_WORLD_SIZE in the environment); launch it with "
          "mpirun -np 2 PROGRAM ... --ham-mode mpi");
    std::unique_ptr<Runtime> rt = o.mode == Mode::mpi ? make_mpi_runtime(o) : make_native_runtime(o);
    const bool target = rt->this_node() != 0;
    current() = std::move(rt);
    if (target) std::_Exit(current()->serve_target());  // the target never returns from here
  }
}

void stop() {
  if (!current()) return;
  try {
    current()->shutdown();
  } catch (...) {
    current().reset();
    throw;
  }
  current().reset();
}

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
         "                               mpi: target is rank 1 of mpirun -np 2 (Open MPI two-sided messages)\n"
         "  --ham-preset NAME            machine preset for sim mode (default knc-7120p)\n"
         "  --ham-set NAME=VALUE         override one preset parameter (repeatable)\n"
         "  --ham-cpu-affinity CORE      pin the host process to CORE (sim: the core's socket decides the\n"
         "                               inter-socket crossing)\n"
         "  --ham-target-cpu-affinity CORE  pin the native target process to CORE\n"
         "  --ham-message-size BYTES     message buffer size (default 4096)\n"
         "  --ham-buffers N              message buffers per direction (default 256)\n"
         "  --ham-card-memory BYTES      target heap size (default 1 GiB)\n"
         "  --ham-trace FILE.db          sim: write a hopsim trace database of the run (hopsim trace stats FILE.db)\n"
         "  --ham-trace-detail LEVEL     counters, transactions (default) or hops\n";
}

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
    } else if (key == "--ham-preset") {
      o.preset = value;
    } else if (key == "--ham-set") {
      if (value.find('=') == std::string::npos)
        throw hopsim::ConfigError(fmt::format("--ham-set: '{}' is not NAME=VALUE", value));
      o.sets.push_back(value);
    } else if (key == "--ham-cpu-affinity") {
      o.host_core = static_cast<int>(parse_size(key, value));
    } else if (key == "--ham-target-cpu-affinity") {
      o.target_core = static_cast<int>(parse_size(key, value));
    } else if (key == "--ham-message-size") {
      o.message_size = parse_size(key, value);
      if (o.message_size < 64 || o.message_size % 64 != 0)
        throw hopsim::ConfigError(
            fmt::format("--ham-message-size: {} B is not a multiple of 64 B (at least 64)", o.message_size));
    } else if (key == "--ham-buffers") {
      o.buffers = parse_size(key, value);
      if (o.buffers < 1 || o.buffers > 65536)
        throw hopsim::ConfigError(fmt::format("--ham-buffers: {} is not in 1..65536", o.buffers));
    } else if (key == "--ham-card-memory") {
      o.card_memory = parse_size(key, value);
      if (o.card_memory < 4096) throw hopsim::ConfigError("--ham-card-memory: at least 4096 bytes");
    } else if (key == "--ham-trace") {
      if (value.empty()) throw hopsim::ConfigError("--ham-trace: needs a file name");
      o.trace = value;
      trace_given = true;
    } else if (key == "--ham-trace-detail") {
      if (value != "counters" && value != "transactions" && value != "hops")
        throw hopsim::ConfigError(fmt::format("--ham-trace-detail: '{}' is not counters, transactions or hops", value));
      o.trace_detail = value;
      detail_given = true;
    } else {
      throw hopsim::ConfigError(fmt::format("{}: unknown HAM runtime option\n{}", key, options_help()));
    }
  }
  if (detail_given && !trace_given) throw hopsim::ConfigError("--ham-trace-detail: needs --ham-trace FILE.db");
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

int run_main(int argc, char** argv, int (*user_main)(int, char**)) {
  const std::string prog = argc > 0 ? argv[0] : "ham";
  saved_command_line().assign(argv, argv + argc);
  hopsim::crash::install();
  int rc = 0;
  try {
    for (int i = 1; i < argc; ++i) {
      if (std::strcmp(argv[i], "--ham-help") == 0) {
        std::cout << options_help();
        return 0;
      }
    }
    const Options o = parse_options(argc, argv);
    start(o);
    try {
      rc = user_main(argc, argv);
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
    stop();
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
  return rc;
}

}  // namespace ham::offload::detail
