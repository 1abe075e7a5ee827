#pragma once
// The transport behind ham::offload (hopsim's HAM-Offload work-alike): the
// handler registry and the runtime interface the native (fork + shared
// memory, SCIF style) and simulated (modelled PCIe path) backends implement.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

namespace ham {

using node_t = int;

namespace offload::detail {

// Runs the active message in `body` on the receiving node and writes its
// result (if any) to `result`.
using handler_fn = void (*)(const void* body, void* result);

// Every message type registers its name and handler before main. finalize()
// sorts the names, so a type's key is its index in the sorted list: the same
// in every process built from the same sources, whatever the order of static
// initialisation or the address of the handler.
class Registry {
 public:
  static int add(const char* type_name, handler_fn fn);
  static void finalize();
  static std::uint32_t key(const char* type_name);  // throws if unknown or not finalized
  static handler_fn handler(std::uint32_t key);     // throws if out of range
  static std::vector<std::string> names();          // sorted (after finalize)
};

template <class Msg>
struct registered {
  static const int token;
};

enum class Mode { native, sim, mpi };

// The most targets a run may have (--ham-targets).
inline constexpr int kMaxTargets = 64;

struct Options {
  Mode mode = Mode::native;
  // --ham-targets: target nodes 1..targets (native: one process each; sim:
  // cards of the preset on one host; mpi: the job's ranks less one, 0 to
  // take them from mpirun -np).
  int targets = 0;
  std::string preset = "knc-7120p";                // simulated mode's machine
  std::vector<std::string> sets;                   // preset overrides name=value
  int host_core = -1;                              // --ham-cpu-affinity
  int target_core = -1;                            // --ham-target-cpu-affinity (native)
  std::size_t message_size = 4096;                 // bytes per message buffer
  std::size_t buffers = 256;                       // message buffers per direction
  std::size_t card_memory = std::size_t(1) << 30;  // target heap (native: shared window)
  std::string trace;                               // --ham-trace: hopsim trace database to write (sim mode)
  std::string trace_detail = "transactions";       // --ham-trace-detail: counters, transactions or hops
  std::string trace_window;                        // --ham-trace-window: BEGIN:END (outputs.trace_window)
  double trace_max_size = 1073741824.0;            // --ham-trace-max-size: bytes of detail; 0 = no limit
};

// Parses and removes the --ham-* options from argv (argc updated). Throws
// hopsim::ConfigError on an unknown --ham- option or a bad value.
Options parse_options(int& argc, char** argv);
std::string options_help();
// The real main() of a program (ham/offload/main.hpp): starts the runtime,
// runs the program's main (whichever of the two it defines; the other is
// null) on the host, ends the runtime; the exit status.
int run_main(int argc, char** argv, int (*user_main)(int, char**), int (*user_main_void)());

// The command line as given, --ham-* options included (set by run_main).
const std::vector<std::string>& command_line();

// Future ticket meaning "already complete, no result".
inline constexpr std::uint64_t kDone = ~std::uint64_t(0);

class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual node_t this_node() const = 0;
  virtual node_t num_nodes() const = 0;
  // What get_node_description(node).name() says (node < num_nodes()).
  virtual std::string node_name(node_t node) const = 0;
  virtual const Options& options() const = 0;
  // Sends an active message (handler key + body) to `node`; returns a ticket
  // for its result of result_size bytes.
  virtual std::uint64_t send(node_t node, std::uint32_t key, const void* body, std::size_t body_size,
                             std::size_t result_size) = 0;
  virtual bool test(std::uint64_t ticket) = 0;
  // Waits for the result, copies it to `result`, releases the ticket.
  virtual void wait(std::uint64_t ticket, void* result, std::size_t result_size) = 0;
  // One-sided data transfers between host memory and a target buffer.
  virtual std::uint64_t put(const void* src, node_t node, void* dst, std::size_t bytes) = 0;
  virtual std::uint64_t get(node_t node, const void* src, void* dst, std::size_t bytes) = 0;
  // Target side: the node's heap.
  virtual void* target_alloc(std::size_t bytes) = 0;
  virtual void target_free(void* p) = 0;
  // Picoseconds on the host's clock: the wall clock natively (ns resolution),
  // the simulated clock in sim mode. Integer, so equal simulated durations
  // give equal differences.
  virtual std::int64_t now_ps() = 0;
  // Simulated mode: the running function declares compute of `cycles` card cycles. Native: nothing.
  virtual void charge_cycles(double cycles) = 0;
  // Host side: tell the targets to finish and wait for them.
  virtual void shutdown() = 0;
  // Target process of the native transport: serves messages until told to
  // finish and returns the process exit status.
  virtual int serve_target() { return 0; }
  // The program failed (threw, or returned non-zero): a trace being written
  // is marked incomplete with `reason` when the runtime stops.
  virtual void run_failed(const std::string& reason) { (void)reason; }
  // A one-line description for the benchmark's '#' lines.
  virtual std::string describe() const = 0;
};

Runtime& runtime();  // throws hopsim::Error when no session runs
bool has_runtime();

// Starts the runtime of this process. Native mode forks the target
// processes. A target process (native, or a target rank under mpirun)
// serves messages until the host finishes; then, with `serve_and_exit`, it
// leaves with _exit() without returning from here, else start() returns
// its exit status (HAM_EXPLICIT: main goes on to ham_finalise). Returns -1
// in the host.
int start(const Options& options, bool serve_and_exit = true);
// Host: tells the targets to finish, waits for them, ends the runtime.
void stop();
// The first failure deferred by a dropped future (defer_error), or empty;
// taking it clears it.
std::string take_deferred_error();

}  // namespace offload::detail
}  // namespace ham
