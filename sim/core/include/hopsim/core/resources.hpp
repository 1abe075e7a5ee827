#pragma once
// Memory a run may use, checked before a model is built, so that a scenario
// too big for this machine is refused with its size instead of being killed
// by the kernel halfway.
#include <cstdint>
#include <string>

namespace hopsim {

// Bytes a run may use: HOPSIM_MEMORY_LIMIT when set (a quantity such as
// "2 GiB" or a byte count), else MemAvailable of /proc/meminfo, lowered to
// what the cgroup's memory.max leaves if that is less; 0 if neither is
// known. Throws ConfigError for a malformed HOPSIM_MEMORY_LIMIT.
std::uint64_t memory_available();

// Throws ConfigError "KEY: WHAT needs about N GiB (HOW), more than the M GiB
// this machine has available ..." when `bytes` exceeds memory_available().
void require_memory(const std::string& key, const std::string& what, double bytes, const std::string& how);

}  // namespace hopsim
