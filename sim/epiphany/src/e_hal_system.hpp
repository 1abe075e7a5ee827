#pragma once
// The state behind hopsim's e-hal: one device (native or simulated) per
// host process, created by e_init. In simulation the device runs on its
// own thread under SystemC and the host program's e-hal calls are served
// there, one at a time, at the host's simulated time.
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "e-hal.h"
#include "hopsim/core/scenario.hpp"
#include "hopsim/epiphany/device_program.hpp"
#include "hopsim/epiphany/memory_windows.hpp"
#include "hopsim/epiphany/native_device.hpp"
#include "hopsim/epiphany/sim_device.hpp"
#include "hopsim/traces/writer.hpp"

namespace hopsim::epiphany::ehal {

class Hal {
 public:
  // e_init: HOPSIM_MODE (sim, the default, or native) and HOPSIM_PRESET
  // (e16g301) choose the device; HOPSIM_SCENARIO names a scenario file
  // whose machine (preset and overrides), compute model and trace apply
  // (hopsim run of an eSDK program). Idempotent.
  static void init();
  static Hal* get();
  static Hal& require(const char* fn);  // throws Error naming fn if e_init was not called
  // e_finalize: ends the simulation (printing its simulated time), writes
  // the HOPSIM_REPORT file (JSON: mode, seconds, cycles, per-core counters)
  // and the trace, and forgets the device. Idempotent.
  static void finalize();
  static bool is_host_thread();

  // Runs f as a host access to the device (in the simulation's host process when simulated).
  void call(const std::function<void()>& f);

  const epiphany::model::Params& params() const { return p_; }
  Mode mode() const { return mode_; }
  const MemoryWindows& windows() const { return windows_; }

  std::uint32_t core_index(const e_epiphany_t* dev, unsigned row, unsigned col, const char* fn) const;
  void load(const std::string& file, const e_epiphany_t* dev, unsigned row, unsigned col, bool start);
  void start(std::uint32_t core);
  void reset(std::uint32_t core);
  void signal(std::uint32_t core);
  void halt(std::uint32_t core);    // e_halt: returns once the core has stopped
  void resume(std::uint32_t core);  // e_resume
  ssize_t read(void* dev, unsigned row, unsigned col, off_t from, void* buf, size_t size);
  ssize_t write(void* dev, unsigned row, unsigned col, off_t to, const void* buf, size_t size);
  void sleep(double seconds);
  double host_seconds();
  void fill_mem(e_mem_t* m, std::uint64_t offset, std::size_t size, e_objtype_t type) const;
  int shm_alloc(e_mem_t* m, const std::string& name, std::size_t size);
  int shm_attach(e_mem_t* m, const std::string& name) const;

 private:
  Hal(Mode mode, const Scenario& sc, const epiphany::model::Params& p);
  void write_report(double seconds) const;
  struct Target {
    std::uint32_t core = 0;
    std::uint64_t global = 0;  // memory: global address
    std::uint32_t reg = 0;     // or a register
  };
  Target target(void* dev, unsigned row, unsigned col, off_t addr, size_t size, const char* fn) const;
  std::uint32_t read_register(std::uint32_t core, std::uint32_t reg);
  void write_register(std::uint32_t core, std::uint32_t reg, std::uint32_t value);
  void serve();  // the simulation's host process: runs the host program's calls

  Mode mode_;
  epiphany::model::Params p_;
  MemoryWindows windows_;
  std::unique_ptr<Device> device_;
  SimDevice* sim_ = nullptr;
  std::unique_ptr<DeviceScope> scope_;
  std::vector<std::shared_ptr<const DeviceProgram>> loaded_;
  std::mutex shm_mutex_;
  std::uint64_t shm_next_ = 0;

  std::thread sim_thread_;
  std::mutex m_;
  std::condition_variable cv_;
  const std::function<void()>* job_ = nullptr;
  bool job_done_ = false;
  bool serving_ = false;
  bool stopping_ = false;
  std::exception_ptr job_error_;
  double end_seconds_ = 0;
  Scenario scenario_;
  std::unique_ptr<traces::TraceWriter> trace_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace hopsim::epiphany::ehal
