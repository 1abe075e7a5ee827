#pragma once
// The host machine model: cores with a scheduler, a shared memory system
// with finite bandwidth, and the three intra-node copy paths as sequences of
// timed operations, driven by the ring benchmark's protocol. Parameters come
// from a Profile only.
//
// Cores: ranks are placed as Linux spreads new processes (place_ranks):
// on a machine of one chip, rank r lives on core r % cores. The ring joins
// them in SimCell::ring's order. A core runs
// one process at a time. A process that must wait for a flag does what the
// transports' wait does: it spins for spin_time holding its core, then
// yields; a yield hands the core to the next process on the same core in
// a fixed cycle (round robin, in an order unrelated to the ring's: see
// SimCell::orders) and the incoming process pays switch_cost before it
// looks at its flags again. A process alone on its core just sees the flag. Other work on
// the machine (background_load runnable processes, measured) takes each core
// in bursts of preempt_slice seconds, arriving at random (seeded, so a run
// is reproducible) at the rate that gives it its fair share of the core.
//
// Memory: every operation has the duration it takes with the machine to
// itself (from the profile's tables) and a memory traffic; the operations
// running on different cores share the memory system: when the traffic they
// ask for exceeds its capacity (all cores copying at once, from the profile)
// every memory-bound operation slows by the same factor. On a machine of
// several nodes with a fabric (Profile::node_link_bw), a copy whose data
// come from another node also loads the links from that node to its own;
// the copies crossing one pair of nodes at once share them the same way,
// and an operation runs at the slower of its two shares. On a machine of
// several chips with a broadcast coherence (Profile::coherence_bw C), every
// copy whose data (or, for double copy's send copy, whose destination
// lines) another chip's caches hold then goes 1 + X / C times slower, X the
// cross-chip B/s all of them read at those rates. A flag becomes
// visible to its reader one cache-line transfer (c2c_latency) after it was
// written.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "hopsim/host/model/profile.hpp"

namespace hopsim::host::model {

enum class CopyPath { double_copy, cma, zero_copy };
[[nodiscard]] std::string_view path_name(CopyPath p);

// As host::kMaxSlots (the model does not depend on the transport).
inline constexpr int kMaxCmaBuffers = 16;

struct SimCell {
  int procs = 2;
  std::size_t size = 65536;
  CopyPath path = CopyPath::double_copy;
  bool remap = false;
  std::size_t chunk = std::size_t{64} * 1024;  // bounce-buffer slot (double copy)
  int slots = 4;
  // CMA: the sender's transport buffers (a sender may be this many messages
  // ahead of its receiver's pulls; host::Options::cma_buffers); 0: it
  // waits for each pull (rendezvous). 0 to kMaxCmaBuffers.
  int cma_buffers = 4;
  int iters = 16;  // timed ring steps
  int reps = 1;    // repetitions with different background seeds; the fastest counts (as the native ring)
  // Cycle orders of the processes sharing a core to simulate, when three or
  // more share one (the kernel hands a CPU round in a fixed cycle that has
  // nothing to do with the ring's order and differs from launch to launch:
  // traced); per order the fastest repetition, and the median over orders
  // counts (as `host predict` takes the median over native launches).
  int orders = 7;
  std::uint64_t seed = 1;
  // The ranks in ring order: position p holds rank ring[p] and sends to the
  // one at p + 1 (host::ring_order); empty: the natural order.
  std::vector<int> ring;
  // hpcc's two-way ring: each step a message goes to the right neighbour
  // while the left one's comes in, then one to the left while the right
  // one's comes in (two MPI_Sendrecv); both count as received bytes.
  bool two_way = false;
  // Per core: its speed during this run (as Profile::core_speed, which it
  // replaces when not empty; e.g. probed around a native run).
  std::vector<double> core_speed;
};

struct SimResult {
  double seconds = 0;     // simulated time of the timed steps (slowest rank; fastest repetition, median order)
  double bandwidth = 0;   // bytes received per process per second (both directions of a two-way ring)
  double ops = 0;         // operations simulated (all repetitions)
  double yields = 0;      // hand-overs of a core between ring processes, per ring step and rank (fastest repetition)
  double background = 0;  // seconds the background held cores, per core (fastest repetition)
};

// CPU time each rank pays per ring step for its transport's protocol beyond
// what the model's operations charge: the measured 8-byte step (step8_*:
// shared-line misses on the channel's counters, slot lengths, buffer states)
// less the flag latency on an 8-byte step's critical path (the peer's
// message seen; calibrate's CMA step sends from transport buffers, so it does
// not wait for its own message's pull) and, for CMA, the call (cma_bw already has it)
// as the 8-byte exchange met it: both processes pulling at once (see
// cma_call_exchanged).
[[nodiscard]] double step_overhead(const Profile& p, CopyPath path);

// A CMA call's fixed cost when the two processes of an exchange call at
// once, as in the 8-byte step: cma_call plus what the exchange's smallest
// pull took beyond the same pull alone (sizes[0] / xcma_bw[0] - sizes[0] /
// cma_bw[0]), never less than cma_call. The model charges a pull across
// cores at xcma_bw, which carries that extra already; subtracting only the
// lone call from step8_cma would count it twice (the 2-process 4 KiB CMA
// cell then comes out 16-22% slow in every round).
[[nodiscard]] double cma_call_exchanged(const Profile& p);

// Working-set-equivalent memcpy size (bytes) of a double-copy chunk copy:
// the processes on one core touch their message buffers and bounce slots,
// k_core x (size + slots x chunk) bytes in each direction, twice that in a
// two-way ring.
[[nodiscard]] double double_copy_working_set(const SimCell& c, int cores);

// The core of each rank (by rank, in launch order), as Linux places new
// processes that are not bound (find_idlest_group / find_idlest_cpu at fork
// and exec, level by level): each goes to the node with the fewest ranks so
// far, within it the chip with the fewest, within that the core with the
// fewest, the lowest number on a tie. One chip: rank r on core r % cores.
[[nodiscard]] std::vector<int> place_ranks(const Profile& p, int procs);

// How many cycle orders simulate_ring runs for a cell on `cores` cores.
[[nodiscard]] int cycle_orders(const SimCell& c, int cores);

// Simulates every cell on its own instance of the machine. The rings run in
// worker processes (one per CPU this process may use, at most 16), each
// with its own SystemC elaboration, so the caller's process never
// elaborates and may call this again; it must not have run SystemC itself.
// Throws ConfigError for a cell the profile cannot run (CMA with cma_ok
// false, fewer than 2 processes, a ring order that is not a permutation of
// its ranks), Error for a worker that failed (its
// message) or a ring that stopped short (a model fault).
[[nodiscard]] std::vector<SimResult> simulate_ring(const Profile& p, const std::vector<SimCell>& cells);

}  // namespace hopsim::host::model
