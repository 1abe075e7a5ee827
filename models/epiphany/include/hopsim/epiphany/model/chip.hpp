#pragma once
// The Epiphany chip as a SystemC module: the eMesh timing model, one
// SystemC thread per core and one for the host, per-core "memory written"
// events and the device clock. What the threads execute is supplied by the
// runtime through CoreProgram (kernels run as fibers on those threads).
#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "hopsim/epiphany/model/mesh_timing.hpp"
#include "hopsim/epiphany/model/params.hpp"

namespace hopsim::epiphany::model {

class CoreProgram {
 public:
  virtual ~CoreProgram() = default;
  // Body of core `core`'s SystemC thread; runs for the whole simulation.
  virtual void run_core(std::uint32_t core) = 0;
  // Body of the host thread; the simulation ends when it returns and all cores idle.
  virtual void run_host() = 0;
};

class Chip : public sc_core::sc_module {
 public:
  Chip(const sc_core::sc_module_name& name, const Params& p, CoreProgram& program);
  Chip(const Chip&) = delete;
  Chip& operator=(const Chip&) = delete;
  ~Chip() override;

  MeshTiming& mesh() { return mesh_; }
  const Params& params() const { return p_; }
  // Global simulated time in device cycles.
  double now() const;
  // From a SystemC thread: waits until global time reaches `cycles` (no-op if past).
  void wait_until(double cycles);
  sc_core::sc_time to_time(double cycles) const;
  // Notified (delta) when a watched write lands in core `core`'s memory.
  sc_core::sc_event& written(std::uint32_t core) { return *written_[core]; }
  // Host -> cores: a launch is ready; cores -> host: all finished.
  sc_core::sc_event& launch_event() { return launch_; }
  sc_core::sc_event& done_event() { return done_; }

 private:
  Params p_;
  CoreProgram& program_;
  MeshTiming mesh_;
  double period_ps_;
  std::vector<std::unique_ptr<sc_core::sc_event>> written_;
  sc_core::sc_event launch_;
  sc_core::sc_event done_;
};

}  // namespace hopsim::epiphany::model
