// e-hal (host side of the eSDK) on hopsim's device. The host program is an
// ordinary main(); every e-hal call that touches the device goes through
// Hal::call: natively it runs at once, simulated it runs in the simulation's
// host process at the host's simulated time (so the eLink costs time and a
// polling loop with e_read or usleep ends as on the board).
#include "e_hal_system.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/epiphany/esdk.hpp"
#include "hopsim/epiphany/model/mesh_timing.hpp"
#include "hopsim/epiphany/run.hpp"
#include "hopsim/traces/run_options.hpp"

namespace hopsim::epiphany::ehal {

namespace {
Hal* g_hal = nullptr;
thread_local bool t_host_thread = false;  // the host program's own thread

constexpr std::uint64_t kShmBase = 0x01800000;  // named segments: the top 8 MiB of external memory
}  // namespace

Hal* Hal::get() { return g_hal; }

Hal& Hal::require(const char* fn) {
  if (!g_hal) throw Error(fmt::format("{}: e_init has not been called", fn));
  return *g_hal;
}

void Hal::init() {
  if (g_hal) return;
  crash::install();
  const char* mode = std::getenv("HOPSIM_MODE");
  const char* preset = std::getenv("HOPSIM_PRESET");
  const char* scenario = std::getenv("HOPSIM_SCENARIO");
  Scenario sc;
  if (scenario && *scenario) {
    sc = load_scenario(scenario, {}, std::nullopt);
  } else {
    sc.machine_preset = preset && *preset ? preset : "e16g301";
  }
  // HOPSIM_COMPUTE: the compute model of a simulated run (docs/esdk.md).
  if (const char* compute = std::getenv("HOPSIM_COMPUTE"); compute && *compute) {
    const auto parsed = parse_compute_model(compute);
    if (!parsed) throw ConfigError(fmt::format("HOPSIM_COMPUTE={}: expected annotated, measured or counted", compute));
    sc.compute = *parsed;
  }
  Mode m = Mode::sim;
  if (mode && *mode) {
    const std::string s = mode;
    if (s == "native") {
      m = Mode::native;
    } else if (s != "sim") {
      throw ConfigError(fmt::format("HOPSIM_MODE={}: expected native or sim", s));
    }
  }
  g_hal = new Hal(m, sc, resolve_epiphany(sc, nullptr));
  t_host_thread = true;
  std::atexit([] { Hal::finalize(); });
}

Hal::Hal(Mode mode, const Scenario& sc, const epiphany::model::Params& p)
    : mode_(mode), p_(p), windows_(epiphany::model::AddressMap(p)), loaded_(p.num_cores()), scenario_(sc) {
  if (!sc.outputs.trace.empty()) {
    auto meta =
        traces::run_meta("epiphany", sc.resolved.dump(), sc.machine_preset, to_string(mode), sc.seed, p.clock_hz);
    meta.extra["kernel"] = "esdk";
    trace_ = std::make_unique<traces::TraceWriter>(
        sc.outputs.trace, meta, *traces::parse_detail(sc.outputs.trace_detail),
        traces::run_writer_options(sc.outputs.trace_window, sc.outputs.trace_max_size, p.clock_hz));
    if (mode == Mode::native) epiphany::model::MeshTiming(p).declare_topology(*trace_);
  }
  if (mode == Mode::native) {
    auto native = std::make_unique<NativeDevice>(p_, windows_);
    if (trace_) native->set_trace(trace_.get());
    device_ = std::move(native);
    scope_ = std::make_unique<DeviceScope>(*device_);
    return;
  }
  auto sim = std::make_unique<SimDevice>(p_, windows_, sc.compute, sc.measured_speed_factor);
  if (trace_) sim->set_trace(trace_.get());
  sim_ = sim.get();
  device_ = std::move(sim);
  scope_ = std::make_unique<DeviceScope>(*device_);
  sim_thread_ = std::thread([this] {
    try {
      sim_->run([this] { serve(); });
    } catch (const std::exception& e) {
      stop_process(e.what(), 5);
    }
  });
  // Wait for the simulation's host process to start serving.
  std::unique_lock lock(m_);
  cv_.wait(lock, [this] { return serving_; });
}

void Hal::serve() {
  {
    std::lock_guard lock(m_);
    serving_ = true;
  }
  cv_.notify_all();
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(m_);
      cv_.wait(lock, [this] { return job_ != nullptr || stopping_; });
      if (!job_) break;
      job = *job_;
    }
    std::exception_ptr err;
    sim_->set_in_host(true);
    try {
      job();
    } catch (...) {
      err = std::current_exception();
    }
    sim_->set_in_host(false);
    {
      std::lock_guard lock(m_);
      job_ = nullptr;
      job_error_ = err;
      job_done_ = true;
    }
    cv_.notify_all();
  }
  end_seconds_ = sim_->host_seconds();
  sc_core::sc_stop();
}

void Hal::call(const std::function<void()>& f) {
  if (!sim_) {
    f();
    return;
  }
  std::unique_lock lock(m_);
  job_ = &f;
  job_done_ = false;
  cv_.notify_all();
  cv_.wait(lock, [this] { return job_done_; });
  if (job_error_) std::rethrow_exception(std::exchange(job_error_, nullptr));
}

void Hal::finalize() {
  Hal* h = std::exchange(g_hal, nullptr);
  if (!h) return;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - h->started_).count();
  if (h->sim_) {
    {
      std::lock_guard lock(h->m_);
      h->stopping_ = true;
    }
    h->cv_.notify_all();
    h->sim_thread_.join();
    seconds = h->end_seconds_;
    if (h->trace_) h->sim_->chip().mesh().set_trace(nullptr);  // hands over the last counter buckets
    if (!std::getenv("HOPSIM_QUIET")) {
      std::fprintf(stderr, "hopsim: simulated %s: %.6f s on the host's clock (%.0f cycles at %.0f MHz)\n",
                   h->p_.rows * h->p_.cols > 16 ? "E64G401" : "E16G301", h->end_seconds_,
                   h->end_seconds_ * h->p_.clock_hz, h->p_.clock_hz / 1e6);
    }
    // HOPSIM_STATS=1: where each core's simulated time went.
    if (const char* stats = std::getenv("HOPSIM_STATS"); stats && *stats && std::strcmp(stats, "0") != 0) {
      const auto& cs = h->device_->counters();
      for (std::uint32_t core = 0; core < cs.size(); ++core) {
        const auto& c = cs[core];
        if (c.compute == 0 && c.waiting == 0 && c.writes == 0 && c.reads == 0) continue;
        std::fprintf(stderr,
                     "hopsim: %s: %.0f cycles computing, %.0f waiting (%.0f in barriers), %.0f stalled; "
                     "%llu writes (%llu bytes), %llu reads (%llu bytes)",
                     h->windows_.map().describe_core(core).c_str(), c.compute, c.waiting, c.barrier, c.stall,
                     static_cast<unsigned long long>(c.writes), static_cast<unsigned long long>(c.write_bytes),
                     static_cast<unsigned long long>(c.reads), static_cast<unsigned long long>(c.read_bytes));
        if (h->scenario_.compute == ComputeModel::counted)
          std::fprintf(stderr, "; %llu instructions counted", static_cast<unsigned long long>(c.instructions));
        std::fprintf(stderr, "\n");
      }
    }
  }
  try {
    h->write_report(seconds);
    if (h->trace_) {
      std::int64_t bytes = 0;
      for (const auto& c : h->device_->counters()) bytes += static_cast<std::int64_t>(c.write_bytes);
      h->trace_->add_launch({to_string(h->mode_), "program", 0, seconds, seconds * h->p_.clock_hz, bytes, true, 0.0});
      h->trace_->finish();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hopsim: %s\n", e.what());
  }
  // Native programs still running end with the process; the device and
  // windows stay mapped for them.
}

// HOPSIM_REPORT: what `hopsim run` of an eSDK program reads back.
void Hal::write_report(double seconds) const {
  const char* path = std::getenv("HOPSIM_REPORT");
  if (!path || !*path) return;
  nlohmann::json cores = nlohmann::json::array();
  const auto& cs = device_->counters();
  for (std::uint32_t core = 0; core < cs.size(); ++core) {
    const auto& c = cs[core];
    cores.push_back({{"core", core},
                     {"compute_cycles", c.compute},
                     {"instructions", c.instructions},
                     {"waiting_cycles", c.waiting},
                     {"barrier_cycles", c.barrier},
                     {"stall_cycles", c.stall},
                     {"writes", c.writes},
                     {"write_bytes", c.write_bytes},
                     {"reads", c.reads},
                     {"read_bytes", c.read_bytes}});
  }
  const nlohmann::json doc = {
      {"mode", to_string(mode_)}, {"seconds", seconds}, {"cycles", seconds * p_.clock_hz}, {"cores", cores}};
  write_file_atomic(path, doc.dump(2) + "\n");
}

double Hal::host_seconds() {
  double t = 0;
  call([&] { t = device_->host_seconds(); });
  return t;
}

bool Hal::is_host_thread() { return t_host_thread; }

std::uint32_t Hal::core_index(const e_epiphany_t* dev, unsigned row, unsigned col, const char* fn) const {
  if (!dev || dev->objtype != E_EPI_GROUP)
    throw Error(fmt::format("{}: the device is not an open workgroup (e_open)", fn));
  if (row >= dev->rows || col >= dev->cols)
    throw Error(fmt::format("{}: core ({}, {}) is outside the {}x{} workgroup", fn, row, col, dev->rows, dev->cols));
  const unsigned r = dev->row + row - static_cast<unsigned>(p_.first_row);
  const unsigned c = dev->col + col - static_cast<unsigned>(p_.first_col);
  return r * static_cast<unsigned>(p_.cols) + c;
}

void Hal::load(const std::string& file, const e_epiphany_t* dev, unsigned row, unsigned col, bool start) {
  const std::uint32_t core = core_index(dev, row, col, "e_load");
  auto prog = DeviceProgram::open(file);
  call([&] {
    device_->reset_core(core);
    api::reset_core_state(core);
    prog->load(*device_, core);
    api::set_group(core, dev->row, dev->col, dev->rows, dev->cols);
  });
  loaded_[core] = prog;
  if (start) this->start(core);
}

void Hal::start(std::uint32_t core) {
  auto prog = loaded_[core];
  if (!prog)
    throw Error(
        fmt::format("e_start: no program is loaded on {} (e_load it first)", windows_.map().describe_core(core)));
  call([&] {
    if (device_->core_busy(core)) {
      device_->reset_core(core);
      api::reset_core_state(core);
    }
    device_->start_core(core, [prog] { prog->run(); });
  });
}

void Hal::reset(std::uint32_t core) {
  call([&] {
    device_->reset_core(core);
    api::reset_core_state(core);
  });
}

void Hal::signal(std::uint32_t core) {
  call([&] { device_->raise_interrupt(core, E_USER_INT); });
}

void Hal::halt(std::uint32_t core) {
  call([&] { device_->halt_core(core); });
}

void Hal::resume(std::uint32_t core) {
  call([&] { device_->resume_core(core); });
}

// Resolves (dev, row, col, addr, size) to a global address, or throws with
// what is wrong. Registers (0xF0000..) are returned as reg (global 0).
Hal::Target Hal::target(void* dev, unsigned row, unsigned col, off_t addr, size_t size, const char* fn) const {
  if (!dev) throw Error(fmt::format("{}: the device is NULL", fn));
  const auto type = *static_cast<const e_objtype_t*>(dev);
  const auto a = static_cast<std::uint64_t>(addr);
  if (type == E_EPI_GROUP) {
    const auto* g = static_cast<const e_epiphany_t*>(dev);
    const std::uint32_t core = core_index(g, row, col, fn);
    if (a >= 0xF0000 && a < 0x100000) return {core, 0, static_cast<std::uint32_t>(a)};
    if (addr < 0 || a + size > p_.local_mem)
      throw Error(fmt::format("{}: {} bytes at offset 0x{:x} are outside the {}-byte local memory of core ({}, {})", fn,
                              size, a, p_.local_mem, row, col));
    return {core, windows_.map().base_of(core) + a, 0};
  }
  if (type == E_EXT_MEM || type == E_SHARED_MEM) {
    const auto* m = static_cast<const e_mem_t*>(dev);
    if (addr < 0 || a + size > m->emap_size)
      throw Error(
          fmt::format("{}: {} bytes at offset 0x{:x} are outside the {}-byte buffer", fn, size, a, m->emap_size));
    return {0, static_cast<std::uint64_t>(m->ephy_base) + a, 0};
  }
  throw Error(fmt::format("{}: the device is neither a workgroup (e_open) nor a buffer (e_alloc, e_shm_alloc)", fn));
}

std::uint32_t Hal::read_register(std::uint32_t core, std::uint32_t reg) {
  switch (reg) {
    case E_REG_COREID:
      return windows_.map().base_of(core) >> 20;
    case E_REG_ILAT:
      return device_->ilat(core, false);
    case E_REG_STATUS:
      return device_->core_busy(core) ? 1u : 0u;  // bit 0: the core is active
    case E_REG_DEBUGSTATUS:
      return device_->core_halted(core) ? 1u : 0u;  // bit 0: halted
    case E_REG_CONFIG:
    case E_REG_IMASK:
    case E_REG_IPEND:
    case E_REG_DMA0STATUS:
    case E_REG_DMA1STATUS:
      return 0;
    default:
      throw Error(
          fmt::format("e_read: register 0x{:05x} of {} is not modelled", reg, windows_.map().describe_core(core)));
  }
}

void Hal::write_register(std::uint32_t core, std::uint32_t reg, std::uint32_t value) {
  if (reg == E_REG_ILATST) {
    for (unsigned i = 0; i < 10; ++i)
      if (value & (1u << i)) device_->raise_interrupt(core, i);
    return;
  }
  if (reg == E_REG_ILATCL) {
    // Clears only the bits written; the other latched interrupts stay.
    for (unsigned i = 0; i < 10; ++i)
      if (value & (1u << i)) device_->clear_interrupt(core, i);
    return;
  }
  throw Error(fmt::format("e_write: register 0x{:05x} of {} is not modelled", reg, windows_.map().describe_core(core)));
}

ssize_t Hal::read(void* dev, unsigned row, unsigned col, off_t from, void* buf, size_t size) {
  const Target t = target(dev, row, col, from, size, "e_read");
  if (t.reg) {
    if (size != 4) throw Error("e_read: registers are read 4 bytes at a time");
    std::uint32_t v = 0;
    call([&] {
      v = read_register(t.core, t.reg);
      device_->host_sleep(0);
    });
    std::memcpy(buf, &v, 4);
    return 4;
  }
  call([&] { device_->host_read(buf, t.global, size); });
  return static_cast<ssize_t>(size);
}

ssize_t Hal::write(void* dev, unsigned row, unsigned col, off_t to, const void* buf, size_t size) {
  const Target t = target(dev, row, col, to, size, "e_write");
  if (t.reg) {
    if (size != 4) throw Error("e_write: registers are written 4 bytes at a time");
    std::uint32_t v = 0;
    std::memcpy(&v, buf, 4);
    call([&] { write_register(t.core, t.reg, v); });
    return 4;
  }
  call([&] { device_->host_write(t.global, buf, size); });
  return static_cast<ssize_t>(size);
}

void Hal::sleep(double seconds) {
  call([&] { device_->host_sleep(seconds); });
}

void Hal::fill_mem(e_mem_t* m, std::uint64_t offset, std::size_t size, e_objtype_t type) const {
  const std::uint64_t g = windows_.map().emem_base() + offset;
  *m = e_mem_t{};
  m->objtype = type;
  m->phy_base = static_cast<off_t>(g);
  m->page_base = static_cast<off_t>(g & ~std::uint64_t{0xfff});
  m->page_offset = static_cast<off_t>(g & 0xfff);
  m->map_size = size;
  m->ephy_base = static_cast<off_t>(g);
  m->emap_size = size;
  m->mapped_base = reinterpret_cast<void*>(g);  // the window is mapped at the device address
  m->base = reinterpret_cast<void*>(g);
  m->memfd = -1;
}

int Hal::shm_alloc(e_mem_t* m, const std::string& name, std::size_t size) {
  std::lock_guard lock(shm_mutex_);
  const std::uint64_t end = windows_.map().emem_size();
  const std::uint64_t off = (std::max(shm_next_, kShmBase) + 63) / 64 * 64;
  if (off + size > end) {
    errno = ENOMEM;
    return E_ERR;
  }
  if (!shm_add({name, windows_.map().emem_base() + off, size})) {
    errno = EEXIST;
    return E_ERR;
  }
  shm_next_ = off + size;
  fill_mem(m, off, size, E_SHARED_MEM);
  return E_OK;
}

int Hal::shm_attach(e_mem_t* m, const std::string& name) const {
  const auto s = shm_find(name);
  if (!s) {
    errno = ENOENT;
    return E_ERR;
  }
  fill_mem(m, s->addr - windows_.map().emem_base(), s->size, E_SHARED_MEM);
  return E_OK;
}

}  // namespace hopsim::epiphany::ehal
