// MPI transport, like the original HAM's MPI backend: the ranks of one
// mpirun job, rank 0 the host (runs main), ranks 1..N the targets (each
// serves messages until the terminate message).
//   * an active message is one tagged MPI_Send of header + body; the target
//     runs the handler and sends the result back as one result message
//     (header + result bytes) tagged kTagResult;
//   * put: a request message naming the target address and size, then the
//     data as MPI_Send/MPI_Recv; get: a request message, the target sends
//     the data back (kTagData, or kTagFail with the reason);
//   * a target's heap is plain malloc memory of its rank, at most
//     --ham-card-memory bytes in use.
// Compiled with Open MPI's mpi.h (never hopsim's BG/Q subset in sim/bgq).
#include <array>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "backends.hpp"
#include "hopsim/core/error.hpp"

#ifdef HOPSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace ham::offload::detail {

bool launched_by_mpirun() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr; }

#ifndef HOPSIM_HAVE_MPI

std::unique_ptr<Runtime> make_mpi_runtime(const Options&) {
  throw hopsim::ConfigError(
      "--ham-mode mpi: this build has no MPI (Open MPI, Debian's libopenmpi-dev, was not found when it was "
      "configured)");
}

#else

namespace {

constexpr int kTagMsg = 1, kTagResult = 2, kTagData = 3, kTagFail = 4;
constexpr std::uint32_t kPutKey = 0xFFFFFFFEu, kGetKey = 0xFFFFFFFDu;
// Result header status.
constexpr std::uint32_t kResultOk = 1, kResultFailed = 2;
constexpr std::size_t kChunk = std::size_t(1) << 30;  // bytes per MPI message of a put/get

struct ResultHeader {
  std::uint32_t slot;
  std::uint32_t status;
};

struct Transfer {  // body of a put/get request
  std::uint64_t addr;
  std::uint64_t bytes;
};

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    std::array<char, MPI_MAX_ERROR_STRING> msg{};
    int len = 0;
    MPI_Error_string(rc, msg.data(), &len);
    throw hopsim::Error(fmt::format("HAM MPI transport: {} failed: {}", what, std::string(msg.data(), len)));
  }
}

class MpiRuntime final : public Runtime {
 public:
  explicit MpiRuntime(Options o) : o_(std::move(o)) {
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) check_mpi(MPI_Init(nullptr, nullptr), "MPI_Init");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || (o_.targets > 0 && o_.targets != size - 1)) {
      MPI_Finalize();
      throw hopsim::ConfigError(
          size < 2 ? fmt::format("--ham-mode mpi: the job has {} rank; it needs the host and at least one target: "
                                 "mpirun -np 2 ... (N targets: -np N+1)",
                                 size)
                   : fmt::format("--ham-targets {}: the job has {} ranks, which is {} target(s); run mpirun -np {}",
                                 o_.targets, size, size - 1, o_.targets + 1));
    }
    size_ = size;
    if (o_.target_core >= 0 || o_.host_core >= 0) {
      MPI_Finalize();
      throw hopsim::ConfigError(
          "--ham-cpu-affinity/--ham-target-cpu-affinity: not in --ham-mode mpi (pin with mpirun's "
          "--bind-to/--cpu-set)");
    }
    node_ = rank;
    slot_ready_.assign(o_.buffers, false);
    slot_live_.assign(o_.buffers, false);
    results_.assign(o_.buffers, {});
    slot_node_.assign(o_.buffers, 0);
    for (std::size_t i = o_.buffers; i-- > 0;) free_slots_.push_back(static_cast<std::uint32_t>(i));
    buf_.resize(sizeof(MsgHeader) + o_.message_size);
    int len = 0;
    std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
    MPI_Get_processor_name(name.data(), &len);
    host_name_.assign(name.data(), len);
    // Every rank's processor name, for get_node_description.
    std::vector<char> all(static_cast<std::size_t>(size) * name.size());
    check_mpi(MPI_Allgather(name.data(), static_cast<int>(name.size()), MPI_CHAR, all.data(),
                            static_cast<int>(name.size()), MPI_CHAR, MPI_COMM_WORLD),
              "MPI_Allgather of the processor names");
    for (int r = 0; r < size; ++r) names_.emplace_back(all.data() + static_cast<std::size_t>(r) * name.size());
    int v = 0, sv = 0;
    MPI_Get_version(&v, &sv);
    version_ = fmt::format("{}.{}", v, sv);
  }

  ~MpiRuntime() override {
    if (!finalized_) {
      // The host failed before shutdown reached the target: end the job.
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MpiRuntime(const MpiRuntime&) = delete;
  MpiRuntime& operator=(const MpiRuntime&) = delete;

  node_t this_node() const override { return node_; }
  node_t num_nodes() const override { return size_; }
  std::string node_name(node_t node) const override {
    const std::string& n = names_.at(static_cast<std::size_t>(node));
    return node == 0 ? n : fmt::format("target {} (MPI rank {} on {})", node, node, n);
  }
  const Options& options() const override { return o_; }

  std::uint64_t send(node_t node, std::uint32_t key, const void* body, std::size_t body_size,
                     std::size_t result_size) override {
    check_host("send a message");
    check_node(node);
    check_message_fits(o_, body_size, result_size);
    const std::uint32_t slot = take_slot();
    const MsgHeader h{key, static_cast<std::uint32_t>(body_size), slot, static_cast<std::uint32_t>(result_size)};
    std::memcpy(buf_.data(), &h, sizeof h);
    std::memcpy(buf_.data() + sizeof h, body, body_size);
    check_mpi(MPI_Send(buf_.data(), static_cast<int>(sizeof h + body_size), MPI_BYTE, node, kTagMsg, MPI_COMM_WORLD),
              "MPI_Send of an active message");
    slot_live_[slot] = true;
    slot_node_[slot] = node;
    return slot;
  }

  bool test(std::uint64_t ticket) override {
    check_host("test a future");
    const auto slot = static_cast<std::uint32_t>(ticket);
    for (;;) {
      if (slot_ready_[slot]) return true;
      int flag = 0;
      MPI_Status st;
      check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, kTagResult, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
      if (!flag) return false;
      receive_result();
    }
  }

  void wait(std::uint64_t ticket, void* result, std::size_t result_size) override {
    check_host("wait for a result");
    const auto slot = static_cast<std::uint32_t>(ticket);
    while (!slot_ready_[slot]) receive_result();
    Result r = std::move(results_[slot]);
    const node_t node = slot_node_[slot];
    release_slot(slot);
    if (r.status == kResultFailed)
      throw hopsim::KernelError(
          fmt::format("offloaded function failed on node {}: {}", node, std::string(r.data.begin(), r.data.end())));
    if (result_size) {
      if (r.data.size() < result_size)
        throw hopsim::Error(
            fmt::format("HAM MPI transport: result of {} B, expected {} B", r.data.size(), result_size));
      std::memcpy(result, r.data.data(), result_size);
    }
  }

  std::uint64_t put(const void* src, node_t node, void* dst, std::size_t bytes) override {
    check_host("put");
    check_node(node);
    send_transfer(node, kPutKey, dst, bytes);
    const char* s = static_cast<const char*>(src);
    for (std::size_t off = 0; off < bytes; off += kChunk) {
      const std::size_t n = std::min(kChunk, bytes - off);
      check_mpi(MPI_Send(s + off, static_cast<int>(n), MPI_BYTE, node, kTagData, MPI_COMM_WORLD),
                "MPI_Send of put data");
    }
    return kDone;
  }

  std::uint64_t get(node_t node, const void* src, void* dst, std::size_t bytes) override {
    check_host("get");
    check_node(node);
    send_transfer(node, kGetKey, src, bytes);
    char* d = static_cast<char*>(dst);
    std::size_t off = 0;
    do {
      // Results of earlier asynchronous calls may arrive first: keep them.
      MPI_Status st;
      check_mpi(MPI_Probe(node, MPI_ANY_TAG, MPI_COMM_WORLD, &st), "MPI_Probe");
      if (st.MPI_TAG == kTagResult) {
        receive_result(node);
        continue;
      }
      int count = 0;
      MPI_Get_count(&st, MPI_BYTE, &count);
      if (st.MPI_TAG == kTagFail) {
        std::string why(static_cast<std::size_t>(count), '\0');
        check_mpi(MPI_Recv(why.data(), count, MPI_BYTE, node, kTagFail, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        throw hopsim::Error("get: " + why);
      }
      const std::size_t n = std::min(kChunk, bytes - off);
      check_mpi(MPI_Recv(d + off, static_cast<int>(n), MPI_BYTE, node, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                "MPI_Recv of get data");
      off += n;
    } while (off < bytes);
    return kDone;
  }

  void* target_alloc(std::size_t bytes) override {
    if (node_ == 0) throw hopsim::Error("target_alloc runs on a target");
    const std::size_t need = bytes == 0 ? 1 : bytes;
    if (heap_used_ + need > o_.card_memory)
      throw hopsim::Error(fmt::format("target heap exhausted: {} B in use, {} B more exceed {} B (--ham-card-memory)",
                                      heap_used_, need, o_.card_memory));
    void* p = std::aligned_alloc(64, (need + 63) / 64 * 64);
    if (!p) throw hopsim::Error(fmt::format("target heap: cannot allocate {} B", need));
    heap_[reinterpret_cast<std::uintptr_t>(p)] = need;
    heap_used_ += need;
    return p;
  }

  void target_free(void* p) override {
    if (node_ == 0) throw hopsim::Error("target_free runs on a target");
    const auto it = heap_.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == heap_.end()) throw hopsim::Error("free: pointer was not allocated on this target");
    heap_used_ -= it->second;
    heap_.erase(it);
    std::free(p);  // NOLINT(cppcoreguidelines-no-malloc): the target heap hands out aligned_alloc blocks
  }

  std::int64_t now_ps() override {
    return 1000 * static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                std::chrono::steady_clock::now().time_since_epoch())
                                                .count());
  }
  void charge_cycles(double) override {}

  void shutdown() override {
    if (node_ != 0 || finalized_) return;
    const MsgHeader h{kTerminateKey, 0, 0, 0};
    for (node_t t = 1; t < size_; ++t)
      check_mpi(MPI_Send(&h, sizeof h, MPI_BYTE, t, kTagMsg, MPI_COMM_WORLD), "MPI_Send of the terminate message");
    // Each target answers with its first put error, or an empty message.
    std::string first;
    for (node_t t = 1; t < size_; ++t) {
      MPI_Status st;
      for (;;) {
        check_mpi(MPI_Probe(t, MPI_ANY_TAG, MPI_COMM_WORLD, &st), "MPI_Probe");
        if (st.MPI_TAG != kTagResult) break;
        receive_result(t);  // a result no one waited for
      }
      int count = 0;
      MPI_Get_count(&st, MPI_BYTE, &count);
      std::string err(static_cast<std::size_t>(count), '\0');
      check_mpi(MPI_Recv(err.data(), count, MPI_BYTE, t, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
      if (!err.empty() && first.empty()) first = fmt::format("HAM target node {}: {}", t, err);
    }
    finalized_ = true;
    MPI_Finalize();
    if (!first.empty()) throw hopsim::Error(first);
  }

  int serve_target() override {
    int rc = 0;
    std::string put_error;
    try {
      serve(put_error);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "HAM target node %d: %s\n", node_, e.what());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    check_mpi(MPI_Send(put_error.data(), static_cast<int>(put_error.size()), MPI_BYTE, 0, kTagFail, MPI_COMM_WORLD),
              "MPI_Send of the terminate answer");
    finalized_ = true;
    MPI_Finalize();
    std::fflush(stdout);
    std::fflush(stderr);
    return rc;
  }

  std::string describe() const override {
    return fmt::format(
        "# HOPSIM_HAM_MODE              mpi (targets: ranks 1..{} of {}, MPI {} two-sided messages, host {})\n"
        "# HOPSIM_HAM_BUFFERS           {}",
        size_ - 1, size_, version_, host_name_, o_.buffers);
  }

 private:
  struct Result {
    std::uint32_t status = 0;
    std::vector<char> data;
  };

  void check_node(node_t node) const {
    if (node < 1 || node >= size_)
      throw hopsim::Error(
          fmt::format("HAM node {} does not exist: the targets are 1..{} (node 0 is the host)", node, size_ - 1));
  }
  void check_host(const char* what) const {
    if (node_ != 0) throw hopsim::Error(fmt::format("HAM: only the host may {} in this transport", what));
  }

  void send_transfer(node_t node, std::uint32_t key, const void* addr, std::size_t bytes) {
    const MsgHeader h{key, sizeof(Transfer), 0, 0};
    const Transfer t{reinterpret_cast<std::uint64_t>(addr), bytes};
    std::memcpy(buf_.data(), &h, sizeof h);
    std::memcpy(buf_.data() + sizeof h, &t, sizeof t);
    check_mpi(MPI_Send(buf_.data(), static_cast<int>(sizeof h + sizeof t), MPI_BYTE, node, kTagMsg, MPI_COMM_WORLD),
              "MPI_Send of a transfer request");
  }

  // Receives one result message (from `source`, or any target) into its slot.
  void receive_result(int source = MPI_ANY_SOURCE) {
    MPI_Status st;
    check_mpi(MPI_Probe(source, kTagResult, MPI_COMM_WORLD, &st), "MPI_Probe");
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    std::vector<char> msg(static_cast<std::size_t>(count));
    check_mpi(MPI_Recv(msg.data(), count, MPI_BYTE, st.MPI_SOURCE, kTagResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              "MPI_Recv of a result");
    ResultHeader h{};
    if (msg.size() < sizeof h) throw hopsim::Error("HAM MPI transport: short result message");
    std::memcpy(&h, msg.data(), sizeof h);
    if (h.slot >= slot_ready_.size() || !slot_live_[h.slot])
      throw hopsim::Error(fmt::format("HAM MPI transport: result for unknown slot {}", h.slot));
    results_[h.slot] = Result{h.status, std::vector<char>(msg.begin() + sizeof h, msg.end())};
    slot_ready_[h.slot] = true;
  }

  std::uint32_t take_slot() {
    if (free_slots_.empty())
      throw hopsim::Error(fmt::format(
          "HAM: all {} result slots belong to futures not yet collected with get(); call get() on earlier futures "
          "(or raise --ham-buffers)",
          o_.buffers));
    const std::uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }

  void release_slot(std::uint32_t s) {
    slot_ready_[s] = false;
    slot_live_[s] = false;
    results_[s] = {};
    free_slots_.push_back(s);
  }

  // The target address range [p, p + bytes) inside one allocation?
  bool in_heap(std::uint64_t p, std::uint64_t bytes) const {
    auto it = heap_.upper_bound(static_cast<std::uintptr_t>(p));
    if (it == heap_.begin()) return false;
    --it;
    return p + bytes >= p && p + bytes <= it->first + it->second;
  }

  void serve(std::string& put_error) {
    std::vector<char> out(sizeof(ResultHeader) + o_.message_size);
    std::vector<char> scratch;
    for (;;) {
      MPI_Status st;
      check_mpi(MPI_Recv(buf_.data(), static_cast<int>(buf_.size()), MPI_BYTE, 0, kTagMsg, MPI_COMM_WORLD, &st),
                "MPI_Recv of a message");
      MsgHeader h{};
      std::memcpy(&h, buf_.data(), sizeof h);
      if (h.key == kTerminateKey) return;
      if (h.key == kPutKey || h.key == kGetKey) {
        Transfer t{};
        std::memcpy(&t, buf_.data() + sizeof h, sizeof t);
        const bool ok = in_heap(t.addr, t.bytes);
        const std::string why =
            ok ? std::string()
               : fmt::format("the {} ({} B at 0x{:x}) is not inside the target's memory",
                             h.key == kPutKey ? "put: the destination" : "get: the source", t.bytes, t.addr);
        char* p = reinterpret_cast<char*>(t.addr);
        if (h.key == kPutKey) {
          for (std::uint64_t off = 0; off < t.bytes; off += kChunk) {
            const std::size_t n = std::min<std::uint64_t>(kChunk, t.bytes - off);
            char* into = p + off;
            if (!ok) {
              scratch.resize(n);
              into = scratch.data();
            }
            check_mpi(MPI_Recv(into, static_cast<int>(n), MPI_BYTE, 0, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                      "MPI_Recv of put data");
          }
          if (!ok && put_error.empty()) put_error = why;
        } else if (!ok) {
          check_mpi(MPI_Send(why.data(), static_cast<int>(why.size()), MPI_BYTE, 0, kTagFail, MPI_COMM_WORLD),
                    "MPI_Send of a get failure");
        } else {
          std::uint64_t off = 0;
          do {
            const std::size_t n = std::min<std::uint64_t>(kChunk, t.bytes - off);
            check_mpi(MPI_Send(p + off, static_cast<int>(n), MPI_BYTE, 0, kTagData, MPI_COMM_WORLD),
                      "MPI_Send of get data");
            off += n;
          } while (off < t.bytes);
        }
        continue;
      }
      ResultHeader r{h.slot, kResultOk};
      std::size_t n = h.result_size;
      try {
        Registry::handler(h.key)(buf_.data() + sizeof h, out.data() + sizeof r);
      } catch (const std::exception& e) {
        r.status = kResultFailed;
        const std::string what = e.what();
        n = std::min(what.size(), o_.message_size);
        std::memcpy(out.data() + sizeof r, what.data(), n);
      }
      std::memcpy(out.data(), &r, sizeof r);
      check_mpi(MPI_Send(out.data(), static_cast<int>(sizeof r + n), MPI_BYTE, 0, kTagResult, MPI_COMM_WORLD),
                "MPI_Send of a result");
    }
  }

  Options o_;
  node_t node_ = 0;
  int size_ = 2;  // ranks: the host and the targets
  bool finalized_ = false;
  std::vector<char> buf_;
  std::vector<bool> slot_ready_, slot_live_;
  std::vector<Result> results_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<node_t> slot_node_;               // host: the target each result slot waits on
  std::vector<std::string> names_;              // by rank: processor name
  std::map<std::uintptr_t, std::size_t> heap_;  // target side: address -> size
  std::size_t heap_used_ = 0;
  std::string host_name_, version_;
};

}  // namespace

std::unique_ptr<Runtime> make_mpi_runtime(const Options& o) { return std::make_unique<MpiRuntime>(o); }

#endif

}  // namespace ham::offload::detail
