// e-lib on hopsim's device. Pure bookkeeping (ids, addresses) runs here;
// anything that touches another core goes through Device (timed in
// simulation, real stores natively).
#include "e_lib.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "barrier.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/log.hpp"
#include "hopsim/epiphany/device.hpp"
#include "hopsim/epiphany/esdk.hpp"

using hopsim::KernelError;
using hopsim::epiphany::Device;

namespace {

struct CoreState {
  e_group_config_t group{};
  e_emem_config_t emem{};
  struct Timer {
    unsigned value = 0;
    double started = 0;
    e_ctimer_config_t mode = E_CTIMER_OFF;
    unsigned mesh_event = 0;      // in a mesh mode: the MESHCFG event code it counts
    std::uint64_t mesh_base = 0;  // the router's count of that event when value was set
  };
  std::array<Timer, 2> timers{};
  std::array<double, 8> dma_done{};
  std::array<e_irqhandler_t, 10> handlers{};
  std::uint32_t imask = 0;    // IMASK: a set bit masks that interrupt
  std::uint32_t meshcfg = 0;  // MESHCFG: the event codes of the ctimers' mesh modes
  std::uint32_t config = 0;   // CONFIG but its timer modes (kept as written, not modelled)
  bool gie = false;           // interrupts globally enabled (gie / e_irq_global_mask(E_FALSE))
  std::uint32_t ipend = 0;    // IPEND: interrupts whose handlers are running (nested)
};

// Per-core state of the current device, rebuilt when the device changes.
std::vector<CoreState>& states() {
  static std::vector<CoreState> s;
  static std::atomic<const Device*> owner{nullptr};
  static std::mutex m;
  Device& d = Device::current();
  if (owner.load(std::memory_order_acquire) == &d) return s;
  std::lock_guard lock(m);
  if (owner.load(std::memory_order_relaxed) != &d) {
    const auto& p = d.params();
    s.assign(p.num_cores(), CoreState{});
    for (std::uint32_t i = 0; i < p.num_cores(); ++i) {
      auto& g = s[i].group;
      g.objtype = E_EPI_GROUP;
      g.chiptype = p.cols > 4 ? E_E64G401 : E_E16G301;
      g.group_row = static_cast<unsigned>(p.first_row);
      g.group_col = static_cast<unsigned>(p.first_col);
      g.group_id = (g.group_row << 6) | g.group_col;
      g.group_rows = static_cast<unsigned>(p.rows);
      g.group_cols = static_cast<unsigned>(p.cols);
      g.core_row = i / g.group_cols;
      g.core_col = i % g.group_cols;
      s[i].emem.objtype = E_EXT_MEM;
      s[i].emem.base = p.emem_base;
    }
    owner.store(&d, std::memory_order_release);
  }
  return s;
}

CoreState& me() { return states()[Device::current_core()]; }

// The latched interrupts the current core would take now.
std::uint32_t takeable(Device& d, const CoreState& st) {
  if (!st.gie) return 0;
  const std::uint32_t above = st.ipend ? (1u << __builtin_ctz(st.ipend)) - 1 : 0x3ffu;
  return d.latched(Device::current_core()) & ~st.imask & above;
}

// The ctimer configs that count the router's events (MESHCFG selects which):
// 0xF takes the code in MESHCFG[7:4], 0xE the code in MESHCFG[11:8].
constexpr unsigned kCtimerMesh0 = 0xf, kCtimerMesh1 = 0xe;
bool mesh_mode(unsigned config) { return config == kCtimerMesh0 || config == kCtimerMesh1; }

// Lets a sleeping simulated poller wake for an interrupt it would take.
const bool g_probe_set = [] {
  Device::set_interrupt_probe([] { return hopsim::epiphany::api::interrupt_ready(); });
  return true;
}();

}  // namespace

namespace hopsim::epiphany::api {
// The eCore's interrupt controller (Epiphany Architecture Reference,
// interrupt controller): a latched, unmasked interrupt is taken while
// interrupts are globally enabled and no handler of equal or higher
// priority (lower number) is running (IPEND). Taking it sets its IPEND bit
// and disables interrupts; the handler e-gcc compiles for the interrupt
// attribute re-enables them once it has saved its registers, so a higher
// priority interrupt can nest; its return (RTI) clears the IPEND bit and
// enables interrupts again.
void service_interrupts() {
  auto* d = Device::current_or_null();
  if (!d) return;
  auto& st = me();
  const std::uint32_t core = Device::current_core();
  for (;;) {
    const std::uint32_t pending = takeable(*d, st);
    if (pending == 0) return;
    const auto irq = static_cast<unsigned>(__builtin_ctz(pending));
    d->clear_interrupt(core, irq);
    if (e_irqhandler_t h = st.handlers.at(irq)) {
      const std::uint32_t bit = 1u << irq;
      st.ipend |= bit;
      st.gie = true;  // the handler's prologue
      try {
        h();
      } catch (...) {
        st.ipend &= ~bit;
        throw;
      }
      st.ipend &= ~bit;
      st.gie = true;  // RTI
    }
  }
}

bool interrupt_ready() {
  auto* d = Device::current_or_null();
  return d && takeable(*d, me()) != 0;
}

void idle() {
  auto& d = Device::current();
  auto& st = me();
  // The core sleeps until an interrupt it would take is latched.
  const std::uint32_t wake = st.gie ? ~st.imask & 0x3ffu : 0x3ffu;
  d.idle(wake);
  service_interrupts();
}

void set_global_interrupts(bool enabled) {
  me().gie = enabled;
  if (enabled) service_interrupts();
}

void reset_core_state(std::uint32_t core) {
  auto& st = states().at(core);
  auto& d = Device::current();
  for (const auto& t : st.timers)
    if (mesh_mode(t.mode)) d.count_mesh_events(false);
  const e_group_config_t group = st.group;
  const e_emem_config_t emem = st.emem;
  st = CoreState{};
  st.group = group;
  st.emem = emem;
}

void set_group(std::uint32_t core, unsigned row, unsigned col, unsigned rows, unsigned cols) {
  auto& g = states().at(core).group;
  const auto& map = Device::current().map();
  const unsigned cid = map.base_of(core) >> 20;
  g.group_row = row;
  g.group_col = col;
  g.group_id = (row << 6) | col;
  g.group_rows = rows;
  g.group_cols = cols;
  g.core_row = ((cid >> 6) & 0x3f) - row;
  g.core_col = (cid & 0x3f) - col;
}
}  // namespace hopsim::epiphany::api

namespace {

std::uint64_t own_base() { return Device::current().map().base_of(Device::current_core()); }

// Global address of `ptr` for core (row, col): local and own-window pointers
// are retargeted, other global pointers pass through (as on the device).
std::uint64_t global_of(unsigned row, unsigned col, const void* ptr) {
  const auto a = reinterpret_cast<std::uint64_t>(ptr);
  const std::uint64_t base = std::uint64_t{e_coreid_from_coords(row, col)} << 20;
  if (a < 0x100000) return base | a;
  const std::uint64_t own = own_base();
  if (a >= own && a < own + 0x100000) return base | (a - own);
  return a;
}

// Where C++ code reaches an object the device code passed by address: a
// local address is the calling core's window.
template <class T>
T* host(T* p) {
  const auto a = reinterpret_cast<std::uint64_t>(p);
  if (a < 0x100000) return reinterpret_cast<T*>(a | own_base());
  return p;
}

std::uint64_t emem_global(const void* ptr) {
  const auto a = reinterpret_cast<std::uint64_t>(ptr);
  const auto& e = me().emem;
  // An offset into external memory, or already its global address.
  if (a < Device::current().map().emem_size()) return e.base + a;
  return a;
}

e_objtype_t objtype_of(const void* remote) {
  if (!remote) throw KernelError("e_read/e_write: remote object is NULL (use &e_group_config or &e_emem_config)");
  return *static_cast<const e_objtype_t*>(host(remote));
}

// The global address of `ptr` inside the object e_read/e_write name:
// a core of the group, external memory, or an attached memory segment.
std::uint64_t remote_global(const void* remote, unsigned row, unsigned col, const void* ptr) {
  switch (objtype_of(remote)) {
    case E_EXT_MEM:
      return emem_global(ptr);
    case E_SHARED_MEM: {
      const auto* seg = static_cast<const e_memseg_t*>(host(remote));
      return static_cast<std::uint64_t>(seg->ephy_base) + reinterpret_cast<std::uint64_t>(ptr);
    }
    default:
      return global_of(row, col, ptr);
  }
}

}  // namespace

namespace hopsim::epiphany::api {
void flipflop_barrier(volatile char* mine, unsigned self, unsigned n,
                      const std::function<std::uint64_t(unsigned)>& target) {
  auto& d = Device::current();
  const char one = 1;
  if (self == 0) {
    // Core 0 waits for every flag, clears it, then releases everyone.
    for (unsigned i = 1; i < n; ++i) {
      d.wait_value(&mine[i], 1, 1, true, hopsim::epiphany::WaitKind::barrier);
      mine[i] = 0;
    }
    for (unsigned i = 1; i < n; ++i) d.write(target(i), &one, 1, 8);
  } else {
    d.write(target(0), &one, 1, 8);
    d.wait_value(&mine[0], 1, 1, true, hopsim::epiphany::WaitKind::barrier);
    mine[0] = 0;
  }
}
}  // namespace hopsim::epiphany::api

extern "C" {

e_group_config_t* hopsim_e_group_config(void) { return &me().group; }
e_emem_config_t* hopsim_e_emem_config(void) { return &me().emem; }

e_coreid_t e_get_coreid(void) {
  const auto& g = me().group;
  return ((g.group_row + g.core_row) << 6) | (g.group_col + g.core_col);
}

e_coreid_t e_coreid_from_coords(unsigned row, unsigned col) {
  const auto& g = me().group;
  return ((g.group_row + row) << 6) | (g.group_col + col);
}

void e_coords_from_coreid(e_coreid_t coreid, unsigned* row, unsigned* col) {
  const auto& g = me().group;
  row = host(row);
  col = host(col);
  *row = ((coreid >> 6) & 0x3f) - g.group_row;
  *col = (coreid & 0x3f) - g.group_col;
}

void* e_get_global_address(unsigned row, unsigned col, const void* ptr) {
  return reinterpret_cast<void*>(global_of(row, col, ptr));
}

e_bool_t e_is_on_core(const void* ptr) {
  const auto a = reinterpret_cast<std::uint64_t>(ptr);
  const std::uint64_t own = own_base();
  const auto size = Device::current().map().local_size();
  return (a < size || (a >= own && a < own + size)) ? E_TRUE : E_FALSE;
}

void e_neighbor_id(e_coreid_dir_t dir, e_coreid_wrap_t wrap, unsigned* row, unsigned* col) {
  const auto& g = me().group;
  const unsigned rows = g.group_rows, cols = g.group_cols;
  unsigned r = g.core_row, c = g.core_col;
  const bool next = dir == E_NEXT_CORE;
  switch (wrap) {
    case E_ROW_WRAP:
      c = next ? (c + 1) % cols : (c + cols - 1) % cols;
      break;
    case E_COL_WRAP:
      r = next ? (r + 1) % rows : (r + rows - 1) % rows;
      break;
    default: {
      unsigned i = r * cols + c;
      const unsigned n = rows * cols;
      i = next ? (i + 1) % n : (i + n - 1) % n;
      r = i / cols;
      c = i % cols;
      break;
    }
  }
  *host(row) = r;
  *host(col) = c;
}

void* e_read(const void* remote, void* dst, unsigned row, unsigned col, const void* src, size_t bytes) {
  Device::current().read(host(dst), remote_global(remote, row, col, src), bytes);
  return dst;
}

void* e_write(const void* remote, const void* src, unsigned row, unsigned col, void* dst, size_t bytes) {
  Device::current().write(remote_global(remote, row, col, dst), host(src), bytes, 8);
  return dst;
}

int e_shm_attach(e_memseg_t* mem, const char* name) {
  const auto seg = hopsim::epiphany::shm_find(host(name));
  if (!seg) return E_ERR;
  auto* m = host(mem);
  m->objtype = E_SHARED_MEM;
  m->phy_base = static_cast<long>(seg->addr);
  m->ephy_base = static_cast<long>(seg->addr);
  m->size = seg->size;
  m->type = 3;  // read and write (e-hal's E_RDWR)
  return E_OK;
}

int e_shm_release(const char* name) { return hopsim::epiphany::shm_find(host(name)) ? E_OK : E_ERR; }

void e_barrier_init(volatile e_barrier_t bar_array[], e_barrier_t* tgt_bar_array[]) {
  const auto& g = me().group;
  const volatile e_barrier_t* bar_dev = bar_array;  // device addresses, for e_get_global_address
  bar_array = host(bar_array);
  tgt_bar_array = host(tgt_bar_array);
  const unsigned n = g.group_rows * g.group_cols;
  const unsigned self = g.core_row * g.group_cols + g.core_col;
  for (unsigned i = 0; i < n; ++i) bar_array[i] = 0;
  // e_get_global_address takes a plain pointer; the barrier array is volatile.
  // NOLINTBEGIN(cppcoreguidelines-pro-type-const-cast)
  if (self == 0) {
    for (unsigned i = 0; i < n; ++i)
      tgt_bar_array[i] = static_cast<e_barrier_t*>(
          e_get_global_address(i / g.group_cols, i % g.group_cols, const_cast<char*>(&bar_dev[0])));
  } else {
    tgt_bar_array[0] = static_cast<e_barrier_t*>(e_get_global_address(0, 0, const_cast<char*>(&bar_dev[self])));
  }
  // NOLINTEND(cppcoreguidelines-pro-type-const-cast)
}

void e_barrier(volatile e_barrier_t bar_array[], e_barrier_t* tgt_bar_array[]) {
  const auto& g = me().group;
  tgt_bar_array = host(tgt_bar_array);
  hopsim::epiphany::api::flipflop_barrier(
      host(bar_array), g.core_row * g.group_cols + g.core_col, g.group_rows * g.group_cols,
      [&](unsigned i) { return reinterpret_cast<std::uint64_t>(tgt_bar_array[i]); });
}

void e_mutex_init(unsigned row, unsigned col, e_mutex_t* mutex, e_mutexattr_t*) {
  const std::uint32_t zero = 0;
  Device::current().write(global_of(row, col, mutex), &zero, 4, 8);
}

void e_mutex_lock(unsigned row, unsigned col, e_mutex_t* mutex) {
  auto& d = Device::current();
  const std::uint64_t g = global_of(row, col, mutex);
  while (d.testset(g, e_get_coreid()) != 0) {
  }
}

unsigned e_mutex_trylock(unsigned row, unsigned col, e_mutex_t* mutex) {
  return Device::current().testset(global_of(row, col, mutex), e_get_coreid());
}

void e_mutex_unlock(unsigned row, unsigned col, e_mutex_t* mutex) {
  const std::uint32_t zero = 0;
  Device::current().write(global_of(row, col, mutex), &zero, 4, 8);
}

namespace {
// A timer counting clock cycles raises its interrupt (E_TIMER0_INT,
// E_TIMER1_INT) when it expires, counting down to zero.
void arm_timer(e_ctimer_id_t timer) {
  const auto& t = me().timers.at(timer);
  const unsigned irq = E_TIMER0_INT + static_cast<unsigned>(timer);
  Device::current().arm_own_interrupt(irq, t.mode == E_CTIMER_CLK && t.value > 0 ? t.started + t.value : 0.0);
}
}  // namespace

unsigned e_ctimer_get(e_ctimer_id_t timer) {
  auto& t = me().timers.at(timer);
  if (mesh_mode(t.mode)) {
    const std::uint64_t n = Device::current().mesh_events(Device::current_core(), t.mesh_event) - t.mesh_base;
    return n >= t.value ? 0u : t.value - static_cast<unsigned>(n);
  }
  if (t.mode != E_CTIMER_CLK) return t.value;
  const double elapsed = Device::current().now_cycles() - t.started;
  return elapsed >= t.value ? 0u : t.value - static_cast<unsigned>(elapsed);
}

unsigned e_ctimer_set(e_ctimer_id_t timer, unsigned val) {
  auto& t = me().timers.at(timer);
  t.value = val;
  t.started = Device::current().now_cycles();
  if (mesh_mode(t.mode)) t.mesh_base = Device::current().mesh_events(Device::current_core(), t.mesh_event);
  arm_timer(timer);
  return val;
}

unsigned e_ctimer_start(e_ctimer_id_t timer, e_ctimer_config_t config) {
  auto& st = me();
  auto& t = st.timers.at(timer);
  auto& d = Device::current();
  const auto c = static_cast<unsigned>(config);
  if (c != E_CTIMER_CLK && c != E_CTIMER_OFF && !mesh_mode(c)) {
    static bool warned = false;
    if (!warned)
      hopsim::log::get("e-lib")->warn("ctimer event {} is not modelled; the timer counts nothing",
                                      static_cast<int>(config));
    warned = true;
  }
  // A timer already counting goes on from where it stands, not from the value last set.
  t.value = e_ctimer_get(timer);
  if (mesh_mode(c) != mesh_mode(t.mode)) d.count_mesh_events(mesh_mode(c));
  if (mesh_mode(c)) {
    t.mesh_event = (st.meshcfg >> (c == kCtimerMesh0 ? 4 : 8)) & 0xfu;
    if (!hopsim::epiphany::model::valid_mesh_event(t.mesh_event)) {
      static bool warned = false;
      if (!warned)
        hopsim::log::get("e-lib")->warn("MESHCFG selects mesh event {} for ctimer {}, which counts nothing",
                                        t.mesh_event, static_cast<int>(timer));
      warned = true;
    }
    t.mesh_base = d.mesh_events(Device::current_core(), t.mesh_event);
  }
  t.mode = config;
  t.started = d.now_cycles();
  arm_timer(timer);
  return t.value;
}

unsigned e_ctimer_stop(e_ctimer_id_t timer) {
  const unsigned v = e_ctimer_get(timer);
  auto& t = me().timers.at(timer);
  if (mesh_mode(t.mode)) Device::current().count_mesh_events(false);
  t.value = v;
  t.mode = E_CTIMER_OFF;
  arm_timer(timer);
  return v;
}

void e_dma_set_desc(e_dma_id_t, unsigned config, e_dma_desc_t* next_desc, unsigned strd_i_src, unsigned strd_i_dst,
                    unsigned count_i, unsigned count_o, unsigned strd_o_src, unsigned strd_o_dst, void* addr_src,
                    void* addr_dst, e_dma_desc_t* desc) {
  desc = host(desc);
  desc->config = config | (static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(next_desc) & 0xffff) << 16);
  desc->inner_stride = ((strd_i_dst & 0xffff) << 16) | (strd_i_src & 0xffff);
  desc->count = ((count_o & 0xffff) << 16) | (count_i & 0xffff);
  desc->outer_stride = ((strd_o_dst & 0xffff) << 16) | (strd_o_src & 0xffff);
  desc->src_addr = addr_src;
  desc->dst_addr = addr_dst;
}

namespace {
// One descriptor's transfer, starting no earlier than t; returns its end.
// `blocking`: the core waits for it (e_dma_copy).
double dma_run(const e_dma_desc_t* desc, double t, bool blocking);
int dma_start(e_dma_desc_t* desc, e_dma_id_t chan, bool blocking);
}  // namespace

int e_dma_start(e_dma_desc_t* desc, e_dma_id_t chan) { return dma_start(desc, chan, false); }

namespace {
int dma_start(e_dma_desc_t* desc, e_dma_id_t chan, bool blocking) {
  auto& d = Device::current();
  auto& st = me();
  if (static_cast<int>(chan) < 0 || static_cast<int>(chan) >= d.params().dma_channels)
    throw KernelError(fmt::format("e_dma_start: channel {} does not exist ({} channels)", static_cast<int>(chan),
                                  d.params().dma_channels));
  double t = std::max(st.dma_done[chan], d.now_cycles());
  // A chained descriptor names the next one by its address in this core's
  // memory (the upper half of config), as the DMA engine fetches it.
  constexpr int kMaxChain = 1 << 16;
  const std::uint64_t own = own_base();
  const auto* at = host(desc);
  for (int n = 0;; ++n) {
    t = dma_run(at, t, blocking);
    // IRQEN: the channel's interrupt when this descriptor's transfer ends.
    if (at->config & E_DMA_IRQEN) d.raise_own_interrupt_at(E_DMA0_INT + static_cast<unsigned>(chan), t);
    if (!(at->config & E_DMA_CHAIN)) break;
    if (n == kMaxChain)
      throw KernelError(fmt::format("e_dma_start: a chain of more than {} descriptors (a cycle?)", kMaxChain));
    if (const auto a = reinterpret_cast<std::uint64_t>(at); a < own || a >= own + d.params().local_mem)
      throw KernelError(
          fmt::format("e_dma_start: a chained descriptor must be in the core's memory (this one is at "
                      "0x{:x}); kernels built with hopsim-cc keep globals in host memory",
                      a));
    at = reinterpret_cast<const e_dma_desc_t*>(own + (at->config >> 16));
  }
  st.dma_done[chan] = t;
  return 0;
}

double dma_run(const e_dma_desc_t* desc, double t, bool blocking) {
  auto& d = Device::current();
  t += d.params().dma_setup;
  const unsigned elem = 1u << ((desc->config >> 5) & 3);
  const auto s16 = [](unsigned v) { return static_cast<std::int64_t>(static_cast<std::int16_t>(v & 0xffff)); };
  const std::int64_t si_src = s16(desc->inner_stride), si_dst = s16(desc->inner_stride >> 16);
  const std::int64_t so_src = s16(desc->outer_stride), so_dst = s16(desc->outer_stride >> 16);
  const unsigned ci = desc->count & 0xffff, co = desc->count >> 16;
  auto src = reinterpret_cast<std::uint64_t>(desc->src_addr);
  auto dst = reinterpret_cast<std::uint64_t>(desc->dst_addr);
  // Local addresses mean this core.
  if (src < 0x100000) src += own_base();
  if (dst < 0x100000) dst += own_base();
  // Contiguous runs of elements go as one piece; the outer stride replaces
  // the inner one after the last element of each inner loop.
  std::uint64_t run_src = src, run_dst = dst, run_len = 0;
  auto flush = [&] {
    if (run_len) t = d.dma_copy(run_dst, run_src, run_len, elem, t, blocking);
    run_len = 0;
  };
  for (unsigned o = 0; o < std::max(co, 1u); ++o) {
    for (unsigned i = 0; i < ci; ++i) {
      if (run_len && (run_src + run_len != src || run_dst + run_len != dst)) flush();
      if (!run_len) {
        run_src = src;
        run_dst = dst;
      }
      run_len += elem;
      const bool last = i + 1 == ci;
      src += static_cast<std::uint64_t>(last ? so_src : si_src);
      dst += static_cast<std::uint64_t>(last ? so_dst : si_dst);
    }
  }
  flush();
  return t;
}
}  // namespace

int e_dma_busy(e_dma_id_t chan) { return Device::current().now_cycles() < me().dma_done.at(chan) ? 1 : 0; }

void e_dma_wait(e_dma_id_t chan) { Device::current().wait_until(me().dma_done.at(chan)); }

int e_dma_copy(void* dst, void* src, size_t n) {
  // As e-lib: pick the widest element size both addresses and the length allow.
  const auto a = reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src) | n;
  unsigned config = E_DMA_ENABLE | E_DMA_MASTER;
  unsigned elem = 1;
  if ((a & 7) == 0) {
    config |= E_DMA_DWORD;
    elem = 8;
  } else if ((a & 3) == 0) {
    config |= E_DMA_WORD;
    elem = 4;
  } else if ((a & 1) == 0) {
    config |= E_DMA_HWORD;
    elem = 2;
  }
  e_dma_desc_t desc;
  const auto count = static_cast<unsigned>(n / elem);
  e_dma_set_desc(E_DMA_1, config, nullptr, elem, elem, count, 1, 0, 0, src, dst, &desc);
  dma_start(&desc, E_DMA_1, true);
  e_dma_wait(E_DMA_1);
  return 0;
}

// As e-lib: the timer counts `clicks` down to 0 and stays there, stopped;
// its expiry latches the timer's interrupt.
void e_wait(e_ctimer_id_t timer, unsigned int clicks) {
  e_ctimer_set(timer, clicks);
  e_ctimer_start(timer, E_CTIMER_CLK);
  auto& d = Device::current();
  const auto& t = me().timers.at(timer);
  const double until = t.started + t.value;
  if (d.mode() == hopsim::Mode::sim) {
    d.wait_until(until);
  } else {
    while (d.now_cycles() < until) std::this_thread::yield();
    d.fire_timers();
  }
  e_ctimer_stop(timer);
}

void(e_irq_attach)(e_irq_type_t irq, e_irqhandler_t handler) {
  if (static_cast<unsigned>(irq) >= 10)
    throw KernelError(fmt::format("e_irq_attach: no interrupt {}", static_cast<int>(irq)));
  me().handlers.at(irq) = handler;
}

namespace {
std::uint32_t group_core(unsigned row, unsigned col, const char* fn) {
  const auto& g = me().group;
  const auto& map = Device::current().map();
  const std::uint32_t coreid = ((g.group_row + row) << 6) | (g.group_col + col);
  for (std::uint32_t i = 0; i < map.num_cores(); ++i)
    if (map.base_of(i) >> 20 == coreid) return i;
  throw KernelError(fmt::format("{}: core ({}, {}) of the group is not on the chip", fn, row, col));
}
}  // namespace

void e_irq_set(unsigned row, unsigned col, e_irq_type_t irq) {
  Device::current().raise_interrupt(group_core(row, col, "e_irq_set"), static_cast<unsigned>(irq));
}

void e_irq_clear(unsigned row, unsigned col, e_irq_type_t irq) {
  Device::current().clear_interrupt(group_core(row, col, "e_irq_clear"), static_cast<unsigned>(irq));
}

void e_irq_global_mask(e_bool_t state) { hopsim::epiphany::api::set_global_interrupts(state == E_FALSE); }

void e_irq_mask(e_irq_type_t irq, e_bool_t state) {
  auto& st = me();
  const std::uint32_t bit = 1u << static_cast<unsigned>(irq);
  st.imask = state != E_FALSE ? (st.imask | bit) : (st.imask & ~bit);
  hopsim::epiphany::api::service_interrupts();
}

unsigned e_reg_read(unsigned reg_id) {
  auto& d = Device::current();
  const std::uint32_t core = Device::current_core();
  switch (reg_id) {
    case E_REG_COREID:
      return e_get_coreid();
    case E_REG_MESHCFG:
      return me().meshcfg;
    case E_REG_CONFIG: {
      const auto& st = me();
      return st.config | (static_cast<unsigned>(st.timers[0].mode) & 0xfu) << 4 |
             (static_cast<unsigned>(st.timers[1].mode) & 0xfu) << 8;
    }
    case E_REG_IPEND:
      return me().ipend;
    case E_REG_STATUS:
      return me().gie ? 0u : 2u;  // bit 1: interrupts globally disabled
    case E_REG_ILAT:
      return d.ilat(core, false);
    case E_REG_IMASK:
      return me().imask;
    case E_REG_CTIMER0:
      return e_ctimer_get(E_CTIMER_0);
    case E_REG_CTIMER1:
      return e_ctimer_get(E_CTIMER_1);
    case E_REG_DMA0STATUS:
      return static_cast<unsigned>(e_dma_busy(E_DMA_0));
    case E_REG_DMA1STATUS:
      return static_cast<unsigned>(e_dma_busy(E_DMA_1));
    default:
      throw KernelError(fmt::format("e_reg_read: register 0x{:05x} is not modelled", reg_id));
  }
}

void e_reg_write(unsigned reg_id, unsigned value) {
  auto& d = Device::current();
  const std::uint32_t core = Device::current_core();
  switch (reg_id) {
    case E_REG_CTIMER0:
      e_ctimer_set(E_CTIMER_0, value);
      return;
    case E_REG_CTIMER1:
      e_ctimer_set(E_CTIMER_1, value);
      return;
    case E_REG_MESHCFG:
      me().meshcfg = value;
      return;
    case E_REG_CONFIG:
      // CTIMER0's mode in bits 7:4 and CTIMER1's in 11:8, as e_ctimer_start
      // and e_ctimer_stop set them; a changed mode starts or stops the timer.
      me().config = value & ~0xff0u;
      for (unsigned i = 0; i < 2; ++i) {
        const auto timer = static_cast<e_ctimer_id_t>(i);
        const unsigned mode = (value >> (4 + 4 * i)) & 0xfu;
        if (mode == static_cast<unsigned>(me().timers.at(i).mode)) continue;
        if (mode == E_CTIMER_OFF) {
          e_ctimer_stop(timer);
        } else {
          e_ctimer_start(timer, static_cast<e_ctimer_config_t>(mode));
        }
      }
      return;
    case E_REG_IMASK:
      me().imask = value & 0x3ffu;
      hopsim::epiphany::api::service_interrupts();
      return;
    case E_REG_ILATST:
      for (unsigned i = 0; i < 10; ++i)
        if (value & (1u << i)) d.raise_interrupt(core, i);
      hopsim::epiphany::api::service_interrupts();  // taken before the next instruction
      return;
    case E_REG_ILATCL:
      for (unsigned i = 0; i < 10; ++i)
        if (value & (1u << i)) d.clear_interrupt(core, i);
      return;
    default:
      throw KernelError(fmt::format("e_reg_write: register 0x{:05x} is not modelled", reg_id));
  }
}

}  // extern "C"
