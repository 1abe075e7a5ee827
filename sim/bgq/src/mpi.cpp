// MPI for BG/Q programs, over the messaging unit through hopsim's SPI, as
// the machine's MPI (MPICH over PAMI) does it (LLNL BG/Q tutorial, "5D
// torus point-to-point message protocols"):
//  - eager, up to mpi_eager_bytes: one memory-FIFO message, a 16-byte
//    envelope (the msginfo) followed by the data, in as many packets as it
//    takes;
//  - rendezvous, above it (and every synchronous send): a request to send
//    (a memory-FIFO packet with the envelope, the sender's buffer and
//    request), a remote get by the receiver whose payload is a direct put
//    the sender's MU runs into the receive buffer with a reception counter,
//    and an acknowledgement packet back when the counter reaches 0;
//  - matching by communicator, source and tag (wildcards) against posted
//    receives in post order and unexpected messages in arrival order; each
//    message carries a sequence number per pair of ranks, so messages
//    between two ranks match in the order they were sent;
//  - derived datatypes flattened to runs of bytes when built: a message of
//    a contiguous one goes from and to the user's buffer, any other is
//    packed into a staging buffer the request owns and unpacked on arrival;
//  - non-blocking collectives as schedules of rounds of point-to-point
//    messages that the progress engine advances.
// The MPI state of a rank lives in its RankState and uses subgroup 64 of
// its MU (one injection FIFO, one reception FIFO, base-address entries),
// which the programs' own SPI code leaves to the system, and receive
// functions 252-255. Simulated runs charge mpi_send_cycles per message sent
// and mpi_recv_cycles per message received (the software's overhead);
// the packets themselves are timed by the MU and torus model.
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <climits>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "machine.hpp"
#include "mpi.h"

namespace hopsim::bgq {

namespace {

constexpr std::uint32_t kSubgroup = kMpiSubgroup;
constexpr std::uint32_t kRecFifo = kMpiRecFifo;
constexpr std::uint32_t kInjFifo = kSubgroup * 8;  // global id of injection FIFO 0
constexpr std::uint32_t kInjFifos = 8;             // one per direction a message leaves in
constexpr std::uint32_t kBcastFn = 252, kEagerFn = 253, kRtsFn = 254, kAckFn = 255;
constexpr std::uint32_t kCancelAsk = 1, kCancelAnswer = 2;     // kinds of control packet on kAckFn (0: an ack)
constexpr std::uint64_t kInjBytes = std::uint64_t{16} * 1024;  // 256 descriptors per FIFO
constexpr std::uint64_t kWindowBits = 36;                      // a put offset holds 37 bits

// The 16-byte msginfo every message starts with.
struct Envelope {
  std::int32_t src = 0;  // the sender's rank in the communicator
  std::int32_t tag = 0;
  std::uint32_t bytes = 0;
  std::uint16_t context = 0;
  std::uint16_t seq = 0;
};
static_assert(sizeof(Envelope) == 16);
struct Rts {
  Envelope env;
  std::uint64_t addr = 0;  // the sender's buffer
  std::uint32_t sreq = 0;  // the sender's request
  std::uint32_t pad = 0;
};
static_assert(sizeof(Rts) == 32);

constexpr std::size_t kContextSlots = 0x10000 / 4;  // of four contexts each

struct Comm {
  std::uint16_t context = 0;  // point to point; collectives use context + 1
  int n = 0;                  // members
  std::vector<int> members;   // world rank of each member; empty: member r is world rank r
  int me = 0;
  int size() const { return n; }
  int world(int r) const { return members.empty() ? r : members[static_cast<std::size_t>(r)]; }
  bool fatal = true;
  bool active = true;
  std::vector<int> dims, periods;  // a Cartesian communicator
  std::uint32_t nbc_seq = 0;       // non-blocking collectives started (members start them in one order)
  // An intercommunicator: `members` is the local group, `remote` the remote
  // one (world ranks), and `local` the hidden intracommunicator of the local
  // group (context + 2) that its creation, merge and dup agree through.
  bool inter = false;
  std::vector<int> remote;
  int local = -1;
  std::string name;
  int peers() const { return inter ? static_cast<int>(remote.size()) : n; }  // ranks a message may name
  int peer(int r) const { return inter ? remote[static_cast<std::size_t>(r)] : world(r); }
};

// A datatype flattened to its typemap's runs of bytes, in the order the
// typemap lists them (the order of the packed data), each run made of
// basic elements of one size.
struct Block {
  std::int64_t off = 0;  // displacement from the buffer's address
  std::uint64_t len = 0;
  std::uint32_t elem = 1;  // bytes per basic element
};
struct TypeInfo {
  std::vector<Block> blocks;
  std::uint64_t size = 0;      // bytes of data in one element
  std::uint64_t elements = 0;  // basic elements in one element
  std::int64_t lb = 0, ub = 0;
  std::uint32_t align = 1;       // the strictest basic element's size
  bool explicit_bounds = false;  // set by MPI_Type_create_resized, kept by types built from it
  bool committed = false;
  MPI_Datatype basic = MPI_DATATYPE_NULL;  // the predefined type this is, if it is one
  std::int64_t extent() const { return ub - lb; }
  // Whether `count` elements are `count * size` bytes from the buffer + lb, in typemap order.
  bool contiguous() const {
    return static_cast<std::int64_t>(size) == extent() &&
           (blocks.empty() || (blocks.size() == 1 && blocks[0].off == lb));
  }
};
using TypeRef = std::shared_ptr<const TypeInfo>;

struct Schedule;

struct Request {
  bool active = false, done = false, send = false;
  bool coll = false;  // a non-blocking collective (its schedule below)
  int comm = 0;
  // a derived type's data, packed: what a send sends, or where a receive lands before it is unpacked
  std::vector<std::uint8_t> pack;
  TypeRef utype;  // a receive to unpack: the user's type, buffer and count
  void* ubuf = nullptr;
  std::size_t ucount = 0;
  std::shared_ptr<Schedule> sched;
  // receive
  void* buf = nullptr;
  std::size_t cap = 0;
  std::uint32_t sent = 0;  // the bytes the matched message had
  int src = 0, tag = 0;
  std::uint16_t context = 0;
  MPI_Status status{};
  // rendezvous receive: the reception counter, and the descriptors the MU reads
  alignas(8) std::uint64_t counter = 0;
  bool getting = false;
  int ack_to = 0;
  std::uint32_t ack_sreq = 0;
  alignas(64) MUHWI_Descriptor_t put{};
  // persistent (MPI_Send_init, ...): the operation MPI_Start begins (peer in src, tag, comm above), and the
  // request of the one under way, -1 while inactive
  bool persistent = false;
  enum Kind : std::uint8_t { kSend, kSsend, kBsend, kRecv, kColl } kind = kSend;
  std::function<int(MPI_Request*)> starter;  // a persistent collective: starts its non-blocking collective
  int coll_tag = -1;  // ... with the tag its init call took (members match persistent collectives in init order)
  // a send: where its message went (world rank, sequence number), for MPI_Cancel; cancel_wait: the receiver's
  // answer to a cancellation is due (the request is not complete until it is in)
  int dest_world = -1;
  std::uint16_t seq = 0;
  bool cancel_wait = false, cancelled = false;
  int link = -1;        // a buffered send's request for the user: the request of MPI's own that sends the copy
  bool orphan = false;  // freed by MPI_Request_free while active: MPI_Finalize completes it
  void* pbuf = nullptr;
  std::size_t pcount = 0;
  TypeRef ptype;
  int inner = -1;
};

// A message whose envelope is here: eager with its data, or a request to send.
struct Arrived {
  Envelope env;
  int world_src = 0;
  bool rts = false;
  std::vector<std::uint8_t> data;
  std::uint64_t addr = 0;
  std::uint32_t sreq = 0;
};

struct Partial {
  std::vector<std::uint8_t> bytes;  // envelope + data
  std::uint64_t got = 0;
};

// A non-blocking collective: rounds of point-to-point messages on the
// communicator's collective context; a round starts when the one before it
// has completed and its `after` (a combine, a copy) has run.
struct Xfer {
  bool send = false;
  void* rbuf = nullptr;        // a receive's
  const void* sbuf = nullptr;  // a send's
  std::size_t count = 0;
  TypeRef type;
  int peer = 0;
  int tag = 0;  // a point-to-point schedule's: the user's tag
};
struct Round {
  std::vector<Xfer> xfers;
  std::function<void()> after;
};
struct Schedule {
  MPI_Comm comm = 0;
  int tag = 0;
  const char* fn = "";
  std::vector<Round> rounds;
  std::size_t next = 0;                         // the round to start next
  std::vector<int> live;                        // the requests of the round under way
  std::vector<std::vector<std::uint8_t>> temp;  // accumulators and receive buffers
  // Point to point (MPI_Isendrecv): its messages on the communicator's point-to-point context with their own
  // tags, and its receive's status is the request's.
  bool p2p = false;
  MPI_Status status{MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
  std::uint32_t sent = 0;
};

constexpr MPI_Datatype kDerived = 0x10000;  // the first derived type's handle
constexpr MPI_Op kUserOp = 32;              // the first user op's handle (MPI_Op_create)

struct UserOp {
  MPI_User_function* fn = nullptr;
  bool commute = true;
  bool freed = false;  // new calls refuse it; reductions under way still combine with it
};

}  // namespace

struct MpiState {
  bool initialised = false, finalized = false;
  int world = 0, size = 0;
  MUSPI_InjFifoSubGroup_t inj{};
  MUSPI_RecFifoSubGroup_t rec{};
  MUSPI_BaseAddressTableSubGroup_t bat{};
  std::array<MUSPI_InjFifo_t*, kInjFifos> injf{};
  MUSPI_RecFifo_t* recf = nullptr;
  std::vector<std::uint64_t> windows;  // base of base-address entry i of the subgroup
  std::vector<Comm> comms;
  std::vector<std::unique_ptr<Request>> reqs;
  std::vector<int> free_reqs;
  // Vectors, not deques: empty ones take no memory, and a full machine has 98304 ranks.
  std::vector<int> posted;  // receive requests in post order
  std::vector<Arrived> unexpected;
  // Messages a matched probe took out of the matching queue (MPI_Improbe), by their MPI_Message handle, with
  // their communicator.
  std::map<int, std::pair<Arrived, MPI_Comm>> messages;
  int next_message = 0;
  std::map<std::pair<int, std::uint16_t>, Partial> partial;
  std::map<std::pair<int, std::uint16_t>, Arrived> early;  // ahead of their turn
  // Broadcasts on the collective network, by their number on MPI_COMM_WORLD: the packets in so far, and the
  // numbers of this rank's own broadcasts, whose copies the network also delivers here (dropped).
  std::map<std::uint16_t, Partial> bcasts;
  std::map<std::uint16_t, std::uint64_t> own_bcasts;  // number -> bytes still to drop
  std::uint16_t bcast_seq = 0;
  std::unordered_map<int, std::uint16_t> send_seq, recv_seq;  // per world rank written to / heard from
  std::vector<int> getting;                                   // rendezvous receives under way
  // Per injection FIFO: what its descriptors send, until the MU has read it.
  std::array<std::vector<std::vector<std::uint8_t>>, kInjFifos> staging;
  double owed = 0;  // software cycles not yet charged
  // MPI_THREAD_MULTIPLE: the level granted, and the rank's lock (owner: the
  // Machine::thread_key of the thread in MPI, 0 when free; depth: its calls
  // nested in one another).
  int thread_level = MPI_THREAD_SINGLE;
  std::uintptr_t main_thread = 0;
  std::atomic<std::uintptr_t> owner{0};
  int depth = 0;
  // Contexts in use on this rank, one bit per slot of four (a communicator's
  // point-to-point and collective contexts, and an intercommunicator's hidden
  // local pair); slot 0 holds MPI_COMM_WORLD and MPI_COMM_SELF.
  std::array<std::uint64_t, kContextSlots / 64> used_contexts{1};
  const char* coll = "MPI_Barrier";              // the collective call under way (error messages)
  alignas(8) std::uint64_t coll_counter = 0;     // the collective network's reception counter
  std::vector<std::shared_ptr<TypeInfo>> types;  // derived type kDerived + i; null once freed
  std::vector<int> scheduled;                    // non-blocking collectives under way
  std::vector<UserOp> ops;                       // user op kUserOp + i
  bool advancing = false;                        // the progress engine is advancing them
  int nbc_tag = -1;                              // a persistent collective starting: the tag its schedule takes
  // Groups (MPI_Group handle i): world ranks in group order; handle 0 is MPI_GROUP_EMPTY.
  std::vector<std::vector<int>> groups{{}};
  std::vector<char> group_live{1};
  // Buffered sends: the attached buffer, its bytes in use, and the sends under way from it (request, bytes).
  void* bsend_buf = nullptr;
  std::size_t bsend_size = 0, bsend_used = 0;
  std::vector<std::pair<int, std::size_t>> bsends;
  // MPI_Info objects (handle i): their (key, value) pairs in the order they were set; freed: not live.
  std::vector<std::vector<std::pair<std::string, std::string>>> infos;
  std::vector<char> info_live;
  std::vector<std::array<std::uint32_t, 4>> cancel_asks;  // senders asking to cancel a message (answered by progress)
};

namespace {

Machine& mach() {
  Machine& m = *Machine::current();
  m.settle_counted();
  return m;
}

[[noreturn]] void fail(const std::string& what) {
  throw KernelError(fmt::format("rank {}: {}", Machine::current_rank(), what));
}

bool simulated() { return Machine::current()->mode() == Mode::sim; }

void charge(MpiState& s, double cycles) {
  if (simulated()) s.owed += cycles;
}
void pay(MpiState& s) {
  if (s.owed > 0) {
    const double c = s.owed;
    s.owed = 0;
    Machine::current()->delay(c);
  }
}

// MPI_THREAD_MULTIPLE: a rank's threads call MPI one at a time, under one
// lock per rank (MPICH's global critical section), which a call releases
// while it waits (so the others can call meanwhile, and one of them may
// complete what it waits for). Taking it costs mpi_lock_cycles in a
// simulated run; a thread that finds it taken polls until it is free
// (simulated: its clock moves by poll_cycles per poll and the others run).
void lock(MpiState& s) {
  Machine& m = *Machine::current();
  const std::uintptr_t me = m.thread_key();
  if (s.owner.load(std::memory_order_relaxed) == me) {
    ++s.depth;
    return;
  }
  std::uintptr_t expected = 0;
  while (!s.owner.compare_exchange_weak(expected, me, std::memory_order_acquire)) {
    expected = 0;
    m.idle_poll(WaitKind::mpi_lock, 0, 0);
  }
  s.depth = 1;
  charge(s, m.params().mpi_lock_cycles);
}
void unlock(MpiState& s) {
  if (--s.depth > 0) return;
  pay(s);  // the software cycles of this call, on the caller's clock
  s.owner.store(0, std::memory_order_release);
}
// Held by every MPI call for its duration where the level is
// MPI_THREAD_MULTIPLE. While an exception unwinds the call (an MPI error, or
// the end of a simulated run unwinding the fibers still waiting) the lock is
// just given up: no time is charged.
class Entered {
 public:
  explicit Entered(MpiState& s)
      : s_(s.thread_level == MPI_THREAD_MULTIPLE ? &s : nullptr), unwinding_(std::uncaught_exceptions()) {
    if (s_) lock(*s_);
  }
  ~Entered() {
    if (!s_) return;
    if (std::uncaught_exceptions() > unwinding_) {
      if (--s_->depth <= 0) s_->owner.store(0, std::memory_order_release);
      return;
    }
    unlock(*s_);
  }
  Entered(const Entered&) = delete;
  Entered& operator=(const Entered&) = delete;

 private:
  MpiState* s_;
  int unwinding_;
};
// Around a wait inside a call: the lock is free meanwhile, taken again after
// (not while an exception unwinds the wait).
class Released {
 public:
  explicit Released(MpiState& s)
      : s_(s.thread_level == MPI_THREAD_MULTIPLE &&
                   s.owner.load(std::memory_order_relaxed) == Machine::current()->thread_key()
               ? &s
               : nullptr),
        unwinding_(std::uncaught_exceptions()) {
    if (!s_) return;
    depth_ = s_->depth;
    pay(*s_);
    s_->depth = 0;
    s_->owner.store(0, std::memory_order_release);
  }
  ~Released() {
    if (!s_ || std::uncaught_exceptions() > unwinding_) return;
    lock(*s_);
    s_->depth = depth_;
  }
  Released(const Released&) = delete;
  Released& operator=(const Released&) = delete;

 private:
  MpiState* s_;
  int depth_ = 0;
  int unwinding_;
};
// One poll of a call that does not wait (MPI_Test, MPI_Iprobe): time passes
// and the rank's other threads may run.
void poll_unlocked(MpiState& s) {
  const Released unlocked(s);
  Machine::current()->idle_poll(WaitKind::spin, 0, 0);
}

const char* error_name(int code) {
  switch (code) {
    case MPI_SUCCESS:
      return "MPI_SUCCESS";
    case MPI_ERR_BUFFER:
      return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT:
      return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE:
      return "MPI_ERR_TYPE";
    case MPI_ERR_TAG:
      return "MPI_ERR_TAG";
    case MPI_ERR_COMM:
      return "MPI_ERR_COMM";
    case MPI_ERR_RANK:
      return "MPI_ERR_RANK";
    case MPI_ERR_REQUEST:
      return "MPI_ERR_REQUEST";
    case MPI_ERR_ROOT:
      return "MPI_ERR_ROOT";
    case MPI_ERR_GROUP:
      return "MPI_ERR_GROUP";
    case MPI_ERR_INFO:
      return "MPI_ERR_INFO";
    case MPI_ERR_INFO_KEY:
      return "MPI_ERR_INFO_KEY";
    case MPI_ERR_INFO_VALUE:
      return "MPI_ERR_INFO_VALUE";
    case MPI_ERR_INFO_NOKEY:
      return "MPI_ERR_INFO_NOKEY";
    case MPI_ERR_NO_MEM:
      return "MPI_ERR_NO_MEM";
    case MPI_ERR_OP:
      return "MPI_ERR_OP";
    case MPI_ERR_TOPOLOGY:
      return "MPI_ERR_TOPOLOGY";
    case MPI_ERR_DIMS:
      return "MPI_ERR_DIMS";
    case MPI_ERR_ARG:
      return "MPI_ERR_ARG";
    case MPI_ERR_TRUNCATE:
      return "MPI_ERR_TRUNCATE";
    case MPI_ERR_IN_STATUS:
      return "MPI_ERR_IN_STATUS";
    default:
      return "MPI_ERR_OTHER";
  }
}

MpiState& state();

// An MPI error in `fn`: fatal (the run stops naming the rank, the call and
// the error) unless the communicator's handler is MPI_ERRORS_RETURN.
int error(int comm, int code, const char* fn, const std::string& what) {
  auto& s = state();
  const bool fatal =
      comm < 0 || comm >= static_cast<int>(s.comms.size()) || s.comms[static_cast<std::size_t>(comm)].fatal;
  if (fatal) fail(fmt::format("{}: {} ({})", fn, what, error_name(code)));
  return code;
}

// The size of a predefined type, 0 for anything else.
// The pair types of MPI_MAXLOC and MPI_MINLOC (kind 4): the value's type, and the pair's C struct layout.
struct PairType {
  MPI_Datatype code, value;
  std::uint32_t index_at, extent;
};
constexpr std::array<PairType, 5> kPairs{{{MPI_2INT, MPI_INT, 4, 8},
                                          {MPI_FLOAT_INT, MPI_FLOAT, 4, 8},
                                          {MPI_DOUBLE_INT, MPI_DOUBLE, 8, 16},
                                          {MPI_LONG_INT, MPI_LONG, 8, 16},
                                          {MPI_SHORT_INT, MPI_SHORT, 4, 8}}};
const PairType* pair_type(MPI_Datatype t) {
  for (const auto& p : kPairs)
    if (p.code == t) return &p;
  return nullptr;
}

// A predefined type's bytes per element in a reduction's buffers (a pair type's: its struct's extent), 0 for
// anything else.
std::size_t type_size(MPI_Datatype t) {
  if (const PairType* p = pair_type(t)) return p->extent;
  if (t < 0 || t >= 0x600) return 0;
  const int sz = t & 0xFF, kind = t >> 8;
  const bool ok = (kind == 0 && sz == 1) || ((kind == 1 || kind == 2) && (sz == 1 || sz == 2 || sz == 4 || sz == 8)) ||
                  (kind == 3 && (sz == 4 || sz == 8)) || (kind == 5 && (sz == 8 || sz == 16));
  return ok ? static_cast<std::size_t>(sz) : 0;
}

// ---- datatypes ----

// A predefined type's typemap (one element, committed), or null.
TypeRef predefined(MPI_Datatype t) {
  static const std::map<MPI_Datatype, TypeRef> all = [] {
    std::map<MPI_Datatype, TypeRef> m;
    for (const int kind : {0, 1, 2, 3, 5})
      for (const int sz : {1, 2, 4, 8, 16}) {
        const int code = (kind << 8) | sz;
        if (type_size(code) == 0) continue;
        auto ti = std::make_shared<TypeInfo>();
        const auto u = static_cast<std::uint32_t>(sz);
        ti->blocks = {{0, u, u}};
        ti->size = u;
        ti->elements = 1;
        ti->ub = sz;
        ti->align = kind == 5 ? u / 2 : u;  // a complex number aligns as its parts
        ti->committed = true;
        ti->basic = code;
        m.emplace(code, std::move(ti));
      }
    for (const auto& p : kPairs) {  // value then int, as the C struct lays them out
      auto ti = std::make_shared<TypeInfo>();
      const auto v = static_cast<std::uint32_t>(p.value & 0xFF);
      ti->blocks = {{0, v, v}, {p.index_at, 4, 4}};
      ti->size = v + 4;
      ti->elements = 2;
      ti->ub = p.extent;
      ti->align = std::max(v, 4u);
      ti->committed = true;
      ti->basic = p.code;
      m.emplace(p.code, std::move(ti));
    }
    return m;
  }();
  const auto it = all.find(t);
  return it == all.end() ? nullptr : it->second;
}

TypeRef bytes_type() { return predefined(MPI_BYTE); }

// Type `t` of this rank: *out set, or what is wrong with it (communication needs it committed).
std::string find_type(MpiState& s, MPI_Datatype t, TypeRef& out, bool for_communication) {
  if (t >= kDerived && static_cast<std::size_t>(t - kDerived) < s.types.size()) {
    const auto& d = s.types[static_cast<std::size_t>(t - kDerived)];
    if (!d) return fmt::format("datatype 0x{:x} was freed", t);
    if (for_communication && !d->committed) return fmt::format("datatype 0x{:x} is not committed", t);
    out = d;
    return {};
  }
  out = predefined(t);
  return out ? std::string{} : fmt::format("datatype 0x{:x} is not a type hopsim's MPI has", t);
}

// Appends `len` bytes of `elem`-byte elements at `off`, merged with the run before when they continue it.
void append_run(TypeInfo& t, std::int64_t off, std::uint64_t len, std::uint32_t elem) {
  if (len == 0) return;
  if (!t.blocks.empty()) {
    Block& b = t.blocks.back();
    if (b.elem == elem && b.off + static_cast<std::int64_t>(b.len) == off) {
      b.len += len;
      return;
    }
  }
  t.blocks.push_back({off, len, elem});
}

// Builds a type from copies of other types: the typemap of `old` at each displacement, in order.
class TypeBuilder {
 public:
  void add(const TypeInfo& old, std::int64_t disp, std::uint64_t copies) {
    if (copies == 0) return;
    const std::int64_t ext = old.extent();
    for (std::uint64_t i = 0; i < copies; ++i) {
      const std::int64_t at = disp + static_cast<std::int64_t>(i) * ext;
      for (const Block& b : old.blocks) append_run(t_, at + b.off, b.len, b.elem);
      const std::int64_t lb = at + old.lb, ub = at + old.ub;
      if (!any_) {
        t_.lb = lb;
        t_.ub = ub;
      }
      t_.lb = std::min(t_.lb, lb);
      t_.ub = std::max(t_.ub, ub);
      any_ = true;
    }
    t_.size += old.size * copies;
    t_.elements += old.elements * copies;
    t_.align = std::max(t_.align, old.align);
    t_.explicit_bounds = t_.explicit_bounds || old.explicit_bounds;
  }
  // A struct's extent is padded to its strictest alignment unless bounds were set explicitly.
  std::shared_ptr<TypeInfo> done(bool pad) {
    if (pad && !t_.explicit_bounds) {
      const auto a = static_cast<std::int64_t>(t_.align);
      const std::int64_t ext = t_.extent();
      t_.ub = t_.lb + (ext + a - 1) / a * a;
    }
    return std::make_shared<TypeInfo>(std::move(t_));
  }

 private:
  TypeInfo t_;
  bool any_ = false;
};

MPI_Datatype add_type(MpiState& s, std::shared_ptr<TypeInfo> t) {
  s.types.push_back(std::move(t));
  return kDerived + static_cast<MPI_Datatype>(s.types.size() - 1);
}

// Copies `count` elements of `t` at `buf` into `out`, in typemap order.
void pack(const TypeInfo& t, const void* buf, std::size_t count, std::uint8_t* out) {
  const auto base = reinterpret_cast<std::intptr_t>(buf);
  for (std::size_t i = 0; i < count; ++i) {
    const std::intptr_t at = base + static_cast<std::intptr_t>(i) * t.extent();
    for (const Block& b : t.blocks) {
      std::memcpy(out, reinterpret_cast<const void*>(at + b.off), b.len);
      out += b.len;
    }
  }
}

// Copies the first `bytes` of packed data into elements of `t` at `buf` (a short message fills a prefix).
void unpack(const TypeInfo& t, const std::uint8_t* in, std::size_t bytes, void* buf) {
  const auto base = reinterpret_cast<std::intptr_t>(buf);
  for (std::size_t i = 0; bytes > 0; ++i) {
    const std::intptr_t at = base + static_cast<std::intptr_t>(i) * t.extent();
    for (const Block& b : t.blocks) {
      const std::size_t n = std::min<std::size_t>(b.len, bytes);
      std::memcpy(reinterpret_cast<void*>(at + b.off), in, n);
      in += n;
      bytes -= n;
      if (bytes == 0) return;
    }
  }
}

// `p` moved by `off` bytes (a derived type's displacements may be negative).
template <class P>
P* shifted(P* p, std::int64_t off) {
  return reinterpret_cast<P*>(reinterpret_cast<std::intptr_t>(p) + off);
}

// Where `count` elements of a contiguous type start.
template <class P>
P* data_start(P* buf, const TypeInfo& t) {
  return shifted(buf, t.lb);
}

// `scount` elements of `st` at `sbuf` into `rcount` elements of `rt` at `rbuf` (a root's own block).
void local_copy(const void* sbuf, std::size_t scount, const TypeInfo& st, void* rbuf, std::size_t rcount,
                const TypeInfo& rt) {
  std::vector<std::uint8_t> tmp(scount * st.size);
  pack(st, sbuf, scount, tmp.data());
  unpack(rt, tmp.data(), std::min<std::size_t>(tmp.size(), rcount * rt.size), rbuf);
}

void setup(MpiState& s) {
  // The FIFOs' memory as the SPI wants it (64-byte aligned): hopsim keeps
  // the descriptors itself and never touches it, so every rank names one block.
  alignas(64) static std::array<std::uint8_t, kInjBytes> fifo_memory{};
  auto& m = mach();
  s.world = Machine::current_rank();
  s.size = m.size();
  Comm world;
  world.context = 0;
  world.n = s.size;
  world.me = s.world;
  Comm self;
  self.context = 2;
  self.n = 1;
  self.members = {s.world};
  s.comms = {world, self};

  // The reception FIFO was enabled before the program started (reserve_mpi_fifo).
  s.rec.subgroup = kSubgroup;
  s.rec.fifos[0] = {kSubgroup, kRecFifo};
  s.recf = &s.rec.fifos[0];

  // One injection FIFO per direction (as PAMI pins a destination to a FIFO),
  // so messages to different neighbours go out in parallel and those to one
  // destination in order.
  std::array<uint32_t, kInjFifos> fifo_ids{};
  std::iota(fifo_ids.begin(), fifo_ids.end(), 0u);
  std::array<Kernel_InjFifoAttributes_t, kInjFifos> ia{};
  for (auto& a : ia) a.RemoteGet = 1;
  if (Kernel_AllocateInjFifos(kSubgroup, &s.inj, kInjFifos, fifo_ids.data(), ia.data()) != 0)
    fail("MPI: the injection FIFOs of subgroup 64 are already allocated (MPI's own)");
  for (uint32_t i = 0; i < kInjFifos; ++i) {
    Kernel_MemoryRegion_t ir;
    Kernel_CreateMemoryRegion(&ir, fifo_memory.data(), kInjBytes);
    Kernel_InjFifoInit(&s.inj, i, &ir, 0, kInjBytes - 1);
    s.injf[i] = MUSPI_IdToInjFifo(i, &s.inj);
  }
  Kernel_InjFifoActivate(&s.inj, kInjFifos, fifo_ids.data(), KERNEL_INJ_FIFO_ACTIVATE);

  std::array<uint32_t, 8> ids{};
  std::iota(ids.begin(), ids.end(), 0u);
  Kernel_AllocateBaseAddressTable(kSubgroup, &s.bat, 8, ids.data(), 0);
  s.initialised = true;
}

MpiState& state() {
  auto& st = mach().self();
  if (!st.mpi) st.mpi = std::make_shared<MpiState>();
  auto& s = *st.mpi;
  if (!s.initialised) setup(s);
  return s;
}

// Base-address entry (global id) whose window holds `addr`, set on first use.
std::uint16_t window(MpiState& s, std::uint64_t addr, std::uint64_t& offset) {
  std::uint64_t base = addr & ~((std::uint64_t{1} << kWindowBits) - 1);
  if (base == 0) base = 64;
  offset = addr - base;
  for (std::size_t i = 0; i < s.windows.size(); ++i)
    if (s.windows[i] == base) return static_cast<std::uint16_t>(std::size_t{kSubgroup} * 8 + i);
  if (s.windows.size() == 8)
    fail("MPI: receive buffers and counters in more than 8 windows of 64 GiB (base-address entries of subgroup 64)");
  MUSPI_SetBaseAddress(&s.bat, static_cast<uint32_t>(s.windows.size()), base);
  s.windows.push_back(base);
  return static_cast<std::uint16_t>(std::size_t{kSubgroup} * 8 + s.windows.size() - 1);
}

void destination(MUHWI_Destination_t& d, int world) {
  const auto c = Machine::current()->torus().coords(static_cast<std::uint32_t>(world));
  MUSPI_SetUpDestination(&d, c[0], c[1], c[2], c[3], c[4]);
}

constexpr std::uint64_t kAllLinks =
    MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_BM |
    MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_BP | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CP |
    MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_DM | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_DP | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_EM |
    MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_EP | MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_LOCAL0;

// The injection FIFO `from`'s messages to `to` leave by: the direction of
// their first hop (the first coordinate in which the nodes differ), so the
// receiver of a rendezvous can name the sender's FIFO for its remote get.
std::uint32_t pinned_fifo(int from, int to) {
  const auto& torus = Machine::current()->torus();
  const auto a = torus.coords(static_cast<std::uint32_t>(from)), b = torus.coords(static_cast<std::uint32_t>(to));
  for (std::uint32_t d = 0; d < a.size(); ++d)
    if (a[d] != b[d]) return (2 * d + (b[d] > a[d] ? 0 : 1)) % kInjFifos;
  return 0;
}

void inject(MpiState& s, int to, MUHWI_Descriptor_t& d, std::vector<std::uint8_t> keep = {}) {
  const std::uint32_t f = pinned_fifo(s.world, to);
  while (MUSPI_InjFifoInject(s.injf[f], &d) == static_cast<uint64_t>(-1)) {
  }
  s.staging[f].push_back(std::move(keep));
}

// The fields of a memory-FIFO message into MPI's reception FIFO: receive
// function `fn`, then the software bytes soft_bytes() reads (sender, number, length).
void set_software_bytes(MUSPI_MemoryFIFODescriptorInfoFields_t& f, std::uint32_t fn, int from, std::uint16_t seq,
                        std::size_t bytes) {
  f.Rec_FIFO_Id = kRecFifo;
  f.SoftwareBytes[0] = static_cast<uint8_t>(fn);
  const auto sender = static_cast<std::uint32_t>(from);
  const auto len = static_cast<std::uint32_t>(bytes);
  std::memcpy(&f.SoftwareBytes[1], &sender, 4);
  std::memcpy(&f.SoftwareBytes[5], &seq, 2);
  std::memcpy(&f.SoftwareBytes[7], &len, 4);
}

// A memory-FIFO message to `world` through receive function `fn`; the software bytes name the sender, the
// pair's sequence number and the message's length.
void send_fifo(MpiState& s, int world, std::uint32_t fn, std::uint16_t seq, std::vector<std::uint8_t> bytes) {
  MUSPI_Pt2PtMemoryFIFODescriptorInfo_t info{};
  info.Base.Payload_Address = reinterpret_cast<uint64_t>(bytes.data());
  info.Base.Message_Length = bytes.size();
  info.Base.Torus_FIFO_Map = kAllLinks;
  destination(info.Base.Dest, world);
  info.Pt2Pt.Misc1 = MUHWI_PACKET_USE_DETERMINISTIC_ROUTING | MUHWI_PACKET_DO_NOT_ROUTE_TO_IO_NODE;
  info.Pt2Pt.Misc2 = MUHWI_PACKET_VIRTUAL_CHANNEL_DETERMINISTIC;
  set_software_bytes(info.MemFIFO, fn, s.world, seq, bytes.size());
  MUHWI_Descriptor_t d;
  MUSPI_CreatePt2PtMemoryFIFODescriptor(&d, &info);
  inject(s, world, d, std::move(bytes));
}

template <class T>
std::vector<std::uint8_t> bytes_of(const T& v, const void* more = nullptr, std::size_t n = 0) {
  std::vector<std::uint8_t> b(sizeof(T) + n);
  std::memcpy(b.data(), &v, sizeof(T));
  if (n > 0) std::memcpy(b.data() + sizeof(T), more, n);
  return b;
}

void send_ack(MpiState& s, int world, std::uint32_t sreq) {
  std::array<std::uint32_t, 4> ack{sreq, 0, 0, 0};
  send_fifo(s, world, kAckFn, 0, bytes_of(ack));
}

bool matches(const Request& q, const Envelope& e) {
  return q.context == e.context && (q.src == MPI_ANY_SOURCE || q.src == e.src) &&
         (q.tag == MPI_ANY_TAG || q.tag == e.tag);
}

void finish_recv(MpiState& s, Request& q, const Arrived& a) {
  charge(s, Machine::current()->params().mpi_recv_cycles);
  q.status.MPI_SOURCE = a.env.src;
  q.status.MPI_TAG = a.env.tag;
  q.status.MPI_ERROR = MPI_SUCCESS;
  const std::size_t n = std::min<std::size_t>(a.env.bytes, q.cap);
  q.status.hopsim_bytes = static_cast<int>(n);
  q.sent = a.env.bytes;
  if (a.env.bytes > q.cap) q.status.MPI_ERROR = MPI_ERR_TRUNCATE;
  if (!a.rts) {
    if (n > 0 && q.utype)
      unpack(*q.utype, a.data.data(), n, q.ubuf);
    else if (n > 0)
      std::memcpy(q.buf, a.data.data(), n);
    q.done = true;
    return;
  }
  if (n == 0 || a.env.bytes > q.cap) {  // nothing to get: only the sender's request to finish
    send_ack(s, a.world_src, a.sreq);
    q.done = true;
    return;
  }
  // The remote get: its payload is a direct put the sender's MU runs into this buffer.
  q.counter = n;
  std::uint64_t off = 0, coff = 0;
  MUSPI_Pt2PtDirectPutDescriptorInfo_t put{};
  put.Base.Payload_Address = a.addr;
  put.Base.Message_Length = n;
  put.Base.Torus_FIFO_Map = kAllLinks;
  destination(put.Base.Dest, s.world);
  put.Pt2Pt.Misc1 = MUHWI_PACKET_USE_DETERMINISTIC_ROUTING | MUHWI_PACKET_DO_NOT_ROUTE_TO_IO_NODE;
  put.Pt2Pt.Misc2 = MUHWI_PACKET_VIRTUAL_CHANNEL_DETERMINISTIC;
  put.DirectPut.Rec_Payload_Base_Address_Id = window(s, reinterpret_cast<std::uint64_t>(q.buf), off);
  put.DirectPut.Rec_Payload_Offset = off;
  put.DirectPut.Rec_Counter_Base_Address_Id = window(s, reinterpret_cast<std::uint64_t>(&q.counter), coff);
  put.DirectPut.Rec_Counter_Offset = coff;
  MUSPI_CreatePt2PtDirectPutDescriptor(&q.put, &put);
  MUSPI_Pt2PtRemoteGetDescriptorInfo_t get{};
  get.Base.Payload_Address = reinterpret_cast<uint64_t>(&q.put);
  get.Base.Message_Length = sizeof(MUHWI_Descriptor_t);
  get.Base.Torus_FIFO_Map = kAllLinks;
  destination(get.Base.Dest, a.world_src);
  get.Pt2Pt.Misc1 = MUHWI_PACKET_USE_DETERMINISTIC_ROUTING | MUHWI_PACKET_DO_NOT_ROUTE_TO_IO_NODE;
  get.Pt2Pt.Misc2 = MUHWI_PACKET_VIRTUAL_CHANNEL_DETERMINISTIC;
  get.RemoteGet.Type = MUHWI_PACKET_TYPE_GET;
  get.RemoteGet.Rget_Inj_FIFO_Id = static_cast<uint16_t>(kInjFifo + pinned_fifo(a.world_src, s.world));
  MUHWI_Descriptor_t d;
  MUSPI_CreatePt2PtRemoteGetDescriptor(&d, &get);
  q.getting = true;
  q.ack_to = a.world_src;
  q.ack_sreq = a.sreq;
  inject(s, a.world_src, d);
}

// A message's turn has come: the first posted receive it matches takes it, else it waits as unexpected.
void match(MpiState& s, Arrived a) {
  for (auto it = s.posted.begin(); it != s.posted.end(); ++it) {
    const int id = *it;
    auto& q = *s.reqs[static_cast<std::size_t>(id)];
    if (!matches(q, a.env)) continue;
    s.posted.erase(it);
    finish_recv(s, q, a);
    if (q.getting) s.getting.push_back(id);
    return;
  }
  s.unexpected.push_back(std::move(a));
}

// In each pair's sending order.
void arrived(MpiState& s, Arrived a) {
  const int src = a.world_src;
  if (a.env.seq != s.recv_seq[src]) {
    const auto key = std::make_pair(a.world_src, a.env.seq);
    s.early.emplace(key, std::move(a));
    return;
  }
  match(s, std::move(a));
  ++s.recv_seq[src];
  for (auto it = s.early.find({src, s.recv_seq[src]}); it != s.early.end(); it = s.early.find({src, s.recv_seq[src]})) {
    Arrived next = std::move(it->second);
    s.early.erase(it);
    match(s, std::move(next));
    ++s.recv_seq[src];
  }
}

struct Soft {
  int from = 0;
  std::uint16_t seq = 0;
  std::uint32_t len = 0;
};
Soft soft_bytes(const MUHWI_PacketHeader_t* h) {
  const auto& mh = h->messageUnitHeader.Packet_Types.Memory_FIFO;
  Soft f;
  std::uint32_t from = 0;
  std::memcpy(&from, &mh.Unused2[1], 4);
  std::memcpy(&f.seq, &mh.Unused2[5], 2);
  std::memcpy(&f.len, &mh.Unused2[7], 4);
  f.from = static_cast<int>(from);
  return f;
}
std::uint64_t packet_offset(const MUHWI_PacketHeader_t* h) {
  const auto& mh = h->messageUnitHeader.Packet_Types.Memory_FIFO;
  return (static_cast<std::uint64_t>(mh.Put_Offset_MSB) << 32) | mh.Put_Offset_LSB;
}
const std::uint8_t* payload(const MUHWI_PacketHeader_t* h) { return reinterpret_cast<const std::uint8_t*>(h + 1); }

int on_eager(void* param, MUHWI_PacketHeader_t* h, uint32_t) {
  auto& s = *static_cast<MpiState*>(param);
  const Soft f = soft_bytes(h);
  const std::uint64_t off = packet_offset(h);
  const std::uint64_t n = std::min<std::uint64_t>(MUHWI_PACKET_MAX_PAYLOAD, f.len - off);
  auto& p = s.partial[{f.from, f.seq}];
  p.bytes.resize(f.len);
  std::memcpy(p.bytes.data() + off, payload(h), n);
  p.got += n;
  if (p.got < f.len) return 0;
  Arrived a;
  std::memcpy(&a.env, p.bytes.data(), sizeof(Envelope));
  a.world_src = f.from;
  a.data.assign(p.bytes.begin() + sizeof(Envelope), p.bytes.end());
  s.partial.erase({f.from, f.seq});
  arrived(s, std::move(a));
  return 0;
}

int on_rts(void* param, MUHWI_PacketHeader_t* h, uint32_t) {
  auto& s = *static_cast<MpiState*>(param);
  Rts r;
  std::memcpy(&r, payload(h), sizeof r);
  Arrived a;
  a.env = r.env;
  a.world_src = soft_bytes(h).from;
  a.rts = true;
  a.addr = r.addr;
  a.sreq = r.sreq;
  arrived(s, std::move(a));
  return 0;
}

// The control packet of function 255: {request, kind, a, b}: an acknowledgement completing a rendezvous send
// (kind 0); a sender asking to cancel its message (kCancelAsk: a = its sequence number, b = the sender; answered
// by the progress engine); the answer (kCancelAnswer: a = 1 when the message was removed unmatched).
int on_ack(void* param, MUHWI_PacketHeader_t* h, uint32_t) {
  auto& s = *static_cast<MpiState*>(param);
  std::array<std::uint32_t, 4> a{};
  std::memcpy(a.data(), payload(h), sizeof a);
  const std::uint32_t id = a[0];
  if (a[1] == kCancelAsk) {
    s.cancel_asks.push_back(a);
    return 0;
  }
  if (id >= s.reqs.size() || !s.reqs[id]->active) return 0;
  auto& q = *s.reqs[id];
  if (a[1] == kCancelAnswer) {
    q.cancel_wait = false;
    if (a[2] != 0) {
      q.cancelled = true;
      q.done = true;
      // A buffered send's own request (the same message) is done too: no acknowledgement will come.
      if (q.link >= 0 && static_cast<std::size_t>(q.link) < s.reqs.size()) {
        auto& own = *s.reqs[static_cast<std::size_t>(q.link)];
        if (own.active && own.dest_world == q.dest_world && own.seq == q.seq) own.done = true;
      }
    }
    return 0;
  }
  q.done = true;
  return 0;
}

// A packet of a broadcast on the collective network (software bytes: root, number, length).
int on_bcast(void* param, MUHWI_PacketHeader_t* h, uint32_t) {
  auto& s = *static_cast<MpiState*>(param);
  const Soft f = soft_bytes(h);
  const std::uint64_t off = packet_offset(h);
  const std::uint64_t n = std::min<std::uint64_t>(MUHWI_PACKET_MAX_PAYLOAD, f.len - off);
  if (auto own = s.own_bcasts.find(f.seq); own != s.own_bcasts.end()) {
    if ((own->second -= std::min(own->second, n)) == 0) s.own_bcasts.erase(own);
    return 0;
  }
  auto& p = s.bcasts[f.seq];
  p.bytes.resize(f.len);
  std::memcpy(p.bytes.data() + off, payload(h), n);
  p.got += n;
  return 0;
}

void register_functions(MpiState& s) {
  MUSPI_RegisterRecvFunction(on_bcast, &s, kBcastFn);
  MUSPI_RegisterRecvFunction(on_eager, &s, kEagerFn);
  MUSPI_RegisterRecvFunction(on_rts, &s, kRtsFn);
  MUSPI_RegisterRecvFunction(on_ack, &s, kAckFn);
}

MpiState& mpi() {
  auto& s = state();
  auto& recv = Machine::current()->self().recv;
  if (recv.size() <= kAckFn || recv[kAckFn].first != on_ack) register_functions(s);
  return s;
}

void advance(MpiState& s);

// One pass of the progress engine: packets that arrived, rendezvous gets that finished, staging the MU has read.
void progress(MpiState& s) {
  Machine& m = *Machine::current();
  m.rec_sync();
  auto& mu = m.self().mu;
  bool waiting = false;
  {
    std::lock_guard<std::mutex> lock(mu.rec_mutex);
    auto* f = mu.rec.find(kRecFifo);
    waiting = f != nullptr && (!f->packets.empty() || !f->held.empty());
  }
  if (waiting) MUSPI_RecFifoPoll(s.recf, UINT32_MAX);
  for (auto it = s.getting.begin(); it != s.getting.end();) {
    auto& q = *s.reqs[static_cast<std::size_t>(*it)];
    if (std::atomic_ref<std::uint64_t>(q.counter).load(std::memory_order_acquire) != 0) {
      ++it;
      continue;
    }
    q.getting = false;
    if (q.utype) unpack(*q.utype, q.pack.data(), static_cast<std::size_t>(q.status.hopsim_bytes), q.ubuf);
    q.done = true;
    send_ack(s, q.ack_to, q.ack_sreq);
    it = s.getting.erase(it);
  }
  for (std::uint32_t f = 0; f < kInjFifos; ++f) {
    const std::uint64_t busy = m.inj_waiting(kInjFifo + f);
    auto& st = s.staging[f];
    if (st.size() > busy) st.erase(st.begin(), st.end() - static_cast<std::ptrdiff_t>(busy));
  }
  // Cancellation asked by senders: a message still unmatched here is removed.
  for (const auto& a : std::exchange(s.cancel_asks, {})) {
    const auto from = static_cast<int>(a[3]);
    const auto it = std::find_if(s.unexpected.begin(), s.unexpected.end(), [&](const Arrived& x) {
      return x.world_src == from && x.env.seq == static_cast<std::uint16_t>(a[2]);
    });
    const bool removed = it != s.unexpected.end();
    if (removed) s.unexpected.erase(it);
    std::array<std::uint32_t, 4> answer{a[0], kCancelAnswer, removed ? 1u : 0u, 0};
    send_fifo(s, from, kAckFn, 0, bytes_of(answer));
  }
  if (!s.scheduled.empty()) advance(s);
  pay(s);
}

// Blocks in the progress engine until `done` holds; a deadlock report names `call`, `peer` and `tag`.
template <class Done>
void wait_for(MpiState& s, Done done, const char* call = "MPI_Wait", int peer = MPI_ANY_SOURCE, int tag = MPI_ANY_TAG) {
  Machine::current()->note_mpi_wait(call, peer, tag);
  for (;;) {
    progress(s);
    if (done()) break;
    const Released unlocked(s);
    Machine& m = *Machine::current();
    if (s.thread_level == MPI_THREAD_MULTIPLE) m.note_mpi_wait(call, peer, tag);  // the rank's last thread to poll
    m.spin();
  }
  Machine::current()->note_mpi_wait(nullptr, 0, 0);
}

Comm* comm_of(MpiState& s, MPI_Comm c) {
  if (c < 0 || c >= static_cast<int>(s.comms.size()) || !s.comms[static_cast<std::size_t>(c)].active) return nullptr;
  return &s.comms[static_cast<std::size_t>(c)];
}

int new_request(MpiState& s) {
  int id = 0;
  if (!s.free_reqs.empty()) {
    id = s.free_reqs.back();
    s.free_reqs.pop_back();
  } else {
    id = static_cast<int>(s.reqs.size());
    s.reqs.push_back(std::make_unique<Request>());
  }
  auto& q = *s.reqs[static_cast<std::size_t>(id)];
  q = Request{};
  q.active = true;
  return id;
}

void release(MpiState& s, MPI_Request* r) {
  auto& q = *s.reqs[static_cast<std::size_t>(*r)];
  q.active = false;
  q.pack = {};
  q.utype = nullptr;
  q.sched = nullptr;
  q.starter = nullptr;
  q.ptype = nullptr;
  s.free_reqs.push_back(*r);
  *r = MPI_REQUEST_NULL;
}

// Argument checks shared by the point-to-point calls; MPI_SUCCESS or the error's code.
// *type is set to the datatype's typemap.
// A collective's arguments (peer: its root) refuse an intercommunicator; `p2p` takes one, `peer` a remote rank.
int check_args(MpiState& s, const char* fn, MPI_Comm c, int count, MPI_Datatype t, int peer, int tag, bool recv,
               TypeRef* type = nullptr, bool p2p = false) {
  const Comm* cm = comm_of(s, c);
  if (!cm)
    return error(MPI_COMM_WORLD, MPI_ERR_COMM, fn, fmt::format("communicator {} does not exist or was freed", c));
  if (count < 0) return error(c, MPI_ERR_COUNT, fn, fmt::format("count {}", count));
  // Nothing moves to or from MPI_PROC_NULL: no datatype is needed (MPICH's recvnull receives MPI_DATATYPE_NULL).
  if (t == MPI_DATATYPE_NULL && count == 0 && peer == MPI_PROC_NULL) t = MPI_BYTE;
  TypeRef ti;
  if (const std::string bad = find_type(s, t, ti, true); !bad.empty()) return error(c, MPI_ERR_TYPE, fn, bad);
  // A status counts bytes in an int (MPI_Get_count of MPI_BYTE must fit), so a message stays below 2 GiB.
  if (static_cast<std::uint64_t>(count) * ti->size > static_cast<std::uint64_t>(INT_MAX))
    return error(c, MPI_ERR_COUNT, fn,
                 fmt::format("{} elements of {} bytes: messages of 2 GiB or more are not supported", count, ti->size));
  if (type) *type = ti;
  if (cm->inter && !p2p)
    return error(c, MPI_ERR_COMM, fn,
                 fmt::format("communicator {} is an intercommunicator: its collectives are not supported", c));
  const int n = p2p ? cm->peers() : cm->size();
  if (peer != MPI_PROC_NULL && !(recv && peer == MPI_ANY_SOURCE) && (peer < 0 || peer >= n))
    return error(c, MPI_ERR_RANK, fn, fmt::format("rank {} of a communicator of {}", peer, n));
  if (!(recv && tag == MPI_ANY_TAG) && (tag < 0 || tag > MPI_TAG_UB_VALUE))
    return error(c, MPI_ERR_TAG, fn, fmt::format("tag {}", tag));
  return MPI_SUCCESS;
}

// Sends `count` elements of `t`: a contiguous type from `buf` itself, any other packed into the request first.
int start_send(MpiState& s, const void* buf, std::size_t count, const TypeInfo& t, int dest, int tag, MPI_Comm c,
               bool sync, std::uint16_t context_add, MPI_Request* r) {
  const Comm& cm = s.comms[static_cast<std::size_t>(c)];
  const int id = new_request(s);
  auto& q = *s.reqs[static_cast<std::size_t>(id)];
  const std::size_t bytes = count * t.size;
  if (t.contiguous()) {
    buf = data_start(buf, t);
  } else {
    q.pack.resize(bytes);
    pack(t, buf, count, q.pack.data());
    buf = q.pack.data();
  }
  q.send = true;
  q.comm = c;
  q.src = dest;
  q.tag = tag;
  *r = id;
  if (dest == MPI_PROC_NULL) {
    q.done = true;
    return MPI_SUCCESS;
  }
  charge(s, Machine::current()->params().mpi_send_cycles);
  pay(s);  // the software runs before the MU takes the descriptor
  const int w = cm.peer(dest);
  Envelope e;
  e.src = cm.me;
  e.tag = tag;
  e.bytes = static_cast<std::uint32_t>(bytes);
  e.context = static_cast<std::uint16_t>(cm.context + context_add);
  e.seq = s.send_seq[w]++;
  q.dest_world = w;
  q.seq = e.seq;
  if (!sync && bytes <= Machine::current()->params().mpi_eager_bytes) {
    send_fifo(s, w, kEagerFn, e.seq, bytes_of(e, buf, bytes));
    q.done = true;
  } else {
    Rts rts;
    rts.env = e;
    rts.addr = reinterpret_cast<std::uint64_t>(buf);
    rts.sreq = static_cast<std::uint32_t>(id);
    send_fifo(s, w, kRtsFn, e.seq, bytes_of(rts));
  }
  pay(s);
  return MPI_SUCCESS;
}

// Receives `count` elements of `t`: a contiguous type into `buf` itself, any other through the request's
// staging buffer, unpacked when the data is in.
void start_recv(MpiState& s, void* buf, std::size_t count, const TypeRef& t, int src, int tag, MPI_Comm c,
                std::uint16_t context_add, MPI_Request* r, Arrived* matched = nullptr) {
  const int id = new_request(s);
  auto& q = *s.reqs[static_cast<std::size_t>(id)];
  q.comm = c;
  q.cap = count * t->size;
  if (t->contiguous()) {
    q.buf = data_start(buf, *t);
  } else {
    q.pack.resize(q.cap);
    q.buf = q.pack.data();
    q.utype = t;
    q.ubuf = buf;
    q.ucount = count;
  }
  q.src = src;
  q.tag = tag;
  q.context = static_cast<std::uint16_t>(s.comms[static_cast<std::size_t>(c)].context + context_add);
  *r = id;
  if (src == MPI_PROC_NULL) {
    q.status = {MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
    q.done = true;
    return;
  }
  if (matched) {  // a message a matched probe took: this receive is its only match
    finish_recv(s, q, *matched);
    if (q.getting) s.getting.push_back(id);
    pay(s);
    return;
  }
  progress(s);
  for (auto it = s.unexpected.begin(); it != s.unexpected.end(); ++it) {
    if (!matches(q, it->env)) continue;
    Arrived a = std::move(*it);
    s.unexpected.erase(it);
    finish_recv(s, q, a);
    if (q.getting) s.getting.push_back(id);
    pay(s);
    return;
  }
  s.posted.push_back(id);
}

// Completes request *r (which is done): its status, its error through its communicator's handler.
int complete(MpiState& s, MPI_Request* r, MPI_Status* st, const char* fn) {
  auto& q = *s.reqs[static_cast<std::size_t>(*r)];
  if (q.persistent) {  // the operation under way completes; the request stays, inactive
    if (q.inner < 0) {
      if (st) *st = MPI_Status{MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
      return MPI_SUCCESS;
    }
    MPI_Request in = q.inner;
    q.inner = -1;
    return complete(s, &in, st, fn);
  }
  const bool p2p = q.coll && q.sched && q.sched->p2p;
  const MPI_Status status = p2p ? q.sched->status
                            : q.send || q.coll
                                ? MPI_Status{MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, q.cancelled ? 1 : 0}
                                : q.status;
  const int comm = q.comm;
  const std::uint32_t sent = p2p ? q.sched->sent : q.sent;
  release(s, r);
  if (st) *st = status;
  if (status.MPI_ERROR == MPI_ERR_TRUNCATE)
    return error(comm, MPI_ERR_TRUNCATE, fn,
                 fmt::format("rank {} sent {} bytes with tag {} into a {}-byte receive buffer", status.MPI_SOURCE, sent,
                             status.MPI_TAG, status.hopsim_bytes));
  return MPI_SUCCESS;
}

bool valid_request(MpiState& s, MPI_Request r) {
  return r >= 0 && static_cast<std::size_t>(r) < s.reqs.size() && s.reqs[static_cast<std::size_t>(r)]->active;
}

// Whether valid request `r` is done: a persistent one when its operation is, or when none is under way.
bool req_done(MpiState& s, MPI_Request r) {
  const auto& q = *s.reqs[static_cast<std::size_t>(r)];
  const int in = q.persistent ? q.inner : r;
  return in < 0 || (s.reqs[static_cast<std::size_t>(in)]->done && !s.reqs[static_cast<std::size_t>(in)]->cancel_wait);
}

// Whether `r` counts in MPI_Waitany/Testany/Testsome/Waitsome: not null, and not an inactive persistent request
// (MPI 4.0, 3.7.3: those are treated as null). An invalid handle counts, so that the call reports it.
bool req_active(MpiState& s, MPI_Request r) {
  if (r == MPI_REQUEST_NULL) return false;
  if (!valid_request(s, r)) return true;
  const auto& q = *s.reqs[static_cast<std::size_t>(r)];
  return !q.persistent || q.inner >= 0;
}

// ---- collectives: point-to-point messages on the communicator's collective context ----

void coll_send(MpiState& s, const void* buf, std::size_t count, const TypeRef& t, int dest, MPI_Comm c, int tag) {
  MPI_Request r = MPI_REQUEST_NULL;
  start_send(s, buf, count, *t, dest, tag, c, false, 1, &r);
  auto& q = *s.reqs[static_cast<std::size_t>(r)];
  wait_for(
      s, [&] { return q.done; }, s.coll, dest, MPI_ANY_TAG);
  release(s, &r);
}
// A collective's message from `src`; one larger than expected means the ranks' calls do not match.
void coll_recv(MpiState& s, void* buf, std::size_t count, const TypeRef& t, int src, MPI_Comm c, int tag) {
  MPI_Request r = MPI_REQUEST_NULL;
  start_recv(s, buf, count, t, src, tag, c, 1, &r);
  auto& q = *s.reqs[static_cast<std::size_t>(r)];
  wait_for(
      s, [&] { return q.done; }, s.coll, src, MPI_ANY_TAG);
  const bool truncated = q.status.MPI_ERROR == MPI_ERR_TRUNCATE;
  const std::uint32_t sent = q.sent;
  const std::size_t bytes = q.cap;
  release(s, &r);
  if (truncated)
    error(c, MPI_ERR_TRUNCATE, s.coll,
          fmt::format("rank {} of the communicator sent {} bytes where this rank expects {}: the ranks' calls do not "
                      "match",
                      src, sent, bytes));
}

template <class T>
void combine_as(MPI_Op op, T* acc, const T* in, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    T& a = acc[i];
    const T b = in[i];
    switch (op) {
      case MPI_MAX:
        a = std::max(a, b);
        break;
      case MPI_MIN:
        a = std::min(a, b);
        break;
      case MPI_SUM:
        a = static_cast<T>(a + b);
        break;
      case MPI_PROD:
        a = static_cast<T>(a * b);
        break;
      case MPI_LAND:
        a = static_cast<T>(a && b);
        break;
      case MPI_LOR:
        a = static_cast<T>(a || b);
        break;
      case MPI_LXOR:
        a = static_cast<T>(!a != !b);
        break;
      default:
        if constexpr (std::is_integral_v<T>) {
          if (op == MPI_BAND) a = static_cast<T>(a & b);
          if (op == MPI_BOR) a = static_cast<T>(a | b);
          if (op == MPI_BXOR) a = static_cast<T>(a ^ b);
        }
    }
  }
}

// MPI_SUM and MPI_PROD on complex numbers (the real part, then the imaginary one).
template <class T>
void combine_complex(MPI_Op op, void* acc, const void* in, std::size_t n) {
  auto* a = static_cast<std::uint8_t*>(acc);
  const auto* b = static_cast<const std::uint8_t*>(in);
  for (std::size_t i = 0; i < n; ++i, a += sizeof(std::complex<T>), b += sizeof(std::complex<T>)) {
    std::complex<T> x, y;
    std::memcpy(&x, a, sizeof x);
    std::memcpy(&y, b, sizeof y);
    x = op == MPI_SUM ? x + y : x * y;
    std::memcpy(a, &x, sizeof x);
  }
}

// User op `op` (freed or not), or null when it is not one.
UserOp* user_op(MPI_Op op) {
  auto& ops = state().ops;
  if (op < kUserOp || op - kUserOp >= static_cast<int>(ops.size())) return nullptr;
  return &ops[static_cast<std::size_t>(op - kUserOp)];
}
// Whether ranks must combine in rank order: a user op made with commute = 0.
bool ordered(MPI_Op op) {
  const UserOp* u = user_op(op);
  return u && !u->commute;
}

// acc = acc op in, count elements of type t; false for an op the type does not have.
// Whether `op` applies to `t` (every op to integers; no bitwise op to floating point; only bitwise ones to MPI_BYTE).
bool op_valid(MPI_Datatype t, MPI_Op op) {
  if (op >= kUserOp) return user_op(op) != nullptr && !user_op(op)->freed && type_size(t) != 0;
  if ((op == MPI_MAXLOC || op == MPI_MINLOC) != (pair_type(t) != nullptr)) return false;  // pairs take these only
  if (pair_type(t)) return true;
  if ((t >> 8) == 5) return type_size(t) != 0 && (op == MPI_SUM || op == MPI_PROD);  // complex: MPI 4.0, 6.9.2
  const bool bitwise = op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
  if (t == MPI_BYTE) return bitwise;  // MPI 4.0, 6.9.2: the byte class takes the bitwise ops only
  return op >= MPI_MAX && op <= MPI_BXOR && !((t >> 8) == 3 && bitwise) && (t >> 8) != 0 && type_size(t) != 0;
}

// MPI_MAXLOC/MPI_MINLOC on (value, index) pairs: the larger (smaller) value; equal values keep the lower index.
template <class V>
void combine_loc(MPI_Op op, void* acc, const void* in, std::size_t count, const PairType& p) {
  auto* a = static_cast<std::uint8_t*>(acc);
  const auto* b = static_cast<const std::uint8_t*>(in);
  for (std::size_t k = 0; k < count; ++k, a += p.extent, b += p.extent) {
    V av{}, bv{};
    std::int32_t ai = 0, bi = 0;
    std::memcpy(&av, a, sizeof av);
    std::memcpy(&bv, b, sizeof bv);
    std::memcpy(&ai, a + p.index_at, 4);
    std::memcpy(&bi, b + p.index_at, 4);
    if (av == bv) {
      ai = std::min(ai, bi);
    } else if (op == MPI_MAXLOC ? bv > av : bv < av) {
      av = bv;
      ai = bi;
    }
    std::memcpy(a, &av, sizeof av);
    std::memcpy(a + p.index_at, &ai, 4);
  }
}

// The bytes one element of `t` spans in a reduction's buffers: a predefined type's size, a derived type's
// extent (its data stays in the user's layout, gaps included, so that a user op sees what the user's buffer holds).
std::size_t unit_of(MPI_Datatype t) {
  if (const std::size_t n = type_size(t)) return n;
  TypeRef ti;
  if (!find_type(state(), t, ti, false).empty()) return 0;
  return static_cast<std::size_t>(ti->extent());
}

bool combine(MPI_Datatype t, MPI_Op op, void* acc, const void* in, std::size_t count) {
  // A user op was checked when the call started (it may have been freed since). Its function computes
  // inoutvec = invec op inoutvec: acc op in, with acc as invec.
  if (op >= kUserOp && user_op(op)) {
    std::vector<std::uint8_t> out(static_cast<const std::uint8_t*>(in),
                                  static_cast<const std::uint8_t*>(in) + count * unit_of(t));
    int len = static_cast<int>(count);
    MPI_Datatype type = t;
    user_op(op)->fn(acc, out.data(), &len, &type);
    if (!out.empty()) std::memcpy(acc, out.data(), out.size());
    return true;
  }
  if (!op_valid(t, op)) return false;
  if (const PairType* p = pair_type(t)) {
    switch (p->value) {
      case MPI_INT:
        combine_loc<std::int32_t>(op, acc, in, count, *p);
        break;
      case MPI_FLOAT:
        combine_loc<float>(op, acc, in, count, *p);
        break;
      case MPI_DOUBLE:
        combine_loc<double>(op, acc, in, count, *p);
        break;
      case MPI_LONG:
        combine_loc<std::int64_t>(op, acc, in, count, *p);
        break;
      default:
        combine_loc<std::int16_t>(op, acc, in, count, *p);
        break;
    }
    return true;
  }
  switch (t) {
    case MPI_CHAR:
      combine_as(op, static_cast<std::int8_t*>(acc), static_cast<const std::int8_t*>(in), count);
      break;
    case MPI_BYTE:
    case MPI_UNSIGNED_CHAR:
      combine_as(op, static_cast<std::uint8_t*>(acc), static_cast<const std::uint8_t*>(in), count);
      break;
    case MPI_SHORT:
      combine_as(op, static_cast<std::int16_t*>(acc), static_cast<const std::int16_t*>(in), count);
      break;
    case MPI_UNSIGNED_SHORT:
      combine_as(op, static_cast<std::uint16_t*>(acc), static_cast<const std::uint16_t*>(in), count);
      break;
    case MPI_INT:
      combine_as(op, static_cast<std::int32_t*>(acc), static_cast<const std::int32_t*>(in), count);
      break;
    case MPI_UNSIGNED:
      combine_as(op, static_cast<std::uint32_t*>(acc), static_cast<const std::uint32_t*>(in), count);
      break;
    case MPI_LONG:
      combine_as(op, static_cast<std::int64_t*>(acc), static_cast<const std::int64_t*>(in), count);
      break;
    case MPI_UNSIGNED_LONG:
      combine_as(op, static_cast<std::uint64_t*>(acc), static_cast<const std::uint64_t*>(in), count);
      break;
    case MPI_FLOAT:
      combine_as(op, static_cast<float*>(acc), static_cast<const float*>(in), count);
      break;
    case MPI_DOUBLE:
      combine_as(op, static_cast<double*>(acc), static_cast<const double*>(in), count);
      break;
    case MPI_C_FLOAT_COMPLEX:
      combine_complex<float>(op, acc, in, count);
      break;
    case MPI_C_DOUBLE_COMPLEX:
      combine_complex<double>(op, acc, in, count);
      break;
    default:
      return false;
  }
  return true;
}

enum CollTag : int { kBarrierTag = 1, kBcastTag, kReduceTag, kGatherTag, kScatterTag, kAlltoallTag, kSplitTag };

void bcast(MpiState& s, void* buf, std::size_t count, const TypeRef& t, int root, MPI_Comm c) {
  const Comm& cm = s.comms[static_cast<std::size_t>(c)];
  const int n = cm.size(), vr = (cm.me - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      coll_recv(s, buf, count, t, (vr - mask + root) % n, c, kBcastTag);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < n) coll_send(s, buf, count, t, (vr + mask + root) % n, c, kBcastTag);
}

void reduce(MpiState& s, void* acc, std::size_t count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  const Comm& cm = s.comms[static_cast<std::size_t>(c)];
  const int n = cm.size(), vr = (cm.me - root + n) % n;
  const std::size_t bytes = count * unit_of(t);
  std::vector<std::uint8_t> in(bytes);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (vr & mask) {
      coll_send(s, acc, bytes, bytes_type(), (vr - mask + root) % n, c, kReduceTag);
      return;
    }
    if (vr + mask < n) {
      coll_recv(s, in.data(), bytes, bytes_type(), (vr + mask + root) % n, c, kReduceTag);
      combine(t, op, acc, in.data(), count);
    }
  }
}

void barrier(MpiState& s, MPI_Comm c) {
  const Comm& cm = s.comms[static_cast<std::size_t>(c)];
  const int n = cm.size();
  for (int k = 1; k < n; k <<= 1) {
    MPI_Request r = MPI_REQUEST_NULL;
    start_recv(s, nullptr, 0, bytes_type(), (cm.me - k + n) % n, kBarrierTag, c, 1, &r);
    coll_send(s, nullptr, 0, bytes_type(), (cm.me + k) % n, c, kBarrierTag);
    auto& q = *s.reqs[static_cast<std::size_t>(r)];
    wait_for(
        s, [&] { return q.done; }, s.coll, (cm.me - k + n) % n, MPI_ANY_TAG);
    release(s, &r);
  }
}

// The collective network's op code for `op` on `t`, or -1 where the
// hardware has none (it combines 4- and 8-byte integers, and doubles).
int network_op(MPI_Datatype t, MPI_Op op) {
  const int kind = t >> 8, size = t & 0xFF;
  if (kind == 3) {
    if (size != 8) return -1;
    return op == MPI_SUM   ? MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_ADD
           : op == MPI_MAX ? MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_MAX
           : op == MPI_MIN ? MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_MIN
                           : -1;
  }
  if ((kind != 1 && kind != 2) || (size != 4 && size != 8)) return -1;
  const bool sign = kind == 1;
  switch (op) {
    case MPI_SUM:
      return sign ? MUHWI_COLLECTIVE_OP_CODE_SIGNED_ADD : MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_ADD;
    case MPI_MAX:
      return sign ? MUHWI_COLLECTIVE_OP_CODE_SIGNED_MAX : MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_MAX;
    case MPI_MIN:
      return sign ? MUHWI_COLLECTIVE_OP_CODE_SIGNED_MIN : MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_MIN;
    case MPI_BAND:
      return MUHWI_COLLECTIVE_OP_CODE_AND;
    case MPI_BOR:
      return MUHWI_COLLECTIVE_OP_CODE_OR;
    case MPI_BXOR:
      return MUHWI_COLLECTIVE_OP_CODE_XOR;
    default:
      return -1;
  }
}

// MPI_Allreduce (root < 0) and MPI_Reduce on MPI_COMM_WORLD on the
// collective network, as PAMI does them: every node injects a collective
// direct put on class route 0 (the job's comm-world tree); the result lands
// in every node's `out` (allreduce) or the root's (reduce, Base.Dest the
// root: the root's own descriptor names where), counted down on a reception
// counter the receivers wait for; a reduce's other nodes are done once
// their MU took the payload. False where the hardware cannot (an op or type
// it has no code for, a machine without collectives), and the caller uses
// point-to-point messages.
bool network_reduce(MpiState& s, const std::vector<std::uint8_t>& in, void* out, MPI_Datatype t, MPI_Op op, int root) {
  const int code = network_op(t, op);
  Machine& m = *Machine::current();
  if (code < 0 || !m.collectives() || in.empty()) return false;
  const bool all = root < 0;
  const bool receives = all || root == Machine::current_rank();
  const char* fn = all ? "MPI_Allreduce" : "MPI_Reduce";
  charge(s, m.params().mpi_send_cycles);
  pay(s);
  std::uint64_t off = 0, coff = 0;
  MUSPI_CollectiveDirectPutDescriptorInfo_t info{};
  info.Base.Payload_Address = reinterpret_cast<uint64_t>(in.data());
  info.Base.Message_Length = in.size();
  info.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CUSER;
  if (!all) {
    const auto c = m.torus().coords(static_cast<std::uint32_t>(root));
    MUSPI_SetUpDestination(&info.Base.Dest, static_cast<uint32_t>(c[0]), static_cast<uint32_t>(c[1]),
                           static_cast<uint32_t>(c[2]), static_cast<uint32_t>(c[3]), static_cast<uint32_t>(c[4]));
  }
  info.Collective.Op_Code = static_cast<uint8_t>(code);
  info.Collective.Word_Length = static_cast<uint16_t>(t & 0xFF);
  info.Collective.Class_Route = 0;
  info.Collective.Misc = MUHWI_PACKET_VIRTUAL_CHANNEL_USER_SUB_COMM |
                         (all ? MUHWI_COLLECTIVE_TYPE_ALLREDUCE : MUHWI_COLLECTIVE_TYPE_REDUCE);
  // A node that receives nothing names its own payload (the MU reads the fields only where the result lands).
  const auto target = reinterpret_cast<std::uint64_t>(receives ? out : in.data());
  info.DirectPut.Rec_Payload_Base_Address_Id = window(s, target, off);
  info.DirectPut.Rec_Payload_Offset = off;
  info.DirectPut.Rec_Counter_Base_Address_Id = window(s, reinterpret_cast<std::uint64_t>(&s.coll_counter), coff);
  info.DirectPut.Rec_Counter_Offset = coff;
  MUHWI_Descriptor_t d;
  MUSPI_CreateCollectiveDirectPutDescriptor(&d, &info);
  if (receives) std::atomic_ref<std::uint64_t>(s.coll_counter).store(in.size(), std::memory_order_release);
  inject(s, s.world, d, in);
  if (!receives) return true;
  wait_for(
      s, [&] { return std::atomic_ref<std::uint64_t>(s.coll_counter).load(std::memory_order_acquire) == 0; }, fn,
      MPI_ANY_SOURCE, MPI_ANY_TAG);
  charge(s, m.params().mpi_recv_cycles);
  pay(s);
  return true;
}

// MPI_Bcast on MPI_COMM_WORLD on the collective network, as PAMI does it:
// the root injects a collective broadcast on class route 0 as memory-FIFO
// packets into every node's MPI reception FIFO (the data padded to whole
// 8-byte words; the software bytes carry the root, the broadcast's number
// and its length), and goes on once its MU took them; every other rank
// gathers the packets of that number (whenever its progress engine runs:
// they may come before it calls MPI_Bcast) and copies them into its buffer.
// False where the machine has no collectives; the caller uses point to point.
bool network_bcast(MpiState& s, void* buf, std::size_t count, const TypeRef& t, int root) {
  Machine& m = *Machine::current();
  const std::size_t bytes = count * t->size;
  if (!m.collectives() || bytes == 0) return false;
  const std::uint16_t number = s.bcast_seq++;
  const std::size_t padded = (bytes + 7) / 8 * 8;
  if (s.world == root) {
    charge(s, m.params().mpi_send_cycles);
    pay(s);
    std::vector<std::uint8_t> data(padded, 0);
    if (t->contiguous())
      std::memcpy(data.data(), data_start(buf, *t), bytes);
    else
      pack(*t, buf, count, data.data());
    MUSPI_CollectiveMemoryFIFODescriptorInfo_t info{};
    info.Base.Payload_Address = reinterpret_cast<uint64_t>(data.data());
    info.Base.Message_Length = padded;
    info.Base.Torus_FIFO_Map = MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CUSER;
    info.Collective.Word_Length = 8;
    info.Collective.Class_Route = 0;
    info.Collective.Misc = MUHWI_PACKET_VIRTUAL_CHANNEL_USER_SUB_COMM | MUHWI_COLLECTIVE_TYPE_BROADCAST;
    set_software_bytes(info.MemFIFO, kBcastFn, s.world, number, padded);
    MUHWI_Descriptor_t d;
    MUSPI_CreateCollectiveMemoryFIFODescriptor(&d, &info);
    s.own_bcasts[number] = padded;
    inject(s, s.world, d, std::move(data));
    pay(s);
    return true;
  }
  wait_for(
      s,
      [&] {
        const auto it = s.bcasts.find(number);
        return it != s.bcasts.end() && it->second.got >= it->second.bytes.size();
      },
      "MPI_Bcast", root, MPI_ANY_TAG);
  Partial p = std::move(s.bcasts[number]);
  s.bcasts.erase(number);
  if (p.bytes.size() != padded)
    error(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, "MPI_Bcast",
          fmt::format("rank {} of the communicator sent {} bytes where this rank expects {}: the ranks' calls do not "
                      "match",
                      root, p.bytes.size(), padded));
  if (t->contiguous())
    std::memcpy(data_start(buf, *t), p.bytes.data(), bytes);
  else
    unpack(*t, p.bytes.data(), bytes, buf);
  charge(s, m.params().mpi_recv_cycles);
  pay(s);
  return true;
}

void check_context(std::int32_t ctx) {
  if (ctx > 0xFFF0) fail("MPI: more than 16380 communicators are in use at once");
}

// The context just above the highest one in use on this rank: every context from it up is free here, so the
// highest of the members' is free on every member.
std::int32_t context_above_used(const MpiState& s) {
  for (std::size_t w = s.used_contexts.size(); w-- > 0;)
    if (s.used_contexts[w] != 0)
      return static_cast<std::int32_t>(4 *
                                       (64 * w + 64 - static_cast<std::size_t>(std::countl_zero(s.used_contexts[w]))));
  return 0;
}

// A context every member of `c` agrees on: the lowest of the first 32 slots free on every member (freed
// communicators' contexts serve again; one 4-byte reduction and broadcast, as a maximum costs), else the
// highest context_above_used among them.
std::uint16_t agree_context(MpiState& s, MPI_Comm c) {
  auto low = static_cast<std::uint32_t>(s.used_contexts[0]);
  reduce(s, &low, sizeof low, MPI_BYTE, MPI_BOR, 0, c);
  bcast(s, &low, sizeof low, bytes_type(), 0, c);
  if (~low != 0) return static_cast<std::uint16_t>(4 * std::countr_one(low));
  std::int32_t ctx = context_above_used(s);
  reduce(s, &ctx, 1, MPI_INT, MPI_MAX, 0, c);
  bcast(s, &ctx, sizeof ctx, bytes_type(), 0, c);
  check_context(ctx);
  return static_cast<std::uint16_t>(ctx);
}

// A communicator of this rank: its context is in use until MPI_Comm_free.
MPI_Comm add_comm(MpiState& s, Comm c) {
  const std::size_t slot = c.context / 4u;
  s.used_contexts[slot / 64] |= std::uint64_t{1} << (slot % 64);
  s.comms.push_back(std::move(c));
  return static_cast<MPI_Comm>(s.comms.size() - 1);
}

// MPI_IN_PLACE, named once.
bool in_place(const void* p) {
  return p == MPI_IN_PLACE;  // NOLINT(cppcoreguidelines-pro-type-cstyle-cast): the standard's macro
}

// The communicator `c` of `fn`, or null with *err set to its error.
const Comm* get_comm(MpiState& s, MPI_Comm c, const char* fn, int* err) {
  const Comm* cm = comm_of(s, c);
  if (!cm)
    *err = error(MPI_COMM_WORLD, MPI_ERR_COMM, fn, fmt::format("communicator {} does not exist or was freed", c));
  return cm;
}

// The intracommunicator `c` of a collective `fn`, or null with *err set to its error.
const Comm* get_intra(MpiState& s, MPI_Comm c, const char* fn, int* err) {
  const Comm* cm = get_comm(s, c, fn, err);
  if (cm && cm->inter) {
    *err = error(c, MPI_ERR_COMM, fn,
                 fmt::format("communicator {} is an intercommunicator: its collectives are not supported", c));
    return nullptr;
  }
  return cm;
}

// ---- groups and intercommunicators ----

constexpr int kInterTag = 0x40000000;        // + the user's tag: MPI_Intercomm_create's leaders, on the peer's context
constexpr int kCreateGroupTag = 0x50000000;  // + the user's tag: MPI_Comm_create_group's agreement
constexpr int kMergeTag = 0x60000000;        // an intercommunicator's leaders agreeing (merge, dup)

// The world ranks of `c`'s (local) group, in rank order.
std::vector<int> members_of(const Comm& c) {
  if (!c.members.empty()) return c.members;
  std::vector<int> all(static_cast<std::size_t>(c.n));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

// The rank of world rank `w` in `g`, or -1.
int rank_in(const std::vector<int>& g, int w) {
  const auto it = std::find(g.begin(), g.end(), w);
  return it == g.end() ? -1 : static_cast<int>(it - g.begin());
}

MPI_Group add_group(MpiState& s, std::vector<int> g) {
  if (g.empty()) return MPI_GROUP_EMPTY;
  s.groups.push_back(std::move(g));
  s.group_live.push_back(1);
  return static_cast<MPI_Group>(s.groups.size() - 1);
}

// Group `g` of `fn`, or null with *err set to MPI_ERR_GROUP.
const std::vector<int>* group_of(MpiState& s, MPI_Group g, const char* fn, int* err) {
  if (g < 0 || static_cast<std::size_t>(g) >= s.groups.size() || !s.group_live[static_cast<std::size_t>(g)]) {
    *err = error(MPI_COMM_WORLD, MPI_ERR_GROUP, fn, fmt::format("group {} does not exist or was freed", g));
    return nullptr;
  }
  return &s.groups[static_cast<std::size_t>(g)];
}

// Sends `mine` to rank `peer` of `c` and returns what the peer sent, on `c`'s collective context with `tag`
// (the sends do not wait, so both sides may send first).
std::vector<std::int32_t> swap_with(MpiState& s, MPI_Comm c, int peer, int tag, const std::vector<std::int32_t>& mine) {
  const auto n = static_cast<std::int32_t>(mine.size());
  std::int32_t theirs = 0;
  std::array<MPI_Request, 2> rs{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  start_send(s, &n, sizeof n, *bytes_type(), peer, tag, c, false, 1, &rs[0]);
  start_send(s, mine.data(), mine.size() * 4, *bytes_type(), peer, tag, c, false, 1, &rs[1]);
  coll_recv(s, &theirs, sizeof theirs, bytes_type(), peer, c, tag);
  std::vector<std::int32_t> out(static_cast<std::size_t>(std::max(theirs, 0)));
  coll_recv(s, out.data(), out.size() * 4, bytes_type(), peer, c, tag);
  for (auto& r : rs) {
    auto& q = *s.reqs[static_cast<std::size_t>(r)];
    wait_for(
        s, [&] { return q.done; }, s.coll, peer, tag);
    release(s, &r);
  }
  return out;
}

// Broadcasts a vector of ints whose length only `root` knows over intracommunicator `c`.
void bcast_ints(MpiState& s, std::vector<std::int32_t>& v, int root, MPI_Comm c) {
  auto n = static_cast<std::int32_t>(v.size());
  bcast(s, &n, sizeof n, bytes_type(), root, c);
  v.resize(static_cast<std::size_t>(n));
  bcast(s, v.data(), v.size() * 4, bytes_type(), root, c);
}

// A context both groups of intercommunicator `c` agree on: the highest next context of all their members,
// agreed in each group (through its hidden local communicator) and between the leaders (rank 0 of each).
// `mine` goes to the other group's leader, whose own comes back in *theirs (every member gets it).
std::uint16_t agree_inter(MpiState& s, MPI_Comm c, const std::vector<std::int32_t>& mine,
                          std::vector<std::int32_t>* theirs) {
  const Comm cm = s.comms[static_cast<std::size_t>(c)];
  std::int32_t ctx = context_above_used(s);
  reduce(s, &ctx, 1, MPI_INT, MPI_MAX, 0, cm.local);
  std::vector<std::int32_t> got;
  if (cm.me == 0) {
    std::vector<std::int32_t> out{ctx};
    out.insert(out.end(), mine.begin(), mine.end());
    got = swap_with(s, c, 0, kMergeTag, out);
    if (got.empty()) fail("MPI: the intercommunicator's leaders disagree");
    got[0] = std::max(got[0], ctx);
  }
  bcast_ints(s, got, 0, cm.local);
  check_context(got[0]);
  if (theirs) theirs->assign(got.begin() + 1, got.end());
  return static_cast<std::uint16_t>(got[0]);
}

// An intercommunicator of context `ctx` (and its hidden local communicator, context ctx + 2).
MPI_Comm add_inter(MpiState& s, const std::vector<int>& local, std::vector<int> remote, int me, std::uint16_t ctx,
                   bool fatal) {
  Comm l;
  l.context = static_cast<std::uint16_t>(ctx + 2);
  l.n = static_cast<int>(local.size());
  l.members = local;
  l.me = me;
  l.fatal = fatal;
  Comm d = l;
  d.context = ctx;
  d.inter = true;
  d.remote = std::move(remote);
  d.local = add_comm(s, std::move(l));
  return add_comm(s, std::move(d));
}

// MPI_Comm_split of intercommunicator `c`: each group splits as an intracommunicator does, the leaders trade their
// groups' (world rank, color, key) triples, and a member gets the intercommunicator of its color's members on
// both sides (MPI_COMM_NULL when either side has none).
MPI_Comm split_inter(MpiState& s, MPI_Comm c, int color, int key) {
  const Comm parent = s.comms[static_cast<std::size_t>(c)];
  const int n = parent.size();
  std::vector<std::int32_t> mine(3 * static_cast<std::size_t>(n));  // world rank, color, key of each local member
  std::array<std::int32_t, 3> me{s.world, color, key};
  if (parent.me == 0) {
    std::copy(me.begin(), me.end(), mine.begin());
    for (int r = 1; r < n; ++r)
      coll_recv(s, &mine[3 * static_cast<std::size_t>(r)], 12, bytes_type(), r, parent.local, kSplitTag);
  } else {
    coll_send(s, me.data(), 12, bytes_type(), 0, parent.local, kSplitTag);
  }
  bcast(s, mine.data(), mine.size() * 4, bytes_type(), 0, parent.local);
  std::vector<std::int32_t> theirs;
  const std::uint16_t ctx = agree_inter(s, c, mine, &theirs);
  if (color == MPI_UNDEFINED) return MPI_COMM_NULL;
  auto pick_color = [&](const std::vector<std::int32_t>& t) {
    std::vector<std::array<std::int32_t, 3>> m;
    for (std::size_t i = 0; i + 2 < t.size(); i += 3)
      if (t[i + 1] == color) m.push_back({t[i], t[i + 1], t[i + 2]});
    std::stable_sort(m.begin(), m.end(), [](const auto& a, const auto& b) { return a[2] < b[2]; });
    std::vector<int> w;
    w.reserve(m.size());
    for (const auto& x : m) w.push_back(x[0]);
    return w;
  };
  std::vector<int> local = pick_color(mine), remote = pick_color(theirs);
  if (remote.empty()) return MPI_COMM_NULL;
  const int at = rank_in(local, s.world);
  return add_inter(s, local, std::move(remote), at, ctx, parent.fatal);
}

// MPI_Comm_create of intercommunicator `c` with `group`, a subgroup of its local group: the leaders trade the
// two groups; the members get an intercommunicator of them (MPI_COMM_NULL when either is empty).
MPI_Comm create_inter(MpiState& s, MPI_Comm c, const std::vector<int>& group) {
  const Comm parent = s.comms[static_cast<std::size_t>(c)];
  std::vector<std::int32_t> theirs;
  const std::uint16_t ctx = agree_inter(s, c, std::vector<std::int32_t>(group.begin(), group.end()), &theirs);
  const int at = rank_in(group, s.world);
  if (at < 0 || theirs.empty()) return MPI_COMM_NULL;
  return add_inter(s, group, std::vector<int>(theirs.begin(), theirs.end()), at, ctx, parent.fatal);
}

// Arguments of a reduction: a predefined type (MPI 4.0, 6.9.2) and an op it has.
// `derived`: the call takes a derived type with a user op (MPI_Reduce, MPI_Allreduce).
int check_reduce(MpiState& s, const char* fn, MPI_Comm c, int count, MPI_Datatype t, MPI_Op op, int root,
                 bool derived = false) {
  TypeRef ti;
  if (const int e = check_args(s, fn, c, count, t, root, 0, false, &ti)) return e;
  if (ti->basic == MPI_DATATYPE_NULL && derived && op >= kUserOp && user_op(op) && !user_op(op)->freed)
    return MPI_SUCCESS;
  if (ti->basic == MPI_DATATYPE_NULL)
    return error(c, MPI_ERR_TYPE, fn,
                 fmt::format("datatype 0x{:x} is derived: reductions take predefined types (and derived ones with a "
                             "user op)",
                             t));
  if (count > 0 && !op_valid(t, op)) return error(c, MPI_ERR_OP, fn, fmt::format("op {} on datatype 0x{:x}", op, t));
  return MPI_SUCCESS;
}

// A reduction's accumulator from the user's buffer: its bytes from the data's start (a derived type's
// layout, gaps included).
void reduce_in(std::vector<std::uint8_t>& acc, const void* buf, MPI_Datatype t) {
  if (acc.empty()) return;
  if (type_size(t)) {
    std::memcpy(acc.data(), buf, acc.size());
    return;
  }
  TypeRef ti;
  find_type(state(), t, ti, false);
  std::memcpy(acc.data(), data_start(buf, *ti), acc.size());
}

// The result (`bytes` at `acc`) into the user's buffer: a derived type's data only, its gaps left as they are.
void reduce_out(const std::uint8_t* acc, std::size_t bytes, void* buf, std::size_t count, MPI_Datatype t) {
  if (bytes == 0) return;
  if (type_size(t)) {
    std::memcpy(buf, acc, bytes);
    return;
  }
  TypeRef ti;
  find_type(state(), t, ti, false);
  std::vector<std::uint8_t> packed(count * ti->size);
  // acc is the layout from the data's start, so it packs as a buffer whose lb lies at acc's first byte.
  pack(*ti, shifted(acc, -ti->lb), count, packed.data());
  unpack(*ti, packed.data(), packed.size(), buf);
}

void reduce_out(const std::vector<std::uint8_t>& acc, void* buf, std::size_t count, MPI_Datatype t) {
  reduce_out(acc.data(), acc.size(), buf, count, t);
}

// One rank's block in a pairwise exchange: `count` elements of `type` at `buf` (to send, or to receive into).
template <class Buf>
struct Part {
  Buf buf = nullptr;
  std::size_t count = 0;
  TypeRef type;
};
using SendPart = Part<const void*>;
using RecvPart = Part<void*>;

// The pairwise exchange of MPI_Alltoall with a block of its own to and from every other rank (send(k), recv(k)):
// receives from rank me - k and sends to rank me + k, so not everyone sends to rank 0 first. The caller copies
// the rank's own block. On an intercommunicator, with every rank of the other group.
template <class Send, class Recv>
void exchange(MpiState& s, MPI_Comm c, Send send, Recv recv) {
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  const int n = cm.peers();
  const int first = cm.inter ? 0 : 1;  // an intercommunicator: every rank of the other group
  std::vector<MPI_Request> rs;
  rs.reserve(2 * static_cast<std::size_t>(n));
  for (int k = first; k < n; ++k) {
    const int from = (cm.me - k + n) % n;
    const RecvPart p = recv(from);
    rs.push_back(MPI_REQUEST_NULL);
    start_recv(s, p.buf, p.count, p.type, from, kAlltoallTag, c, 1, &rs.back());
  }
  for (int k = first; k < n; ++k) {
    const int to = (cm.me + k) % n;
    const SendPart p = send(to);
    rs.push_back(MPI_REQUEST_NULL);
    start_send(s, p.buf, p.count, *p.type, to, kAlltoallTag, c, false, 1, &rs.back());
  }
  for (auto& r : rs) {
    auto& q = *s.reqs[static_cast<std::size_t>(r)];
    wait_for(
        s, [&] { return q.done; }, s.coll, q.src, MPI_ANY_TAG);
    release(s, &r);
  }
}

// ---- collectives on intercommunicators (MPI 4.0, 6.2.2): between the groups, through the leaders or
// pairwise; each group's own part on its hidden local communicator ----

bool is_inter(MpiState& s, MPI_Comm c) {
  const Comm* cm = comm_of(s, c);
  return cm && cm->inter;
}

// The root argument of a rooted collective on an intercommunicator: MPI_ROOT (the root), MPI_PROC_NULL (the
// root's group, not the root) or a rank of the remote group (the group that sends to or receives from it).
int check_inter_root(MpiState& s, MPI_Comm c, int root, const char* fn) {
  const Comm& cm = s.comms[static_cast<std::size_t>(c)];
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < cm.peers())) return MPI_SUCCESS;
  return error(c, MPI_ERR_ROOT, fn,
               fmt::format("root {} on an intercommunicator whose remote group has {} ranks (or MPI_ROOT, "
                           "MPI_PROC_NULL)",
                           root, cm.peers()));
}

// Allgather(v) and Alltoall(v) on an intercommunicator: pairwise with every rank of the other group.
// Allgather: the same send block to each (sdispls null); counts/displs null: `count` each, one after another.
int inter_all(MpiState& s, const char* fn, const void* sbuf, const int* scounts, const int* sdispls, int scount,
              MPI_Datatype stype, void* rbuf, const int* rcounts, const int* rdispls, int rcount, MPI_Datatype rtype,
              MPI_Comm c, bool to_all) {
  const Comm& cm = s.comms[static_cast<std::size_t>(c)];
  const int m = cm.peers();
  TypeRef st, rt;
  for (int r = 0; r < m; ++r) {
    if (const int e = check_args(s, fn, c, scounts ? scounts[r] : scount, stype, r, 0, false, &st, true)) return e;
    if (const int e = check_args(s, fn, c, rcounts ? rcounts[r] : rcount, rtype, r, 0, false, &rt, true)) return e;
  }
  if (m == 0) return MPI_SUCCESS;
  auto block = [](const int* counts, const int* displs, int count, int r) {
    return std::pair<std::int64_t, std::size_t>{displs ? displs[r] : static_cast<std::int64_t>(r) * count,
                                                static_cast<std::size_t>(counts ? counts[r] : count)};
  };
  exchange(
      s, c,
      [&](int r) {
        if (!to_all) return SendPart{sbuf, static_cast<std::size_t>(scount), st};
        const auto [at, n] = block(scounts, sdispls, scount, r);
        return SendPart{shifted(sbuf, at * st->extent()), n, st};
      },
      [&](int r) {
        const auto [at, n] = block(rcounts, rdispls, rcount, r);
        return RecvPart{shifted(rbuf, at * rt->extent()), n, rt};
      });
  return MPI_SUCCESS;
}

// The leaders of intercommunicator `c` (each group's rank 0) trade `bytes`: this one's `out` goes to the other
// group's rank 0, whose bytes arrive in `in`.
void leaders_swap(MpiState& s, MPI_Comm c, const void* out, void* in, std::size_t bytes, int tag) {
  MPI_Request r = MPI_REQUEST_NULL;
  start_send(s, out, bytes, *bytes_type(), 0, tag, c, false, 1, &r);
  coll_recv(s, in, bytes, bytes_type(), 0, c, tag);
  auto& q = *s.reqs[static_cast<std::size_t>(r)];
  wait_for(
      s, [&] { return q.done; }, s.coll, 0, MPI_ANY_TAG);
  release(s, &r);
}

int inter_barrier(MpiState& s, MPI_Comm c) {
  const Comm cm = s.comms[static_cast<std::size_t>(c)];
  barrier(s, cm.local);  // every local member is in, and every remote one once its leader's message is here
  if (cm.me == 0) leaders_swap(s, c, nullptr, nullptr, 0, kBarrierTag);
  barrier(s, cm.local);
  return MPI_SUCCESS;
}

// The root sends to the other group's rank 0, which broadcasts in its group.
int inter_bcast(MpiState& s, void* buf, int count, MPI_Datatype t, int root, MPI_Comm c) {
  if (const int e = check_inter_root(s, c, root, "MPI_Bcast")) return e;
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  TypeRef ti;
  if (const int e = check_args(s, "MPI_Bcast", c, count, t, MPI_PROC_NULL, 0, false, &ti, true)) return e;
  const Comm cm = s.comms[static_cast<std::size_t>(c)];
  if (root == MPI_ROOT) {
    coll_send(s, buf, static_cast<std::size_t>(count), ti, 0, c, kBcastTag);
    return MPI_SUCCESS;
  }
  if (cm.me == 0) coll_recv(s, buf, static_cast<std::size_t>(count), ti, root, c, kBcastTag);
  bcast(s, buf, static_cast<std::size_t>(count), ti, 0, cm.local);
  return MPI_SUCCESS;
}

// The other group reduces to its rank 0, which sends the result to the root. Allreduce: each group's result
// goes to the other group.
int inter_reduce(MpiState& s, const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
                 bool all) {
  const char* fn = all ? "MPI_Allreduce" : "MPI_Reduce";
  if (!all)
    if (const int e = check_inter_root(s, c, root, fn)) return e;
  if (!all && root == MPI_PROC_NULL) return MPI_SUCCESS;
  const Comm cm = s.comms[static_cast<std::size_t>(c)];
  if (const int e = check_reduce(s, fn, cm.local, count, t, op, 0, true)) return e;
  const std::size_t bytes = static_cast<std::size_t>(count) * unit_of(t);
  std::vector<std::uint8_t> acc(bytes), got(bytes);
  if (!all && root == MPI_ROOT) {
    coll_recv(s, got.data(), bytes, bytes_type(), 0, c, kReduceTag);
    reduce_out(got, rbuf, static_cast<std::size_t>(count), t);
    return MPI_SUCCESS;
  }
  reduce_in(acc, sbuf, t);
  reduce(s, acc.data(), static_cast<std::size_t>(count), t, op, 0, cm.local);
  if (!all) {
    if (cm.me == 0) coll_send(s, acc.data(), bytes, bytes_type(), root, c, kReduceTag);
    return MPI_SUCCESS;
  }
  if (cm.me == 0) leaders_swap(s, c, acc.data(), got.data(), bytes, kReduceTag);
  bcast(s, got.data(), bytes, bytes_type(), 0, cm.local);
  reduce_out(got, rbuf, static_cast<std::size_t>(count), t);
  return MPI_SUCCESS;
}

// Reduce_scatter on an intercommunicator: each group reduces its n = sum(rcounts) elements to its rank 0, the
// two leaders trade their results, and each scatters the other group's result over its own group by rcounts.
int inter_reduce_scatter(MpiState& s, const char* fn, const void* sbuf, void* rbuf, const int* rcounts, MPI_Datatype t,
                         MPI_Op op, MPI_Comm c) {
  s.coll = fn;
  const Comm cm = s.comms[static_cast<std::size_t>(c)];
  if (in_place(sbuf)) return error(c, MPI_ERR_BUFFER, fn, fmt::format("MPI_IN_PLACE on intercommunicator {}", c));
  std::vector<int> displs(static_cast<std::size_t>(cm.size()));
  int total = 0;
  for (int r = 0; r < cm.size(); ++r) {
    if (rcounts[r] < 0) return error(c, MPI_ERR_COUNT, fn, fmt::format("count {} for rank {}", rcounts[r], r));
    displs[static_cast<std::size_t>(r)] = total;
    total += rcounts[r];
  }
  if (type_size(t) == 0)
    return error(
        c, MPI_ERR_TYPE, fn,
        fmt::format("datatype 0x{:x} is derived: on an intercommunicator this call takes predefined types", t));
  if (const int e = check_reduce(s, fn, cm.local, total, t, op, 0)) return e;
  const std::size_t bytes = static_cast<std::size_t>(total) * type_size(t);
  std::vector<std::uint8_t> acc(bytes), got(bytes);
  reduce_in(acc, sbuf, t);
  reduce(s, acc.data(), static_cast<std::size_t>(total), t, op, 0, cm.local);
  if (cm.me == 0) leaders_swap(s, c, acc.data(), got.data(), bytes, kReduceTag);
  return MPI_Scatterv(got.data(), rcounts, displs.data(), t, rbuf, rcounts[cm.me], t, 0, cm.local);
}

// Gather and Scatter (v or not): the root receives from (sends to) every rank of the other group, linearly;
// `counts`/`displs` null: `count` elements each, one after the other. The root's blocks are `root_*`, the
// one block of a member of the other group `mine_*`.
int inter_rooted(MpiState& s, const char* fn, bool gather, void* root_buf, const int* counts, const int* displs,
                 int count, MPI_Datatype root_type, void* mine_buf, int mine_count, MPI_Datatype mine_type, int root,
                 MPI_Comm c) {
  if (const int e = check_inter_root(s, c, root, fn)) return e;
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  const Comm& cm = s.comms[static_cast<std::size_t>(c)];
  const int tag = gather ? kGatherTag : kScatterTag;
  if (root != MPI_ROOT) {
    TypeRef t;
    if (const int e = check_args(s, fn, c, mine_count, mine_type, root, 0, false, &t, true)) return e;
    if (gather)
      coll_send(s, mine_buf, static_cast<std::size_t>(mine_count), t, root, c, tag);
    else
      coll_recv(s, mine_buf, static_cast<std::size_t>(mine_count), t, root, c, tag);
    return MPI_SUCCESS;
  }
  const int m = cm.peers();
  for (int r = 0; r < m; ++r) {
    const int n = counts ? counts[r] : count;
    TypeRef t;
    if (const int e = check_args(s, fn, c, n, root_type, r, 0, false, &t, true)) return e;
    void* at = shifted(root_buf, (displs ? displs[r] : static_cast<std::int64_t>(r) * n) * t->extent());
    if (gather)
      coll_recv(s, at, static_cast<std::size_t>(n), t, r, c, tag);
    else
      coll_send(s, at, static_cast<std::size_t>(n), t, r, c, tag);
  }
  return MPI_SUCCESS;
}

// ---- non-blocking collectives: schedules the progress engine advances ----

constexpr int kNbcTag = 0x1000;  // collective-context tags from here: one per started non-blocking collective

std::shared_ptr<Schedule> new_schedule(MpiState& s, MPI_Comm c, const char* fn) {
  auto sc = std::make_shared<Schedule>();
  sc->comm = c;
  sc->fn = fn;
  auto& cm = s.comms[static_cast<std::size_t>(c)];
  sc->tag = s.nbc_tag >= 0 ? s.nbc_tag : kNbcTag + static_cast<int>(cm.nbc_seq++ % 0x100000);
  return sc;
}

Xfer recv_of(void* buf, std::size_t count, TypeRef t, int peer) {
  Xfer x;
  x.rbuf = buf;
  x.count = count;
  x.type = std::move(t);
  x.peer = peer;
  return x;
}
Xfer send_of(const void* buf, std::size_t count, TypeRef t, int peer) {
  Xfer x;
  x.send = true;
  x.sbuf = buf;
  x.count = count;
  x.type = std::move(t);
  x.peer = peer;
  return x;
}

// The binomial tree of `bcast`: a receive from the parent, then the sends to the children.
void bcast_rounds(Schedule& sc, void* buf, std::size_t count, const TypeRef& t, int root, int n, int me) {
  const int vr = (me - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      sc.rounds.push_back({{recv_of(buf, count, t, (vr - mask + root) % n)}, {}});
      break;
    }
    mask <<= 1;
  }
  Round sends;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < n) sends.xfers.push_back(send_of(buf, count, t, (vr + mask + root) % n));
  sc.rounds.push_back(std::move(sends));
}

// The binomial tree of `reduce` on an accumulator the schedule owns (returned), combined in the same order.
std::uint8_t* reduce_rounds(Schedule& sc, const void* in, std::size_t count, MPI_Datatype t, MPI_Op op, int root, int n,
                            int me) {
  const std::size_t bytes = count * unit_of(t);
  sc.temp.emplace_back(bytes);
  sc.temp.emplace_back(bytes);
  reduce_in(sc.temp[sc.temp.size() - 2], in, t);
  std::uint8_t* acc = sc.temp[sc.temp.size() - 2].data();
  std::uint8_t* part = sc.temp.back().data();
  const int vr = (me - root + n) % n;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (vr & mask) {
      sc.rounds.push_back({{send_of(acc, bytes, bytes_type(), (vr - mask + root) % n)}, {}});
      break;
    }
    if (vr + mask < n)
      sc.rounds.push_back(
          {{recv_of(part, bytes, bytes_type(), (vr + mask + root) % n)}, [=] { combine(t, op, acc, part, count); }});
  }
  return acc;
}

// A linear gather at `root` in one round; the root's own block is copied now.
void gather_round(Schedule& sc, const void* sbuf, std::size_t scount, const TypeRef& st, void* rbuf, std::size_t rcount,
                  const TypeRef& rt, int root, int n, int me) {
  Round rd;
  if (me != root) {
    rd.xfers.push_back(send_of(sbuf, scount, st, root));
  } else {
    const std::int64_t slot = static_cast<std::int64_t>(rcount) * rt->extent();
    for (int k = 0; k < n; ++k) {
      void* at = shifted(rbuf, k * slot);
      if (k != root)
        rd.xfers.push_back(recv_of(at, rcount, rt, k));
      else if (!in_place(sbuf))
        local_copy(sbuf, scount, *st, at, rcount, *rt);
    }
  }
  sc.rounds.push_back(std::move(rd));
}

// Moves `sc` on as far as its messages allow: true once its last round has completed.
bool step(MpiState& s, Schedule& sc) {
  for (;;) {
    for (const int id : sc.live)
      if (!s.reqs[static_cast<std::size_t>(id)]->done) return false;
    for (int id : sc.live) {
      const auto& q = *s.reqs[static_cast<std::size_t>(id)];
      if (sc.p2p && !q.send) {  // reported by the request's completion, as a receive's
        sc.status = q.status;
        sc.sent = q.sent;
      } else if (!q.send && q.status.MPI_ERROR == MPI_ERR_TRUNCATE)
        error(sc.comm, MPI_ERR_TRUNCATE, sc.fn,
              fmt::format("rank {} of the communicator sent {} bytes where this rank expects {}: the ranks' calls do "
                          "not match",
                          q.status.MPI_SOURCE, q.sent, q.cap));
      release(s, &id);
    }
    sc.live.clear();
    if (sc.next > 0 && sc.rounds[sc.next - 1].after) sc.rounds[sc.next - 1].after();
    if (sc.next == sc.rounds.size()) return true;
    const Round& rd = sc.rounds[sc.next++];
    for (const Xfer& x : rd.xfers) {
      MPI_Request r = MPI_REQUEST_NULL;
      const int tag = sc.p2p ? x.tag : sc.tag;
      const std::uint16_t context = sc.p2p ? 0 : 1;
      if (x.send)
        start_send(s, x.sbuf, x.count, *x.type, x.peer, tag, sc.comm, false, context, &r);
      else
        start_recv(s, x.rbuf, x.count, x.type, x.peer, tag, sc.comm, context, &r);
      sc.live.push_back(r);
    }
  }
}

// Advances every non-blocking collective under way (from the progress engine; never within itself).
void advance(MpiState& s) {
  if (s.advancing) return;
  s.advancing = true;
  for (std::size_t i = 0; i < s.scheduled.size();) {
    auto& q = *s.reqs[static_cast<std::size_t>(s.scheduled[i])];
    if (step(s, *q.sched)) {
      q.done = true;
      s.scheduled.erase(s.scheduled.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  s.advancing = false;
}

// The request of a non-blocking collective: its first round starts now.
void start_schedule(MpiState& s, std::shared_ptr<Schedule> sc, MPI_Request* r) {
  const int id = new_request(s);
  auto& q = *s.reqs[static_cast<std::size_t>(id)];
  q.coll = true;
  q.comm = sc->comm;
  q.src = MPI_ANY_SOURCE;
  q.tag = MPI_ANY_TAG;
  q.sched = std::move(sc);
  *r = id;
  s.scheduled.push_back(id);
  advance(s);
}

}  // namespace
}  // namespace hopsim::bgq

// ---------------------------------------------------------------- MPI ----

using hopsim::bgq::Machine;
using hopsim::bgq::MpiState;
namespace mpi_impl = hopsim::bgq;

extern "C" {

int MPI_Init(int*, char***) {
  auto& s = mpi_impl::mpi();
  s.main_thread = Machine::current()->thread_key();
  return MPI_SUCCESS;
}

// Every level up to MPI_THREAD_MULTIPLE: the rank's threads are those it
// makes with pthread_create (Machine::start_thread); under MULTIPLE each
// call takes the rank's MPI lock.
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int e = MPI_Init(argc, argv);
  auto& s = mpi_impl::mpi();
  s.thread_level = std::clamp(required, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE);
  s.main_thread = Machine::current()->thread_key();
  if (provided) *provided = s.thread_level;
  return e;
}

int MPI_Is_thread_main(int* flag) {
  auto& s = mpi_impl::mpi();
  const std::uintptr_t me = Machine::current()->thread_key();
  *flag = s.main_thread == 0 ? 1 : me == s.main_thread ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Initialized(int* flag) {
  auto& st = Machine::current()->self();
  *flag = st.mpi && st.mpi->initialised ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Finalize(void) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  // Sends whose rendezvous has not finished keep their buffers, and requests freed while active must complete
  // (MPI 4.0, 3.7.3): finish them first.
  mpi_impl::wait_for(
      s,
      [&] {
        return std::none_of(s.reqs.begin(), s.reqs.end(),
                            [](const auto& q) { return q->active && (q->send || q->orphan) && !q->done; });
      },
      "MPI_Finalize");
  s.finalized = true;
  return MPI_SUCCESS;
}

int MPI_Finalized(int* flag) {
  auto& st = Machine::current()->self();
  *flag = st.mpi && st.mpi->finalized ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int code) {
  mpi_impl::fail(fmt::format("MPI_Abort on communicator {} with error code {}", comm, code));
}

int MPI_Query_thread(int* provided) {
  *provided = mpi_impl::mpi().thread_level;
  return MPI_SUCCESS;
}

int MPI_Comm_rank(MPI_Comm c, int* rank) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Comm_rank", &err);
  if (!cm) return err;
  *rank = cm->me;
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm c, int* size) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Comm_size", &err);
  if (!cm) return err;
  *size = cm->size();
  return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm c, MPI_Comm* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Comm_dup";
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Comm_dup", &err);
  if (!cm) return err;
  if (cm->inter) {
    const mpi_impl::Comm parent = *cm;
    const std::uint16_t ctx = mpi_impl::agree_inter(s, c, {}, nullptr);
    *out = mpi_impl::add_inter(s, parent.members, parent.remote, parent.me, ctx, parent.fatal);
    s.comms[static_cast<std::size_t>(*out)].name.clear();
    return MPI_SUCCESS;
  }
  mpi_impl::Comm d = *cm;
  d.context = mpi_impl::agree_context(s, c);
  d.name.clear();
  *out = mpi_impl::add_comm(s, std::move(d));
  return MPI_SUCCESS;
}

int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Comm_split";
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Comm_split", &err);
  if (!cm) return err;
  if (cm->inter) {
    *out = mpi_impl::split_inter(s, c, color, key);
    return MPI_SUCCESS;
  }
  const int n = cm->size();
  const mpi_impl::Comm parent = *cm;
  // Every member's (color, key), gathered at 0 and broadcast.
  std::vector<std::int32_t> all(2 * static_cast<std::size_t>(n));
  std::array<std::int32_t, 2> mine{color, key};
  if (parent.me == 0) {
    all[0] = color;
    all[1] = key;
    for (int r = 1; r < n; ++r)
      mpi_impl::coll_recv(s, &all[2 * static_cast<std::size_t>(r)], 8, mpi_impl::bytes_type(), r, c,
                          mpi_impl::kSplitTag);
  } else {
    mpi_impl::coll_send(s, mine.data(), 8, mpi_impl::bytes_type(), 0, c, mpi_impl::kSplitTag);
  }
  mpi_impl::bcast(s, all.data(), all.size() * 4, mpi_impl::bytes_type(), 0, c);
  const std::uint16_t ctx = mpi_impl::agree_context(s, c);
  if (color == MPI_UNDEFINED) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  std::vector<int> members;
  for (int r = 0; r < n; ++r)
    if (all[2 * static_cast<std::size_t>(r)] == color) members.push_back(r);
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
    return all[2 * static_cast<std::size_t>(a) + 1] < all[2 * static_cast<std::size_t>(b) + 1];
  });
  mpi_impl::Comm d;
  d.context = ctx;
  d.fatal = parent.fatal;
  d.n = static_cast<int>(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    d.members.push_back(parent.world(members[i]));
    if (members[i] == parent.me) d.me = static_cast<int>(i);
  }
  *out = mpi_impl::add_comm(s, std::move(d));
  return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm* c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (!c || *c == MPI_COMM_WORLD || *c == MPI_COMM_SELF || !mpi_impl::comm_of(s, *c))
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_free",
                           fmt::format("communicator {} cannot be freed", c ? *c : MPI_COMM_NULL));
  auto& cm = s.comms[static_cast<std::size_t>(*c)];
  cm.active = false;
  if (cm.local >= 0) s.comms[static_cast<std::size_t>(cm.local)].active = false;
  // Its context (and its hidden local one, context + 2, in the same slot) serves a later communicator.
  const std::size_t slot = cm.context / 4u;
  s.used_contexts[slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
  *c = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm c, MPI_Errhandler h) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Comm_set_errhandler", &err);
  if (!cm) return err;
  if (h != MPI_ERRORS_ARE_FATAL && h != MPI_ERRORS_RETURN)
    return mpi_impl::error(c, MPI_ERR_ARG, "MPI_Comm_set_errhandler", fmt::format("error handler {}", h));
  s.comms[static_cast<std::size_t>(c)].fatal = h == MPI_ERRORS_ARE_FATAL;
  return MPI_SUCCESS;
}

int MPI_Error_string(int code, char* out, int* len) {
  const std::string t = mpi_impl::error_name(code);
  std::snprintf(out, MPI_MAX_ERROR_STRING, "%s", t.c_str());
  *len = static_cast<int>(t.size());
  return MPI_SUCCESS;
}

// Every code this MPI returns is an error class (MPI 4.0, 9.4).
int MPI_Error_class(int code, int* cls) {
  if (!cls || code < MPI_SUCCESS || code > MPI_ERR_LASTCODE)
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class",
                           fmt::format("error code {} is not one of this MPI's", code));
  *cls = code;
  return MPI_SUCCESS;
}

int MPI_Dims_create(int nnodes, int ndims, int* dims) {
  if (nnodes < 1 || ndims < 0 || (ndims > 0 && !dims)) return MPI_ERR_ARG;
  int rest = nnodes;
  std::vector<int> free;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return MPI_ERR_ARG;
    if (dims[i] == 0)
      free.push_back(i);
    else if (rest % dims[i] != 0)
      return MPI_ERR_ARG;
    else
      rest /= dims[i];
  }
  if (free.empty()) return rest == 1 ? MPI_SUCCESS : MPI_ERR_ARG;
  std::vector<int> primes;  // largest first
  for (int p = 2; rest > 1;) {
    if (rest % p == 0) {
      primes.push_back(p);
      rest /= p;
    } else {
      p = p * p > rest ? rest : p + 1;
    }
  }
  std::sort(primes.rbegin(), primes.rend());
  std::vector<int> f(free.size(), 1);
  for (int p : primes) *std::min_element(f.begin(), f.end()) *= p;
  std::sort(f.rbegin(), f.rend());
  for (std::size_t i = 0; i < free.size(); ++i) dims[free[i]] = f[i];
  return MPI_SUCCESS;
}

int MPI_Get_processor_name(char* name, int* resultlen) {
  if (!name || !resultlen) return MPI_ERR_ARG;
  const int r = Machine::current_rank();
  const auto c = Machine::current()->torus().coords(static_cast<std::uint32_t>(r));
  const std::string s = fmt::format("bgq-node-{} ({},{},{},{},{})", r, c[0], c[1], c[2], c[3], c[4]);
  std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", s.c_str());
  *resultlen = static_cast<int>(std::min<std::size_t>(s.size(), MPI_MAX_PROCESSOR_NAME - 1));
  return MPI_SUCCESS;
}

double MPI_Wtime(void) {
  auto& m = mpi_impl::mach();
  return static_cast<double>(m.timebase()) / m.params().clock_hz;
}
double MPI_Wtick(void) { return 1.0 / Machine::current()->params().clock_hz; }

}  // extern "C"

namespace hopsim::bgq {
namespace {
// Type `t` for a query or a constructor in `fn` (committed or not), or null with *err set.
TypeRef type_arg(MpiState& s, MPI_Datatype t, const char* fn, int* err) {
  TypeRef ti;
  if (const std::string bad = find_type(s, t, ti, false); !bad.empty()) {
    *err = error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, bad);
    return nullptr;
  }
  return ti;
}

int bad_count(const char* fn, int count) {
  return error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, fmt::format("count {}", count));
}

// A type of `count` blocks of `old`: block i has blocklength(i) elements at byte displacement disp(i).
template <class Len, class Disp>
int make_type(MpiState& s, const char* fn, int count, MPI_Datatype old, Len blocklength, Disp disp, bool pad,
              MPI_Datatype* out) {
  if (count < 0) return bad_count(fn, count);
  int err = MPI_SUCCESS;
  const TypeRef o = type_arg(s, old, fn, &err);
  if (!o) return err;
  TypeBuilder b;
  for (int i = 0; i < count; ++i) {
    const int len = blocklength(i);
    if (len < 0) return bad_count(fn, len);
    b.add(*o, disp(i), static_cast<std::uint64_t>(len));
  }
  *out = add_type(s, b.done(pad));
  return MPI_SUCCESS;
}
}  // namespace
}  // namespace hopsim::bgq

extern "C" {

int MPI_Type_size(MPI_Datatype t, int* size) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::TypeRef ti = mpi_impl::type_arg(s, t, "MPI_Type_size", &err);
  if (!ti) return err;
  *size = static_cast<int>(ti->size);
  return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype t, MPI_Aint* lb, MPI_Aint* extent) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::TypeRef ti = mpi_impl::type_arg(s, t, "MPI_Type_get_extent", &err);
  if (!ti) return err;
  *lb = static_cast<MPI_Aint>(ti->lb);
  *extent = static_cast<MPI_Aint>(ti->extent());
  return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status* st, MPI_Datatype t, int* count) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::TypeRef ti = mpi_impl::type_arg(s, t, "MPI_Get_count", &err);
  if (!ti) return err;
  if (!st || !count) return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_count", "null status or count");
  const auto bytes = static_cast<std::uint64_t>(st->hopsim_bytes);
  if (ti->size == 0)
    *count = 0;
  else
    *count = bytes % ti->size == 0 ? static_cast<int>(bytes / ti->size) : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Get_elements(const MPI_Status* st, MPI_Datatype t, int* count) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::TypeRef ti = mpi_impl::type_arg(s, t, "MPI_Get_elements", &err);
  if (!ti) return err;
  if (!st || !count) return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_elements", "null status or count");
  auto bytes = static_cast<std::uint64_t>(st->hopsim_bytes);
  if (ti->size == 0) {
    *count = 0;
    return MPI_SUCCESS;
  }
  std::uint64_t n = bytes / ti->size * ti->elements;
  bytes %= ti->size;
  for (const auto& b : ti->blocks) {  // the last, partial element: its whole basic elements
    const std::uint64_t part = std::min<std::uint64_t>(b.len, bytes);
    if (part % b.elem != 0) {
      *count = MPI_UNDEFINED;
      return MPI_SUCCESS;
    }
    n += part / b.elem;
    bytes -= part;
  }
  *count = static_cast<int>(n);
  return MPI_SUCCESS;
}

int MPI_Get_address(const void* location, MPI_Aint* address) {
  *address = static_cast<MPI_Aint>(reinterpret_cast<std::intptr_t>(location));
  return MPI_SUCCESS;
}

int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (count < 0) return mpi_impl::bad_count("MPI_Type_contiguous", count);
  return mpi_impl::make_type(
      s, "MPI_Type_contiguous", 1, old, [&](int) { return count; }, [](int) { return std::int64_t{0}; }, false, out);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old, MPI_Datatype* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  return mpi_impl::make_type(
      s, "MPI_Type_create_hvector", count, old, [&](int) { return blocklength; },
      [&](int i) { return static_cast<std::int64_t>(i) * stride; }, false, out);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old, MPI_Datatype* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::TypeRef o = mpi_impl::type_arg(s, old, "MPI_Type_vector", &err);
  if (!o) return err;
  const std::int64_t ext = o->extent();
  return mpi_impl::make_type(
      s, "MPI_Type_vector", count, old, [&](int) { return blocklength; },
      [&](int i) { return static_cast<std::int64_t>(i) * stride * ext; }, false, out);
}

int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[], MPI_Datatype old,
                     MPI_Datatype* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::TypeRef o = mpi_impl::type_arg(s, old, "MPI_Type_indexed", &err);
  if (!o) return err;
  const std::int64_t ext = o->extent();
  return mpi_impl::make_type(
      s, "MPI_Type_indexed", count, old, [&](int i) { return blocklengths[i]; },
      [&](int i) { return static_cast<std::int64_t>(displacements[i]) * ext; }, false, out);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype old,
                                  MPI_Datatype* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::TypeRef o = mpi_impl::type_arg(s, old, "MPI_Type_create_indexed_block", &err);
  if (!o) return err;
  const std::int64_t ext = o->extent();
  return mpi_impl::make_type(
      s, "MPI_Type_create_indexed_block", count, old, [&](int) { return blocklength; },
      [&](int i) { return static_cast<std::int64_t>(displacements[i]) * ext; }, false, out);
}

int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                           const MPI_Datatype types[], MPI_Datatype* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  const char* fn = "MPI_Type_create_struct";
  if (count < 0) return mpi_impl::bad_count(fn, count);
  mpi_impl::TypeBuilder b;
  for (int i = 0; i < count; ++i) {
    int err = MPI_SUCCESS;
    const mpi_impl::TypeRef o = mpi_impl::type_arg(s, types[i], fn, &err);
    if (!o) return err;
    if (blocklengths[i] < 0) return mpi_impl::bad_count(fn, blocklengths[i]);
    b.add(*o, static_cast<std::int64_t>(displacements[i]), static_cast<std::uint64_t>(blocklengths[i]));
  }
  *out = mpi_impl::add_type(s, b.done(true));
  return MPI_SUCCESS;
}

int MPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::TypeRef o = mpi_impl::type_arg(s, old, "MPI_Type_create_resized", &err);
  if (!o) return err;
  auto t = std::make_shared<mpi_impl::TypeInfo>(*o);
  t->lb = lb;
  t->ub = lb + extent;
  t->explicit_bounds = true;
  t->committed = false;
  t->basic = MPI_DATATYPE_NULL;
  *out = mpi_impl::add_type(s, std::move(t));
  return MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype* t) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (!t) return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_commit", "null datatype");
  int err = MPI_SUCCESS;
  if (!mpi_impl::type_arg(s, *t, "MPI_Type_commit", &err)) return err;
  if (*t >= mpi_impl::kDerived) s.types[static_cast<std::size_t>(*t - mpi_impl::kDerived)]->committed = true;
  return MPI_SUCCESS;
}

int MPI_Type_free(MPI_Datatype* t) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (!t || *t < mpi_impl::kDerived || static_cast<std::size_t>(*t - mpi_impl::kDerived) >= s.types.size() ||
      !s.types[static_cast<std::size_t>(*t - mpi_impl::kDerived)])
    return mpi_impl::error(
        MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_free",
        fmt::format("datatype 0x{:x} is not a derived type of this rank", t ? *t : MPI_DATATYPE_NULL));
  s.types[static_cast<std::size_t>(*t - mpi_impl::kDerived)] = nullptr;  // requests that use it keep their copy
  *t = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

}  // extern "C"

namespace hopsim::bgq {
namespace {
int isend(const char* fn, const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, bool sync,
          MPI_Request* r) {
  auto& s = mpi();
  const Entered entered(s);
  TypeRef ti;
  if (const int e = check_args(s, fn, c, count, t, dest, tag, false, &ti, true)) return e;
  return start_send(s, buf, static_cast<std::size_t>(count), *ti, dest, tag, c, sync, 0, r);
}

int irecv(const char* fn, void* buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm c, MPI_Request* r) {
  auto& s = mpi();
  const Entered entered(s);
  TypeRef ti;
  if (const int e = check_args(s, fn, c, count, t, source, tag, true, &ti, true)) return e;
  start_recv(s, buf, static_cast<std::size_t>(count), ti, source, tag, c, 0, r);
  return MPI_SUCCESS;
}
}  // namespace
}  // namespace hopsim::bgq

extern "C" {

// ---- point to point ----

int MPI_Isend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  return mpi_impl::isend("MPI_Isend", buf, count, t, dest, tag, c, false, r);
}

int MPI_Issend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  return mpi_impl::isend("MPI_Issend", buf, count, t, dest, tag, c, true, r);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm c, MPI_Request* r) {
  return mpi_impl::irecv("MPI_Irecv", buf, count, t, source, tag, c, r);
}

}  // extern "C"

namespace hopsim::bgq {
namespace {
int wait_request(MPI_Request* r, MPI_Status* st, const char* fn) {
  auto& s = mpi();
  const Entered entered(s);
  if (!r) return error(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "null request");
  if (*r == MPI_REQUEST_NULL) {
    if (st) *st = {MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
    return MPI_SUCCESS;
  }
  if (!valid_request(s, *r))
    return error(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, fmt::format("request {} is not active", *r));
  auto& q = *s.reqs[static_cast<std::size_t>(*r)];
  wait_for(
      s, [&] { return req_done(s, *r); }, fn, q.src, q.tag);
  return complete(s, r, st, fn);
}
}  // namespace
}  // namespace hopsim::bgq

extern "C" {

int MPI_Wait(MPI_Request* r, MPI_Status* st) { return mpi_impl::wait_request(r, st, "MPI_Wait"); }

int MPI_Waitall(int count, MPI_Request* rs, MPI_Status* sts) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < count; ++i)
    if (mpi_impl::wait_request(&rs[i], sts ? &sts[i] : nullptr, "MPI_Waitall") != MPI_SUCCESS) rc = MPI_ERR_IN_STATUS;
  return rc;
}

int MPI_Test(MPI_Request* r, int* flag, MPI_Status* st) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (!r || !flag) return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Test", "null request or flag");
  if (*r == MPI_REQUEST_NULL) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (!mpi_impl::valid_request(s, *r))
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Test", fmt::format("request {} is not active", *r));
  mpi_impl::progress(s);
  mpi_impl::poll_unlocked(s);
  *flag = mpi_impl::req_done(s, *r) ? 1 : 0;
  return *flag ? mpi_impl::complete(s, r, st, "MPI_Test") : MPI_SUCCESS;
}

int MPI_Testall(int count, MPI_Request* rs, int* flag, MPI_Status* sts) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  mpi_impl::progress(s);
  mpi_impl::poll_unlocked(s);
  for (int i = 0; i < count; ++i)
    if (rs[i] != MPI_REQUEST_NULL && (!mpi_impl::valid_request(s, rs[i]) || !mpi_impl::req_done(s, rs[i]))) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  *flag = 1;
  return MPI_Waitall(count, rs, sts);
}

int MPI_Waitany(int count, MPI_Request* rs, int* index, MPI_Status* st) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  *index = MPI_UNDEFINED;
  bool any = false;
  for (int i = 0; i < count; ++i) any = any || mpi_impl::req_active(s, rs[i]);
  if (!any) {
    if (st) *st = MPI_Status{MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
    return MPI_SUCCESS;
  }
  mpi_impl::wait_for(s, [&] {
    for (int i = 0; i < count; ++i)
      if (mpi_impl::req_active(s, rs[i]) && mpi_impl::valid_request(s, rs[i]) && mpi_impl::req_done(s, rs[i])) {
        *index = i;
        return true;
      }
    return false;
  });
  return mpi_impl::complete(s, &rs[*index], st, "MPI_Waitany");
}

// One pass of the progress engine, then the first request of `rs` that is done, completed: *index (MPI_UNDEFINED when
// none is done), *flag (1 also when none is active, MPI 4.0, 3.7.5).
int MPI_Testany(int count, MPI_Request* rs, int* index, int* flag, MPI_Status* st) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  mpi_impl::progress(s);
  mpi_impl::poll_unlocked(s);
  *index = MPI_UNDEFINED;
  bool any = false;
  for (int i = 0; i < count; ++i) {
    if (!mpi_impl::req_active(s, rs[i])) continue;
    if (!mpi_impl::valid_request(s, rs[i]))
      return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Testany",
                             fmt::format("request {} is not active", rs[i]));
    any = true;
    if (mpi_impl::req_done(s, rs[i])) {
      *index = i;
      *flag = 1;
      return mpi_impl::complete(s, &rs[i], st, "MPI_Testany");
    }
  }
  *flag = any ? 0 : 1;
  if (!any && st) *st = {MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
  return MPI_SUCCESS;
}

// Completes every request of `rs` that is done: their indices and statuses in order; *outcount MPI_UNDEFINED when
// none is active.
int MPI_Testsome(int count, MPI_Request* rs, int* outcount, int* indices, MPI_Status* sts) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  mpi_impl::progress(s);
  mpi_impl::poll_unlocked(s);
  *outcount = 0;
  bool any = false;
  int rc = MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    if (!mpi_impl::req_active(s, rs[i])) continue;
    if (!mpi_impl::valid_request(s, rs[i]))
      return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Testsome",
                             fmt::format("request {} is not active", rs[i]));
    any = true;
    if (!mpi_impl::req_done(s, rs[i])) continue;
    MPI_Status* st = sts ? &sts[*outcount] : nullptr;
    indices[*outcount] = i;
    ++*outcount;
    if (mpi_impl::complete(s, &rs[i], st, "MPI_Testsome") != MPI_SUCCESS) rc = MPI_ERR_IN_STATUS;
  }
  if (!any) *outcount = MPI_UNDEFINED;
  return rc;
}

int MPI_Waitsome(int count, MPI_Request* rs, int* outcount, int* indices, MPI_Status* sts) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  bool any = false;
  for (int i = 0; i < count; ++i) any = any || mpi_impl::req_active(s, rs[i]);
  if (!any) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  mpi_impl::wait_for(
      s,
      [&] {
        for (int i = 0; i < count; ++i)
          if (mpi_impl::req_active(s, rs[i]) && (!mpi_impl::valid_request(s, rs[i]) || mpi_impl::req_done(s, rs[i])))
            return true;
        return false;
      },
      "MPI_Waitsome");
  return MPI_Testsome(count, rs, outcount, indices, sts);
}

int MPI_Send(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (const int e = mpi_impl::isend("MPI_Send", buf, count, t, dest, tag, c, false, &r)) return e;
  return mpi_impl::wait_request(&r, MPI_STATUS_IGNORE, "MPI_Send");
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (const int e = mpi_impl::isend("MPI_Ssend", buf, count, t, dest, tag, c, true, &r)) return e;
  return mpi_impl::wait_request(&r, MPI_STATUS_IGNORE, "MPI_Ssend");
}

// A ready send is a standard send: MPI 4.0, 3.4 lets it be one (the receive is posted already).
int MPI_Rsend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (const int e = mpi_impl::isend("MPI_Rsend", buf, count, t, dest, tag, c, false, &r)) return e;
  return mpi_impl::wait_request(&r, MPI_STATUS_IGNORE, "MPI_Rsend");
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  return mpi_impl::isend("MPI_Irsend", buf, count, t, dest, tag, c, false, r);
}

// MPI_Test that leaves the request as it is: done or not, it stays for a later wait or test.
int MPI_Request_get_status(MPI_Request r, int* flag, MPI_Status* st) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (!flag) return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Request_get_status", "null flag");
  if (r == MPI_REQUEST_NULL) {
    *flag = 1;
    if (st) *st = {MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
    return MPI_SUCCESS;
  }
  if (!mpi_impl::valid_request(s, r))
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_get_status",
                           fmt::format("request {} is not active", r));
  mpi_impl::progress(s);
  mpi_impl::poll_unlocked(s);
  const auto& p = *s.reqs[static_cast<std::size_t>(r)];
  *flag = mpi_impl::req_done(s, r) ? 1 : 0;
  if (p.persistent && p.inner < 0) {
    if (st) *st = MPI_Status{MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
    return MPI_SUCCESS;
  }
  const auto& q = p.persistent ? *s.reqs[static_cast<std::size_t>(p.inner)] : p;
  if (q.done && st) *st = q.send || q.coll ? MPI_Status{MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0} : q.status;
  return MPI_SUCCESS;
}

int MPI_Recv(void* buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm c, MPI_Status* st) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (const int e = mpi_impl::irecv("MPI_Recv", buf, count, t, source, tag, c, &r)) return e;
  return mpi_impl::wait_request(&r, st, "MPI_Recv");
}

int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf, int rcount,
                 MPI_Datatype rtype, int source, int rtag, MPI_Comm c, MPI_Status* st) {
  MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (const int e = mpi_impl::irecv("MPI_Sendrecv", rbuf, rcount, rtype, source, rtag, c, &r[0])) return e;
  if (const int e = mpi_impl::isend("MPI_Sendrecv", sbuf, scount, stype, dest, stag, c, false, &r[1])) return e;
  const int rs = mpi_impl::wait_request(&r[1], MPI_STATUS_IGNORE, "MPI_Sendrecv");
  const int rr = mpi_impl::wait_request(&r[0], st, "MPI_Sendrecv");
  return rr != MPI_SUCCESS ? rr : rs;
}

// MPI_Iprobe (m null) and MPI_Improbe (`fn`): whether a message matches; a matched probe takes it out of the
// matching queue into *m.
static int probe(const char* fn, int source, int tag, MPI_Comm c, int* flag, MPI_Message* m, MPI_Status* st) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (const int e = mpi_impl::check_args(s, fn, c, 0, MPI_BYTE, source, tag, true, nullptr, true)) return e;
  if (!flag) return mpi_impl::error(c, MPI_ERR_ARG, fn, "null flag");
  if (source == MPI_PROC_NULL) {  // a message from MPI_PROC_NULL is always there, empty (MPI 4.0, 3.8.1)
    *flag = 1;
    if (m) *m = MPI_MESSAGE_NO_PROC;
    if (st) *st = {MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
    return MPI_SUCCESS;
  }
  mpi_impl::progress(s);
  mpi_impl::Request q;
  q.src = source;
  q.tag = tag;
  q.context = s.comms[static_cast<std::size_t>(c)].context;
  *flag = 0;
  for (auto it = s.unexpected.begin(); it != s.unexpected.end(); ++it) {
    if (!mpi_impl::matches(q, it->env)) continue;
    *flag = 1;
    if (st) *st = {it->env.src, it->env.tag, MPI_SUCCESS, static_cast<int>(it->env.bytes), 0};
    if (m) {
      *m = s.next_message++;
      s.messages.emplace(*m, std::make_pair(std::move(*it), c));
      s.unexpected.erase(it);
    }
    return MPI_SUCCESS;
  }
  mpi_impl::poll_unlocked(s);
  return MPI_SUCCESS;
}

// MPI_Probe and MPI_Mprobe: the probe until a message matches.
static int probe_wait(const char* fn, int source, int tag, MPI_Comm c, MPI_Message* m, MPI_Status* st) {
  int flag = 0;
  for (;;) {
    if (const int e = probe(fn, source, tag, c, &flag, m, st)) return e;
    if (flag) return MPI_SUCCESS;
    Machine::current()->spin();
  }
}

int MPI_Iprobe(int source, int tag, MPI_Comm c, int* flag, MPI_Status* st) {
  return probe("MPI_Iprobe", source, tag, c, flag, nullptr, st);
}

int MPI_Probe(int source, int tag, MPI_Comm c, MPI_Status* st) {
  return probe_wait("MPI_Probe", source, tag, c, nullptr, st);
}

int MPI_Improbe(int source, int tag, MPI_Comm c, int* flag, MPI_Message* m, MPI_Status* st) {
  if (!m) return mpi_impl::error(c, MPI_ERR_ARG, "MPI_Improbe", "null message");
  return probe("MPI_Improbe", source, tag, c, flag, m, st);
}

int MPI_Mprobe(int source, int tag, MPI_Comm c, MPI_Message* m, MPI_Status* st) {
  if (!m) return mpi_impl::error(c, MPI_ERR_ARG, "MPI_Mprobe", "null message");
  return probe_wait("MPI_Mprobe", source, tag, c, m, st);
}

// MPI_Imrecv and MPI_Mrecv (`fn`): the receive of the message a matched probe took.
static int matched_recv(const char* fn, void* buf, int count, MPI_Datatype t, MPI_Message* m, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (!m || !r) return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "null message or request");
  mpi_impl::TypeRef ti;
  if (*m == MPI_MESSAGE_NO_PROC) {  // completes at once, as a receive from MPI_PROC_NULL
    if (const int e = mpi_impl::check_args(s, fn, MPI_COMM_SELF, count, t, MPI_PROC_NULL, 0, true, &ti, true)) return e;
    mpi_impl::start_recv(s, buf, static_cast<std::size_t>(count), ti, MPI_PROC_NULL, 0, MPI_COMM_SELF, 0, r);
    *m = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
  }
  const auto it = s.messages.find(*m);
  if (it == s.messages.end())
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                           fmt::format("message {} is not one a matched probe returned, or was received", *m));
  const MPI_Comm c = it->second.second;
  if (const int e = mpi_impl::check_args(s, fn, c, count, t, it->second.first.env.src, 0, true, &ti, true)) return e;
  mpi_impl::Arrived a = std::move(it->second.first);
  s.messages.erase(it);
  *m = MPI_MESSAGE_NULL;
  mpi_impl::start_recv(s, buf, static_cast<std::size_t>(count), ti, a.env.src, a.env.tag, c, 0, r, &a);
  return MPI_SUCCESS;
}

int MPI_Imrecv(void* buf, int count, MPI_Datatype t, MPI_Message* m, MPI_Request* r) {
  return matched_recv("MPI_Imrecv", buf, count, t, m, r);
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype t, MPI_Message* m, MPI_Status* st) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (const int e = matched_recv("MPI_Mrecv", buf, count, t, m, &r)) return e;
  return mpi_impl::wait_request(&r, st, "MPI_Mrecv");
}

// ---- communicators with a grid ----

int MPI_Cart_create(MPI_Comm old, int ndims, const int* dims, const int* periods, int, MPI_Comm* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Cart_create";
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_intra(s, old, "MPI_Cart_create", &err);
  if (!cm) return err;
  long prod = 1;
  for (int i = 0; i < ndims; ++i) prod *= dims[i];
  const auto n = static_cast<long>(cm->size());
  if (ndims < 1 || prod > n || prod < 1)
    return mpi_impl::error(old, MPI_ERR_ARG, "MPI_Cart_create",
                           fmt::format("a grid of {} ranks on a communicator of {}", prod, n));
  mpi_impl::Comm d = *cm;
  d.context = mpi_impl::agree_context(s, old);
  if (d.me >= prod) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  d.n = static_cast<int>(prod);
  if (!d.members.empty()) d.members.resize(static_cast<std::size_t>(prod));
  d.dims.assign(dims, dims + ndims);
  d.periods.assign(periods, periods + ndims);
  *out = mpi_impl::add_comm(s, std::move(d));
  return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm c, int rank, int maxdims, int* coords) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Cart_coords", &err);
  if (!cm) return err;
  if (cm->dims.empty())
    return mpi_impl::error(c, MPI_ERR_COMM, "MPI_Cart_coords", fmt::format("{} is not a Cartesian communicator", c));
  // Row-major: the last dimension varies fastest (MPI's order).
  for (int i = static_cast<int>(cm->dims.size()) - 1; i >= 0; --i) {
    if (i < maxdims) coords[i] = rank % cm->dims[static_cast<std::size_t>(i)];
    rank /= cm->dims[static_cast<std::size_t>(i)];
  }
  return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm c, int maxdims, int* dims, int* periods, int* coords) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Cart_get", &err);
  if (!cm) return err;
  if (cm->dims.empty())
    return mpi_impl::error(c, MPI_ERR_COMM, "MPI_Cart_get", fmt::format("{} is not a Cartesian communicator", c));
  const int n = std::min(maxdims, static_cast<int>(cm->dims.size()));
  for (int i = 0; i < n; ++i) {
    dims[i] = cm->dims[static_cast<std::size_t>(i)];
    periods[i] = cm->periods[static_cast<std::size_t>(i)];
  }
  return MPI_Cart_coords(c, cm->me, maxdims, coords);
}

int MPI_Cart_rank(MPI_Comm c, const int* coords, int* rank) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Cart_rank", &err);
  if (!cm) return err;
  if (cm->dims.empty())
    return mpi_impl::error(c, MPI_ERR_COMM, "MPI_Cart_rank", fmt::format("{} is not a Cartesian communicator", c));
  int r = 0;
  for (std::size_t i = 0; i < cm->dims.size(); ++i) {
    int v = coords[i];
    const int ext = cm->dims[i];
    if (v < 0 || v >= ext) {
      if (!cm->periods[i])
        return mpi_impl::error(c, MPI_ERR_RANK, "MPI_Cart_rank", fmt::format("coordinate {} of dimension {}", v, i));
      v = ((v % ext) + ext) % ext;
    }
    r = r * ext + v;
  }
  *rank = r;
  return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm c, int direction, int disp, int* source, int* dest) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Cart_shift", &err);
  if (!cm) return err;
  const int nd = static_cast<int>(cm->dims.size());
  if (nd == 0)
    return mpi_impl::error(c, MPI_ERR_COMM, "MPI_Cart_shift", fmt::format("{} is not a Cartesian communicator", c));
  if (direction < 0 || direction >= nd)
    return mpi_impl::error(c, MPI_ERR_ARG, "MPI_Cart_shift", fmt::format("direction {} of {} dims", direction, nd));
  std::vector<int> co(static_cast<std::size_t>(nd));
  MPI_Cart_coords(c, cm->me, nd, co.data());
  auto rank_at = [&](int delta) {
    auto x = co;
    const int ext = cm->dims[static_cast<std::size_t>(direction)];
    const int v = x[static_cast<std::size_t>(direction)] + delta;
    if ((v < 0 || v >= ext) && !cm->periods[static_cast<std::size_t>(direction)]) return MPI_PROC_NULL;
    x[static_cast<std::size_t>(direction)] = v;
    int r = 0;
    MPI_Cart_rank(c, x.data(), &r);
    return r;
  };
  *dest = rank_at(disp);
  *source = rank_at(-disp);
  return MPI_SUCCESS;
}

// ---- collectives ----

int MPI_Barrier(MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Barrier";
  if (mpi_impl::is_inter(s, c)) return mpi_impl::inter_barrier(s, c);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_intra(s, c, "MPI_Barrier", &err);
  if (!cm) return err;
  if (c == MPI_COMM_WORLD) {  // the GI barrier on the job's class route
    auto& m = *Machine::current();
    mpi_impl::charge(s, m.params().mpi_send_cycles);
    mpi_impl::pay(s);
    m.gi_enter();
    // Messages that arrive meanwhile are handled (a rendezvous into a receive posted before the barrier).
    for (;;) {
      {
        const mpi_impl::Released unlocked(s);
        if (m.gi_poll()) break;
      }
      mpi_impl::progress(s);
    }
    return MPI_SUCCESS;
  }
  mpi_impl::barrier(s, c);
  return MPI_SUCCESS;
}

int MPI_Bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Bcast";
  if (mpi_impl::is_inter(s, c)) return mpi_impl::inter_bcast(s, buf, count, t, root, c);
  mpi_impl::TypeRef ti;
  if (const int e = mpi_impl::check_args(s, "MPI_Bcast", c, count, t, root, 0, false, &ti)) return e;
  if (c == MPI_COMM_WORLD && mpi_impl::network_bcast(s, buf, static_cast<std::size_t>(count), ti, root))
    return MPI_SUCCESS;
  mpi_impl::bcast(s, buf, static_cast<std::size_t>(count), ti, root, c);
  return MPI_SUCCESS;
}

int MPI_Reduce(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Reduce";
  if (mpi_impl::is_inter(s, c)) return mpi_impl::inter_reduce(s, sbuf, rbuf, count, t, op, root, c, false);
  if (const int e = mpi_impl::check_reduce(s, "MPI_Reduce", c, count, t, op, root, true)) return e;
  const std::size_t bytes = static_cast<std::size_t>(count) * mpi_impl::unit_of(t);
  std::vector<std::uint8_t> acc(bytes);
  const bool root_me = s.comms[static_cast<std::size_t>(c)].me == root;
  mpi_impl::reduce_in(acc, mpi_impl::in_place(sbuf) ? rbuf : sbuf, t);
  if (c == MPI_COMM_WORLD && mpi_impl::type_size(t) && mpi_impl::network_reduce(s, acc, rbuf, t, op, root))
    return MPI_SUCCESS;
  if (mpi_impl::ordered(op) && root != 0) {  // the tree combines in rank order from rank 0 only
    const int me = s.comms[static_cast<std::size_t>(c)].me;
    mpi_impl::reduce(s, acc.data(), static_cast<std::size_t>(count), t, op, 0, c);
    if (me == 0) mpi_impl::coll_send(s, acc.data(), bytes, mpi_impl::bytes_type(), root, c, mpi_impl::kReduceTag);
    if (root_me) mpi_impl::coll_recv(s, acc.data(), bytes, mpi_impl::bytes_type(), 0, c, mpi_impl::kReduceTag);
  } else {
    mpi_impl::reduce(s, acc.data(), static_cast<std::size_t>(count), t, op, root, c);
  }
  if (root_me) mpi_impl::reduce_out(acc, rbuf, static_cast<std::size_t>(count), t);
  return MPI_SUCCESS;
}

int MPI_Allreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Allreduce";
  if (mpi_impl::is_inter(s, c)) return mpi_impl::inter_reduce(s, sbuf, rbuf, count, t, op, 0, c, true);
  if (const int e = mpi_impl::check_reduce(s, "MPI_Allreduce", c, count, t, op, 0, true)) return e;
  const std::size_t bytes = static_cast<std::size_t>(count) * mpi_impl::unit_of(t);
  std::vector<std::uint8_t> acc(bytes);
  mpi_impl::reduce_in(acc, mpi_impl::in_place(sbuf) ? rbuf : sbuf, t);
  if (c == MPI_COMM_WORLD && mpi_impl::type_size(t) && mpi_impl::network_reduce(s, acc, rbuf, t, op, -1))
    return MPI_SUCCESS;
  mpi_impl::reduce(s, acc.data(), static_cast<std::size_t>(count), t, op, 0, c);
  mpi_impl::bcast(s, acc.data(), bytes, mpi_impl::bytes_type(), 0, c);
  mpi_impl::reduce_out(acc, rbuf, static_cast<std::size_t>(count), t);
  return MPI_SUCCESS;
}

int MPI_Gather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root,
               MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Gather";
  if (mpi_impl::is_inter(s, c))
    return mpi_impl::inter_rooted(s, "MPI_Gather", true, rbuf, nullptr, nullptr, rcount, rtype,
                                  const_cast<void*>(sbuf),  // NOLINT(cppcoreguidelines-pro-type-const-cast): only read
                                  scount, stype, root, c);
  mpi_impl::TypeRef st, rt;
  if (!mpi_impl::in_place(sbuf))  // in place (the root's block already in recvbuf) the send type is not used
    if (const int e = mpi_impl::check_args(s, "MPI_Gather", c, scount, stype, root, 0, false, &st)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  if (cm.me != root) {
    mpi_impl::coll_send(s, sbuf, static_cast<std::size_t>(scount), st, root, c, mpi_impl::kGatherTag);
    return MPI_SUCCESS;
  }
  if (const int e = mpi_impl::check_args(s, "MPI_Gather", c, rcount, rtype, root, 0, false, &rt)) return e;
  const std::int64_t slot = rcount * rt->extent();
  for (int r = 0; r < cm.size(); ++r) {
    void* at = mpi_impl::shifted(rbuf, r * slot);
    if (r != root)
      mpi_impl::coll_recv(s, at, static_cast<std::size_t>(rcount), rt, r, c, mpi_impl::kGatherTag);
    else if (!mpi_impl::in_place(sbuf))
      mpi_impl::local_copy(sbuf, static_cast<std::size_t>(scount), *st, at, static_cast<std::size_t>(rcount), *rt);
  }
  return MPI_SUCCESS;
}

int MPI_Scatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root,
                MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Scatter";
  if (mpi_impl::is_inter(s, c))
    return mpi_impl::inter_rooted(s, "MPI_Scatter", false,
                                  const_cast<void*>(sbuf),  // NOLINT(cppcoreguidelines-pro-type-const-cast): only read
                                  nullptr, nullptr, scount, stype, rbuf, rcount, rtype, root, c);
  mpi_impl::TypeRef st, rt;
  if (!mpi_impl::in_place(rbuf))
    if (const int e = mpi_impl::check_args(s, "MPI_Scatter", c, rcount, rtype, root, 0, false, &rt)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  if (cm.me != root) {
    mpi_impl::coll_recv(s, rbuf, static_cast<std::size_t>(rcount), rt, root, c, mpi_impl::kScatterTag);
    return MPI_SUCCESS;
  }
  if (const int e = mpi_impl::check_args(s, "MPI_Scatter", c, scount, stype, root, 0, false, &st)) return e;
  const std::int64_t slot = scount * st->extent();
  for (int r = 0; r < cm.size(); ++r) {
    const void* at = mpi_impl::shifted(sbuf, r * slot);
    if (r != root)
      mpi_impl::coll_send(s, at, static_cast<std::size_t>(scount), st, r, c, mpi_impl::kScatterTag);
    else if (!mpi_impl::in_place(rbuf))
      mpi_impl::local_copy(at, static_cast<std::size_t>(scount), *st, rbuf, static_cast<std::size_t>(rcount), *rt);
  }
  return MPI_SUCCESS;
}

int MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm c) {
  {
    auto& s = mpi_impl::mpi();
    const mpi_impl::Entered entered(s);
    s.coll = "MPI_Allgather";
    if (mpi_impl::is_inter(s, c))
      return mpi_impl::inter_all(s, "MPI_Allgather", sbuf, nullptr, nullptr, scount, stype, rbuf, nullptr, nullptr,
                                 rcount, rtype, c, false);
  }
  int n = 0, me = 0;
  if (const int e = MPI_Comm_size(c, &n)) return e;
  MPI_Comm_rank(c, &me);
  if (mpi_impl::in_place(sbuf) && me != 0) {  // a rank's block is in recvbuf: it sends that to the gather
    MPI_Aint lb = 0, ext = 0;
    if (const int e = MPI_Type_get_extent(rtype, &lb, &ext)) return e;
    sbuf = mpi_impl::shifted(static_cast<const void*>(rbuf), static_cast<std::int64_t>(me) * rcount * ext);
    scount = rcount;
    stype = rtype;
  }
  if (const int e = MPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, 0, c)) return e;
  return MPI_Bcast(rbuf, rcount * n, rtype, 0, c);
}

int MPI_Alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (mpi_impl::is_inter(s, c))
    return mpi_impl::inter_all(s, "MPI_Alltoall", sbuf, nullptr, nullptr, scount, stype, rbuf, nullptr, nullptr, rcount,
                               rtype, c, true);
  s.coll = "MPI_Alltoall";
  mpi_impl::TypeRef st, rt;
  if (const int e = mpi_impl::check_args(s, "MPI_Alltoall", c, rcount, rtype, 0, 0, false, &rt)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  const int n = cm.size();
  std::vector<std::uint8_t> copy;  // in place: the blocks sent are a copy of recvbuf (sendcount, sendtype ignored)
  if (mpi_impl::in_place(sbuf)) {
    copy.assign(static_cast<const std::uint8_t*>(rbuf),
                static_cast<const std::uint8_t*>(rbuf) + static_cast<std::int64_t>(n) * rcount * rt->extent());
    sbuf = copy.data();
    scount = rcount;
    stype = rtype;
  }
  if (const int e = mpi_impl::check_args(s, "MPI_Alltoall", c, scount, stype, 0, 0, false, &st)) return e;
  const std::int64_t sslot = scount * st->extent(), rslot = rcount * rt->extent();
  std::vector<MPI_Request> rs(2 * static_cast<std::size_t>(n), MPI_REQUEST_NULL);
  for (int k = 0; k < n; ++k) {  // pairwise: rank me + k, so not everyone sends to rank 0 first
    const int from = (cm.me - k + n) % n;
    mpi_impl::start_recv(s, mpi_impl::shifted(rbuf, from * rslot), static_cast<std::size_t>(rcount), rt, from,
                         mpi_impl::kAlltoallTag, c, 1, &rs[static_cast<std::size_t>(k)]);
  }
  for (int k = 0; k < n; ++k) {
    const int to = (cm.me + k) % n;
    mpi_impl::start_send(s, mpi_impl::shifted(sbuf, to * sslot), static_cast<std::size_t>(scount), *st, to,
                         mpi_impl::kAlltoallTag, c, false, 1,
                         &rs[static_cast<std::size_t>(n) + static_cast<std::size_t>(k)]);
  }
  for (auto& r : rs) {
    auto& q = *s.reqs[static_cast<std::size_t>(r)];
    mpi_impl::wait_for(
        s, [&] { return q.done; }, s.coll, q.src, MPI_ANY_TAG);
    mpi_impl::release(s, &r);
  }
  return MPI_SUCCESS;
}

int MPI_Gatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[], const int displs[],
                MPI_Datatype rtype, int root, MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (mpi_impl::is_inter(s, c))
    return mpi_impl::inter_rooted(s, "MPI_Gatherv", true, rbuf, rcounts, displs, 0, rtype,
                                  const_cast<void*>(sbuf),  // NOLINT(cppcoreguidelines-pro-type-const-cast): only read
                                  scount, stype, root, c);
  s.coll = "MPI_Gatherv";
  mpi_impl::TypeRef st, rt;
  if (!mpi_impl::in_place(sbuf))
    if (const int e = mpi_impl::check_args(s, "MPI_Gatherv", c, scount, stype, root, 0, false, &st)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  if (cm.me != root) {
    mpi_impl::coll_send(s, sbuf, static_cast<std::size_t>(scount), st, root, c, mpi_impl::kGatherTag);
    return MPI_SUCCESS;
  }
  for (int r = 0; r < cm.size(); ++r)
    if (const int e = mpi_impl::check_args(s, "MPI_Gatherv", c, rcounts[r], rtype, root, 0, false, &rt)) return e;
  for (int r = 0; r < cm.size(); ++r) {
    void* at = mpi_impl::shifted(rbuf, static_cast<std::int64_t>(displs[r]) * rt->extent());
    const auto n = static_cast<std::size_t>(rcounts[r]);
    if (r != root)
      mpi_impl::coll_recv(s, at, n, rt, r, c, mpi_impl::kGatherTag);
    else if (!mpi_impl::in_place(sbuf))
      mpi_impl::local_copy(sbuf, static_cast<std::size_t>(scount), *st, at, n, *rt);
  }
  return MPI_SUCCESS;
}

int MPI_Scatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (mpi_impl::is_inter(s, c))
    return mpi_impl::inter_rooted(s, "MPI_Scatterv", false,
                                  const_cast<void*>(sbuf),  // NOLINT(cppcoreguidelines-pro-type-const-cast): only read
                                  scounts, displs, 0, stype, rbuf, rcount, rtype, root, c);
  s.coll = "MPI_Scatterv";
  mpi_impl::TypeRef st, rt;
  if (!mpi_impl::in_place(rbuf))
    if (const int e = mpi_impl::check_args(s, "MPI_Scatterv", c, rcount, rtype, root, 0, false, &rt)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  if (cm.me != root) {
    mpi_impl::coll_recv(s, rbuf, static_cast<std::size_t>(rcount), rt, root, c, mpi_impl::kScatterTag);
    return MPI_SUCCESS;
  }
  for (int r = 0; r < cm.size(); ++r)
    if (const int e = mpi_impl::check_args(s, "MPI_Scatterv", c, scounts[r], stype, root, 0, false, &st)) return e;
  for (int r = 0; r < cm.size(); ++r) {
    const void* at = mpi_impl::shifted(sbuf, static_cast<std::int64_t>(displs[r]) * st->extent());
    const auto n = static_cast<std::size_t>(scounts[r]);
    if (r != root)
      mpi_impl::coll_send(s, at, n, st, r, c, mpi_impl::kScatterTag);
    else if (!mpi_impl::in_place(rbuf))
      mpi_impl::local_copy(at, n, *st, rbuf, static_cast<std::size_t>(rcount), *rt);
  }
  return MPI_SUCCESS;
}

int MPI_Allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                   const int displs[], MPI_Datatype rtype, MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (mpi_impl::is_inter(s, c))
    return mpi_impl::inter_all(s, "MPI_Allgatherv", sbuf, nullptr, nullptr, scount, stype, rbuf, rcounts, displs, 0,
                               rtype, c, false);
  s.coll = "MPI_Allgatherv";
  mpi_impl::TypeRef st, rt;
  if (const int e = mpi_impl::check_args(s, "MPI_Allgatherv", c, 0, rtype, 0, 0, false, &rt)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  for (int r = 0; r < cm.size(); ++r)
    if (rcounts[r] < 0)
      return mpi_impl::error(c, MPI_ERR_COUNT, "MPI_Allgatherv", fmt::format("count {} for rank {}", rcounts[r], r));
  const auto block = [&](int r) {
    return mpi_impl::RecvPart{mpi_impl::shifted(rbuf, static_cast<std::int64_t>(displs[r]) * rt->extent()),
                              static_cast<std::size_t>(rcounts[r]), rt};
  };
  const mpi_impl::RecvPart own = block(cm.me);
  mpi_impl::SendPart mine{own.buf, own.count, own.type};  // in place, the rank's block is in recvbuf already
  if (!mpi_impl::in_place(sbuf)) {
    if (const int e = mpi_impl::check_args(s, "MPI_Allgatherv", c, scount, stype, 0, 0, false, &st)) return e;
    mpi_impl::local_copy(sbuf, static_cast<std::size_t>(scount), *st, own.buf, own.count, *rt);
    mine = {sbuf, static_cast<std::size_t>(scount), st};
  }
  mpi_impl::exchange(
      s, c, [&](int) { return mine; }, block);
  return MPI_SUCCESS;
}

int MPI_Alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf,
                  const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (mpi_impl::is_inter(s, c))
    return mpi_impl::inter_all(s, "MPI_Alltoallv", sbuf, scounts, sdispls, 0, stype, rbuf, rcounts, rdispls, 0, rtype,
                               c, true);
  s.coll = "MPI_Alltoallv";
  mpi_impl::TypeRef st, rt;
  const bool inplace = mpi_impl::in_place(sbuf);
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  if (const int e = mpi_impl::check_args(s, "MPI_Alltoallv", c, 0, rtype, 0, 0, false, &rt)) return e;
  if (!inplace)
    if (const int e = mpi_impl::check_args(s, "MPI_Alltoallv", c, 0, stype, 0, 0, false, &st)) return e;
  for (int r = 0; r < cm.size(); ++r)
    if (rcounts[r] < 0 || (!inplace && scounts[r] < 0))
      return mpi_impl::error(c, MPI_ERR_COUNT, "MPI_Alltoallv", fmt::format("a negative count for rank {}", r));
  const auto rblock = [&](int r) {
    return mpi_impl::RecvPart{mpi_impl::shifted(rbuf, static_cast<std::int64_t>(rdispls[r]) * rt->extent()),
                              static_cast<std::size_t>(rcounts[r]), rt};
  };
  // In place, each block is sent from a packed copy of what recvbuf held, and the rank's own block stays.
  std::vector<std::vector<std::uint8_t>> copies;
  if (inplace) {
    copies.resize(static_cast<std::size_t>(cm.size()));
    for (int r = 0; r < cm.size(); ++r) {
      auto& cp = copies[static_cast<std::size_t>(r)];
      cp.resize(static_cast<std::size_t>(rcounts[r]) * rt->size);
      mpi_impl::pack(*rt, rblock(r).buf, static_cast<std::size_t>(rcounts[r]), cp.data());
    }
  }
  const auto sblock = [&](int r) {
    if (inplace) {
      auto& cp = copies[static_cast<std::size_t>(r)];
      return mpi_impl::SendPart{cp.data(), cp.size(), mpi_impl::bytes_type()};
    }
    return mpi_impl::SendPart{mpi_impl::shifted(sbuf, static_cast<std::int64_t>(sdispls[r]) * st->extent()),
                              static_cast<std::size_t>(scounts[r]), st};
  };
  if (!inplace) {
    const mpi_impl::SendPart from = sblock(cm.me);
    const mpi_impl::RecvPart to = rblock(cm.me);
    mpi_impl::local_copy(from.buf, from.count, *from.type, to.buf, to.count, *to.type);
  }
  mpi_impl::exchange(s, c, sblock, rblock);
  return MPI_SUCCESS;
}

}  // extern "C"

namespace hopsim::bgq {
namespace {
int iscan(const char* fn, bool inclusive, const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op,
          MPI_Comm c, MPI_Request* r);
int ireduce_scatter(const char* fn, const void* sbuf, void* rbuf, const std::vector<int>& counts, MPI_Datatype t,
                    MPI_Op op, MPI_Comm c, MPI_Request* r);

// MPI_Scan (inclusive) and MPI_Exscan: a chain, rank i combining what rank i - 1 passed on with its own data
// (ranks in order, as MPI 4.0, 6.11 defines the prefix for ops that do not commute). A derived type (with a
// user op) takes the non-blocking form's rounds, which keep the user's layout.
int scan(const char* fn, bool inclusive, const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op,
         MPI_Comm c) {
  if (type_size(t) == 0) {
    MPI_Request r = MPI_REQUEST_NULL;
    if (const int e = iscan(fn, inclusive, sbuf, rbuf, count, t, op, c, &r)) return e;
    return wait_request(&r, MPI_STATUS_IGNORE, fn);
  }
  auto& s = mpi();
  const Entered entered(s);
  s.coll = fn;
  if (const int e = check_reduce(s, fn, c, count, t, op, 0)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  const std::size_t bytes = static_cast<std::size_t>(count) * type_size(t);
  std::vector<std::uint8_t> mine(bytes), acc(bytes);
  std::memcpy(mine.data(), in_place(sbuf) ? rbuf : sbuf, bytes);
  if (cm.me > 0) {
    coll_recv(s, acc.data(), bytes, bytes_type(), cm.me - 1, c, kReduceTag);
    if (!inclusive) std::memcpy(rbuf, acc.data(), bytes);  // rank 0's result is undefined, and left as it is
    combine(t, op, acc.data(), mine.data(), static_cast<std::size_t>(count));
  } else {
    acc = mine;
  }
  if (inclusive) std::memcpy(rbuf, acc.data(), bytes);
  if (cm.me + 1 < cm.size()) coll_send(s, acc.data(), bytes, bytes_type(), cm.me + 1, c, kReduceTag);
  return MPI_SUCCESS;
}
}  // namespace
}  // namespace hopsim::bgq

extern "C" {

int MPI_Scan(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  return mpi_impl::scan("MPI_Scan", true, sbuf, rbuf, count, t, op, c);
}

int MPI_Exscan(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  return mpi_impl::scan("MPI_Exscan", false, sbuf, rbuf, count, t, op, c);
}

// A reduction of every block at rank 0, then its blocks scattered: block r (rcounts[r] elements) to rank r.
int MPI_Reduce_scatter(const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int n = 0;
  if (const int e = MPI_Comm_size(c, &n)) return e;
  if (mpi_impl::is_inter(s, c))
    return mpi_impl::inter_reduce_scatter(s, "MPI_Reduce_scatter", sbuf, rbuf, rcounts, t, op, c);
  if (mpi_impl::type_size(t) == 0) {  // a derived type (with a user op): the non-blocking form's rounds, waited for
    MPI_Request r = MPI_REQUEST_NULL;
    if (const int e = mpi_impl::ireduce_scatter("MPI_Reduce_scatter", sbuf, rbuf,
                                                std::vector<int>(rcounts, rcounts + n), t, op, c, &r))
      return e;
    return mpi_impl::wait_request(&r, MPI_STATUS_IGNORE, "MPI_Reduce_scatter");
  }
  std::vector<int> displs(static_cast<std::size_t>(n));
  int total = 0;
  for (int r = 0; r < n; ++r) {
    if (rcounts[r] < 0)
      return mpi_impl::error(c, MPI_ERR_COUNT, "MPI_Reduce_scatter",
                             fmt::format("count {} for rank {}", rcounts[r], r));
    displs[static_cast<std::size_t>(r)] = total;
    total += rcounts[r];
  }
  if (const int e = mpi_impl::check_reduce(s, "MPI_Reduce_scatter", c, total, t, op, 0)) return e;
  const int me = s.comms[static_cast<std::size_t>(c)].me;
  std::vector<std::uint8_t> all(static_cast<std::size_t>(total) * mpi_impl::type_size(t));
  if (const int e = MPI_Reduce(mpi_impl::in_place(sbuf) ? rbuf : sbuf, all.data(), total, t, op, 0, c)) return e;
  return MPI_Scatterv(all.data(), rcounts, displs.data(), t, rbuf, rcounts[me], t, 0, c);
}

// inoutbuf = inbuf op inoutbuf, on this rank alone (MPI 4.0, 6.9.7).
int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype t, MPI_Op op) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (const int e = mpi_impl::check_reduce(s, "MPI_Reduce_local", MPI_COMM_SELF, count, t, op, 0, true)) return e;
  const auto n = static_cast<std::size_t>(count);
  std::vector<std::uint8_t> acc(n * mpi_impl::unit_of(t)), other(acc.size());
  mpi_impl::reduce_in(acc, inbuf, t);
  mpi_impl::reduce_in(other, inoutbuf, t);
  mpi_impl::combine(t, op, acc.data(), other.data(), n);
  mpi_impl::reduce_out(acc, inoutbuf, n, t);
  return MPI_SUCCESS;
}

int MPI_Op_create(MPI_User_function* fn, int commute, MPI_Op* op) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (!fn || !op) return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Op_create", "null function or op");
  s.ops.push_back({fn, commute != 0});
  *op = mpi_impl::kUserOp + static_cast<int>(s.ops.size()) - 1;
  return MPI_SUCCESS;
}

// Reductions already started with the op complete with it; its handle is not reused.
int MPI_Op_free(MPI_Op* op) {
  const mpi_impl::Entered entered(mpi_impl::mpi());
  mpi_impl::UserOp* u = op ? mpi_impl::user_op(*op) : nullptr;
  if (!u || u->freed)
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_free",
                           fmt::format("op {} is not a user op, or was freed", op ? *op : MPI_OP_NULL));
  u->freed = true;
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int MPI_Reduce_scatter_block(const void* sbuf, void* rbuf, int rcount, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  int n = 0;
  if (const int e = MPI_Comm_size(c, &n)) return e;
  const std::vector<int> rcounts(static_cast<std::size_t>(n), rcount);
  return MPI_Reduce_scatter(sbuf, rbuf, rcounts.data(), t, op, c);
}

// ---- non-blocking collectives ----

int MPI_Ibarrier(MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_intra(s, c, "MPI_Ibarrier", &err);
  if (!cm) return err;
  auto sc = mpi_impl::new_schedule(s, c, "MPI_Ibarrier");
  const int n = cm->size();
  for (int k = 1; k < n; k <<= 1) {  // dissemination
    mpi_impl::Round rd;
    rd.xfers.push_back(mpi_impl::recv_of(nullptr, 0, mpi_impl::bytes_type(), (cm->me - k + n) % n));
    rd.xfers.push_back(mpi_impl::send_of(nullptr, 0, mpi_impl::bytes_type(), (cm->me + k) % n));
    sc->rounds.push_back(std::move(rd));
  }
  mpi_impl::start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

int MPI_Ibcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  mpi_impl::TypeRef ti;
  if (const int e = mpi_impl::check_args(s, "MPI_Ibcast", c, count, t, root, 0, false, &ti)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  auto sc = mpi_impl::new_schedule(s, c, "MPI_Ibcast");
  mpi_impl::bcast_rounds(*sc, buf, static_cast<std::size_t>(count), ti, root, cm.size(), cm.me);
  mpi_impl::start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

int MPI_Ireduce(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
                MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (const int e = mpi_impl::check_reduce(s, "MPI_Ireduce", c, count, t, op, root, true)) return e;
  if (mpi_impl::ordered(op) && root != 0)
    return mpi_impl::error(c, MPI_ERR_OP, "MPI_Ireduce",
                           fmt::format("op {} does not commute: the schedule combines in rank order at root 0 only "
                                       "(root {})",
                                       op, root));
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  auto sc = mpi_impl::new_schedule(s, c, "MPI_Ireduce");
  std::uint8_t* acc = mpi_impl::reduce_rounds(*sc, mpi_impl::in_place(sbuf) ? rbuf : sbuf,
                                              static_cast<std::size_t>(count), t, op, root, cm.size(), cm.me);
  if (cm.me == root) {
    const std::size_t bytes = static_cast<std::size_t>(count) * mpi_impl::unit_of(t);
    sc->rounds.push_back({{}, [=] { mpi_impl::reduce_out(acc, bytes, rbuf, static_cast<std::size_t>(count), t); }});
  }
  mpi_impl::start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

int MPI_Iallreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (const int e = mpi_impl::check_reduce(s, "MPI_Iallreduce", c, count, t, op, 0, true)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  auto sc = mpi_impl::new_schedule(s, c, "MPI_Iallreduce");
  const std::size_t bytes = static_cast<std::size_t>(count) * mpi_impl::unit_of(t);
  std::uint8_t* acc = mpi_impl::reduce_rounds(*sc, mpi_impl::in_place(sbuf) ? rbuf : sbuf,
                                              static_cast<std::size_t>(count), t, op, 0, cm.size(), cm.me);
  mpi_impl::bcast_rounds(*sc, acc, bytes, mpi_impl::bytes_type(), 0, cm.size(), cm.me);
  sc->rounds.push_back({{}, [=] { mpi_impl::reduce_out(acc, bytes, rbuf, static_cast<std::size_t>(count), t); }});
  mpi_impl::start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

int MPI_Igather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root,
                MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  mpi_impl::TypeRef st, rt;
  if (!mpi_impl::in_place(sbuf))  // in place (the root's block already in recvbuf) the send type is not used
    if (const int e = mpi_impl::check_args(s, "MPI_Igather", c, scount, stype, root, 0, false, &st)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  if (cm.me == root)
    if (const int e = mpi_impl::check_args(s, "MPI_Igather", c, rcount, rtype, root, 0, false, &rt)) return e;
  auto sc = mpi_impl::new_schedule(s, c, "MPI_Igather");
  mpi_impl::gather_round(*sc, sbuf, static_cast<std::size_t>(scount), st, rbuf, static_cast<std::size_t>(rcount), rt,
                         root, cm.size(), cm.me);
  mpi_impl::start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

int MPI_Iscatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root,
                 MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  mpi_impl::TypeRef st, rt;
  if (!mpi_impl::in_place(rbuf))
    if (const int e = mpi_impl::check_args(s, "MPI_Iscatter", c, rcount, rtype, root, 0, false, &rt)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  if (cm.me == root)
    if (const int e = mpi_impl::check_args(s, "MPI_Iscatter", c, scount, stype, root, 0, false, &st)) return e;
  auto sc = mpi_impl::new_schedule(s, c, "MPI_Iscatter");
  mpi_impl::Round rd;
  if (cm.me != root) {
    rd.xfers.push_back(mpi_impl::recv_of(rbuf, static_cast<std::size_t>(rcount), rt, root));
  } else {
    const std::int64_t slot = scount * st->extent();
    for (int k = 0; k < cm.size(); ++k) {
      const void* at = mpi_impl::shifted(sbuf, k * slot);
      if (k != root)
        rd.xfers.push_back(mpi_impl::send_of(at, static_cast<std::size_t>(scount), st, k));
      else if (!mpi_impl::in_place(rbuf))
        mpi_impl::local_copy(at, static_cast<std::size_t>(scount), *st, rbuf, static_cast<std::size_t>(rcount), *rt);
    }
  }
  sc->rounds.push_back(std::move(rd));
  mpi_impl::start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

int MPI_Iallgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                   MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  mpi_impl::TypeRef st, rt;
  if (!mpi_impl::in_place(sbuf))
    if (const int e = mpi_impl::check_args(s, "MPI_Iallgather", c, scount, stype, 0, 0, false, &st)) return e;
  if (const int e = mpi_impl::check_args(s, "MPI_Iallgather", c, rcount, rtype, 0, 0, false, &rt)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  auto sc = mpi_impl::new_schedule(s, c, "MPI_Iallgather");
  // Gather at 0, then its broadcast; in place, a rank's block is already in rbuf.
  const void* mine = sbuf;
  if (mpi_impl::in_place(sbuf) && cm.me != 0) {
    mine = mpi_impl::shifted(rbuf, static_cast<std::int64_t>(cm.me) * rcount * rt->extent());
    st = rt;
    scount = rcount;
  }
  mpi_impl::gather_round(*sc, mine, static_cast<std::size_t>(scount), st, rbuf, static_cast<std::size_t>(rcount), rt, 0,
                         cm.size(), cm.me);
  mpi_impl::bcast_rounds(*sc, rbuf, static_cast<std::size_t>(rcount) * static_cast<std::size_t>(cm.size()), rt, 0,
                         cm.size(), cm.me);
  mpi_impl::start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

int MPI_Ialltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  mpi_impl::TypeRef st, rt;
  const bool inplace = mpi_impl::in_place(sbuf);  // the send count and type are then not used
  if (!inplace)
    if (const int e = mpi_impl::check_args(s, "MPI_Ialltoall", c, scount, stype, 0, 0, false, &st)) return e;
  if (const int e = mpi_impl::check_args(s, "MPI_Ialltoall", c, rcount, rtype, 0, 0, false, &rt)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  const int n = cm.size();
  auto sc = mpi_impl::new_schedule(s, c, "MPI_Ialltoall");
  if (inplace) {  // the blocks sent are a copy of what rbuf holds now, packed: rcount elements of rtype each
    auto& copy = sc->temp.emplace_back(static_cast<std::size_t>(n) * static_cast<std::size_t>(rcount) * rt->size);
    if (!copy.empty())
      mpi_impl::pack(*rt, rbuf, static_cast<std::size_t>(n) * static_cast<std::size_t>(rcount), copy.data());
    sbuf = copy.data();
    scount = rcount * static_cast<int>(rt->size);
    st = mpi_impl::bytes_type();
  }
  const std::int64_t sslot = scount * st->extent(), rslot = rcount * rt->extent();
  mpi_impl::Round rd;  // pairwise order, as MPI_Alltoall
  for (int k = 0; k < n; ++k) {
    const int from = (cm.me - k + n) % n;
    rd.xfers.push_back(
        mpi_impl::recv_of(mpi_impl::shifted(rbuf, from * rslot), static_cast<std::size_t>(rcount), rt, from));
  }
  for (int k = 0; k < n; ++k) {
    const int to = (cm.me + k) % n;
    rd.xfers.push_back(
        mpi_impl::send_of(mpi_impl::shifted(sbuf, to * sslot), static_cast<std::size_t>(scount), st, to));
  }
  sc->rounds.push_back(std::move(rd));
  mpi_impl::start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

}  // extern "C"

// ---- groups and intercommunicators (MPI 4.0, 7.3-7.6) ----

extern "C" {

int MPI_Comm_group(MPI_Comm c, MPI_Group* g) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Comm_group", &err);
  if (!cm) return err;
  *g = mpi_impl::add_group(s, mpi_impl::members_of(*cm));
  return MPI_SUCCESS;
}

int MPI_Comm_remote_group(MPI_Comm c, MPI_Group* g) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Comm_remote_group", &err);
  if (!cm) return err;
  if (!cm->inter)
    return mpi_impl::error(c, MPI_ERR_COMM, "MPI_Comm_remote_group",
                           fmt::format("communicator {} is not an intercommunicator", c));
  *g = mpi_impl::add_group(s, cm->remote);
  return MPI_SUCCESS;
}

int MPI_Group_size(MPI_Group g, int* size) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  const auto* grp = mpi_impl::group_of(s, g, "MPI_Group_size", &err);
  if (!grp) return err;
  *size = static_cast<int>(grp->size());
  return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group g, int* rank) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  const auto* grp = mpi_impl::group_of(s, g, "MPI_Group_rank", &err);
  if (!grp) return err;
  const int r = mpi_impl::rank_in(*grp, s.world);
  *rank = r < 0 ? MPI_UNDEFINED : r;
  return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group g1, int n, const int ranks1[], MPI_Group g2, int ranks2[]) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  const auto* a = mpi_impl::group_of(s, g1, "MPI_Group_translate_ranks", &err);
  if (!a) return err;
  const auto* b = mpi_impl::group_of(s, g2, "MPI_Group_translate_ranks", &err);
  if (!b) return err;
  for (int i = 0; i < n; ++i) {
    const int r = ranks1[i];
    if (r == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    if (r < 0 || r >= static_cast<int>(a->size()))
      return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_RANK, "MPI_Group_translate_ranks",
                             fmt::format("rank {} of a group of {}", r, a->size()));
    const int t = mpi_impl::rank_in(*b, (*a)[static_cast<std::size_t>(r)]);
    ranks2[i] = t < 0 ? MPI_UNDEFINED : t;
  }
  return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group g1, MPI_Group g2, int* result) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  const auto* a = mpi_impl::group_of(s, g1, "MPI_Group_compare", &err);
  if (!a) return err;
  const auto* b = mpi_impl::group_of(s, g2, "MPI_Group_compare", &err);
  if (!b) return err;
  auto sa = *a, sb = *b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  *result = *a == *b ? MPI_IDENT : sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
  return MPI_SUCCESS;
}

}  // extern "C"

namespace hopsim::bgq {
namespace {
// The ranks `ranks` name in a group of `n`: each in range and named once; "" or what is wrong.
std::string check_ranks(int n, int count, const int* ranks) {
  if (count < 0 || count > n) return fmt::format("{} ranks of a group of {}", count, n);
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < count; ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= n) return fmt::format("rank {} of a group of {}", r, n);
    if (seen[static_cast<std::size_t>(r)]++) return fmt::format("rank {} named twice", r);
  }
  return {};
}

// The ranks of the triplets (first, last, stride) of MPI_Group_range_incl/excl, or "" in *why and nothing.
// NOLINTNEXTLINE(modernize-avoid-c-arrays): MPI's triplets
std::vector<int> range_ranks(int n, int count, const int ranges[][3], std::string* why) {
  std::vector<int> out;
  for (int i = 0; i < count; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0 || first < 0 || first >= n || last < 0 || last >= n || (last - first) / stride < 0) {
      *why = fmt::format("range ({}, {}, {}) of a group of {}", first, last, stride, n);
      return {};
    }
    for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) out.push_back(r);
  }
  if (const std::string bad = check_ranks(n, static_cast<int>(out.size()), out.data()); !bad.empty()) {
    *why = bad;
    return {};
  }
  return out;
}

std::vector<int> pick(const std::vector<int>& g, const std::vector<int>& ranks) {
  std::vector<int> out;
  out.reserve(ranks.size());
  for (const int r : ranks) out.push_back(g[static_cast<std::size_t>(r)]);
  return out;
}

std::vector<int> all_but(const std::vector<int>& g, const std::vector<int>& ranks) {
  std::vector<char> drop(g.size(), 0);
  for (const int r : ranks) drop[static_cast<std::size_t>(r)] = 1;
  std::vector<int> out;
  for (std::size_t i = 0; i < g.size(); ++i)
    if (!drop[i]) out.push_back(g[i]);
  return out;
}

// MPI_Group_incl/excl: a new group of g's ranks `ranks` (or of all the others).
int subgroup(const char* fn, MPI_Group g, const std::vector<int>& ranks, const std::string& bad, bool exclude,
             MPI_Group* out) {
  auto& s = mpi();
  int err = MPI_SUCCESS;
  const auto* grp = group_of(s, g, fn, &err);
  if (!grp) return err;
  if (!bad.empty()) return error(MPI_COMM_WORLD, MPI_ERR_RANK, fn, bad);
  *out = add_group(s, exclude ? all_but(*grp, ranks) : pick(*grp, ranks));
  return MPI_SUCCESS;
}

// MPI_Group_union/intersection/difference: a's members kept by keep(in b), then (union) b's not in a.
template <class Keep>
int combine_groups(const char* fn, MPI_Group g1, MPI_Group g2, Keep keep, bool add_b, MPI_Group* out) {
  auto& s = mpi();
  int err = MPI_SUCCESS;
  const auto* a = group_of(s, g1, fn, &err);
  if (!a) return err;
  const auto* b = group_of(s, g2, fn, &err);
  if (!b) return err;
  std::vector<int> r;
  for (const int w : *a)
    if (keep(rank_in(*b, w) >= 0)) r.push_back(w);
  if (add_b)
    for (const int w : *b)
      if (rank_in(*a, w) < 0) r.push_back(w);
  *out = add_group(s, std::move(r));
  return MPI_SUCCESS;
}
}  // namespace
}  // namespace hopsim::bgq

extern "C" {

int MPI_Group_incl(MPI_Group g, int n, const int ranks[], MPI_Group* out) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  const auto* grp = mpi_impl::group_of(s, g, "MPI_Group_incl", &err);
  if (!grp) return err;
  const std::string bad = mpi_impl::check_ranks(static_cast<int>(grp->size()), n, ranks);
  return mpi_impl::subgroup("MPI_Group_incl", g, bad.empty() ? std::vector<int>(ranks, ranks + n) : std::vector<int>{},
                            bad, false, out);
}

int MPI_Group_excl(MPI_Group g, int n, const int ranks[], MPI_Group* out) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  const auto* grp = mpi_impl::group_of(s, g, "MPI_Group_excl", &err);
  if (!grp) return err;
  const std::string bad = mpi_impl::check_ranks(static_cast<int>(grp->size()), n, ranks);
  return mpi_impl::subgroup("MPI_Group_excl", g, bad.empty() ? std::vector<int>(ranks, ranks + n) : std::vector<int>{},
                            bad, true, out);
}

int MPI_Group_range_incl(MPI_Group g, int n, int ranges[][3], MPI_Group* out) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  const auto* grp = mpi_impl::group_of(s, g, "MPI_Group_range_incl", &err);
  if (!grp) return err;
  std::string bad;
  auto ranks = mpi_impl::range_ranks(static_cast<int>(grp->size()), n, ranges, &bad);
  return mpi_impl::subgroup("MPI_Group_range_incl", g, ranks, bad, false, out);
}

int MPI_Group_range_excl(MPI_Group g, int n, int ranges[][3], MPI_Group* out) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  const auto* grp = mpi_impl::group_of(s, g, "MPI_Group_range_excl", &err);
  if (!grp) return err;
  std::string bad;
  auto ranks = mpi_impl::range_ranks(static_cast<int>(grp->size()), n, ranges, &bad);
  return mpi_impl::subgroup("MPI_Group_range_excl", g, ranks, bad, true, out);
}

int MPI_Group_union(MPI_Group g1, MPI_Group g2, MPI_Group* out) {
  return mpi_impl::combine_groups(
      "MPI_Group_union", g1, g2, [](bool) { return true; }, true, out);
}

int MPI_Group_intersection(MPI_Group g1, MPI_Group g2, MPI_Group* out) {
  return mpi_impl::combine_groups(
      "MPI_Group_intersection", g1, g2, [](bool in_b) { return in_b; }, false, out);
}

int MPI_Group_difference(MPI_Group g1, MPI_Group g2, MPI_Group* out) {
  return mpi_impl::combine_groups(
      "MPI_Group_difference", g1, g2, [](bool in_b) { return !in_b; }, false, out);
}

int MPI_Group_free(MPI_Group* g) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  if (!g || !mpi_impl::group_of(s, *g, "MPI_Group_free", &err)) return g ? err : MPI_ERR_GROUP;
  if (*g != MPI_GROUP_EMPTY) {
    s.group_live[static_cast<std::size_t>(*g)] = 0;
    s.groups[static_cast<std::size_t>(*g)] = {};
  }
  *g = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_compare(MPI_Comm c1, MPI_Comm c2, int* result) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* a = mpi_impl::get_comm(s, c1, "MPI_Comm_compare", &err);
  if (!a) return err;
  const mpi_impl::Comm* b = mpi_impl::get_comm(s, c2, "MPI_Comm_compare", &err);
  if (!b) return err;
  auto ma = mpi_impl::members_of(*a), mb = mpi_impl::members_of(*b);
  const bool same_order = ma == mb && a->inter == b->inter && a->remote == b->remote;
  std::sort(ma.begin(), ma.end());
  std::sort(mb.begin(), mb.end());
  *result = c1 == c2                           ? MPI_IDENT
            : same_order                       ? MPI_CONGRUENT
            : ma == mb && a->inter == b->inter ? MPI_SIMILAR
                                               : MPI_UNEQUAL;
  return MPI_SUCCESS;
}

// Collective over `c`: the members of `g` (a subgroup of c) get a communicator of it, the others MPI_COMM_NULL.
int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Comm_create";
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Comm_create", &err);
  if (!cm) return err;
  const auto* grp = mpi_impl::group_of(s, g, "MPI_Comm_create", &err);
  if (!grp) return err;
  const std::vector<int> members = *grp, parent = mpi_impl::members_of(*cm);
  if (cm->inter) {
    for (const int w : members)
      if (mpi_impl::rank_in(parent, w) < 0)
        return mpi_impl::error(c, MPI_ERR_GROUP, "MPI_Comm_create",
                               fmt::format("world rank {} of the group is not in the local group of {}", w, c));
    *out = mpi_impl::create_inter(s, c, members);
    return MPI_SUCCESS;
  }
  const bool fatal = cm->fatal;
  for (const int w : members)
    if (mpi_impl::rank_in(parent, w) < 0)
      return mpi_impl::error(c, MPI_ERR_GROUP, "MPI_Comm_create",
                             fmt::format("world rank {} of the group is not in communicator {}", w, c));
  const std::uint16_t ctx = mpi_impl::agree_context(s, c);
  const int me = mpi_impl::rank_in(members, s.world);
  if (me < 0) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  mpi_impl::Comm d;
  d.context = ctx;
  d.n = static_cast<int>(members.size());
  d.members = members;
  d.me = me;
  d.fatal = fatal;
  *out = mpi_impl::add_comm(s, std::move(d));
  return MPI_SUCCESS;
}

// Collective over the members of `g` only (MPI 4.0, 7.4.2): its rank 0 gathers every member's next context
// on c's collective context (tag: the user's), takes the highest and sends it back.
int MPI_Comm_create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Comm_create_group";
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_intra(s, c, "MPI_Comm_create_group", &err);
  if (!cm) return err;
  const auto* grp = mpi_impl::group_of(s, g, "MPI_Comm_create_group", &err);
  if (!grp) return err;
  const std::vector<int> members = *grp, parent = mpi_impl::members_of(*cm);
  const bool fatal = cm->fatal;
  const int me = mpi_impl::rank_in(members, s.world);
  if (me < 0) return mpi_impl::error(c, MPI_ERR_GROUP, "MPI_Comm_create_group", "the calling rank is not in the group");
  std::vector<int> at;  // each member's rank in c
  for (const int w : members) {
    at.push_back(mpi_impl::rank_in(parent, w));
    if (at.back() < 0)
      return mpi_impl::error(c, MPI_ERR_GROUP, "MPI_Comm_create_group",
                             fmt::format("world rank {} of the group is not in communicator {}", w, c));
  }
  const int t = mpi_impl::kCreateGroupTag + (tag & 0xFFFFFF);
  std::int32_t ctx = mpi_impl::context_above_used(s);
  const auto bytes = mpi_impl::bytes_type();
  if (me == 0) {
    for (std::size_t i = 1; i < members.size(); ++i) {
      std::int32_t other = 0;
      mpi_impl::coll_recv(s, &other, sizeof other, bytes, at[i], c, t);
      ctx = std::max(ctx, other);
    }
    for (std::size_t i = 1; i < members.size(); ++i) mpi_impl::coll_send(s, &ctx, sizeof ctx, bytes, at[i], c, t);
  } else {
    mpi_impl::coll_send(s, &ctx, sizeof ctx, bytes, at[0], c, t);
    mpi_impl::coll_recv(s, &ctx, sizeof ctx, bytes, at[0], c, t);
  }
  mpi_impl::check_context(ctx);
  mpi_impl::Comm d;
  d.context = static_cast<std::uint16_t>(ctx);
  d.n = static_cast<int>(members.size());
  d.members = members;
  d.me = me;
  d.fatal = fatal;
  *out = mpi_impl::add_comm(s, std::move(d));
  return MPI_SUCCESS;
}

// Collective over both groups: the leaders exchange their groups and contexts through `peer` (on its collective
// context, with the user's tag), then each broadcasts the other group to its own.
int MPI_Intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader, int tag, MPI_Comm* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Intercomm_create";
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_intra(s, local, "MPI_Intercomm_create", &err);
  if (!cm) return err;
  if (local_leader < 0 || local_leader >= cm->size())
    return mpi_impl::error(local, MPI_ERR_RANK, "MPI_Intercomm_create",
                           fmt::format("local leader {} of a communicator of {}", local_leader, cm->size()));
  const std::vector<int> mine = mpi_impl::members_of(*cm);
  const int me = cm->me;
  const bool fatal = cm->fatal;
  std::int32_t ctx = mpi_impl::context_above_used(s);
  mpi_impl::reduce(s, &ctx, 1, MPI_INT, MPI_MAX, local_leader, local);
  std::vector<std::int32_t> got;  // the agreed context, then the remote group
  if (me == local_leader) {
    const mpi_impl::Comm* pc = mpi_impl::get_comm(s, peer, "MPI_Intercomm_create", &err);
    if (!pc) return err;
    if (remote_leader < 0 || remote_leader >= pc->peers())
      return mpi_impl::error(peer, MPI_ERR_RANK, "MPI_Intercomm_create",
                             fmt::format("remote leader {} of a communicator of {}", remote_leader, pc->peers()));
    std::vector<std::int32_t> info{ctx};
    info.insert(info.end(), mine.begin(), mine.end());
    got = mpi_impl::swap_with(s, peer, remote_leader, mpi_impl::kInterTag + (tag & 0xFFFFFF), info);
    if (got.size() < 2) mpi_impl::fail("MPI_Intercomm_create: the remote leader sent no group");
    got[0] = std::max(got[0], ctx);
  }
  mpi_impl::bcast_ints(s, got, local_leader, local);
  mpi_impl::check_context(got[0]);
  *out = mpi_impl::add_inter(s, mine, std::vector<int>(got.begin() + 1, got.end()), me,
                             static_cast<std::uint16_t>(got[0]), fatal);
  return MPI_SUCCESS;
}

// The group that passes high = 0 comes first (both the same: the group whose leader has the lower world rank).
int MPI_Intercomm_merge(MPI_Comm c, int high, MPI_Comm* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  s.coll = "MPI_Intercomm_merge";
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Intercomm_merge", &err);
  if (!cm) return err;
  if (!cm->inter)
    return mpi_impl::error(c, MPI_ERR_COMM, "MPI_Intercomm_merge",
                           fmt::format("communicator {} is not an intercommunicator", c));
  const mpi_impl::Comm parent = *cm;
  std::vector<std::int32_t> theirs;
  const std::uint16_t ctx = mpi_impl::agree_inter(s, c, {high ? 1 : 0, parent.members[0]}, &theirs);
  // Every member follows its leader's high (MPI wants one value per group).
  std::vector<std::int32_t> mine{high ? 1 : 0};
  mpi_impl::bcast(s, mine.data(), 4, mpi_impl::bytes_type(), 0, parent.local);
  const bool first = mine[0] != theirs.at(0) ? mine[0] == 0 : parent.members[0] < theirs.at(1);
  mpi_impl::Comm d;
  d.context = ctx;
  d.fatal = parent.fatal;
  d.members = first ? parent.members : parent.remote;
  const auto& second = first ? parent.remote : parent.members;
  d.members.insert(d.members.end(), second.begin(), second.end());
  d.n = static_cast<int>(d.members.size());
  d.me = (first ? 0 : static_cast<int>(parent.remote.size())) + parent.me;
  *out = mpi_impl::add_comm(s, std::move(d));
  return MPI_SUCCESS;
}

int MPI_Comm_test_inter(MPI_Comm c, int* flag) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Comm_test_inter", &err);
  if (!cm) return err;
  *flag = cm->inter ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Comm_remote_size(MPI_Comm c, int* size) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Comm_remote_size", &err);
  if (!cm) return err;
  if (!cm->inter)
    return mpi_impl::error(c, MPI_ERR_COMM, "MPI_Comm_remote_size",
                           fmt::format("communicator {} is not an intercommunicator", c));
  *size = static_cast<int>(cm->remote.size());
  return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm c, const char* name) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  if (!mpi_impl::get_comm(s, c, "MPI_Comm_set_name", &err)) return err;
  s.comms[static_cast<std::size_t>(c)].name = std::string(name).substr(0, MPI_MAX_OBJECT_NAME - 1);
  return MPI_SUCCESS;
}

// MPI_COMM_WORLD and MPI_COMM_SELF are named so; any other is "" until named.
int MPI_Comm_get_name(MPI_Comm c, char* name, int* len) {
  auto& s = mpi_impl::mpi();
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Comm_get_name", &err);
  if (!cm) return err;
  std::string n = cm->name;
  if (n.empty() && c == MPI_COMM_WORLD) n = "MPI_COMM_WORLD";
  if (n.empty() && c == MPI_COMM_SELF) n = "MPI_COMM_SELF";
  std::snprintf(name, MPI_MAX_OBJECT_NAME, "%s", n.c_str());
  *len = static_cast<int>(n.size());
  return MPI_SUCCESS;
}

}  // extern "C"

// ---- persistent requests, cancellation, buffered sends (MPI 4.0, 3.6, 3.8.4, 3.9) ----

namespace hopsim::bgq {
namespace {
// Frees the attached buffer's share of every buffered send that has gone.
void reap_bsends(MpiState& s) {
  for (auto it = s.bsends.begin(); it != s.bsends.end();) {
    MPI_Request r = it->first;
    if (!s.reqs[static_cast<std::size_t>(r)]->done) {
      ++it;
      continue;
    }
    s.bsend_used -= it->second;
    release(s, &r);
    it = s.bsends.erase(it);
  }
}

// A buffered send: the data copied into a request of MPI's own, which the attached buffer accounts for.
// *own: the request of MPI's own that sends the copy (-1 for MPI_PROC_NULL).
int start_bsend(MpiState& s, const char* fn, const void* buf, std::size_t count, const TypeRef& t, int dest, int tag,
                MPI_Comm c, int* own = nullptr) {
  if (own) *own = -1;
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  progress(s);
  reap_bsends(s);
  const std::size_t bytes = count * t->size, need = bytes + MPI_BSEND_OVERHEAD;
  if (s.bsend_used + need > s.bsend_size)
    return error(c, MPI_ERR_BUFFER, fn,
                 fmt::format("a buffered message of {} bytes needs {} bytes of the attached buffer, which has {} of "
                             "{} bytes free",
                             bytes, need, s.bsend_size - s.bsend_used, s.bsend_size));
  std::vector<std::uint8_t> copy(bytes);
  if (t->contiguous()) {
    if (bytes > 0) std::memcpy(copy.data(), data_start(buf, *t), bytes);
  } else {
    pack(*t, buf, count, copy.data());
  }
  MPI_Request r = MPI_REQUEST_NULL;
  start_send(s, copy.data(), bytes, *bytes_type(), dest, tag, c, false, 0, &r);
  s.reqs[static_cast<std::size_t>(r)]->pack = std::move(copy);  // the buffer a remote get reads stays where it is
  s.bsends.emplace_back(r, need);
  s.bsend_used += need;
  if (own) *own = r;
  return MPI_SUCCESS;
}

// A buffered send's request for the user: done once the data is copied; it names the message (and the
// request sending it, `own`), so that MPI_Cancel can ask the receiver to remove it.
MPI_Request done_request(MpiState& s, MPI_Comm c, int own = -1) {
  const int id = new_request(s);
  auto& q = *s.reqs[static_cast<std::size_t>(id)];
  q.send = true;
  q.done = true;
  q.comm = c;
  if (own >= 0) {
    const auto& o = *s.reqs[static_cast<std::size_t>(own)];
    q.dest_world = o.dest_world;
    q.seq = o.seq;
    q.link = own;
  }
  return id;
}

int init_request(const char* fn, Request::Kind kind, const void* buf, int count, MPI_Datatype t, int peer, int tag,
                 MPI_Comm c, MPI_Request* r) {
  auto& s = mpi();
  const Entered entered(s);
  TypeRef ti;
  if (const int e = check_args(s, fn, c, count, t, peer, tag, kind == Request::kRecv, &ti, true)) return e;
  const int id = new_request(s);
  auto& q = *s.reqs[static_cast<std::size_t>(id)];
  q.persistent = true;
  q.kind = kind;
  q.send = kind != Request::kRecv;
  q.pbuf = const_cast<void*>(buf);  // NOLINT(cppcoreguidelines-pro-type-const-cast): a send's buffer is only read
  q.pcount = static_cast<std::size_t>(count);
  q.ptype = ti;
  q.src = peer;
  q.tag = tag;
  q.comm = c;
  *r = id;
  return MPI_SUCCESS;
}

int start_request(MpiState& s, MPI_Request* r, const char* fn) {
  if (!r || !valid_request(s, *r) || !s.reqs[static_cast<std::size_t>(*r)]->persistent)
    return error(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn,
                 fmt::format("request {} is not a persistent request", r ? *r : MPI_REQUEST_NULL));
  auto& q = *s.reqs[static_cast<std::size_t>(*r)];
  if (q.inner >= 0)
    return error(q.comm, MPI_ERR_REQUEST, fn, fmt::format("request {} is active already (started, not completed)", *r));
  if (!comm_of(s, q.comm))
    return error(MPI_COMM_WORLD, MPI_ERR_COMM, fn, fmt::format("communicator {} was freed", q.comm));
  MPI_Request in = MPI_REQUEST_NULL;
  switch (q.kind) {
    case Request::kColl: {
      s.nbc_tag = q.coll_tag;
      const int e = q.starter(&in);
      s.nbc_tag = -1;
      if (e) return e;
      break;
    }
    case Request::kRecv:
      start_recv(s, q.pbuf, q.pcount, q.ptype, q.src, q.tag, q.comm, 0, &in);
      break;
    case Request::kBsend: {
      int own = -1;
      if (const int e = start_bsend(s, fn, q.pbuf, q.pcount, q.ptype, q.src, q.tag, q.comm, &own)) return e;
      in = done_request(s, q.comm, own);
      break;
    }
    default:
      if (const int e =
              start_send(s, q.pbuf, q.pcount, *q.ptype, q.src, q.tag, q.comm, q.kind == Request::kSsend, 0, &in))
        return e;
  }
  s.reqs[static_cast<std::size_t>(*r)]->inner = in;
  return MPI_SUCCESS;
}
}  // namespace
}  // namespace hopsim::bgq

extern "C" {

int MPI_Send_init(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  return mpi_impl::init_request("MPI_Send_init", mpi_impl::Request::kSend, buf, count, t, dest, tag, c, r);
}

int MPI_Ssend_init(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  return mpi_impl::init_request("MPI_Ssend_init", mpi_impl::Request::kSsend, buf, count, t, dest, tag, c, r);
}

// A ready send is a standard send (as MPI_Rsend).
int MPI_Rsend_init(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  return mpi_impl::init_request("MPI_Rsend_init", mpi_impl::Request::kSend, buf, count, t, dest, tag, c, r);
}

int MPI_Bsend_init(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  return mpi_impl::init_request("MPI_Bsend_init", mpi_impl::Request::kBsend, buf, count, t, dest, tag, c, r);
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm c, MPI_Request* r) {
  return mpi_impl::init_request("MPI_Recv_init", mpi_impl::Request::kRecv, buf, count, t, source, tag, c, r);
}

int MPI_Start(MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  return mpi_impl::start_request(s, r, "MPI_Start");
}

int MPI_Startall(int count, MPI_Request rs[]) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  for (int i = 0; i < count; ++i)
    if (const int e = mpi_impl::start_request(s, &rs[i], "MPI_Startall")) return e;
  return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (!r || !mpi_impl::valid_request(s, *r))
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free",
                           fmt::format("request {} is not active", r ? *r : MPI_REQUEST_NULL));
  auto& q = *s.reqs[static_cast<std::size_t>(*r)];
  // A persistent request's operation under way, or an active request, completes on its own; its slot stays.
  const MPI_Request own = q.persistent ? q.inner : *r;
  if (own >= 0 && s.reqs[static_cast<std::size_t>(own)]->done && !s.reqs[static_cast<std::size_t>(own)]->cancel_wait) {
    MPI_Request x = own;
    mpi_impl::release(s, &x);
  }
  if (own >= 0 && s.reqs[static_cast<std::size_t>(own)]->active) s.reqs[static_cast<std::size_t>(own)]->orphan = true;
  if (q.persistent) {
    MPI_Request x = *r;
    mpi_impl::release(s, &x);
  }
  *r = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (!r || !mpi_impl::valid_request(s, *r))
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Cancel",
                           fmt::format("request {} is not active", r ? *r : MPI_REQUEST_NULL));
  const auto& p = *s.reqs[static_cast<std::size_t>(*r)];
  const int id = p.persistent ? p.inner : *r;
  if (id < 0) return MPI_SUCCESS;
  auto& q = *s.reqs[static_cast<std::size_t>(id)];
  if (q.send && !q.coll) {  // the receiver removes the message if no receive has matched it yet, and answers
    if (q.dest_world >= 0 && !q.cancel_wait && !q.cancelled) {
      q.cancel_wait = true;
      std::array<std::uint32_t, 4> ask{static_cast<std::uint32_t>(id), mpi_impl::kCancelAsk, q.seq,
                                       static_cast<std::uint32_t>(s.world)};
      mpi_impl::send_fifo(s, q.dest_world, mpi_impl::kAckFn, 0, mpi_impl::bytes_of(ask));
    }
    return MPI_SUCCESS;
  }
  const auto it = std::find(s.posted.begin(), s.posted.end(), id);
  if (q.coll || q.done || it == s.posted.end()) return MPI_SUCCESS;  // matched already: not cancelled
  s.posted.erase(it);
  q.status = {q.src, q.tag, MPI_SUCCESS, 0, 1};
  q.done = true;
  return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status* st, int* flag) {
  *flag = st && st->hopsim_cancelled ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Buffer_attach(void* buf, int size) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  if (s.bsend_buf)
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_BUFFER, "MPI_Buffer_attach", "a buffer is attached already");
  if (size < 0 || (!buf && size > 0))
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_BUFFER, "MPI_Buffer_attach", fmt::format("size {}", size));
  s.bsend_buf = buf ? buf : &s;
  s.bsend_size = static_cast<std::size_t>(size);
  return MPI_SUCCESS;
}

// Waits until every buffered message has gone, then hands the buffer back.
int MPI_Buffer_detach(void* addr, int* size) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  mpi_impl::wait_for(
      s,
      [&] {
        mpi_impl::reap_bsends(s);
        return s.bsends.empty();
      },
      "MPI_Buffer_detach");
  void* buf = s.bsend_buf == &s ? nullptr : s.bsend_buf;
  std::memcpy(addr, &buf, sizeof buf);  // addr is a void** passed as void* (MPI 4.0, 3.6.1)
  *size = static_cast<int>(s.bsend_size);
  s.bsend_buf = nullptr;
  s.bsend_size = 0;
  return MPI_SUCCESS;
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  mpi_impl::TypeRef ti;
  if (const int e = mpi_impl::check_args(s, "MPI_Bsend", c, count, t, dest, tag, false, &ti, true)) return e;
  return mpi_impl::start_bsend(s, "MPI_Bsend", buf, static_cast<std::size_t>(count), ti, dest, tag, c);
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  mpi_impl::TypeRef ti;
  if (const int e = mpi_impl::check_args(s, "MPI_Ibsend", c, count, t, dest, tag, false, &ti, true)) return e;
  int own = -1;
  if (const int e =
          mpi_impl::start_bsend(s, "MPI_Ibsend", buf, static_cast<std::size_t>(count), ti, dest, tag, c, &own))
    return e;
  *r = mpi_impl::done_request(s, c, own);
  return MPI_SUCCESS;
}

}  // extern "C"

// ---- persistent collectives (MPI 4.0, 6.13), MPI_Info (MPI 4.0, 10) ----

namespace hopsim::bgq {
namespace {
// A persistent collective: MPI_Start calls `start`, the non-blocking collective with the init call's arguments.
int init_collective(MPI_Comm c, MPI_Info info, const char* fn, std::function<int(MPI_Request*)> start, MPI_Request* r) {
  auto& s = mpi();
  const Entered entered(s);
  int err = MPI_SUCCESS;
  if (!get_intra(s, c, fn, &err)) return err;
  if (info != MPI_INFO_NULL &&
      (info < 0 || static_cast<std::size_t>(info) >= s.infos.size() || !s.info_live[static_cast<std::size_t>(info)]))
    return error(c, MPI_ERR_INFO, fn, fmt::format("info {} does not exist or was freed", info));
  const int id = new_request(s);
  auto& q = *s.reqs[static_cast<std::size_t>(id)];
  q.persistent = true;
  q.kind = Request::kColl;
  q.coll = true;
  q.comm = c;
  q.starter = std::move(start);
  q.coll_tag = kNbcTag + static_cast<int>(s.comms[static_cast<std::size_t>(c)].nbc_seq++ % 0x100000);
  *r = id;
  return MPI_SUCCESS;
}

// The key/value pairs of info `i` of `fn`, or null with *err set.
std::vector<std::pair<std::string, std::string>>* info_of(MpiState& s, MPI_Info i, const char* fn, int* err) {
  if (i < 0 || static_cast<std::size_t>(i) >= s.infos.size() || !s.info_live[static_cast<std::size_t>(i)]) {
    *err = error(MPI_COMM_WORLD, MPI_ERR_INFO, fn, fmt::format("info {} does not exist or was freed", i));
    return nullptr;
  }
  return &s.infos[static_cast<std::size_t>(i)];
}

MPI_Info add_info(MpiState& s, std::vector<std::pair<std::string, std::string>> kv) {
  s.infos.push_back(std::move(kv));
  s.info_live.push_back(1);
  return static_cast<MPI_Info>(s.infos.size() - 1);
}
}  // namespace
}  // namespace hopsim::bgq

extern "C" {

int MPI_Barrier_init(MPI_Comm c, MPI_Info info, MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Barrier_init", [=](MPI_Request* q) { return MPI_Ibarrier(c, q); }, r);
}

int MPI_Bcast_init(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c, MPI_Info info, MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Bcast_init", [=](MPI_Request* q) { return MPI_Ibcast(buf, count, t, root, c, q); }, r);
}

int MPI_Reduce_init(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
                    MPI_Info info, MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Reduce_init", [=](MPI_Request* q) { return MPI_Ireduce(sbuf, rbuf, count, t, op, root, c, q); }, r);
}

int MPI_Allreduce_init(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Info info,
                       MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Allreduce_init", [=](MPI_Request* q) { return MPI_Iallreduce(sbuf, rbuf, count, t, op, c, q); }, r);
}

int MPI_Gather_init(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                    int root, MPI_Comm c, MPI_Info info, MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Gather_init",
      [=](MPI_Request* q) { return MPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, c, q); }, r);
}

int MPI_Scatter_init(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                     int root, MPI_Comm c, MPI_Info info, MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Scatter_init",
      [=](MPI_Request* q) { return MPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, c, q); }, r);
}

int MPI_Allgather_init(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                       MPI_Comm c, MPI_Info info, MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Allgather_init",
      [=](MPI_Request* q) { return MPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, c, q); }, r);
}

int MPI_Alltoall_init(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                      MPI_Comm c, MPI_Info info, MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Alltoall_init",
      [=](MPI_Request* q) { return MPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, c, q); }, r);
}

int MPI_Info_create(MPI_Info* info) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  *info = mpi_impl::add_info(s, {});
  return MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info info, const char* key, const char* value) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  auto* kv = mpi_impl::info_of(s, info, "MPI_Info_set", &err);
  if (!kv) return err;
  const std::string k(key), v(value);
  if (k.empty() || k.size() >= MPI_MAX_INFO_KEY)
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_INFO_KEY, "MPI_Info_set", fmt::format("key '{}'", k));
  if (v.size() >= MPI_MAX_INFO_VAL)
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, "MPI_Info_set",
                           fmt::format("a value of {} characters", v.size()));
  for (auto& [have, val] : *kv)
    if (have == k) {
      val = v;
      return MPI_SUCCESS;
    }
  kv->emplace_back(k, v);
  return MPI_SUCCESS;
}

int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  auto* kv = mpi_impl::info_of(s, info, "MPI_Info_get", &err);
  if (!kv) return err;
  *flag = 0;
  for (const auto& [k, v] : *kv)
    if (k == key) {
      *flag = 1;
      const std::size_t n = std::min(v.size(), static_cast<std::size_t>(std::max(valuelen, 0)));
      std::memcpy(value, v.data(), n);
      value[n] = '\0';
    }
  return MPI_SUCCESS;
}

int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  auto* kv = mpi_impl::info_of(s, info, "MPI_Info_get_valuelen", &err);
  if (!kv) return err;
  *flag = 0;
  for (const auto& [k, v] : *kv)
    if (k == key) {
      *flag = 1;
      *valuelen = static_cast<int>(v.size());
    }
  return MPI_SUCCESS;
}

int MPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  auto* kv = mpi_impl::info_of(s, info, "MPI_Info_get_nkeys", &err);
  if (!kv) return err;
  *nkeys = static_cast<int>(kv->size());
  return MPI_SUCCESS;
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  auto* kv = mpi_impl::info_of(s, info, "MPI_Info_get_nthkey", &err);
  if (!kv) return err;
  if (n < 0 || n >= static_cast<int>(kv->size()))
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Info_get_nthkey",
                           fmt::format("key {} of an info with {}", n, kv->size()));
  std::snprintf(key, MPI_MAX_INFO_KEY, "%s", (*kv)[static_cast<std::size_t>(n)].first.c_str());
  return MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info info, const char* key) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  auto* kv = mpi_impl::info_of(s, info, "MPI_Info_delete", &err);
  if (!kv) return err;
  const auto it = std::find_if(kv->begin(), kv->end(), [&](const auto& p) { return p.first == key; });
  if (it == kv->end())
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_INFO_NOKEY, "MPI_Info_delete", fmt::format("no key '{}'", key));
  kv->erase(it);
  return MPI_SUCCESS;
}

int MPI_Info_dup(MPI_Info info, MPI_Info* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  auto* kv = mpi_impl::info_of(s, info, "MPI_Info_dup", &err);
  if (!kv) return err;
  *out = mpi_impl::add_info(s, *kv);
  return MPI_SUCCESS;
}

int MPI_Info_free(MPI_Info* info) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  if (!info || !mpi_impl::info_of(s, *info, "MPI_Info_free", &err)) return info ? err : MPI_ERR_INFO;
  s.info_live[static_cast<std::size_t>(*info)] = 0;
  s.infos[static_cast<std::size_t>(*info)] = {};
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

}  // extern "C"

// ---- Sendrecv_replace, Pack/Unpack, more type constructors, attributes, versions, memory, split by type ----

extern "C" {

// A point-to-point schedule of `fn` on c (MPI_Isendrecv): it takes no collective sequence number.
static std::shared_ptr<mpi_impl::Schedule> p2p_schedule(MPI_Comm c, const char* fn) {
  auto sc = std::make_shared<mpi_impl::Schedule>();
  sc->comm = c;
  sc->fn = fn;
  sc->p2p = true;
  return sc;
}

// Starts `sc`'s one round: the receive with tag rtag and the send with tag stag.
static void start_sendrecv(MpiState& s, std::shared_ptr<mpi_impl::Schedule> sc, mpi_impl::Xfer recv, int rtag,
                           mpi_impl::Xfer send, int stag, MPI_Request* r) {
  recv.tag = rtag;
  send.tag = stag;
  sc->rounds.push_back({{std::move(recv), std::move(send)}, {}});
  mpi_impl::start_schedule(s, std::move(sc), r);
}

// MPI 4.1, 3.10: a send and a receive in one request, which completes when both have; its status is the
// receive's. A schedule of one round on the point-to-point context (it takes no collective sequence number).
int MPI_Isendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf, int rcount,
                  MPI_Datatype rtype, int source, int rtag, MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  const char* fn = "MPI_Isendrecv";
  mpi_impl::TypeRef st, rt;
  if (const int e = mpi_impl::check_args(s, fn, c, scount, stype, dest, stag, false, &st, true)) return e;
  if (const int e = mpi_impl::check_args(s, fn, c, rcount, rtype, source, rtag, true, &rt, true)) return e;
  start_sendrecv(s, p2p_schedule(c, fn), mpi_impl::recv_of(rbuf, static_cast<std::size_t>(rcount), rt, source), rtag,
                 mpi_impl::send_of(sbuf, static_cast<std::size_t>(scount), st, dest), stag, r);
  return MPI_SUCCESS;
}

// MPI_Isendrecv_replace and MPI_Sendrecv_replace (`fn`): what `buf` held is copied (packed) when the call is
// made and sent from the copy; the incoming data lands in `buf`.
static int isendrecv_replace(const char* fn, void* buf, int count, MPI_Datatype t, int dest, int stag, int source,
                             int rtag, MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  mpi_impl::TypeRef ti;
  if (const int e = mpi_impl::check_args(s, fn, c, count, t, dest, stag, false, &ti, true)) return e;
  if (const int e = mpi_impl::check_args(s, fn, c, count, t, source, rtag, true, nullptr, true)) return e;
  auto sc = p2p_schedule(c, fn);
  const auto n = static_cast<std::size_t>(count);
  auto& copy = sc->temp.emplace_back(n * ti->size);
  if (!copy.empty()) mpi_impl::pack(*ti, buf, n, copy.data());
  const auto send = mpi_impl::send_of(copy.data(), copy.size(), mpi_impl::bytes_type(), dest);
  start_sendrecv(s, std::move(sc), mpi_impl::recv_of(buf, n, ti, source), rtag, send, stag, r);
  return MPI_SUCCESS;
}

int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype t, int dest, int stag, int source, int rtag, MPI_Comm c,
                          MPI_Request* r) {
  return isendrecv_replace("MPI_Isendrecv_replace", buf, count, t, dest, stag, source, rtag, c, r);
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype t, int dest, int stag, int source, int rtag, MPI_Comm c,
                         MPI_Status* st) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (const int e = isendrecv_replace("MPI_Sendrecv_replace", buf, count, t, dest, stag, source, rtag, c, &r)) return e;
  return mpi_impl::wait_request(&r, st, "MPI_Sendrecv_replace");
}

int MPI_Pack_size(int count, MPI_Datatype t, MPI_Comm c, int* size) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  if (!mpi_impl::get_comm(s, c, "MPI_Pack_size", &err)) return err;
  const mpi_impl::TypeRef ti = mpi_impl::type_arg(s, t, "MPI_Pack_size", &err);
  if (!ti) return err;
  if (count < 0) return mpi_impl::bad_count("MPI_Pack_size", count);
  *size = static_cast<int>(static_cast<std::uint64_t>(count) * ti->size);
  return MPI_SUCCESS;
}

// The packed form is the data in typemap order (what a message of the type carries).
int MPI_Pack(const void* in, int count, MPI_Datatype t, void* out, int outsize, int* position, MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  if (!mpi_impl::get_comm(s, c, "MPI_Pack", &err)) return err;
  const mpi_impl::TypeRef ti = mpi_impl::type_arg(s, t, "MPI_Pack", &err);
  if (!ti) return err;
  if (count < 0) return mpi_impl::bad_count("MPI_Pack", count);
  const std::uint64_t bytes = static_cast<std::uint64_t>(count) * ti->size;
  if (*position < 0 || static_cast<std::uint64_t>(*position) + bytes > static_cast<std::uint64_t>(outsize))
    return mpi_impl::error(c, MPI_ERR_TRUNCATE, "MPI_Pack",
                           fmt::format("{} bytes at position {} of a {}-byte buffer", bytes, *position, outsize));
  mpi_impl::pack(*ti, in, static_cast<std::size_t>(count), static_cast<std::uint8_t*>(out) + *position);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}

int MPI_Unpack(const void* in, int insize, int* position, void* out, int count, MPI_Datatype t, MPI_Comm c) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  if (!mpi_impl::get_comm(s, c, "MPI_Unpack", &err)) return err;
  const mpi_impl::TypeRef ti = mpi_impl::type_arg(s, t, "MPI_Unpack", &err);
  if (!ti) return err;
  if (count < 0) return mpi_impl::bad_count("MPI_Unpack", count);
  const std::uint64_t bytes = static_cast<std::uint64_t>(count) * ti->size;
  if (*position < 0 || static_cast<std::uint64_t>(*position) + bytes > static_cast<std::uint64_t>(insize))
    return mpi_impl::error(c, MPI_ERR_TRUNCATE, "MPI_Unpack",
                           fmt::format("{} bytes at position {} of a {}-byte buffer", bytes, *position, insize));
  mpi_impl::unpack(*ti, static_cast<const std::uint8_t*>(in) + *position, static_cast<std::size_t>(bytes), out);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}

int MPI_Type_dup(MPI_Datatype old, MPI_Datatype* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::TypeRef o = mpi_impl::type_arg(s, old, "MPI_Type_dup", &err);
  if (!o) return err;
  auto t = std::make_shared<mpi_impl::TypeInfo>(*o);
  t->basic = MPI_DATATYPE_NULL;
  *out = mpi_impl::add_type(s, std::move(t));
  return MPI_SUCCESS;
}

// The bounds of the data itself (MPI 4.0, 5.1.8), whatever bounds were set.
int MPI_Type_get_true_extent(MPI_Datatype t, MPI_Aint* lb, MPI_Aint* extent) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::TypeRef ti = mpi_impl::type_arg(s, t, "MPI_Type_get_true_extent", &err);
  if (!ti) return err;
  if (ti->blocks.empty()) {
    *lb = 0;
    *extent = 0;
    return MPI_SUCCESS;
  }
  std::int64_t lo = ti->blocks[0].off, hi = lo;
  for (const auto& b : ti->blocks) {
    lo = std::min(lo, b.off);
    hi = std::max(hi, b.off + static_cast<std::int64_t>(b.len));
  }
  *lb = lo;
  *extent = hi - lo;
  return MPI_SUCCESS;
}

int MPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[], MPI_Datatype old,
                             MPI_Datatype* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  return mpi_impl::make_type(
      s, "MPI_Type_create_hindexed", count, old, [&](int i) { return blocklengths[i]; },
      [&](int i) { return static_cast<std::int64_t>(displacements[i]); }, false, out);
}

// The elements of a subarray of an n-dimensional array; the type's extent is the whole array's (MPI 4.0, 5.1.3).
int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                             MPI_Datatype old, MPI_Datatype* out) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  const char* fn = "MPI_Type_create_subarray";
  int err = MPI_SUCCESS;
  const mpi_impl::TypeRef o = mpi_impl::type_arg(s, old, fn, &err);
  if (!o) return err;
  if (ndims < 1 || (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN))
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, fmt::format("{} dimensions, order {}", ndims, order));
  std::vector<int> dim(static_cast<std::size_t>(ndims));  // dimensions from the slowest to the fastest
  for (int i = 0; i < ndims; ++i) {
    dim[static_cast<std::size_t>(i)] = order == MPI_ORDER_C ? i : ndims - 1 - i;
    const int d = dim[static_cast<std::size_t>(i)];
    if (sizes[d] < 1 || subsizes[d] < 1 || subsizes[d] > sizes[d] || starts[d] < 0 ||
        starts[d] > sizes[d] - subsizes[d])
      return mpi_impl::error(
          MPI_COMM_WORLD, MPI_ERR_ARG, fn,
          fmt::format("dimension {}: size {}, subsize {}, start {}", d, sizes[d], subsizes[d], starts[d]));
  }
  const std::int64_t ext = o->extent();
  std::vector<std::int64_t> stride(static_cast<std::size_t>(ndims));  // elements per step in each dimension
  std::int64_t total = 1;
  for (int i = ndims - 1; i >= 0; --i) {
    stride[static_cast<std::size_t>(i)] = total;
    total *= sizes[dim[static_cast<std::size_t>(i)]];
  }
  mpi_impl::TypeBuilder b;
  std::vector<int> at(static_cast<std::size_t>(ndims), 0);  // the row being added, per outer dimension
  const int fast = dim.back();
  for (;;) {
    std::int64_t first = starts[fast];
    for (int i = 0; i + 1 < ndims; ++i) {
      const int d = dim[static_cast<std::size_t>(i)];
      first += (starts[d] + at[static_cast<std::size_t>(i)]) * stride[static_cast<std::size_t>(i)];
    }
    b.add(*o, first * ext, static_cast<std::uint64_t>(subsizes[fast]));
    int i = ndims - 2;
    for (; i >= 0; --i) {
      if (++at[static_cast<std::size_t>(i)] < subsizes[dim[static_cast<std::size_t>(i)]]) break;
      at[static_cast<std::size_t>(i)] = 0;
    }
    if (i < 0) break;
  }
  auto t = b.done(false);
  t->lb = 0;
  t->ub = total * ext;
  t->explicit_bounds = true;
  *out = mpi_impl::add_type(s, std::move(t));
  return MPI_SUCCESS;
}

// The predefined attributes of a communicator (MPI 4.0, 11.1): *(int**)value points at the value.
int MPI_Comm_get_attr(MPI_Comm c, int keyval, void* value, int* flag) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  if (!mpi_impl::get_comm(s, c, "MPI_Comm_get_attr", &err)) return err;
  static thread_local int tag_ub = MPI_TAG_UB_VALUE, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, global = 0,
                          universe = 0, appnum = 0;
  int* v = nullptr;
  switch (keyval) {
    case MPI_TAG_UB:
      v = &tag_ub;
      break;
    case MPI_HOST:
      v = &host;
      break;
    case MPI_IO:
      v = &io;
      break;
    case MPI_WTIME_IS_GLOBAL:
      v = &global;
      break;
    case MPI_UNIVERSE_SIZE:
      universe = s.size;
      v = &universe;
      break;
    case MPI_APPNUM:
      v = &appnum;
      break;
    default:
      break;
  }
  *flag = v ? 1 : 0;
  if (v) std::memcpy(value, &v, sizeof v);
  return MPI_SUCCESS;
}

int MPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int MPI_Get_library_version(char* version, int* len) {
  const std::string v = "hopsim BG/Q MPI (MPI over the simulated messaging unit)";
  std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "%s", v.c_str());
  *len = static_cast<int>(v.size());
  return MPI_SUCCESS;
}

int MPI_Alloc_mem(MPI_Aint size, MPI_Info, void* baseptr) {
  // C memory for the program, handed back by MPI_Free_mem.
  void* p = std::malloc(size > 0 ? static_cast<std::size_t>(size) : 1);  // NOLINT(cppcoreguidelines-no-malloc)
  if (!p) return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Alloc_mem", fmt::format("{} bytes", size));
  std::memcpy(baseptr, &p, sizeof p);
  return MPI_SUCCESS;
}

int MPI_Free_mem(void* base) {
  std::free(base);  // NOLINT(cppcoreguidelines-no-malloc): MPI_Alloc_mem's memory
  return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int* commute) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  const mpi_impl::UserOp* u = op >= mpi_impl::kUserOp ? mpi_impl::user_op(op) : nullptr;
  if (op >= mpi_impl::kUserOp && !u)
    return mpi_impl::error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_commutative", fmt::format("op {}", op));
  *commute = u ? (u->commute ? 1 : 0) : 1;
  return MPI_SUCCESS;
}

// Every rank of hopsim's BG/Q machine has a node of its own: MPI_COMM_TYPE_SHARED gives each its own communicator.
int MPI_Comm_split_type(MPI_Comm c, int split_type, int key, MPI_Info, MPI_Comm* out) {
  int world = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  return MPI_Comm_split(c, split_type == MPI_COMM_TYPE_SHARED ? world : MPI_UNDEFINED, key, out);
}

int MPI_Comm_get_errhandler(MPI_Comm c, MPI_Errhandler* h) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::Comm* cm = mpi_impl::get_comm(s, c, "MPI_Comm_get_errhandler", &err);
  if (!cm) return err;
  *h = cm->fatal ? MPI_ERRORS_ARE_FATAL : MPI_ERRORS_RETURN;
  return MPI_SUCCESS;
}

int MPI_Errhandler_set(MPI_Comm c, MPI_Errhandler h) { return MPI_Comm_set_errhandler(c, h); }

int MPI_Errhandler_get(MPI_Comm c, MPI_Errhandler* h) { return MPI_Comm_get_errhandler(c, h); }

int MPI_Errhandler_free(MPI_Errhandler* h) {
  *h = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

}  // extern "C"

// ---- the non-blocking v-collectives (one round each, as the blocking calls) and their persistent forms ----

namespace hopsim::bgq {
namespace {
// Non-negative counts for each rank of `c` (null: none to check).
int check_counts(MpiState& s, const char* fn, MPI_Comm c, const int* a, const int* b) {
  const int n = s.comms[static_cast<std::size_t>(c)].size();
  for (int r = 0; r < n; ++r)
    if ((a && a[r] < 0) || (b && b[r] < 0))
      return error(c, MPI_ERR_COUNT, fn, fmt::format("a negative count for rank {}", r));
  return MPI_SUCCESS;
}

// The one round of MPI_Igatherv (gather) or MPI_Iscatterv: the root receives from (sends to) each other rank its
// block at displs[k] of `all`; every other rank sends (receives) its one block `mine`; the root's own block is
// copied unless it is in place.
void rooted_v_round(Round& rd, bool gather, void* all, const int* counts, const int* displs, const TypeRef& at,
                    void* mine, int mcount, const TypeRef& mt, bool in_place_mine, int root, int n, int me) {
  const auto m = static_cast<std::size_t>(mcount);
  if (me != root) {
    rd.xfers.push_back(gather ? send_of(mine, m, mt, root) : recv_of(mine, m, mt, root));
    return;
  }
  for (int k = 0; k < n; ++k) {
    void* block = shifted(all, static_cast<std::int64_t>(displs[k]) * at->extent());
    const auto c = static_cast<std::size_t>(counts[k]);
    if (k != root)
      rd.xfers.push_back(gather ? recv_of(block, c, at, k) : send_of(block, c, at, k));
    else if (!in_place_mine && gather)
      local_copy(mine, m, *mt, block, c, *at);
    else if (!in_place_mine)
      local_copy(block, c, *at, mine, m, *mt);
  }
}
}  // namespace
}  // namespace hopsim::bgq

extern "C" {

int MPI_Igatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[], const int displs[],
                 MPI_Datatype rtype, int root, MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  const char* fn = "MPI_Igatherv";
  mpi_impl::TypeRef st, rt;
  if (!mpi_impl::in_place(sbuf))
    if (const int e = mpi_impl::check_args(s, fn, c, scount, stype, root, 0, false, &st)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  if (cm.me == root) {
    if (const int e = mpi_impl::check_args(s, fn, c, 0, rtype, root, 0, false, &rt)) return e;
    if (const int e = mpi_impl::check_counts(s, fn, c, rcounts, nullptr)) return e;
  }
  auto sc = mpi_impl::new_schedule(s, c, fn);
  mpi_impl::Round rd;
  mpi_impl::rooted_v_round(rd, true, rbuf, rcounts, displs, rt,
                           const_cast<void*>(sbuf),  // NOLINT(cppcoreguidelines-pro-type-const-cast): only read
                           scount, st, mpi_impl::in_place(sbuf), root, cm.size(), cm.me);
  sc->rounds.push_back(std::move(rd));
  mpi_impl::start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

int MPI_Iscatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* rbuf, int rcount,
                  MPI_Datatype rtype, int root, MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  const char* fn = "MPI_Iscatterv";
  mpi_impl::TypeRef st, rt;
  if (!mpi_impl::in_place(rbuf))
    if (const int e = mpi_impl::check_args(s, fn, c, rcount, rtype, root, 0, false, &rt)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  if (cm.me == root) {
    if (const int e = mpi_impl::check_args(s, fn, c, 0, stype, root, 0, false, &st)) return e;
    if (const int e = mpi_impl::check_counts(s, fn, c, scounts, nullptr)) return e;
  }
  auto sc = mpi_impl::new_schedule(s, c, fn);
  mpi_impl::Round rd;
  mpi_impl::rooted_v_round(rd, false,
                           const_cast<void*>(sbuf),  // NOLINT(cppcoreguidelines-pro-type-const-cast): only read
                           scounts, displs, st, rbuf, rcount, rt, mpi_impl::in_place(rbuf), root, cm.size(), cm.me);
  sc->rounds.push_back(std::move(rd));
  mpi_impl::start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

// Every rank sends its block to every other and receives theirs, in one round.
int MPI_Iallgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                    const int displs[], MPI_Datatype rtype, MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  const char* fn = "MPI_Iallgatherv";
  mpi_impl::TypeRef st, rt;
  if (const int e = mpi_impl::check_args(s, fn, c, 0, rtype, 0, 0, false, &rt)) return e;
  if (const int e = mpi_impl::check_counts(s, fn, c, rcounts, nullptr)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  const auto block = [&](int k) {
    return mpi_impl::shifted(rbuf, static_cast<std::int64_t>(displs[k]) * rt->extent());
  };
  if (mpi_impl::in_place(sbuf)) {  // the rank's block is in recvbuf already
    sbuf = block(cm.me);
    scount = rcounts[cm.me];
    st = rt;
  } else if (const int e = mpi_impl::check_args(s, fn, c, scount, stype, 0, 0, false, &st)) {
    return e;
  }
  auto sc = mpi_impl::new_schedule(s, c, fn);
  mpi_impl::Round rd;
  for (int k = 0; k < cm.size(); ++k) {
    if (k == cm.me) {
      if (sbuf != block(k))
        mpi_impl::local_copy(sbuf, static_cast<std::size_t>(scount), *st, block(k),
                             static_cast<std::size_t>(rcounts[k]), *rt);
      continue;
    }
    rd.xfers.push_back(mpi_impl::recv_of(block(k), static_cast<std::size_t>(rcounts[k]), rt, k));
    rd.xfers.push_back(mpi_impl::send_of(sbuf, static_cast<std::size_t>(scount), st, k));
  }
  sc->rounds.push_back(std::move(rd));
  mpi_impl::start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

// One round of pairwise blocks; in place, the blocks sent are copies of what recvbuf held (kept by the schedule).
int MPI_Ialltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf,
                   const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm c, MPI_Request* r) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  const char* fn = "MPI_Ialltoallv";
  mpi_impl::TypeRef st, rt;
  const bool inplace = mpi_impl::in_place(sbuf);
  if (const int e = mpi_impl::check_args(s, fn, c, 0, rtype, 0, 0, false, &rt)) return e;
  if (!inplace)
    if (const int e = mpi_impl::check_args(s, fn, c, 0, stype, 0, 0, false, &st)) return e;
  if (const int e = mpi_impl::check_counts(s, fn, c, rcounts, inplace ? nullptr : scounts)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  auto sc = mpi_impl::new_schedule(s, c, fn);
  const auto rblock = [&](int k) {
    return mpi_impl::shifted(rbuf, static_cast<std::int64_t>(rdispls[k]) * rt->extent());
  };
  mpi_impl::Round rd;
  for (int k = 0; k < cm.size(); ++k) {
    const auto rn = static_cast<std::size_t>(rcounts[k]);
    if (inplace) {
      if (k == cm.me) continue;
      auto& cp = sc->temp.emplace_back(rn * rt->size);
      mpi_impl::pack(*rt, rblock(k), rn, cp.data());
      rd.xfers.push_back(mpi_impl::send_of(cp.data(), cp.size(), mpi_impl::bytes_type(), k));
      rd.xfers.push_back(mpi_impl::recv_of(rblock(k), rn, rt, k));
      continue;
    }
    const void* sat = mpi_impl::shifted(sbuf, static_cast<std::int64_t>(sdispls[k]) * st->extent());
    const auto sn = static_cast<std::size_t>(scounts[k]);
    if (k == cm.me) {
      mpi_impl::local_copy(sat, sn, *st, rblock(k), rn, *rt);
      continue;
    }
    rd.xfers.push_back(mpi_impl::recv_of(rblock(k), rn, rt, k));
    rd.xfers.push_back(mpi_impl::send_of(sat, sn, st, k));
  }
  sc->rounds.push_back(std::move(rd));
  mpi_impl::start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

int MPI_Gatherv_init(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                     const int displs[], MPI_Datatype rtype, int root, MPI_Comm c, MPI_Info info, MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Gatherv_init",
      [=](MPI_Request* q) { return MPI_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, c, q); }, r);
}

int MPI_Scatterv_init(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* rbuf,
                      int rcount, MPI_Datatype rtype, int root, MPI_Comm c, MPI_Info info, MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Scatterv_init",
      [=](MPI_Request* q) { return MPI_Iscatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, c, q); }, r);
}

int MPI_Allgatherv_init(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                        const int displs[], MPI_Datatype rtype, MPI_Comm c, MPI_Info info, MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Allgatherv_init",
      [=](MPI_Request* q) { return MPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, c, q); }, r);
}

int MPI_Alltoallv_init(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf,
                       const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm c, MPI_Info info,
                       MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Alltoallv_init",
      [=](MPI_Request* q) {
        return MPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, c, q);
      },
      r);
}

}  // extern "C"

extern "C" {

// What a wait on `st` reports as received: `count` elements of `type` (MPI_Get_count then says `count`).
int MPI_Status_set_elements(MPI_Status* st, MPI_Datatype t, int count) {
  auto& s = mpi_impl::mpi();
  const mpi_impl::Entered entered(s);
  int err = MPI_SUCCESS;
  const mpi_impl::TypeRef ti = mpi_impl::type_arg(s, t, "MPI_Status_set_elements", &err);
  if (!ti) return err;
  if (count < 0) return mpi_impl::bad_count("MPI_Status_set_elements", count);
  st->hopsim_bytes = static_cast<int>(static_cast<std::uint64_t>(count) * ti->size);
  return MPI_SUCCESS;
}

int MPI_Status_set_cancelled(MPI_Status* st, int flag) {
  st->hopsim_cancelled = flag ? 1 : 0;
  return MPI_SUCCESS;
}

}  // extern "C"

// ---- non-blocking scans and reduce-scatters, Alltoallw (blocking and not) ----

namespace hopsim::bgq {
namespace {
// MPI_Iscan (inclusive) and MPI_Iexscan: the chain of `scan` as rounds (a receive from rank i - 1, then the
// combine, then a send to rank i + 1).
int iscan(const char* fn, bool inclusive, const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op,
          MPI_Comm c, MPI_Request* r) {
  auto& s = mpi();
  const Entered entered(s);
  if (const int e = check_reduce(s, fn, c, count, t, op, 0, true)) return e;
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  const std::size_t bytes = static_cast<std::size_t>(count) * unit_of(t);
  auto sc = new_schedule(s, c, fn);
  sc->temp.emplace_back(bytes);
  sc->temp.emplace_back(bytes);
  reduce_in(sc->temp[0], in_place(sbuf) ? rbuf : sbuf, t);
  std::uint8_t* mine = sc->temp[0].data();
  std::uint8_t* acc = sc->temp[1].data();
  const auto n = static_cast<std::size_t>(count);
  if (cm.me > 0) {
    sc->rounds.push_back({{recv_of(acc, bytes, bytes_type(), cm.me - 1)}, [=] {
                            if (!inclusive) reduce_out(acc, bytes, rbuf, n, t);
                            combine(t, op, acc, mine, n);
                            if (inclusive) reduce_out(acc, bytes, rbuf, n, t);
                          }});
  } else {
    sc->rounds.push_back({{}, [=] {
                            if (bytes > 0) std::memcpy(acc, mine, bytes);
                            if (inclusive) reduce_out(acc, bytes, rbuf, n, t);
                          }});
  }
  if (cm.me + 1 < cm.size()) sc->rounds.push_back({{send_of(acc, bytes, bytes_type(), cm.me + 1)}, {}});
  start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

// MPI_Ireduce_scatter(_block): the rounds of a reduction of every block at rank 0, then one round scattering
// block k (counts[k] elements) to rank k.
int ireduce_scatter(const char* fn, const void* sbuf, void* rbuf, const std::vector<int>& counts, MPI_Datatype t,
                    MPI_Op op, MPI_Comm c, MPI_Request* r) {
  auto& s = mpi();
  const Entered entered(s);
  const auto& cm = s.comms[static_cast<std::size_t>(c)];
  const int n = cm.size();
  int total = 0;
  for (const int k : counts) {
    if (k < 0) return error(c, MPI_ERR_COUNT, fn, fmt::format("count {}", k));
    total += k;
  }
  if (const int e = check_reduce(s, fn, c, total, t, op, 0, true)) return e;
  const std::size_t unit = unit_of(t);
  auto sc = new_schedule(s, c, fn);
  std::uint8_t* acc =
      reduce_rounds(*sc, in_place(sbuf) ? rbuf : sbuf, static_cast<std::size_t>(total), t, op, 0, n, cm.me);
  Round rd;
  if (cm.me != 0) {  // the block in the accumulator's layout, then into the user's
    const auto mine = static_cast<std::size_t>(counts[static_cast<std::size_t>(cm.me)]);
    std::uint8_t* got = sc->temp.emplace_back(mine * unit).data();
    rd.xfers.push_back(recv_of(got, mine * unit, bytes_type(), 0));
    rd.after = [=] { reduce_out(got, mine * unit, rbuf, mine, t); };
  } else {
    std::size_t at = 0;
    for (int k = 0; k < n; ++k) {
      const std::size_t b = counts[static_cast<std::size_t>(k)] * unit;
      if (k != 0) rd.xfers.push_back(send_of(acc + at, b, bytes_type(), k));
      at += b;
    }
    const auto own = static_cast<std::size_t>(counts[0]);
    rd.after = [=] { reduce_out(acc, own * unit, rbuf, own, t); };
  }
  sc->rounds.push_back(std::move(rd));
  start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}

// MPI_Alltoallw's arguments: a type per peer, displacements in bytes. One round of pairwise blocks (blocking:
// waited for at once); in place, the blocks sent are copies of what recvbuf held.
int alltoallw(const char* fn, const void* sbuf, const int* scounts, const int* sdispls, const MPI_Datatype* stypes,
              void* rbuf, const int* rcounts, const int* rdispls, const MPI_Datatype* rtypes, MPI_Comm c,
              MPI_Request* r) {
  auto& s = mpi();
  const Entered entered(s);
  int err = MPI_SUCCESS;
  const Comm* cmp = get_comm(s, c, fn, &err);
  if (!cmp) return err;
  const Comm& cm = *cmp;
  const bool inplace = in_place(sbuf);
  if (inplace && cm.inter) return error(c, MPI_ERR_BUFFER, fn, fmt::format("MPI_IN_PLACE on intercommunicator {}", c));
  // On an intercommunicator block k goes to and comes from rank k of the other group (none is this rank's own).
  const int n = cm.peers();
  std::vector<TypeRef> rts(static_cast<std::size_t>(n)), sts(rts.size());
  for (int k = 0; k < n; ++k) {
    if (const int e =
            check_args(s, fn, c, rcounts[k], rtypes[k], k, 0, false, &rts[static_cast<std::size_t>(k)], cm.inter))
      return e;
    if (!inplace)
      if (const int e =
              check_args(s, fn, c, scounts[k], stypes[k], k, 0, false, &sts[static_cast<std::size_t>(k)], cm.inter))
        return e;
  }
  auto sc = new_schedule(s, c, fn);
  Round rd;
  for (int k = 0; k < n; ++k) {
    const TypeRef& rt = rts[static_cast<std::size_t>(k)];
    const TypeRef& st = sts[static_cast<std::size_t>(k)];
    void* rat = shifted(rbuf, rdispls[k]);
    const auto rn = static_cast<std::size_t>(rcounts[k]);
    if (inplace) {
      if (k == cm.me) continue;
      auto& cp = sc->temp.emplace_back(rn * rt->size);
      pack(*rt, rat, rn, cp.data());
      rd.xfers.push_back(send_of(cp.data(), cp.size(), bytes_type(), k));
      rd.xfers.push_back(recv_of(rat, rn, rt, k));
      continue;
    }
    const void* sat = shifted(sbuf, sdispls[k]);
    const auto sn = static_cast<std::size_t>(scounts[k]);
    if (k == cm.me && !cm.inter) {
      local_copy(sat, sn, *st, rat, rn, *rt);
      continue;
    }
    rd.xfers.push_back(recv_of(rat, rn, rt, k));
    rd.xfers.push_back(send_of(sat, sn, st, k));
  }
  sc->rounds.push_back(std::move(rd));
  start_schedule(s, std::move(sc), r);
  return MPI_SUCCESS;
}
}  // namespace
}  // namespace hopsim::bgq

extern "C" {

int MPI_Iscan(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Request* r) {
  return mpi_impl::iscan("MPI_Iscan", true, sbuf, rbuf, count, t, op, c, r);
}

int MPI_Iexscan(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Request* r) {
  return mpi_impl::iscan("MPI_Iexscan", false, sbuf, rbuf, count, t, op, c, r);
}

int MPI_Ireduce_scatter_block(const void* sbuf, void* rbuf, int rcount, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                              MPI_Request* r) {
  int n = 0;
  if (const int e = MPI_Comm_size(c, &n)) return e;
  return mpi_impl::ireduce_scatter("MPI_Ireduce_scatter_block", sbuf, rbuf,
                                   std::vector<int>(static_cast<std::size_t>(n), rcount), t, op, c, r);
}

int MPI_Ireduce_scatter(const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype t, MPI_Op op, MPI_Comm c,
                        MPI_Request* r) {
  int n = 0;
  if (const int e = MPI_Comm_size(c, &n)) return e;
  return mpi_impl::ireduce_scatter("MPI_Ireduce_scatter", sbuf, rbuf, std::vector<int>(rcounts, rcounts + n), t, op, c,
                                   r);
}

int MPI_Ialltoallw(const void* sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[], void* rbuf,
                   const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm c, MPI_Request* r) {
  return mpi_impl::alltoallw("MPI_Ialltoallw", sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, c, r);
}

int MPI_Alltoallw(const void* sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[], void* rbuf,
                  const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm c) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (const int e =
          mpi_impl::alltoallw("MPI_Alltoallw", sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, c, &r))
    return e;
  return MPI_Wait(&r, MPI_STATUS_IGNORE);
}

int MPI_Scan_init(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Info info,
                  MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Scan_init", [=](MPI_Request* q) { return MPI_Iscan(sbuf, rbuf, count, t, op, c, q); }, r);
}

int MPI_Exscan_init(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Info info,
                    MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Exscan_init", [=](MPI_Request* q) { return MPI_Iexscan(sbuf, rbuf, count, t, op, c, q); }, r);
}

int MPI_Reduce_scatter_block_init(const void* sbuf, void* rbuf, int rcount, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                                  MPI_Info info, MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Reduce_scatter_block_init",
      [=](MPI_Request* q) { return MPI_Ireduce_scatter_block(sbuf, rbuf, rcount, t, op, c, q); }, r);
}

int MPI_Reduce_scatter_init(const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype t, MPI_Op op, MPI_Comm c,
                            MPI_Info info, MPI_Request* r) {
  return mpi_impl::init_collective(
      c, info, "MPI_Reduce_scatter_init",
      [=](MPI_Request* q) { return MPI_Ireduce_scatter(sbuf, rbuf, rcounts, t, op, c, q); }, r);
}

}  // extern "C"
