#pragma once
// What the eSDK host library (e-hal) and the device library (e-lib) share
// inside one hopsim process: the named shared-memory segments and the
// workgroup each core was loaded into.
#include <cstdint>
#include <optional>
#include <string>

namespace hopsim::epiphany {

struct ShmSegment {
  std::string name;
  std::uint64_t addr = 0;  // global address in external memory
  std::uint64_t size = 0;
};

// The segment registry (thread-safe). shm_add fails (false) if the name is taken.
bool shm_add(const ShmSegment& s);
std::optional<ShmSegment> shm_find(const std::string& name);
bool shm_remove(const std::string& name);

namespace api {
// e_group_config of `core`: loaded into the group whose first core is at
// absolute (row, col), rows x cols cores.
void set_group(std::uint32_t core, unsigned row, unsigned col, unsigned rows, unsigned cols);
// A reset (e_reset_group, e_load) of a stopped `core`: its interrupt handlers,
// IMASK, IPEND, global interrupt enable, ctimers, MESHCFG and DMA channels
// return to their reset values; its workgroup stays.
void reset_core_state(std::uint32_t core);
// Interrupts of the current core: runs the handlers of latched, unmasked
// interrupts if interrupts are globally enabled (and no handler is running).
void service_interrupts();
// Whether service_interrupts would run a handler now.
bool interrupt_ready();
// The idle instruction: sleeps until an interrupt the core would take, then takes it.
void idle();
// gie (true) and gid (false).
void set_global_interrupts(bool enabled);
}  // namespace api

}  // namespace hopsim::epiphany
