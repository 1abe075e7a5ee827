// Native BG/Q over Open MPI: `mpirun -np N ./prog` runs each rank as an MPI
// process, on one host or on several, for a program built with
// `hopsim-mpicc --openmpi` (its MPI calls go to Open MPI itself; this file
// is built only into libhopsim-bgq-ompi, which defines no MPI function but
// the three the start and end go through).
//
// The SPI's work on the messaging unit becomes MPI:
//  - a direct put is one-sided: the sender reads the target's base address
//    table (MPI_Get from a window over it), puts the payload at the address
//    it names (MPI_Put into a dynamic window), waits for it to land
//    (MPI_Win_flush) and then subtracts its bytes from the target's reception
//    counter (MPI_Accumulate, MPI_SUM): the counter changes only after the
//    data is in place, as on the MU;
//  - memory-FIFO packets and remote gets are two-sided: one message per
//    descriptor (MPI_Isend of a copy, so the descriptor is done at once) on a
//    communicator of hopsim's own; the target files the packets into its
//    reception FIFO, or runs the remote get's descriptors as its own MU would,
//    whenever it polls (MUSPI_RecFifoPoll, a polling loop, the barriers);
//  - the GI barrier is MPI_Ibarrier, completed while polling;
//  - collective descriptors (class routes) are refused, as with a process
//    per rank.
// Where Open MPI has no one-sided transport for the job (its windows cannot
// be made: over TCP without --mca osc pt2pt, or shared memory without
// single-copy), every rank learns it at the start and direct puts go as
// messages too, carried out when the target polls; rank 0 says so once.
// A rank exposes the memory its base address table names: when an entry is
// set, the mapping holding its address (from /proc/self/maps) is attached to
// the dynamic window, so puts may land anywhere in that mapping.
//
// The process's machine starts with its first SPI call or with MPI_Init
// (whichever comes first; a program's MPI_Init_thread that comes first
// chooses the thread level, else it is MPI_THREAD_SERIALIZED), and ends with MPI_Finalize or
// at exit(): every rank waits for the others while serving their remote gets,
// rank 0 gathers the ranks' checks, timings and digests, prints the summary
// and writes HOPSIM_REPORT, and MPI is finalised. An error (a bad descriptor,
// a scenario that does not fit the job) ends the job through MPI_Abort with
// the status the other modes exit with.
#define OMPI_SKIP_MPICXX 1  // NOLINT(cppcoreguidelines-macro-usage): Open MPI's switch, before its header
#include <mpi.h>            // Open MPI's: the target puts its include folder before hopsim's api/

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/log.hpp"
#include "machine.hpp"

namespace hopsim::bgq {
namespace {

constexpr int kActiveTag = 7301;  // memory-FIFO packets and remote gets, on hopsim's communicator
enum class ActiveKind : std::uint32_t { fifo = 1, get = 2, put = 3 };
struct ActiveHeader {
  MUHWI_Descriptor_t desc{};
  std::uint32_t kind = 0, src = 0;
  std::uint64_t bytes = 0;
};

std::string mpi_error_text(int code) {
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int len = 0;
  MPI_Error_string(code, text.data(), &len);
  return {text.data(), static_cast<std::size_t>(std::max(len, 0))};
}

// The writable memory of this process around `address`: its mapping from
// /proc/self/maps with the writable mappings that adjoin it (a program's
// .data and .bss, a heap, are several), as [lo, hi); {0, 0} when the address
// is in no writable mapping.
std::pair<std::uint64_t, std::uint64_t> mapping_of(std::uint64_t address) {
  std::ifstream maps("/proc/self/maps");
  std::vector<std::pair<std::uint64_t, std::uint64_t>> writable;
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long long lo = 0, hi = 0;
    std::array<char, 5> perms{};
    if (std::sscanf(line.c_str(), "%llx-%llx %4s", &lo, &hi, perms.data()) != 3 || perms[1] != 'w') continue;
    if (!writable.empty() && writable.back().second == lo)
      writable.back().second = hi;
    else
      writable.emplace_back(lo, hi);
  }
  for (const auto& [lo, hi] : writable)
    if (address >= lo && address < hi) return {lo, hi};
  return {0, 0};
}

// Five extents whose product is n, the largest first, as even as n allows (MPI_Dims_create's rule).
std::array<int, 5> dims_for(int n) {
  std::array<int, 5> d{1, 1, 1, 1, 1};
  std::vector<int> factors;
  for (int f = 2; static_cast<long>(f) * f <= n; ++f)
    while (n % f == 0) {
      factors.push_back(f);
      n /= f;
    }
  if (n > 1) factors.push_back(n);
  std::sort(factors.rbegin(), factors.rend());
  for (const int f : factors) *std::min_element(d.begin(), d.end()) *= f;
  std::sort(d.rbegin(), d.rend());
  return d;
}

class OmpiMachine final : public Machine {
 public:
  OmpiMachine(const model::Params& p, MPI_Comm comm, int me)
      : Machine(p, nlohmann::json::object()), comm_(comm), me_(me) {
    auto& table = static_cast<model::BaseAddressTable&>(rank(me_).mu);
    int rc = MPI_Win_create(&table, sizeof table, 1, MPI_INFO_NULL, comm_, &bat_win_);
    if (rc == MPI_SUCCESS) rc = MPI_Win_create_dynamic(MPI_INFO_NULL, comm_, &mem_win_);
    int ok = rc == MPI_SUCCESS ? 1 : 0, all = 0;
    check(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
    one_sided_ = all == 1;
    if (one_sided_) {
      MPI_Win_set_errhandler(bat_win_, MPI_ERRORS_RETURN);
      MPI_Win_set_errhandler(mem_win_, MPI_ERRORS_RETURN);
      check(MPI_Win_lock_all(0, bat_win_), "MPI_Win_lock_all");
      check(MPI_Win_lock_all(0, mem_win_), "MPI_Win_lock_all");
    } else {
      if (bat_win_ != MPI_WIN_NULL) MPI_Win_free(&bat_win_);
      if (mem_win_ != MPI_WIN_NULL) MPI_Win_free(&mem_win_);
      if (me_ == 0 && !std::getenv("HOPSIM_QUIET"))
        std::cerr << fmt::format(
            "hopsim: Open MPI has no one-sided transport for these processes ({}): direct puts go as messages, "
            "carried out when the target polls (over TCP, mpirun --mca osc pt2pt, or --mca osc ucx where UCX is "
            "installed, gives one-sided puts)\n",
            rc != MPI_SUCCESS ? mpi_error_text(rc) : std::string("another rank's window failed"));
    }
    check(MPI_Barrier(comm_), "MPI_Barrier");
    t0_ = std::chrono::steady_clock::now();
    set_current(this, me_);
  }
  OmpiMachine(const OmpiMachine&) = delete;
  OmpiMachine& operator=(const OmpiMachine&) = delete;
  ~OmpiMachine() override = default;

  Mode mode() const override { return Mode::native; }
  TransportUse transport_use() const override { return {"openmpi", "openmpi", ""}; }
  double end_cycles() const override { return end_cycles_; }
  bool collectives() const override { return false; }
  int me() const { return me_; }
  bool one_sided() const { return one_sided_; }
  void adopt_thread() { set_current(this, me_); }

  // Each process is one rank: the program's own main runs it.
  void run(void (*entry)()) override { entry(); }

  std::uint64_t timebase() override {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    return static_cast<std::uint64_t>(s * params().clock_hz);
  }

  void inject(std::uint32_t, const MUHWI_Descriptor_t& d) override {
    if (model::is_collective(d))
      throw ConfigError(fmt::format(
          "rank {}: collective descriptors run in simulation and natively on machine.transport=threads, not over "
          "Open MPI",
          me_));
    execute(d);
  }

  void spin() override { poll(); }
  void idle_poll(WaitKind, int, int) override { poll(); }
  void rec_sync() override { progress(); }
  void compute(std::uint64_t elements, int threads) override { (void)compute_cycles(elements, threads); }
  void delay(double cycles) override {
    const auto until = timebase() + static_cast<std::uint64_t>(cycles);
    while (timebase() < until) {
    }
  }

  void gi_enter() override {
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Ibarrier(comm_, &r), "MPI_Ibarrier (GI barrier)");
    gi_.push_back(r);
  }
  void gi_wait() override {
    if (gi_.empty()) return;
    wait_for(gi_.front(), "MPI_Ibarrier (GI barrier)");
    gi_.pop_front();
  }

  void bat_updated(std::uint32_t g) override {
    const auto& mu = self().mu;
    if (!one_sided_ || !mu.bat_set[g]) return;
    expose(mu.bat[g] & MUHWI_ATOMIC_ADDRESS_MASK);
  }

  // Every rank waits for all others while serving them, then rank 0 gets
  // each rank's results (its RankState's). Collective over the ranks.
  void finish() {
    MPI_Request all = MPI_REQUEST_NULL;
    check(MPI_Ibarrier(comm_, &all), "MPI_Ibarrier (end of the run)");
    wait_for(all, "MPI_Ibarrier (end of the run)");
    while (!sends_.empty()) poll();
    end_cycles_ = static_cast<double>(timebase());
    const std::string mine = results_json().dump();
    const int bytes = static_cast<int>(mine.size());
    std::vector<int> sizes(me_ == 0 ? static_cast<std::size_t>(size()) : 0);
    check(MPI_Gather(&bytes, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm_), "MPI_Gather");
    std::vector<int> offsets(sizes.size());
    long total = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += sizes[r];
    }
    if (total > INT_MAX) throw Error("the ranks' results exceed 2 GiB");
    std::string all_text(static_cast<std::size_t>(total), '\0');
    check(MPI_Gatherv(mine.data(), bytes, MPI_CHAR, all_text.data(), sizes.data(), offsets.data(), MPI_CHAR, 0, comm_),
          "MPI_Gatherv");
    for (std::size_t r = 0; r < sizes.size(); ++r)
      results_.push_back(nlohmann::json::parse(all_text.substr(static_cast<std::size_t>(offsets[r]), sizes[r])));
    if (!one_sided_) return;
    MPI_Win_unlock_all(mem_win_);
    MPI_Win_unlock_all(bat_win_);
    for (const auto& [lo, hi] : exposed_) MPI_Win_detach(mem_win_, reinterpret_cast<void*>(lo));
    MPI_Win_free(&mem_win_);
    MPI_Win_free(&bat_win_);
  }
  // Per rank (rank 0, after finish): checks, timings, digest and counts.
  const std::vector<nlohmann::json>& results() const { return results_; }

 private:
  void check(int rc, const char* call) const {
    if (rc != MPI_SUCCESS) throw KernelError(fmt::format("rank {}: {} failed: {}", me_, call, mpi_error_text(rc)));
  }

  void wait_for(MPI_Request& r, const char* call) {
    for (;;) {
      int done = 0;
      check(MPI_Test(&r, &done, MPI_STATUS_IGNORE), call);
      if (done) return;
      poll();
    }
  }

  // One iteration of a wait loop: the MPI progress, and a chance for other processes on this CPU.
  void poll() {
    progress();
    sched_yield();
  }

  // Completes the sends that are done and carries out what arrived.
  void progress() {
    for (auto it = sends_.begin(); it != sends_.end();) {
      int done = 0;
      check(MPI_Test(&it->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      it = done ? sends_.erase(it) : std::next(it);
    }
    for (;;) {
      int there = 0;
      MPI_Status st;
      check(MPI_Iprobe(MPI_ANY_SOURCE, kActiveTag, comm_, &there, &st), "MPI_Iprobe");
      if (!there) return;
      int bytes = 0;
      MPI_Get_count(&st, MPI_BYTE, &bytes);
      std::vector<std::uint8_t> msg(static_cast<std::size_t>(bytes));
      check(MPI_Recv(msg.data(), bytes, MPI_BYTE, st.MPI_SOURCE, kActiveTag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
      ActiveHeader h;
      std::memcpy(&h, msg.data(), sizeof h);
      arrived(h, msg.data() + sizeof h);
    }
  }

  // A memory-FIFO message or a remote get from another rank.
  void arrived(const ActiveHeader& h, const std::uint8_t* data) {
    auto& mu = self().mu;
    const auto me = static_cast<std::uint32_t>(me_);
    if (static_cast<ActiveKind>(h.kind) == ActiveKind::put) {
      constexpr std::uint64_t kPiece = std::uint64_t{1} << 30;
      for (std::uint64_t off = 0; off < h.bytes; off += kPiece)
        model::receive_direct_put(mu, me, h.src, h.desc, off, data + off,
                                  static_cast<std::uint32_t>(std::min(kPiece, h.bytes - off)), true);
      return;
    }
    if (static_cast<ActiveKind>(h.kind) == ActiveKind::fifo) {
      const auto pk = model::packetise(h.bytes);
      for (std::uint64_t i = 0; i < pk.packets; ++i) {
        const std::uint64_t off = i * MUHWI_PACKET_MAX_PAYLOAD;
        model::receive_memory_fifo(mu, me, h.src, h.desc, off, data + off, model::packet_payload(h.bytes, i));
      }
      return;
    }
    model::remote_get_fifo(mu, me, h.src, h.desc);
    for (std::uint64_t k = 0; k + sizeof(MUHWI_Descriptor_t) <= h.bytes; k += sizeof(MUHWI_Descriptor_t)) {
      MUHWI_Descriptor_t inner;
      std::memcpy(&inner, data + k, sizeof inner);
      execute(inner);
    }
  }

  // Carries out descriptor `d` of this rank's MU.
  void execute(const MUHWI_Descriptor_t& d) {
    const auto me = static_cast<std::uint32_t>(me_);
    const std::uint32_t dst = take_descriptor(me, d);
    const auto* src = reinterpret_cast<const std::uint8_t*>(d.Pa_Payload);
    const auto type = model::packet_type(d);
    if (type == MUHWI_PACKET_TYPE_PUT && (one_sided_ || dst == me)) {
      direct_put(dst, d, src);
      return;
    }
    ActiveHeader h;
    h.desc = d;
    h.kind = static_cast<std::uint32_t>(type == MUHWI_PACKET_TYPE_PUT    ? ActiveKind::put
                                        : type == MUHWI_PACKET_TYPE_FIFO ? ActiveKind::fifo
                                                                         : ActiveKind::get);
    h.src = me;
    h.bytes = d.Message_Length;
    if (dst == me) {
      arrived(h, src);
      return;
    }
    if (d.Message_Length > static_cast<std::uint64_t>(INT_MAX) - sizeof h)
      throw KernelError(
          fmt::format("rank {}: a memory-FIFO message of {} bytes is over Open MPI's 2 GiB", me_, d.Message_Length));
    Send s;
    s.data.resize(sizeof h + d.Message_Length);
    std::memcpy(s.data.data(), &h, sizeof h);
    std::memcpy(s.data.data() + sizeof h, src, d.Message_Length);
    sends_.push_back(std::move(s));
    auto& b = sends_.back();
    check(MPI_Isend(b.data.data(), static_cast<int>(b.data.size()), MPI_BYTE, static_cast<int>(dst), kActiveTag, comm_,
                    &b.request),
          "MPI_Isend");
  }

  // The payload lands at the target, then its counter drops by the bytes.
  void direct_put(std::uint32_t dst, const MUHWI_Descriptor_t& d, const std::uint8_t* src) {
    const auto len = d.Message_Length;
    const auto me = static_cast<std::uint32_t>(me_);
    if (dst == me) {
      const model::PutTarget t = direct_put_target(self().mu, dst, me, d, 0);
      std::memcpy(reinterpret_cast<void*>(t.payload), src, len);
      std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(t.counter))
          .fetch_sub(len, std::memory_order_release);
      return;
    }
    const int to = static_cast<int>(dst);
    model::BaseAddressTable table;
    check(MPI_Get(&table, sizeof table, MPI_BYTE, to, 0, sizeof table, MPI_BYTE, bat_win_), "MPI_Get (base addresses)");
    check(MPI_Win_flush(to, bat_win_), "MPI_Win_flush");
    const model::PutTarget t = direct_put_target(table, dst, me, d, 0);
    constexpr std::uint64_t kPiece = std::uint64_t{1} << 30;
    for (std::uint64_t off = 0; off < len; off += kPiece) {
      const int n = static_cast<int>(std::min(kPiece, len - off));
      put_failed(MPI_Put(src + off, n, MPI_BYTE, to, static_cast<MPI_Aint>(t.payload + off), n, MPI_BYTE, mem_win_),
                 dst, "payload", t.payload + off, static_cast<std::uint64_t>(n));
    }
    put_failed(MPI_Win_flush(to, mem_win_), dst, "payload", t.payload, len);
    const std::int64_t minus = -static_cast<std::int64_t>(len);
    put_failed(
        MPI_Accumulate(&minus, 1, MPI_INT64_T, to, static_cast<MPI_Aint>(t.counter), 1, MPI_INT64_T, MPI_SUM, mem_win_),
        dst, "reception counter", t.counter, 8);
    put_failed(MPI_Win_flush(to, mem_win_), dst, "reception counter", t.counter, 8);
  }

  void put_failed(int rc, std::uint32_t dst, const char* what, std::uint64_t address, std::uint64_t bytes) const {
    if (rc == MPI_SUCCESS) return;
    throw KernelError(fmt::format(
        "rank {}: direct put to rank {}: its {} at 0x{:x} ({} bytes) is not in memory the target exposed (the "
        "mapping of an address its base address table names): {}",
        me_, dst, what, address, bytes, mpi_error_text(rc)));
  }

  // Attaches the mapping that holds `address` to the dynamic window (the parts not yet attached).
  void expose(std::uint64_t address) {
    auto [lo, hi] = mapping_of(address);
    if (lo == hi) return;  // not writable memory of this process: a put there fails at the sender, named
    for (const auto& [a, b] : exposed_) {
      if (a <= lo && lo < b) lo = b;
      if (a < hi && hi <= b) hi = a;
    }
    if (lo >= hi) return;
    for (const auto& [a, b] : exposed_)
      if (a > lo && a < hi) hi = a;  // keep to the gap before the next attached piece
    check(MPI_Win_attach(mem_win_, reinterpret_cast<void*>(lo), static_cast<MPI_Aint>(hi - lo)), "MPI_Win_attach");
    exposed_[lo] = hi;
    if (address >= hi) expose(address);
  }

  nlohmann::json results_json() {
    const auto& st = rank(me_);
    nlohmann::json checks = nlohmann::json::array(), timings = nlohmann::json::array();
    for (const auto& c : st.checks) checks.push_back({c.what, c.checked, c.wrong, c.example});
    for (const auto& t : st.timings) timings.push_back({t.what, t.iter, t.cycles});
    return {{"checks", checks},      {"timings", timings}, {"digest", st.digest}, {"descriptors", st.descriptors},
            {"packets", st.packets}, {"bytes", st.bytes}};
  }

  struct Send {
    std::vector<std::uint8_t> data;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  MPI_Comm comm_;
  int me_;
  MPI_Win bat_win_ = MPI_WIN_NULL, mem_win_ = MPI_WIN_NULL;
  bool one_sided_ = true;  // false: Open MPI had no one-sided transport, direct puts go as messages
  std::map<std::uint64_t, std::uint64_t> exposed_;  // attached [lo, hi)
  std::deque<Send> sends_;
  std::deque<MPI_Request> gi_;
  std::chrono::steady_clock::time_point t0_;
  double end_cycles_ = 0;
  std::vector<nlohmann::json> results_;
};

// ---- the process's machine -----------------------------------------------

struct Process {
  std::unique_ptr<OmpiMachine> machine;
  bool starting = false, finished = false;
  // The thread level MPI starts with: the program's MPI_Init_thread's when it
  // comes first, else serialized (the program's threads may make SPI calls,
  // one at a time). Open MPI's one-sided transport over TCP (osc pt2pt) does
  // not take MPI_THREAD_MULTIPLE.
  int required = MPI_THREAD_SERIALIZED;
  int provided = MPI_THREAD_SINGLE;
  double t0 = 0;
  model::Params params;
};
Process g;

// The scenario of HOPSIM_SCENARIO (machine preset and parameters), with a
// torus of `ranks` nodes when it names none.
model::Params params_for(int ranks) {
  nlohmann::json doc;
  std::string name = "program";
  if (const char* path = std::getenv("HOPSIM_SCENARIO"); path && *path) {
    std::ifstream f(path);
    if (!f) throw ConfigError(fmt::format("HOPSIM_SCENARIO: cannot read {}", path));
    doc = nlohmann::json::parse(f, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) throw ConfigError(fmt::format("HOPSIM_SCENARIO: {} is not JSON", path));
    name = path;
  }
  if (!doc.contains("machine")) doc["machine"] = {{"preset", "bgq"}};
  auto& m = doc["machine"];
  const std::array<const char*, 5> keys = {"torus_a", "torus_b", "torus_c", "torus_d", "torus_e"};
  if (m.is_object() && std::none_of(keys.begin(), keys.end(), [&](const char* k) { return m.contains(k); })) {
    const auto d = dims_for(ranks);
    for (std::size_t i = 0; i < keys.size(); ++i) m[keys[i]] = d[i];
  }
  doc["kernel"] = {{"name", "program"}, {"args", nlohmann::json::object()}};
  doc["mode"] = "native";
  doc["outputs"] = {{"dir", "."}, {"json", false}, {"csv", false}};
  const Scenario sc = scenario_from_json(doc, name);
  if (native_options(sc).transport != NativeTransport::threads)
    throw ConfigError("machine.transport: a program built with hopsim-mpicc --openmpi moves its data over Open MPI");
  auto p = resolve_params(sc);
  if (p.num_nodes() != static_cast<std::uint32_t>(ranks))
    throw ConfigError(
        fmt::format("the torus {}x{}x{}x{}x{} has {} nodes, but mpirun started {} processes: one "
                    "process per node",
                    p.dims[0], p.dims[1], p.dims[2], p.dims[3], p.dims[4], p.num_nodes(), ranks));
  return p;
}

void start_mpi() {
  int on = 0;
  PMPI_Initialized(&on);
  if (!on && PMPI_Init_thread(nullptr, nullptr, g.required, &g.provided) != MPI_SUCCESS)
    throw Error("MPI_Init_thread failed");
  if (on) PMPI_Query_thread(&g.provided);
}

void finish_process();

Machine* provide() {
  if (g.machine) {
    g.machine->adopt_thread();  // a thread of the program's own: this process's rank too
    return g.machine.get();
  }
  if (g.starting) throw KernelError("an SPI function was called while hopsim's Open MPI machine was starting");
  g.starting = true;
  start_mpi();
  int me = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  log::set_level("warn");
  try {
    g.params = params_for(n);
  } catch (const ConfigError&) {
    // Every rank reads the same scenario: rank 0 says what is wrong, the others end with it.
    if (me != 0) {
      ::sleep(2);
      PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    throw;
  }
  g.machine = std::make_unique<OmpiMachine>(g.params, comm, me);
  std::atexit(&finish_process);
  g.starting = false;
  return g.machine.get();
}

void print_summary() {
  const auto& results = g.machine->results();
  std::uint64_t checked = 0, wrong = 0, descriptors = 0, packets = 0;
  std::vector<std::uint64_t> digests;
  nlohmann::json failed = nlohmann::json::array();
  for (std::size_t r = 0; r < results.size(); ++r) {
    const auto& x = results[r];
    for (const auto& c : x["checks"]) {
      checked += c[1].get<std::uint64_t>();
      wrong += c[2].get<std::uint64_t>();
      if (c[2].get<std::uint64_t>() > 0)
        failed.push_back(fmt::format("rank {} {}: {} of {} wrong ({})", r, c[0].get<std::string>(),
                                     c[2].get<std::uint64_t>(), c[1].get<std::uint64_t>(), c[3].get<std::string>()));
    }
    descriptors += x["descriptors"].get<std::uint64_t>();
    packets += x["packets"].get<std::uint64_t>();
    digests.push_back(x["digest"].get<std::uint64_t>());
  }
  const double cycles = g.machine->end_cycles();
  const auto& p = g.params;
  if (const char* rep = std::getenv("HOPSIM_REPORT"); rep && *rep) {
    const nlohmann::json j = {
        {"mode", "native"},
        {"transport", "openmpi"},
        {"direct_puts", g.machine->one_sided() ? "one-sided" : "messages"},
        {"ranks", results.size()},
        {"torus", fmt::format("{}x{}x{}x{}x{}", p.dims[0], p.dims[1], p.dims[2], p.dims[3], p.dims[4])},
        {"mpi_thread_level", g.provided},
        {"cycles", cycles},
        {"host_seconds", cycles / p.clock_hz},
        {"descriptors", descriptors},
        {"packets", packets},
        {"checked", checked},
        {"wrong", wrong},
        {"failed_checks", failed},
        {"digests", digests},
        {"ranks_results", results}};
    write_file_atomic(rep, j.dump(2) + "\n");
  }
  for (std::size_t i = 0; i < failed.size() && i < 5; ++i)
    std::cerr << "hopsim: check failed: " << failed[i].get<std::string>() << "\n";
  if (!std::getenv("HOPSIM_QUIET"))
    std::cerr << fmt::format(
        "hopsim: bgq native run over Open MPI of {} ranks (torus {}x{}x{}x{}x{}): {:.3g} s, {} descriptors; {}\n",
        results.size(), p.dims[0], p.dims[1], p.dims[2], p.dims[3], p.dims[4], cycles / p.clock_hz, descriptors,
        wrong ? fmt::format("{} of {} checked values wrong", wrong, checked)
              : fmt::format("{} checked values, none wrong", checked));
}

[[noreturn]] void abort_job(const std::exception& e, int status) {
  int rank = -1, on = 0, off = 0;
  PMPI_Initialized(&on);
  PMPI_Finalized(&off);
  if (on && !off) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string what = e.what();
  const bool named = what.rfind("rank ", 0) == 0;
  std::fprintf(stderr, "hopsim: %s%s\n", rank >= 0 && !named ? fmt::format("rank {}: ", rank).c_str() : "",
               what.c_str());
  std::fflush(stderr);
  if (on && !off) PMPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);
}

// An error thrown through the program's C code ends the job as the other modes' exit statuses say.
[[noreturn]] void on_terminate() {
  try {
    if (std::current_exception()) std::rethrow_exception(std::current_exception());
  } catch (const DeadlockError& e) {
    abort_job(e, 6);
  } catch (const KernelError& e) {
    abort_job(e, 5);
  } catch (const ConfigError& e) {
    abort_job(e, 2);
  } catch (const std::exception& e) {
    abort_job(e, 1);
  } catch (...) {
  }
  std::fprintf(stderr, "hopsim: terminated\n");
  std::_Exit(1);
}

void finish_process() {
  if (!g.machine || g.finished) return;
  g.finished = true;
  try {
    g.machine->finish();
    if (g.machine->me() == 0) print_summary();
  } catch (const std::exception& e) {
    abort_job(e, 5);
  }
  int off = 0;
  PMPI_Finalized(&off);
  if (!off) PMPI_Finalize();
}

struct Install {
  Install() {
    Machine::set_provider(&provide);
    std::set_terminate(&on_terminate);
  }
};
const Install g_install;

}  // namespace
}  // namespace hopsim::bgq

// The program's MPI_Init and MPI_Finalize (the profiling interface: Open
// MPI's own are PMPI_*). MPI may already run (an SPI call came first).
extern "C" {

int MPI_Init(int*, char***) {
  hopsim::bgq::Machine::current();
  return MPI_SUCCESS;
}

int MPI_Init_thread(int*, char***, int required, int* provided) {
  if (!hopsim::bgq::g.machine) hopsim::bgq::g.required = std::max(required, static_cast<int>(MPI_THREAD_SERIALIZED));
  hopsim::bgq::Machine::current();
  if (provided) *provided = std::min(required, hopsim::bgq::g.provided);
  return MPI_SUCCESS;
}

int MPI_Finalize(void) {
  hopsim::bgq::finish_process();
  return MPI_SUCCESS;
}
}
