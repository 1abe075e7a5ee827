#include "machine.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <pthread.h>

#include <fmt/format.h>

#include "hopsim/bgq/model/compute.hpp"
#include "hopsim/bgq_kernel.h"
#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "mpi.h"

namespace hopsim::bgq {

std::string wait_text(WaitKind k, int a, int b) {
  switch (k) {
    case WaitKind::spin:
      return "polling memory the MU writes (HOPSIM_SPIN_WAIT or MUSPI_RecFifoPoll)";
    case WaitKind::gi:
      return "in the GI barrier";
    case WaitKind::ring_full:
      return fmt::format("injecting to rank {}, whose reception ring is full or in use", a);
    case WaitKind::finished:
      return "finished its kernel (serving the others)";
    case WaitKind::inj_full:
      return fmt::format("injecting into injection FIFO {}, which is full", a);
    case WaitKind::never_injected:
      return fmt::format(
          "in MUSPI_CheckDescComplete, waiting for {} descriptors of injection FIFO {}, more than it "
          "was given",
          b, a);
    case WaitKind::mpi_lock:
      return "waiting for MPI's lock (another thread of the rank is in an MPI call)";
    case WaitKind::mutex:
      return "waiting for a pthread mutex another thread of the rank holds";
    case WaitKind::none:
      break;
  }
  return "running";
}

std::string mpi_wait_text(const RankState& st) {
  return mpi_wait_text(st.mpi_call.load(std::memory_order_relaxed), st.mpi_peer.load(std::memory_order_relaxed),
                       st.mpi_tag.load(std::memory_order_relaxed));
}

std::string mpi_wait_text(const char* call, int peer, int tag) {
  if (!call) return {};
  const std::string who = peer == MPI_ANY_SOURCE ? "any rank" : fmt::format("rank {}", peer);
  const std::string which = tag == MPI_ANY_TAG ? "any tag" : fmt::format("tag {}", tag);
  return fmt::format("in {} ({}, {})", call, who, which);
}

std::string rank_list(const std::vector<int>& r) {
  std::string out;
  for (std::size_t i = 0; i < r.size();) {
    std::size_t j = i;
    while (j + 1 < r.size() && r[j + 1] == r[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? fmt::format("{}", r[i]) : fmt::format("{}-{}", r[i], r[j]);
    i = j + 1;
  }
  return out;
}

namespace {
std::size_t g_rank_stack = std::size_t{256} * 1024;
}
void set_rank_stack_bytes(std::size_t bytes) { g_rank_stack = bytes; }
std::size_t rank_stack_bytes() { return g_rank_stack; }

std::string waits_text(const std::map<std::string, std::vector<int>>& by_state) {
  std::string who;
  for (const auto& [what, ranks] : by_state)
    who += fmt::format("{}{} {} {}", who.empty() ? "" : "; ", ranks.size() == 1 ? "rank" : "ranks", rank_list(ranks),
                       what);
  return who;
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {
thread_local Machine* t_machine = nullptr;
thread_local int t_rank = -1;
Machine* (*g_provider)() = nullptr;
}  // namespace

Machine::Machine(const model::Params& p, nlohmann::json args) : p_(p), args_(std::move(args)) {
  torus_ = std::make_unique<model::Torus>(p.dims);
  ranks_.reserve(torus_->nodes());
  for (std::uint32_t r = 0; r < torus_->nodes(); ++r) {
    ranks_.push_back(std::make_unique<RankState>());
    ranks_.back()->rank = static_cast<int>(r);
    ranks_.back()->label = fmt::format("rank {}", r);
    reserve_mpi_fifo(*ranks_.back());
  }
  init_collectives();
}

void reserve_mpi_fifo(RankState& st) {
  std::lock_guard<std::mutex> lock(st.mu.rec_mutex);
  auto& f = st.mu.rec[kMpiRecFifo];
  f.allocated = f.initialised = f.enabled = true;
  f.capacity = kMpiRecBytes;
}

Machine* Machine::current() {
  if (!t_machine && g_provider) return g_provider();
  if (!t_machine) throw KernelError("a BG/Q SPI or MPI function was called outside a hopsim BG/Q run");
  return t_machine;
}
Machine* Machine::current_or_null() { return t_machine || !g_provider ? t_machine : g_provider(); }
void Machine::set_provider(Machine* (*provider)()) { g_provider = provider; }
Machine* Machine::running() { return t_machine; }
int Machine::current_rank() {
  if (!t_machine && g_provider) g_provider();
  return t_rank;
}
void Machine::set_current(Machine* m, int rank) {
  t_machine = m;
  t_rank = rank;
  crash::name_thread(m && rank >= 0 ? m->ranks_[static_cast<std::size_t>(rank)]->label.c_str() : nullptr);
}
RankState& Machine::self() { return *ranks_[static_cast<std::size_t>(t_rank)]; }

// ---- Program threads on host threads (native runs) ----

namespace {
// What a program thread's pthread_exit throws up to its start (the
// program's code is built with -fexceptions, so its frames unwind).
struct ExitThread {
  void* value;
};
// One program thread: its start, and its end once it has ended.
struct ProgramThread {
  Machine* machine = nullptr;
  int rank = -1;
  void* (*fn)(void*) = nullptr;
  void* arg = nullptr;
  std::mutex mutex;
  bool ended = false, detached = false;
  void* value = nullptr;
  std::exception_ptr error;
};
std::mutex g_threads_mutex;
std::map<pthread_t, std::shared_ptr<ProgramThread>> g_threads;  // host program threads not yet joined

// A detached thread's error ends the run, as an error in a rank does.
[[noreturn]] void detached_error(int rank, const std::exception_ptr& e) {
  std::string what = "unknown error";
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    what = x.what();
  } catch (...) {
  }
  std::fprintf(stderr, "hopsim: rank %d: a detached thread failed: %s\n", rank, what.c_str());
  std::fflush(stderr);
  std::_Exit(5);
}
}  // namespace

void* Machine::host_thread_main(void* p) {
  const std::shared_ptr<ProgramThread> t = *static_cast<std::shared_ptr<ProgramThread>*>(p);
  delete static_cast<std::shared_ptr<ProgramThread>*>(p);
  const crash::ThreadGuard guard(t->machine->rank(t->rank).label.c_str());
  set_current(t->machine, t->rank);
  void* value = nullptr;
  std::exception_ptr error;
  try {
    value = t->fn(t->arg);
  } catch (const ExitThread& e) {
    value = e.value;
  } catch (...) {
    error = std::current_exception();
  }
  set_current(nullptr, -1);
  const std::lock_guard<std::mutex> lock(t->mutex);
  t->ended = true;
  t->value = value;
  t->error = error;
  if (error && t->detached) detached_error(t->rank, error);
  return nullptr;
}

std::uint64_t Machine::start_thread(void* (*fn)(void*), void* arg, const pthread_attr_t* attr) {
  auto t = std::make_shared<ProgramThread>();
  t->machine = this;
  t->rank = current_rank();
  t->fn = fn;
  t->arg = arg;
  int state = PTHREAD_CREATE_JOINABLE;
  if (attr) pthread_attr_getdetachstate(attr, &state);
  t->detached = state == PTHREAD_CREATE_DETACHED;
  pthread_t id{};
  const std::lock_guard<std::mutex> lock(g_threads_mutex);
  auto* start = new std::shared_ptr<ProgramThread>(t);
  const int rc = pthread_create(&id, attr, &Machine::host_thread_main, start);
  if (rc != 0) {
    delete start;
    throw KernelError(fmt::format("rank {}: pthread_create failed: {}", t->rank, std::strerror(rc)));
  }
  if (!t->detached) g_threads[id] = t;
  return static_cast<std::uint64_t>(id);
}

void* Machine::join_thread(std::uint64_t handle) {
  const auto id = static_cast<pthread_t>(handle);
  std::shared_ptr<ProgramThread> t;
  {
    const std::lock_guard<std::mutex> lock(g_threads_mutex);
    const auto it = g_threads.find(id);
    if (it == g_threads.end())
      throw KernelError(
          fmt::format("rank {}: pthread_join of a thread that is not a joinable thread of this run", current_rank()));
    t = it->second;
    g_threads.erase(it);
  }
  pthread_join(id, nullptr);
  if (t->error) std::rethrow_exception(t->error);
  return t->value;
}

void Machine::detach_thread(std::uint64_t handle) {
  const auto id = static_cast<pthread_t>(handle);
  std::shared_ptr<ProgramThread> t;
  {
    const std::lock_guard<std::mutex> lock(g_threads_mutex);
    const auto it = g_threads.find(id);
    if (it == g_threads.end()) return;
    t = it->second;
    g_threads.erase(it);
  }
  pthread_detach(id);
  const std::lock_guard<std::mutex> lock(t->mutex);
  t->detached = true;
  if (t->ended && t->error) detached_error(t->rank, t->error);
}

void Machine::exit_thread(void* value) { throw ExitThread{value}; }

void Machine::note_mpi_wait(const char* call, int peer, int tag) {
  auto& st = self();
  const std::uintptr_t me = thread_key();
  // Of a rank's threads, the one that noted a wait clears it.
  if (!call && st.mpi_waiter.load(std::memory_order_relaxed) != me) return;
  st.mpi_waiter.store(me, std::memory_order_relaxed);
  st.mpi_peer.store(peer, std::memory_order_relaxed);
  st.mpi_tag.store(tag, std::memory_order_relaxed);
  st.mpi_call.store(call, std::memory_order_relaxed);
}

std::uintptr_t Machine::thread_key() {
  static thread_local char key;
  return reinterpret_cast<std::uintptr_t>(&key);
}

void set_base_fields(MUHWI_Descriptor_t& d, const MUSPI_BaseDescriptorInfoFields_t& b) {
  d = MUHWI_Descriptor_t{};
  d.Half_Word0 = static_cast<uint16_t>(b.Pre_Fetch_Only ? 1 : 0);
  d.Pa_Payload = b.Payload_Address;
  d.Message_Length = b.Message_Length;
  d.Torus_FIFO_Map = b.Torus_FIFO_Map;
}

void set_direct_put_fields(MUHWI_Descriptor_t& d, const MUSPI_DirectPutDescriptorInfoFields_t& f) {
  auto& mh = d.PacketHeader.messageUnitHeader.Packet_Types.Direct_Put;
  mh.Rec_Payload_Base_Address_Id = f.Rec_Payload_Base_Address_Id;
  mh.Rec_Counter_Base_Address_Id = f.Rec_Counter_Base_Address_Id;
  mh.Counter_Offset = f.Rec_Counter_Offset;
  mh.Pacing = f.Pacing;
  model::set_put_offset(d, f.Rec_Payload_Offset);
}

// The interrupt bit is bit 0 of Byte2 in both network headers.
void set_memory_fifo_fields(MUHWI_Descriptor_t& d, const MUSPI_MemoryFIFODescriptorInfoFields_t& f) {
  auto& mh = d.PacketHeader.messageUnitHeader.Packet_Types.Memory_FIFO;
  mh.Rec_FIFO_Id = f.Rec_FIFO_Id & 0x1FFu;
  if (f.Interrupt) d.PacketHeader.NetworkHeader.pt2pt.Byte2 |= MUHWI_PACKET_INTERRUPT_ON_PACKET_ARRIVAL;
  std::memcpy(mh.Unused2, f.SoftwareBytes, sizeof mh.Unused2);
  model::set_put_offset(d, f.Rec_Put_Offset);
}

std::uint32_t Machine::take_descriptor(std::uint32_t node, const MUHWI_Descriptor_t& d) {
  const std::uint32_t dst = check_descriptor(d, torus(), node);
  auto& st = rank(static_cast<int>(node));
  st.packets += model::packetise(d.Message_Length).packets;
  st.bytes += d.Message_Length;
  return dst;
}

double Machine::compute_cycles(std::uint64_t elements, int threads) {
  if (!counted_) return model::compute_cycles(p_, elements, threads);
  auto& w = self().counted;
  const double c = model::counted_compute_cycles(p_, w, elements, threads);
  w = {};
  return c;
}

}  // namespace hopsim::bgq

// ---------------------------------------------------------------- SPI ----

using hopsim::KernelError;
using hopsim::bgq::Machine;

namespace {
// Every runtime entry of a rank: under counted compute, the cycles its code
// counted since the last one are charged first.
Machine& M() {
  Machine& m = *Machine::current();
  m.settle_counted();
  return m;
}
hopsim::bgq::RankState& R() { return M().self(); }
[[noreturn]] void fail(const std::string& what) {
  throw KernelError(fmt::format("rank {}: {}", Machine::current_rank(), what));
}
void check_subgroup(uint32_t sg, const char* fn) {
  if (sg >= hopsim::bgq::model::kSubgroups) fail(fmt::format("{}: subgroup {} does not exist (0..67)", fn, sg));
}
}  // namespace

extern "C" {

int Kernel_GetPersonality(Personality_t* p, size_t size) {
  if (!p || size < sizeof(Personality_t)) return -1;
  auto& m = M();
  const auto c = m.torus().coords(static_cast<std::uint32_t>(Machine::current_rank()));
  const auto& d = m.torus().dims();
  p->Network_Config = {static_cast<uint32_t>(c[0]), static_cast<uint32_t>(c[1]), static_cast<uint32_t>(c[2]),
                       static_cast<uint32_t>(c[3]), static_cast<uint32_t>(c[4]), static_cast<uint32_t>(d[0]),
                       static_cast<uint32_t>(d[1]), static_cast<uint32_t>(d[2]), static_cast<uint32_t>(d[3]),
                       static_cast<uint32_t>(d[4])};
  p->Kernel_Config.FreqMHz = static_cast<uint32_t>(m.params().clock_hz / 1e6);
  return 0;
}

int32_t Kernel_CreateMemoryRegion(Kernel_MemoryRegion_t* r, void* base, size_t size) {
  if (!r || !base) return -1;
  if (Machine::current() && Machine::current_rank() >= 0) {
    const auto lo = reinterpret_cast<uint64_t>(base);
    R().regions.emplace_back(lo, lo + size);
  }
  r->BaseVa = base;
  r->BasePa = base;
  r->Bytes = size;
  return 0;
}

int32_t Kernel_AllocateInjFifos(uint32_t subgroup, MUSPI_InjFifoSubGroup_t* sg, uint32_t n, uint32_t* ids,
                                Kernel_InjFifoAttributes_t*) {
  check_subgroup(subgroup, "Kernel_AllocateInjFifos");
  auto& st = R().mu;
  sg->subgroup = subgroup;
  for (uint32_t i = 0; i < n; ++i) {
    if (ids[i] >= hopsim::bgq::model::kInjFifosPerSubgroup)
      fail(fmt::format("Kernel_AllocateInjFifos: FIFO {} does not exist in a subgroup (0..7)", ids[i]));
    const uint32_t g = subgroup * hopsim::bgq::model::kInjFifosPerSubgroup + ids[i];
    if (st.inj_allocated[g]) return -1;  // the driver's EBUSY
    st.inj_allocated[g] = 1;
    sg->fifos[ids[i]] = {subgroup, g};
  }
  return 0;
}

int32_t Kernel_InjFifoInit(MUSPI_InjFifoSubGroup_t* sg, uint32_t id, Kernel_MemoryRegion_t* region, uint64_t start,
                           uint64_t sizeMinus1) {
  if (id >= hopsim::bgq::model::kInjFifosPerSubgroup) fail(fmt::format("Kernel_InjFifoInit: FIFO {} (0..7)", id));
  if (!R().mu.inj_allocated[sg->subgroup * hopsim::bgq::model::kInjFifosPerSubgroup + id])
    fail(fmt::format("Kernel_InjFifoInit: FIFO {} of subgroup {} was not allocated", id, sg->subgroup));
  if (!region || (reinterpret_cast<uint64_t>(region->BasePa) + start) % 64 != 0)
    fail("Kernel_InjFifoInit: the FIFO memory must be 64-byte aligned");
  if ((sizeMinus1 + 1) % 64 != 0 || sizeMinus1 + 1 < 128)
    fail(fmt::format("Kernel_InjFifoInit: size {} is not a multiple of 64 bytes of at least two descriptors",
                     sizeMinus1 + 1));
  const uint32_t g = sg->subgroup * hopsim::bgq::model::kInjFifosPerSubgroup + id;
  R().inj_slots.at(g) = (sizeMinus1 + 1) / 64;
  return 0;
}

int32_t Kernel_InjFifoActivate(MUSPI_InjFifoSubGroup_t*, uint32_t, uint32_t*, uint32_t) { return 0; }

MUSPI_InjFifo_t* MUSPI_IdToInjFifo(uint32_t id, MUSPI_InjFifoSubGroup_t* sg) {
  if (id >= hopsim::bgq::model::kInjFifosPerSubgroup) fail(fmt::format("MUSPI_IdToInjFifo: FIFO {} (0..7)", id));
  return &sg->fifos[id];
}

uint64_t MUSPI_InjFifoInject(MUSPI_InjFifo_t* fifo, void* desc) {
  if (!fifo || !desc) fail("MUSPI_InjFifoInject: null FIFO or descriptor");
  auto& st = R();
  if (fifo->fifo >= hopsim::bgq::model::kInjFifos || !st.mu.inj_allocated[fifo->fifo])
    fail("MUSPI_InjFifoInject: the FIFO was not allocated (Kernel_AllocateInjFifos)");
  if (MUSPI_getHwFreeSpace(fifo) == 0) {  // full: the driver's answer, and one iteration of a retry loop
    M().idle_poll(hopsim::bgq::WaitKind::inj_full, static_cast<int>(fifo->fifo), 0);
    return static_cast<uint64_t>(-1);
  }
  M().inject(fifo->fifo, *static_cast<const MUHWI_Descriptor_t*>(desc));
  ++st.descriptors;
  return ++st.inj_count.at(fifo->fifo);
}

uint64_t MUSPI_getHwFreeSpace(MUSPI_InjFifo_t* fifo) {
  if (!fifo) fail("MUSPI_getHwFreeSpace: null FIFO");
  auto& st = R();
  if (fifo->fifo >= hopsim::bgq::model::kInjFifos || !st.mu.inj_allocated[fifo->fifo])
    fail("MUSPI_getHwFreeSpace: the FIFO was not allocated (Kernel_AllocateInjFifos)");
  const uint64_t slots = st.inj_slots.get(fifo->fifo);
  if (slots == 0) return UINT64_MAX / 2;  // no Kernel_InjFifoInit: hopsim sets no size to the FIFO
  const uint64_t waiting = M().inj_waiting(fifo->fifo);
  return waiting >= slots - 1 ? 0 : slots - 1 - waiting;
}

uint32_t MUSPI_CheckDescComplete(MUSPI_InjFifo_t* fifo, uint64_t n) {
  if (!fifo) fail("MUSPI_CheckDescComplete: null FIFO");
  auto& st = R();
  if (fifo->fifo >= hopsim::bgq::model::kInjFifos || !st.mu.inj_allocated[fifo->fifo])
    fail("MUSPI_CheckDescComplete: the FIFO was not allocated (Kernel_AllocateInjFifos)");
  const uint64_t given = st.inj_count.get(fifo->fifo);
  if (n == 0) return 1;
  if (n > given) {
    // Not done, as on the hardware (programs ask about FIFOs they did not use); a rank that asks only
    // about such counts would wait forever, so after kNeverDone such polls in a row the run stops.
    if (++st.never_done_polls >= hopsim::bgq::kNeverDone)
      fail(
          fmt::format("MUSPI_CheckDescComplete polled {} times in a row for {} descriptors of injection FIFO {}, "
                      "but {} were injected: it would wait forever",
                      st.never_done_polls, n, fifo->fifo, given));
    M().idle_poll(hopsim::bgq::WaitKind::never_injected, static_cast<int>(fifo->fifo), static_cast<int>(n));
    return 0;
  }
  st.never_done_polls = 0;
  return M().desc_complete(fifo->fifo, n - 1) ? 1 : 0;
}

int32_t Kernel_AllocateBaseAddressTable(uint32_t subgroup, MUSPI_BaseAddressTableSubGroup_t* sg, uint32_t n,
                                        uint32_t* ids, uint32_t) {
  check_subgroup(subgroup, "Kernel_AllocateBaseAddressTable");
  sg->subgroup = subgroup;
  for (uint32_t i = 0; i < n; ++i) {
    if (ids[i] >= hopsim::bgq::model::kBatPerSubgroup)
      fail(fmt::format("Kernel_AllocateBaseAddressTable: entry {} does not exist in a subgroup (0..7)", ids[i]));
    const uint32_t g = subgroup * hopsim::bgq::model::kBatPerSubgroup + ids[i];
    R().mu.bat_allocated[g] = 1;
    M().bat_updated(g);
  }
  return 0;
}

int32_t MUSPI_SetBaseAddress(MUSPI_BaseAddressTableSubGroup_t* sg, uint32_t id, uint64_t value) {
  if (id >= hopsim::bgq::model::kBatPerSubgroup) fail(fmt::format("MUSPI_SetBaseAddress: entry {} (0..7)", id));
  const uint32_t g = sg->subgroup * hopsim::bgq::model::kBatPerSubgroup + id;
  auto& mu = R().mu;
  if (!mu.bat_allocated[g])
    fail(fmt::format("MUSPI_SetBaseAddress: entry {} of subgroup {} was not allocated", id, sg->subgroup));
  mu.bat[g] = value;
  R().mu_bases.push_back(value & MUHWI_ATOMIC_ADDRESS_MASK);
  std::atomic_ref<std::uint8_t>(mu.bat_set[g]).store(1, std::memory_order_release);
  M().bat_updated(g);
  return 0;
}

uint64_t MUSPI_GetAtomicAddress(uint64_t pa, uint64_t opcode) {
  return (pa & MUHWI_ATOMIC_ADDRESS_MASK) | (opcode << MUHWI_ATOMIC_OPCODE_SHIFT);
}

uint64_t MUSPI_GetAtomicOffsetFromBaseAddress(MUSPI_BaseAddressTableSubGroup_t* sg, uint32_t id, uint64_t pa,
                                              uint64_t opcode) {
  if (!sg || id >= hopsim::bgq::model::kBatPerSubgroup)
    fail(fmt::format("MUSPI_GetAtomicOffsetFromBaseAddress: entry {} (0..7)", id));
  const uint32_t g = sg->subgroup * hopsim::bgq::model::kBatPerSubgroup + id;
  auto& mu = R().mu;
  if (!mu.bat_set[g])
    fail(fmt::format("MUSPI_GetAtomicOffsetFromBaseAddress: entry {} of subgroup {} was not set (MUSPI_SetBaseAddress)",
                     id, sg->subgroup));
  // The MU writes there (a reception counter, most often): a loop polling it is polled MU memory.
  auto& bases = R().mu_bases;
  const uint64_t at = pa & MUHWI_ATOMIC_ADDRESS_MASK;
  if (std::find(bases.begin(), bases.end(), at) == bases.end()) bases.push_back(at);
  return MUSPI_GetAtomicAddress(pa, opcode) - mu.bat[g];
}

int MUSPI_SetUpDestination(MUHWI_Destination_t* dest, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t e) {
  *dest = hopsim::bgq::model::make_destination(static_cast<int>(a), static_cast<int>(b), static_cast<int>(c),
                                               static_cast<int>(d), static_cast<int>(e));
  return 0;
}

namespace {
void fill_base(MUHWI_Descriptor_t* d, const MUSPI_BaseDescriptorInfoFields_t& b,
               const MUSPI_Pt2PtDescriptorInfoFields_t& p, uint8_t type) {
  hopsim::bgq::set_base_fields(*d, b);
  auto& h = d->PacketHeader.NetworkHeader.pt2pt;
  h.Data_Packet_Type = MUHWI_PT2PT_DATA_PACKET_TYPE;
  h.Hints = p.Hints_ABCD;
  h.Byte2 = p.Misc1;
  h.Byte3 = p.Misc2;
  h.Destination = b.Dest;
  h.Byte8 = static_cast<uint8_t>(type | 16);  // full packets: 17 chunks
}
}  // namespace

int MUSPI_CreatePt2PtDirectPutDescriptor(MUHWI_Descriptor_t* d, MUSPI_Pt2PtDirectPutDescriptorInfo_t* info) {
  fill_base(d, info->Base, info->Pt2Pt, MUHWI_PACKET_TYPE_PUT);
  hopsim::bgq::set_direct_put_fields(*d, info->DirectPut);
  return 0;
}

int MUSPI_CreatePt2PtMemoryFIFODescriptor(MUHWI_Descriptor_t* d, MUSPI_Pt2PtMemoryFIFODescriptorInfo_t* info) {
  fill_base(d, info->Base, info->Pt2Pt, MUHWI_PACKET_TYPE_FIFO);
  hopsim::bgq::set_memory_fifo_fields(*d, info->MemFIFO);
  return 0;
}

void MUSPI_DescriptorDumpHex(char* identifier, MUHWI_Descriptor_t* d) {
  const auto* b = reinterpret_cast<const unsigned char*>(d);
  std::printf("%s: descriptor at %p\n", identifier ? identifier : "", static_cast<void*>(d));
  for (int i = 0; i < 64; i += 16) {
    std::printf("  %02x:", i);
    for (int k = 0; k < 16; ++k) std::printf(" %02x", b[i + k]);
    std::printf("\n");
  }
}

int MUSPI_CreatePt2PtRemoteGetDescriptor(MUHWI_Descriptor_t* d, MUSPI_Pt2PtRemoteGetDescriptorInfo_t* info) {
  fill_base(d, info->Base, info->Pt2Pt, MUHWI_PACKET_TYPE_GET);
  d->PacketHeader.messageUnitHeader.Packet_Types.Remote_Get.Rget_Inj_FIFO_Id = info->RemoteGet.Rget_Inj_FIFO_Id;
  return 0;
}

void MUSPI_SetRecPutOffset(MUHWI_Descriptor_t* d, uint64_t offset) { hopsim::bgq::model::set_put_offset(*d, offset); }

void MUSPI_SetPayload(MUHWI_Descriptor_t* d, uint64_t pa, uint64_t bytes) {
  d->Pa_Payload = pa;
  d->Message_Length = bytes;
}

int32_t Kernel_AllocateRecFifos(uint32_t subgroup, MUSPI_RecFifoSubGroup_t* sg, uint32_t n, uint32_t* ids,
                                Kernel_RecFifoAttributes_t*) {
  check_subgroup(subgroup, "Kernel_AllocateRecFifos");
  sg->subgroup = subgroup;
  auto& mu = R().mu;
  std::lock_guard<std::mutex> lock(mu.rec_mutex);
  for (uint32_t i = 0; i < n; ++i) {
    if (ids[i] >= hopsim::bgq::model::kRecFifosPerSubgroup)
      fail(fmt::format("Kernel_AllocateRecFifos: FIFO {} does not exist in a subgroup (0..3)", ids[i]));
    const uint32_t g = subgroup * hopsim::bgq::model::kRecFifosPerSubgroup + ids[i];
    if (mu.rec[g].allocated) return -1;
    mu.rec[g].allocated = true;
    sg->fifos[ids[i]] = {subgroup, g};
  }
  return 0;
}

int32_t Kernel_RecFifoInit(MUSPI_RecFifoSubGroup_t* sg, uint32_t id, Kernel_MemoryRegion_t* region, uint64_t start,
                           uint64_t sizeMinus1) {
  if (id >= hopsim::bgq::model::kRecFifosPerSubgroup) fail(fmt::format("Kernel_RecFifoInit: FIFO {} (0..3)", id));
  auto& mu = R().mu;
  std::lock_guard<std::mutex> lock(mu.rec_mutex);
  auto& f = mu.rec[sg->subgroup * hopsim::bgq::model::kRecFifosPerSubgroup + id];
  if (!f.allocated) fail(fmt::format("Kernel_RecFifoInit: FIFO {} of subgroup {} was not allocated", id, sg->subgroup));
  // The MU needs a 32-byte aligned start; hopsim takes 16, what the host's malloc gives the blocks programs
  // pass (hopsim keeps the FIFO's packets in its own storage, so the start's alignment changes nothing).
  if (!region || (reinterpret_cast<uint64_t>(region->BasePa) + start) % 16 != 0 || (sizeMinus1 + 1) % 32 != 0)
    fail("Kernel_RecFifoInit: the FIFO memory must be 16-byte aligned and its size a multiple of 32 bytes");
  f.initialised = true;
  f.capacity = sizeMinus1 + 1;
  return 0;
}

int32_t Kernel_RecFifoEnable(uint32_t group, uint64_t bits) {
  if (group >= 17) fail(fmt::format("Kernel_RecFifoEnable: group {} (0..16)", group));
  auto& mu = R().mu;
  std::lock_guard<std::mutex> lock(mu.rec_mutex);
  for (int k = 0; k < 16; ++k) {
    if (!(bits & (0x8000ull >> k))) continue;
    auto& f = mu.rec[group * 16 + static_cast<uint32_t>(k)];
    if (!f.initialised) fail(fmt::format("Kernel_RecFifoEnable: FIFO {} was not initialised", group * 16 + k));
    f.enabled = true;
  }
  return 0;
}

MUSPI_RecFifo_t* MUSPI_IdToRecFifo(uint32_t id, MUSPI_RecFifoSubGroup_t* sg) {
  if (id >= hopsim::bgq::model::kRecFifosPerSubgroup) fail(fmt::format("MUSPI_IdToRecFifo: FIFO {} (0..3)", id));
  return &sg->fifos[id];
}

int32_t MUSPI_RegisterRecvFunction(MUSPI_RecvFunction_t fn, void* param, uint32_t id) {
  if (id >= MUSPI_MAX_FUNCTION_IDS)
    fail(fmt::format("MUSPI_RegisterRecvFunction: id {} (0..{})", id, MUSPI_MAX_FUNCTION_IDS - 1));
  auto& recv = R().recv;
  recv.resize(MUSPI_MAX_FUNCTION_IDS);
  recv[id] = {fn, param};
  return 0;
}

int32_t MUSPI_RegisterReceiveFunction(MUSPI_RecvFunction_t fn, void* param) {
  if (!fn) fail("MUSPI_RegisterReceiveFunction: null function");
  auto& recv = R().recv;
  recv.resize(MUSPI_MAX_FUNCTION_IDS);
  for (uint32_t i = 0; i < MUSPI_MAX_FUNCTION_IDS; ++i)
    if (!recv[i].first) {
      recv[i] = {fn, param};
      return static_cast<int32_t>(i);
    }
  return -1;
}

int32_t MUSPI_DeRegisterReceiveFunction(uint32_t id) {
  if (id >= MUSPI_MAX_FUNCTION_IDS) return -1;
  auto& recv = R().recv;
  if (id < recv.size()) recv[id] = {nullptr, nullptr};
  return 0;
}

uint32_t MUSPI_RecFifoPoll(MUSPI_RecFifo_t* fifo, uint32_t bytes) {
  auto& m = M();
  m.rec_sync();
  auto& st = R();
  uint32_t done = 0;
  std::vector<std::uint8_t> buf;
  while (done < bytes) {
    hopsim::bgq::model::RecPacket p;
    {
      std::lock_guard<std::mutex> lock(st.mu.rec_mutex);
      auto& f = st.mu.rec[fifo->fifo];
      if (f.packets.empty()) break;
      p = std::move(f.packets.front());
      f.packets.pop_front();
      f.used -= hopsim::bgq::model::packet_wire_bytes(static_cast<std::uint32_t>(p.payload.size()));
      hopsim::bgq::model::admit_held(f);
    }
    const unsigned id = p.header.messageUnitHeader.Packet_Types.Memory_FIFO.Unused2[0];
    if (id >= st.recv.size() || !st.recv[id].first)
      fail(fmt::format("MUSPI_RecFifoPoll: a packet names receive function {}, which was not registered", id));
    // As the hardware lays it out: the header, then the payload padded with
    // zeros to whole 32-byte chunks; the function gets the packet's size.
    const std::uint32_t wire = hopsim::bgq::model::packet_wire_bytes(static_cast<std::uint32_t>(p.payload.size()));
    buf.assign(wire, 0);
    std::memcpy(buf.data(), &p.header, sizeof(MUHWI_PacketHeader_t));
    if (!p.payload.empty()) std::memcpy(buf.data() + sizeof(MUHWI_PacketHeader_t), p.payload.data(), p.payload.size());
    st.recv[id].first(st.recv[id].second, reinterpret_cast<MUHWI_PacketHeader_t*>(buf.data()), wire);
    done += wire;
  }
  if (done == 0) m.spin();  // nothing there: this was one iteration of a polling loop
  return done;
}

int32_t MUSPI_GIBarrierInit(MUSPI_GIBarrier_t* b, uint32_t classRoute) {
  b->classRoute = classRoute;
  b->generation = 0;
  return 0;
}

int32_t MUSPI_GIBarrierEnter(MUSPI_GIBarrier_t*) {
  M().gi_enter();
  return 0;
}

int32_t MUSPI_GIBarrierPollWithTimeout(MUSPI_GIBarrier_t*, uint64_t) {
  M().gi_wait();
  return 0;
}

uint64_t GetTimeBase(void) { return M().timebase(); }
void DelayTimeBase(uint64_t cycles) { M().delay(static_cast<double>(cycles)); }
void Delay(uint64_t cycles) { M().delay(static_cast<double>(cycles)); }
uint32_t Kernel_ProcessCount(void) { return 1; }
uint32_t Kernel_PhysicalProcessorID(void) { return 0; }
uint32_t Kernel_GetRank(void) { return static_cast<uint32_t>(Machine::current_rank()); }

// ------------------------------------------------------ kernel hooks ----

long hopsim_bgq_arg(const char* name) {
  const auto& a = M().args();
  if (!a.contains(name) || !a[name].is_number_integer())
    fail(fmt::format("hopsim_bgq_arg: the kernel has no integer argument '{}'", name));
  return a[name].get<long>();
}

void hopsim_bgq_record(const char* what, int iter, uint64_t cycles) {
  R().timings.push_back({what, iter, static_cast<double>(cycles)});
}

void hopsim_bgq_check(const char* what, uint64_t checked, uint64_t wrong, const char* example) {
  R().checks.push_back({what, checked, wrong, example ? example : ""});
}

void hopsim_bgq_digest(const void* data, size_t bytes) {
  auto& h = R().digest;
  const auto* p = static_cast<const std::uint8_t*>(data);
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
}

// Not through M(): under counted compute the loop's counted cycles are the
// compute's, spread over its threads.
void hopsim_bgq_compute(uint64_t elements, int threads) { Machine::current()->compute(elements, threads); }

void hopsim_bgq_spin(void) { M().spin(); }

}  // extern "C"

namespace {

// An instrumented load (hopsim-bgq-poll) at `site` (its call's return
// address): the value, and when the rank reads memory the MU writes and that
// load finds the value it read there last, one polling iteration (the
// simulated rank yields until something may have changed), then the value
// again.
template <typename T>
T polled_load(const void* p, int order, std::uint64_t site) {
  auto load = [&] {
    return __atomic_load_n(static_cast<const T*>(p), order == 5   ? __ATOMIC_SEQ_CST
                                                     : order == 2 ? __ATOMIC_ACQUIRE
                                                                  : __ATOMIC_RELAXED);
  };
  T v = load();
  Machine* m = Machine::current();
  if (!m || Machine::current_rank() < 0) return v;
  auto& st = m->self();
  const auto a = reinterpret_cast<uint64_t>(p);
  const bool mu_memory =
      std::any_of(st.regions.begin(), st.regions.end(), [&](const auto& r) { return a >= r.first && a < r.second; }) ||
      std::find(st.mu_bases.begin(), st.mu_bases.end(), a) != st.mu_bases.end();
  if (!mu_memory) return v;
  auto bits = [](T x) {
    uint64_t u = 0;
    std::memcpy(&u, &x, sizeof x);
    return u;
  };
  // Unchanged since this load last read this address, and nothing delivered
  // since then: the loop waits. (A loop over several counters re-reads one
  // that is already final after another one changed; that pass must not
  // wait. Nor must a later read of a final value elsewhere in the program.)
  auto slot =
      std::find_if(st.polled.begin(), st.polled.end(), [&](const auto& e) { return e.address == a && e.site == site; });
  if (slot != st.polled.end() && slot->value == bits(v) && slot->deliveries == m->deliveries()) {
    m->settle_counted();
    m->spin();
    v = load();
  }
  if (slot == st.polled.end()) {
    slot = st.polled.begin() + static_cast<std::ptrdiff_t>(st.polled_next);
    st.polled_next = (st.polled_next + 1) % st.polled.size();
  }
  *slot = {a, site, bits(v), m->deliveries()};
  return v;
}

}  // namespace

extern "C" {

// NOLINTBEGIN(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): the hopsim-bgq-poll pass's ABI names
uint8_t __hopsim_bgq_load1(const void* p, int order) {
  return polled_load<uint8_t>(p, order, reinterpret_cast<std::uint64_t>(__builtin_return_address(0)));
}
uint16_t __hopsim_bgq_load2(const void* p, int order) {
  return polled_load<uint16_t>(p, order, reinterpret_cast<std::uint64_t>(__builtin_return_address(0)));
}
uint32_t __hopsim_bgq_load4(const void* p, int order) {
  return polled_load<uint32_t>(p, order, reinterpret_cast<std::uint64_t>(__builtin_return_address(0)));
}
uint64_t __hopsim_bgq_load8(const void* p, int order) {
  return polled_load<uint64_t>(p, order, reinterpret_cast<std::uint64_t>(__builtin_return_address(0)));
}

// The pass's payment before each call and return (sim/core/pass/counting.hpp).
// Threads the program starts itself (OpenMP's workers) belong to no rank:
// what they count is not charged. Counting never starts a machine (over
// Open MPI the program's first MPI or SPI call does, with its thread level).
void __hopsim_bgq_count(uint64_t cycles, uint64_t instructions, uint64_t fpu) {
  Machine* m = Machine::running();
  if (!m || Machine::current_rank() < 0) return;
  auto& st = m->self();
  st.counted.cycles += static_cast<double>(cycles);
  st.counted.instructions += static_cast<double>(instructions);
  st.counted.fpu += static_cast<double>(fpu);
  st.instructions += instructions;
}

// The program's threads (hopsim-mpicc renames these pthread calls in the
// program's objects to these, so its calls come here, and only its own:
// libraries' threads are untouched): a thread a rank makes is a thread of that
// rank (Machine::start_thread). In a simulated run a rank's threads are
// fibers of one host thread, so a mutex another of them holds, or a
// condition, is waited for by letting the others run. Threads that belong
// to no rank (OpenMP's workers, library threads) get the host's calls.
int __hopsim_pthread_create(pthread_t* t, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  Machine* m = Machine::current_or_null();
  if (!m || Machine::current_rank() < 0) return pthread_create(t, attr, fn, arg);
  M();
  *t = static_cast<pthread_t>(m->start_thread(fn, arg, attr));
  return 0;
}
int __hopsim_pthread_join(pthread_t t, void** value) {
  Machine* m = Machine::current_or_null();
  if (!m || Machine::current_rank() < 0) return pthread_join(t, value);
  M();
  void* v = m->join_thread(static_cast<std::uint64_t>(t));
  if (value) *value = v;
  return 0;
}
int __hopsim_pthread_detach(pthread_t t) {
  Machine* m = Machine::current_or_null();
  if (!m || Machine::current_rank() < 0) return pthread_detach(t);
  m->detach_thread(static_cast<std::uint64_t>(t));
  return 0;
}
void __hopsim_pthread_exit(void* value) {
  Machine* m = Machine::current_or_null();
  if (!m || Machine::current_rank() < 0) pthread_exit(value);
  m->exit_thread(value);
}
int __hopsim_pthread_mutex_lock(pthread_mutex_t* mx) {
  Machine* m = Machine::current_or_null();
  if (!m || Machine::current_rank() < 0 || m->mode() != hopsim::Mode::sim) return pthread_mutex_lock(mx);
  for (std::uint64_t polls = 0;; ++polls) {
    const int rc = pthread_mutex_trylock(mx);
    if (rc != EBUSY) return rc;
    if (polls == hopsim::bgq::kNeverDone)
      fail(fmt::format("waits for a pthread mutex that no thread of the rank releases ({} polls)", polls));
    M().idle_poll(hopsim::bgq::WaitKind::mutex, 0, 0);
  }
}
int __hopsim_pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* mx) {
  Machine* m = Machine::current_or_null();
  if (!m || Machine::current_rank() < 0 || m->mode() != hopsim::Mode::sim) return pthread_cond_wait(c, mx);
  // Woken at once (a wake-up POSIX allows without a signal): the caller
  // checks its condition again, after the rank's other threads ran.
  pthread_mutex_unlock(mx);
  M().idle_poll(hopsim::bgq::WaitKind::mutex, 0, 0);
  return __hopsim_pthread_mutex_lock(mx);
}
// NOLINTEND(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)

}  // extern "C"
