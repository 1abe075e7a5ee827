#pragma once
// hopsim's BG/Q machine behind the SPI (and MPI, which runs over it): per-rank state
// shared by every mode, and the ways of running the ranks (SimMachine:
// fibers on the timing model, in model-time order; NativeMachine: host
// threads, the MU's work done at once with real copies and atomics;
// ProcessMachine: a forked process per rank, data moved by a host copy
// transport of sim/host).
#include <pthread.h>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hopsim/bgq/model/collective.hpp"
#include "hopsim/bgq/model/compute.hpp"
#include "hopsim/bgq/model/mu.hpp"
#include "hopsim/bgq/model/network.hpp"
#include "hopsim/bgq/model/params.hpp"
#include "hopsim/bgq/run.hpp"
#include "hopsim/bgq_spi.h"
#include "hopsim/traces/writer.hpp"

namespace hopsim::bgq {

struct MpiState;  // mpi.cpp

// The native runs' deadlock watchdog: when every rank has been in a wait
// loop within kWaitingFreshNs and nothing moved for kDeadlockSeconds, the
// run stops naming what each rank waits for.
inline constexpr double kDeadlockSeconds = 3.0;
inline constexpr std::int64_t kWaitingFreshNs = 500'000'000;
enum class WaitKind : std::uint32_t { none, spin, gi, ring_full, finished, never_injected, inj_full, mpi_lock, mutex };
// "in MPI_Sendrecv, receiving from rank 1 with tag 7", ...
std::string wait_text(WaitKind k, int a, int b);
// Rank list "0-3, 7" for a message.
std::string rank_list(const std::vector<int>& r);
// Steady clock in nanoseconds.
std::int64_t now_ns();
// "rank 0 in MPI_Barrier; ranks 1-31 polling ...", from wait text to ranks.
std::string waits_text(const std::map<std::string, std::vector<int>>& by_state);
// A watchdog's clock: when the progress counter last changed.
struct ProgressWatch {
  std::uint64_t last = 0;
  std::int64_t changed_ns = 0;
  // True (and the clock restarts) when `progress` moved since the last look.
  bool moved(std::uint64_t progress, std::int64_t now) {
    if (progress == last && changed_ns != 0) return false;
    last = progress;
    changed_ns = now;
    return true;
  }
  void restart(std::int64_t now) { changed_ns = now; }
  bool stuck(std::int64_t now) const { return static_cast<double>(now - changed_ns) >= kDeadlockSeconds * 1e9; }
};

// One node's contribution to a collective: its descriptor, and the payload
// as its MU read it.
struct CollectivePart {
  std::uint32_t node = 0, fifo = 0;
  std::uint64_t seq = 0;  // the descriptor's number in its injection FIFO
  MUHWI_Descriptor_t desc{};
  std::vector<std::uint8_t> data;
  model::Tick taken = 0;  // simulated: when its MU took the descriptor
};
// A collective whose contributions are all in: its tree, the combined
// result, and who receives it (each with the contribution whose
// descriptor's put fields or reception FIFO apply there).
struct CollectiveDone {
  model::CollectiveFields fields;
  std::shared_ptr<const model::RouteTree> tree;
  std::vector<CollectivePart> parts;  // node order
  std::vector<std::uint8_t> result;
  std::vector<std::pair<std::uint32_t, std::size_t>> receivers;  // (node, index into parts)
  std::uint32_t source = 0;                                      // the root, or a broadcast's sender (traces)
};

// A number per injection FIFO, for the few of a node's 544 that a rank
// uses (a full machine has 98304 ranks).
class PerFifo {
 public:
  std::uint64_t get(std::uint32_t fifo) const {
    for (const auto& [f, v] : v_)
      if (f == fifo) return v;
    return 0;
  }
  std::uint64_t& at(std::uint32_t fifo) {
    for (auto& [f, v] : v_)
      if (f == fifo) return v;
    return v_.emplace_back(fifo, 0).second;
  }

 private:
  std::vector<std::pair<std::uint32_t, std::uint64_t>> v_;
};

struct RankState {
  int rank = 0;
  std::string label;  // "rank N", in a crash report (hopsim/core/crash.hpp)
  model::NodeMu mu;
  // Receive functions by id (MUSPI_MAX_FUNCTION_IDS), sized when the first is registered.
  std::vector<std::pair<MUSPI_RecvFunction_t, void*>> recv;
  // MPI over the MU (mpi.cpp), made at the rank's first MPI call.
  std::shared_ptr<MpiState> mpi;
  // The MPI call the rank waits in and for whom (mpi.cpp sets them around its waits), for deadlock reports.
  std::atomic<const char*> mpi_call{nullptr};
  std::atomic<int> mpi_peer{0}, mpi_tag{0};
  std::atomic<std::uintptr_t> mpi_waiter{0};  // the thread (Machine::thread_key) that set them
  // Reporting.
  std::vector<Timing> timings;
  std::vector<Check> checks;
  std::uint64_t digest = 1469598103934665603ull;
  std::uint64_t gi_target = 0;                            // generation the last GI barrier enter waits for
  std::uint64_t descriptors = 0, packets = 0, bytes = 0;  // injected
  PerFifo inj_count;                                      // descriptors injected per FIFO (global id)
  PerFifo inj_slots;                                      // descriptors each FIFO holds (Kernel_InjFifoInit)
  std::uint64_t never_done_polls = 0;                     // MUSPI_CheckDescComplete of counts never injected, in a row
  // Memory the MU may write (memory regions, base addresses, the addresses
  // MUSPI_GetAtomicOffsetFromBaseAddress was given), and the last
  // values read there by instrumented loads, per load site: a repeated read
  // of an unchanged value by the same load is one iteration of a polling
  // loop (another load reading it again, e.g. to print it, is not).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> regions;  // [lo, hi)
  std::vector<std::uint64_t> mu_bases;
  struct Polled {
    std::uint64_t address = 0, site = 0, value = 0;
    std::uint64_t deliveries = 0;  // the machine's deliveries() count when it was read
  };
  std::array<Polled, 4> polled{};
  std::size_t polled_next = 0;
  // Counted compute: the program's instructions counted since the rank's
  // last runtime call (paid by __hopsim_bgq_count), and all it counted.
  model::CountedWork counted;
  std::uint64_t instructions = 0;
};

// hopsim's MPI uses subgroup 64 of each MU; its reception FIFO is FIFO 0 of
// the subgroup (global id 256), of 1 MiB (hopsim keeps the packets itself:
// no memory of the program is taken).
inline constexpr std::uint32_t kMpiSubgroup = 64;
inline constexpr std::uint32_t kMpiRecFifo = kMpiSubgroup * 4;
inline constexpr std::uint64_t kMpiRecBytes = std::uint64_t{1} << 20;

// Enables MPI's reception FIFO (subgroup 64, FIFO 0) of a rank before its
// program starts, as the system sets up the job's resources before main:
// a message may arrive before the receiver's first MPI call.
void reserve_mpi_fifo(RankState& st);
// "in MPI_Recv (rank 1, tag 7)", or empty when the rank waits in no MPI call.
std::string mpi_wait_text(const RankState& st);
std::string mpi_wait_text(const char* call, int peer, int tag);

class Machine {
 public:
  Machine(const model::Params& p, nlohmann::json args);
  virtual ~Machine() = default;
  virtual Mode mode() const = 0;
  // Runs `entry` on every rank; rethrows the first rank's error.
  virtual void run(void (*entry)()) = 0;

  // Operations of the calling rank.
  virtual std::uint64_t timebase() = 0;
  // Descriptor number self().inj_count.get(fifo) of `fifo` (the caller counts it after).
  virtual void inject(std::uint32_t fifo, const MUHWI_Descriptor_t& d) = 0;
  // Whether the MU has sent descriptor `seq` of the calling rank's `fifo`
  // (one poll). Where the MU works at once (native runs) it always has.
  virtual bool desc_complete(std::uint32_t /*fifo*/, std::uint64_t /*seq*/) { return true; }
  // One iteration of a polling loop that waits for nothing the MU will do
  // (simulated: the rank's clock moves and it yields; native: it yields).
  virtual void idle_poll(WaitKind why, int a, int b) = 0;
  // Descriptors of the calling rank's `fifo` its MU has not yet taken.
  virtual std::uint64_t inj_waiting(std::uint32_t /*fifo*/) { return 0; }
  virtual void spin() = 0;
  // How many times the MU has changed the calling rank's memory (simulated:
  // deliveries to its node); 0 where changes are not counted (native).
  virtual std::uint64_t deliveries() { return 0; }
  virtual void compute(std::uint64_t elements, int threads) = 0;
  // The calling rank waits `cycles` core cycles (DelayTimeBase).
  virtual void delay(double cycles) = 0;
  virtual void gi_enter() = 0;
  virtual void gi_wait() = 0;
  // One wait for the GI barrier the calling rank entered last: true once the
  // barrier has released it (as gi_wait), false when something arrived for
  // the rank first (the caller runs its progress and polls again). MPI's
  // barrier waits so, as PAMI's advances its context while it waits.
  virtual bool gi_poll() {
    gi_wait();
    return true;
  }
  virtual void rec_sync() = 0;  // before reading a reception FIFO
  // Base-address-table entry g of the calling rank was allocated or set.
  virtual void bat_updated(std::uint32_t) {}
  // When the last rank ended, in cycles (simulated; native: host time since the start).
  virtual double end_cycles() const { return 0; }
  // Simulated: packets times the links each crossed.
  virtual std::uint64_t packet_hops() const { return 0; }
  // Whether collective descriptors run on this machine (not over processes).
  virtual bool collectives() const { return true; }
  // Which transport moved the data (native runs; empty `requested` otherwise).
  virtual TransportUse transport_use() const { return {}; }

  RankState& self();
  RankState& rank(int r) { return *ranks_[static_cast<std::size_t>(r)]; }
  int size() const { return static_cast<int>(ranks_.size()); }
  const model::Torus& torus() const { return *torus_; }
  const model::Params& params() const { return p_; }
  const nlohmann::json& args() const { return args_; }
  // Cycles the compute model charges for a loop (no MU interference):
  // annotated, or (counted) what the rank counted since its last runtime
  // call, spread over `threads`, which this takes.
  double compute_cycles(std::uint64_t elements, int threads);

  // compute.model = counted (simulated runs): the code's counted cycles
  // are charged to the rank (delay) when it next enters the runtime.
  void set_counted(bool on) { counted_ = on; }
  bool counted() const { return counted_; }
  void settle_counted() {
    if (!counted_) return;
    auto& w = self().counted;
    if (w.cycles > 0) delay(w.cycles);
    w = {};
  }

  // Collectives (thread-safe). Adds `part` to its node's next collective on
  // the descriptor's class route; returns the collective once every member
  // of the route's tree has contributed (a broadcast: at once). KernelError
  // naming the rank for a route the node has not set, or contributions that
  // disagree (type, op, word, length).
  std::optional<CollectiveDone> collective_contribute(CollectivePart part);
  // Node r's MU takes collective descriptor d (descriptor `seq` of `fifo`):
  // checks it, counts its packets and copies its payload.
  CollectivePart take_collective(std::uint32_t r, std::uint32_t fifo, std::uint64_t seq, const MUHWI_Descriptor_t& d,
                                 model::Tick taken);
  // Carries out a finished collective's result at receiver k (direct put or
  // memory-FIFO packets).
  void collective_deliver(const CollectiveDone& c, std::size_t k, bool atomic);
  // Node `node`'s MU takes point-to-point descriptor `d` (native runs):
  // checked against the torus, its packets and bytes counted; returns the
  // destination node.
  std::uint32_t take_descriptor(std::uint32_t node, const MUHWI_Descriptor_t& d);
  // Class routes of the calling rank (Kernel_*CollectiveClassRoute).
  int32_t set_class_route(std::uint32_t id, const ClassRoute_t& cr);
  int32_t allocate_class_route(std::uint32_t id, bool allocate);
  std::vector<std::uint32_t> free_class_routes();

  // Threads a rank's program makes (pthread_create in a program built by
  // hopsim-mpicc, whose link sends the call to __hopsim_pthread_create):
  // fn(arg) runs as one more thread of the calling rank, its SPI and MPI
  // calls the rank's. Natively a host thread; simulated, a fiber with its
  // own clock, starting at its creator's. Returns the handle join_thread
  // and detach_thread take.
  virtual std::uint64_t start_thread(void* (*fn)(void*), void* arg, const pthread_attr_t* attr);
  // Waits for the thread to end (simulated: the caller goes on from the
  // thread's last cycle if that is later) and returns what fn returned; an
  // error the thread raised is raised here.
  virtual void* join_thread(std::uint64_t handle);
  virtual void detach_thread(std::uint64_t handle);
  // Ends the calling program thread with `value` (pthread_exit).
  [[noreturn]] virtual void exit_thread(void* value);
  // The MPI call the calling thread waits in, and for whom (null: none),
  // for deadlock reports; kept per rank (RankState), and per thread where
  // the machine names threads.
  virtual void note_mpi_wait(const char* call, int peer, int tag);
  // The calling thread, distinct among the threads of every rank (never 0).
  virtual std::uintptr_t thread_key();

  static Machine* current();
  // The calling thread's machine, or null (a thread the program made itself, e.g. OpenMP's).
  static Machine* current_or_null();
  // Where a process is one rank of its own (native over Open MPI), a thread
  // with no machine asks `provider`, which starts the process's machine the
  // first time, makes it the calling thread's and returns it.
  static void set_provider(Machine* (*provider)());
  // The calling thread's machine if it has one; never starts one.
  static Machine* running();
  static int current_rank();

 protected:
  static void set_current(Machine* m, int rank);
  static void* host_thread_main(void* p);
  model::Params p_;
  nlohmann::json args_;
  bool counted_ = false;
  std::unique_ptr<model::Torus> torus_;
  std::vector<std::unique_ptr<RankState>> ranks_;

 private:
  struct OpenCollective {
    std::map<std::uint32_t, CollectivePart> parts;  // by node
  };
  std::mutex coll_mutex_;
  std::array<std::vector<ClassRoute_t>, model::kClassRoutes> routes_;  // per route, per node
  std::array<std::vector<std::uint8_t>, model::kClassRoutes> route_set_;
  std::vector<std::array<std::uint8_t, model::kClassRoutes>> route_alloc_;          // per node
  std::array<std::shared_ptr<const model::RouteTree>, model::kClassRoutes> trees_;  // built when first used
  std::vector<std::array<std::uint64_t, model::kClassRoutes>> coll_seq_;    // per node: reductions begun per route
  std::map<std::pair<std::uint32_t, std::uint64_t>, OpenCollective> open_;  // (route, number)
  void init_collectives();
};

// MUSPI_CheckDescComplete polls in a row, for a count never injected, before the run stops.
inline constexpr std::uint64_t kNeverDone = 1'000'000;

// The fields every descriptor has (cleared first), and the MU-header fields
// of a direct-put or memory-FIFO descriptor, point to point or collective
// alike (MUSPI_Create*Descriptor).
void set_base_fields(MUHWI_Descriptor_t& d, const MUSPI_BaseDescriptorInfoFields_t& b);
void set_direct_put_fields(MUHWI_Descriptor_t& d, const MUSPI_DirectPutDescriptorInfoFields_t& f);
void set_memory_fifo_fields(MUHWI_Descriptor_t& d, const MUSPI_MemoryFIFODescriptorInfoFields_t& f);

// Stack of each simulated rank's fiber (default 256 KiB; programs with their own main() get more).
void set_rank_stack_bytes(std::size_t bytes);
std::size_t rank_stack_bytes();

std::unique_ptr<Machine> make_sim_machine(const model::Params& p, const nlohmann::json& args, model::MuTiming& mu,
                                          traces::TraceWriter* trace = nullptr);
std::unique_ptr<Machine> make_native_machine(const model::Params& p, const nlohmann::json& args);
// A process per rank over a host copy transport (double copy or CMA);
// ConfigError for more ranks than the transport's node allows.
std::unique_ptr<Machine> make_process_machine(const model::Params& p, const nlohmann::json& args,
                                              const NativeOptions& o);

}  // namespace hopsim::bgq
