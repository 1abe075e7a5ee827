#pragma once
// e-lib's central flip-flop barrier, shared by e_barrier and stdcl's barrier().
#include <cstdint>
#include <functional>

namespace hopsim::epiphany::api {
// `mine`: the calling core's flag array; `target(i)`: the global address of
// the flag core i (i = 0: core 0's slot for `self`; else core i's slot 0).
// Every other core sets its flag on core 0 and polls its own; core 0 polls
// them all, then releases every core.
void flipflop_barrier(volatile char* mine, unsigned self, unsigned n,
                      const std::function<std::uint64_t(unsigned)>& target);
}  // namespace hopsim::epiphany::api
