// The e-hal C functions: argument checks and the eSDK's return codes over
// Hal (e_hal_system.hpp). A call that fails prints one message naming the
// function and what is wrong, and returns E_ERR; nothing is half written.
#include <dlfcn.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "e-hal.h"
#include "e_hal_system.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/epiphany/esdk.hpp"

using hopsim::epiphany::ehal::Hal;

namespace {

e_hal_diag_t g_verbosity = H_D0;

template <class F>
int guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "hopsim: %s\n", e.what());
    return E_ERR;
  }
}

}  // namespace

extern "C" {

// The platform description, as e-hal keeps it for programs that read it
// directly (`extern e_platform_t e_platform;`); filled by e_init.
__attribute__((visibility("default"))) e_platform_t e_platform;

int e_init(char*) {
  return guarded([] {
    Hal::init();
    return e_get_platform_info(&e_platform);
  });
}

int e_finalize(void) {
  Hal::finalize();
  return E_OK;
}

int e_get_platform_info(e_platform_t* platform) {
  return guarded([&] {
    Hal& h = Hal::require("e_get_platform_info");
    const auto& p = h.params();
    static e_chip_t chip;
    static e_memseg_t emem;
    const bool big = p.rows * p.cols > 16;
    chip = e_chip_t{};
    chip.objtype = E_EPI_CHIP;
    chip.type = big ? E_E64G401 : E_E16G301;
    std::snprintf(chip.version, sizeof chip.version, "%s", big ? "E64G401" : "E16G301");
    chip.arch = 3;
    chip.row = static_cast<unsigned>(p.first_row);
    chip.col = static_cast<unsigned>(p.first_col);
    chip.base_coreid = (chip.row << 6) | chip.col;
    chip.rows = static_cast<unsigned>(p.rows);
    chip.cols = static_cast<unsigned>(p.cols);
    chip.num_cores = chip.rows * chip.cols;
    chip.sram_base = 0;
    chip.sram_size = p.local_mem;
    chip.regs_base = 0xf0000;
    chip.regs_size = 0x1000;
    emem = e_memseg_t{};
    emem.objtype = E_EXT_MEM;
    emem.phy_base = static_cast<off_t>(p.emem_base);
    emem.ephy_base = static_cast<off_t>(p.emem_base);
    emem.size = p.emem_size;
    emem.type = E_RDWR;
    *platform = e_platform_t{};
    platform->objtype = E_EPI_PLATFORM;
    platform->type = big ? E_PARALLELLA6401 : E_PARALLELLA1601;
    std::snprintf(platform->version, sizeof platform->version, "%s", big ? "PARALLELLA64" : "PARALLELLA16");
    platform->hal_ver = 0x050d0705;
    platform->initialized = 1;
    platform->num_chips = 1;
    platform->chip = &chip;
    platform->row = chip.row;
    platform->col = chip.col;
    platform->rows = chip.rows;
    platform->cols = chip.cols;
    platform->num_emems = 1;
    platform->emem = &emem;
    return E_OK;
  });
}

int e_open(e_epiphany_t* dev, unsigned row, unsigned col, unsigned rows, unsigned cols) {
  return guarded([&] {
    Hal& h = Hal::require("e_open");
    const auto& p = h.params();
    const auto chip_rows = static_cast<unsigned>(p.rows), chip_cols = static_cast<unsigned>(p.cols);
    // Subtraction, not row + rows: that sum wraps for a row near UINT_MAX.
    if (rows == 0 || cols == 0 || row >= chip_rows || rows > chip_rows - row || col >= chip_cols ||
        cols > chip_cols - col)
      throw hopsim::Error(fmt::format("e_open: a {}x{} workgroup at ({}, {}) does not fit the {}x{} chip", rows, cols,
                                      row, col, p.rows, p.cols));
    *dev = e_epiphany_t{};
    dev->objtype = E_EPI_GROUP;
    dev->type = p.rows * p.cols > 16 ? E_E64G401 : E_E16G301;
    dev->row = static_cast<unsigned>(p.first_row) + row;
    dev->col = static_cast<unsigned>(p.first_col) + col;
    dev->rows = rows;
    dev->cols = cols;
    dev->num_cores = rows * cols;
    dev->base_coreid = (dev->row << 6) | dev->col;
    dev->memfd = -1;
    // C structures of a C program's e_epiphany_t, freed by e_close.
    dev->core = static_cast<e_core_t**>(std::calloc(rows, sizeof(e_core_t*)));  // NOLINT(cppcoreguidelines-no-malloc)
    for (unsigned r = 0; r < rows; ++r) {
      dev->core[r] =
          static_cast<e_core_t*>(std::calloc(cols, sizeof(e_core_t)));  // NOLINT(cppcoreguidelines-no-malloc)
      for (unsigned c = 0; c < cols; ++c) {
        e_core_t& k = dev->core[r][c];
        k.objtype = E_EPI_CORE;
        k.row = dev->row + r;
        k.col = dev->col + c;
        k.id = (k.row << 6) | k.col;
        const std::uint64_t base = std::uint64_t{k.id} << 20;
        k.mems.objtype = E_MAPPING;
        k.mems.phy_base = static_cast<off_t>(base);
        k.mems.map_size = p.local_mem;
        k.mems.base = k.mems.mapped_base = reinterpret_cast<void*>(base);
        k.regs.objtype = E_MAPPING;
        k.regs.phy_base = static_cast<off_t>(base + 0xf0000);
      }
    }
    return E_OK;
  });
}

int e_close(e_epiphany_t* dev) {
  if (!dev || dev->objtype != E_EPI_GROUP) return E_ERR;
  for (unsigned r = 0; r < dev->rows; ++r) std::free(dev->core[r]);  // NOLINT(cppcoreguidelines-no-malloc)
  std::free(dev->core);                                              // NOLINT(cppcoreguidelines-no-malloc)
  dev->core = nullptr;
  dev->objtype = E_NULL;
  return E_OK;
}

int e_alloc(e_mem_t* mbuf, off_t base, size_t size) {
  return guarded([&] {
    Hal& h = Hal::require("e_alloc");
    const std::uint64_t emem = h.params().emem_size;
    if (base < 0 || static_cast<std::uint64_t>(base) + size > emem)
      throw hopsim::Error(fmt::format("e_alloc: {} bytes at offset 0x{:x} do not fit the {}-byte external memory", size,
                                      static_cast<std::uint64_t>(base), emem));
    h.fill_mem(mbuf, static_cast<std::uint64_t>(base), size, E_EXT_MEM);
    return E_OK;
  });
}

int e_free(e_mem_t* mbuf) {
  if (!mbuf || (mbuf->objtype != E_EXT_MEM && mbuf->objtype != E_SHARED_MEM)) return E_ERR;
  mbuf->objtype = E_NULL;
  return E_OK;
}

ssize_t e_read(void* dev, unsigned row, unsigned col, off_t from_addr, void* buf, size_t size) {
  try {
    return Hal::require("e_read").read(dev, row, col, from_addr, buf, size);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "hopsim: %s\n", e.what());
    return E_ERR;
  }
}

ssize_t e_write(void* dev, unsigned row, unsigned col, off_t to_addr, const void* buf, size_t size) {
  try {
    return Hal::require("e_write").write(dev, row, col, to_addr, buf, size);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "hopsim: %s\n", e.what());
    return E_ERR;
  }
}

int e_reset_system(void) {
  return guarded([] {
    Hal& h = Hal::require("e_reset_system");
    for (std::uint32_t i = 0; i < h.params().num_cores(); ++i) h.reset(i);
    return E_OK;
  });
}

int ee_reset_core(e_epiphany_t* dev, unsigned row, unsigned col) {
  return guarded([&] {
    Hal& h = Hal::require("ee_reset_core");
    h.reset(h.core_index(dev, row, col, "ee_reset_core"));
    return E_OK;
  });
}

int e_reset_group(e_epiphany_t* dev) {
  return guarded([&] {
    Hal& h = Hal::require("e_reset_group");
    for (unsigned r = 0; r < (dev ? dev->rows : 0); ++r)
      for (unsigned c = 0; c < dev->cols; ++c) h.reset(h.core_index(dev, r, c, "e_reset_group"));
    return E_OK;
  });
}

int e_start(e_epiphany_t* dev, unsigned row, unsigned col) {
  return guarded([&] {
    Hal& h = Hal::require("e_start");
    h.start(h.core_index(dev, row, col, "e_start"));
    return E_OK;
  });
}

int e_start_group(e_epiphany_t* dev) {
  return guarded([&] {
    Hal& h = Hal::require("e_start_group");
    for (unsigned r = 0; r < (dev ? dev->rows : 0); ++r)
      for (unsigned c = 0; c < dev->cols; ++c) h.start(h.core_index(dev, r, c, "e_start_group"));
    return E_OK;
  });
}

// A halted core stops at its next halt point (a wait, poll, idle, loop
// tick or synchronisation), not between two arbitrary instructions.
int e_halt(e_epiphany_t* dev, unsigned row, unsigned col) {
  return guarded([&] {
    Hal& h = Hal::require("e_halt");
    h.halt(h.core_index(dev, row, col, "e_halt"));
    return E_OK;
  });
}

int e_resume(e_epiphany_t* dev, unsigned row, unsigned col) {
  return guarded([&] {
    Hal& h = Hal::require("e_resume");
    h.resume(h.core_index(dev, row, col, "e_resume"));
    return E_OK;
  });
}

int e_signal(e_epiphany_t* dev, unsigned row, unsigned col) {
  return guarded([&] {
    Hal& h = Hal::require("e_signal");
    h.signal(h.core_index(dev, row, col, "e_signal"));
    return E_OK;
  });
}

int e_shm_alloc(e_mem_t* mbuf, const char* name, size_t size) {
  return guarded([&] { return Hal::require("e_shm_alloc").shm_alloc(mbuf, name ? name : "", size); });
}

int e_shm_attach(e_mem_t* mbuf, const char* name) {
  return guarded([&] { return Hal::require("e_shm_attach").shm_attach(mbuf, name ? name : ""); });
}

int e_shm_release(const char* name) { return hopsim::epiphany::shm_remove(name ? name : "") ? E_OK : E_ERR; }

unsigned e_get_num_from_coords(e_epiphany_t* dev, unsigned row, unsigned col) { return row * dev->cols + col; }

void e_get_coords_from_num(e_epiphany_t* dev, unsigned corenum, unsigned* row, unsigned* col) {
  *row = corenum / dev->cols;
  *col = corenum % dev->cols;
}

e_bool_t e_is_addr_on_chip(void* addr) {
  Hal* h = Hal::get();
  if (!h) return E_FALSE;
  const auto loc = h->windows().map().locate(reinterpret_cast<std::uint64_t>(addr), 1);
  return loc.kind == hopsim::epiphany::model::Location::Kind::core ? E_TRUE : E_FALSE;
}

e_bool_t e_is_addr_on_group(e_epiphany_t* dev, void* addr) {
  const auto a = reinterpret_cast<std::uint64_t>(addr);
  const unsigned id = static_cast<unsigned>(a >> 20), r = id >> 6, c = id & 0x3f;
  return (dev && r >= dev->row && r < dev->row + dev->rows && c >= dev->col && c < dev->col + dev->cols) ? E_TRUE
                                                                                                         : E_FALSE;
}

e_hal_diag_t e_set_host_verbosity(e_hal_diag_t verbose) { return std::exchange(g_verbosity, verbose); }

// The host program's sleeps are simulated time in a simulated run: a loop
// that sleeps while the cores work ends when they are done, as on the board.
__attribute__((visibility("default"))) int usleep(useconds_t us) {
  Hal* h = Hal::get();
  if (h && h->mode() == hopsim::Mode::sim && Hal::is_host_thread()) {
    h->sleep(us * 1e-6);
    return 0;
  }
  const timespec ts{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
  return static_cast<int>(syscall(SYS_nanosleep, &ts, nullptr));
}

__attribute__((visibility("default"))) unsigned sleep(unsigned seconds) {
  Hal* h = Hal::get();
  if (h && h->mode() == hopsim::Mode::sim && Hal::is_host_thread()) {
    h->sleep(seconds);
    return 0;
  }
  const timespec ts{static_cast<time_t>(seconds), 0};
  syscall(SYS_nanosleep, &ts, nullptr);
  return 0;
}

__attribute__((visibility("default"))) int nanosleep(const timespec* req, timespec* rem) {
  Hal* h = Hal::get();
  if (h && h->mode() == hopsim::Mode::sim && Hal::is_host_thread() && req) {
    h->sleep(static_cast<double>(req->tv_sec) + static_cast<double>(req->tv_nsec) * 1e-9);
    return 0;
  }
  return static_cast<int>(syscall(SYS_nanosleep, req, rem));
}

// ... and its clocks read simulated time: a host program that times e_write
// or a launch with clock_gettime, gettimeofday or clock measures the model.
namespace {
using clock_gettime_fn = int (*)(clockid_t, timespec*);
// The C library's clock_gettime, looked up once when the library is loaded, not on the first call: that call can
// come from inside an allocator (AddressSanitizer's reads the clock with its lock held), and dlsym allocates.
// Until then the system call answers.
std::atomic<clock_gettime_fn> next_clock_gettime{nullptr};
__attribute__((constructor)) void find_clock_gettime() {
  next_clock_gettime.store(reinterpret_cast<clock_gettime_fn>(dlsym(RTLD_NEXT, "clock_gettime")));
}
int real_clock_gettime(clockid_t id, timespec* ts) {
  const auto next = next_clock_gettime.load(std::memory_order_relaxed);
  return next ? next(id, ts) : static_cast<int>(syscall(SYS_clock_gettime, id, ts));
}
// Simulated seconds since e_init on the host program's thread of a
// simulated run; negative otherwise (the real clock answers).
double simulated_now() {
  Hal* h = Hal::get();
  if (!h || h->mode() != hopsim::Mode::sim || !Hal::is_host_thread()) return -1;
  return h->host_seconds();
}
timespec plus(const timespec& base, double seconds) {
  const auto ns = static_cast<long long>(base.tv_nsec) + static_cast<long long>(std::llround(seconds * 1e9));
  return timespec{base.tv_sec + static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
}
const timespec& start_of(clockid_t id) {
  static timespec real{}, mono{};
  static const bool once = [] {
    real_clock_gettime(CLOCK_REALTIME, &real);
    real_clock_gettime(CLOCK_MONOTONIC, &mono);
    return true;
  }();
  (void)once;
  return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE ? real : mono;
}
}  // namespace

__attribute__((visibility("default"))) int clock_gettime(clockid_t id, timespec* ts) noexcept {
  const double t = simulated_now();
  if (t < 0 || !ts) return real_clock_gettime(id, ts);
  if (id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID) {
    *ts = plus(timespec{0, 0}, t);  // the host's CPU spends the simulated time
  } else {
    *ts = plus(start_of(id), t);
  }
  return 0;
}

__attribute__((visibility("default"))) int gettimeofday(timeval* tv, void* /*tz*/) noexcept {
  timespec ts{};
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
  if (tv) *tv = timeval{ts.tv_sec, static_cast<suseconds_t>(ts.tv_nsec / 1000)};
  return 0;
}

__attribute__((visibility("default"))) clock_t clock() noexcept {
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return static_cast<clock_t>(-1);
  return static_cast<clock_t>(static_cast<double>(ts.tv_sec) * CLOCKS_PER_SEC +
                              static_cast<double>(ts.tv_nsec) * 1e-9 * CLOCKS_PER_SEC);
}

}  // extern "C"
