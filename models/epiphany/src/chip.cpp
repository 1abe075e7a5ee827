#include "hopsim/epiphany/model/chip.hpp"

#include <systemc>

#include <fmt/format.h>

namespace hopsim::epiphany::model {

Chip::~Chip() = default;

Chip::Chip(const sc_core::sc_module_name& name, const Params& p, CoreProgram& program)
    : sc_module(name), p_(p), program_(program), mesh_(p), period_ps_(1e12 / p.clock_hz) {
  for (std::uint32_t i = 0; i < p_.num_cores(); ++i) {
    written_.push_back(std::make_unique<sc_core::sc_event>(fmt::format("written_{}", i).c_str()));
  }
  // Core threads only switch to kernel fibers (whose stacks live in the
  // memory windows), so a small SystemC stack is enough for them; the host
  // program runs directly on its thread and gets a large one.
  sc_core::sc_spawn_options core_opts;
  core_opts.set_stack_size(256 * 1024);
  for (std::uint32_t i = 0; i < p_.num_cores(); ++i) {
    sc_core::sc_spawn([this, i] { program_.run_core(i); }, fmt::format("core{}", i).c_str(), &core_opts);
  }
  sc_core::sc_spawn_options host_opts;
  host_opts.set_stack_size(8 * 1024 * 1024);
  sc_core::sc_spawn([this] { program_.run_host(); }, "host", &host_opts);
}

double Chip::now() const { return sc_core::sc_time_stamp().to_seconds() * p_.clock_hz; }

sc_core::sc_time Chip::to_time(double cycles) const { return {cycles * period_ps_, sc_core::SC_PS}; }

void Chip::wait_until(double cycles) {
  const double delta = cycles - now();
  // Waits shorter than the time resolution round to nothing.
  if (delta * period_ps_ >= 1.0) sc_core::wait(to_time(delta));
}

}  // namespace hopsim::epiphany::model
