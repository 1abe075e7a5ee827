#pragma once
// The hpcc-style ring bandwidth benchmark over the intra-node transports:
// N processes in a ring (naturally ordered, or randomly ordered from a
// seed), each repeatedly sends a message to its right neighbour while it
// receives one from its left (a blocking exchange), in a two-way ring then
// one to its left neighbour while it receives one from its right (hpcc's
// pattern), and the receiver checksums every byte of every message it gets.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hopsim/host/node.hpp"

namespace hopsim::host {

// Each rank of a launch keeps its results (a time and a hand-over per size
// and repetition, a count per size, its huge-page KiB) in one 4 KiB page:
// sizes x (2 x reps + 1) + 1 doubles at most.
inline constexpr std::size_t kRingResultDoubles = 4096 / sizeof(double);

struct RingOptions {
  int procs = 2;
  host::Kind kind = host::Kind::double_copy;
  bool random_order = false;
  bool two_way = false;  // each step also a message to the left while the right one's comes in
  std::uint64_t seed = 1;
  std::vector<std::size_t> sizes{std::size_t{64} * 1024};
  std::size_t bytes_per_rep = 16u << 20;  // data each process receives per timed repetition
  int min_iters = 2;
  int max_iters = 100000;
  int reps = 3;  // timed repetitions per size; the fastest counts (as hpcc)
  bool remap = false;
  std::size_t chunk = std::size_t{64} * 1024;
  int slots = 4;
  // CMA: send buffers the ring takes from the transport (acquire()), so a
  // rank goes on while its message is pulled (host::Options::
  // cma_buffers); 0: it sends from its own buffer and waits for each pull,
  // the rendezvous of a blocking MPI_Sendrecv.
  int cma_buffers = 4;
  // Send and receive buffers advised to use transparent huge pages
  // (host::MessageBuffer); false: 4 KiB pages. Zero copy's messages
  // live in the shared pool either way.
  bool huge_pages = true;
  // Rank placement; spread (rank r on CPU r mod n) is what the host model
  // assumes, and it makes the placement the same in every run.
  host::Bind bind = host::Bind::spread;
  bool deny_cma = false;  // test aid (host::Options::deny_cma)
  int corrupt_rank = -1;  // test aid (host::Options::corrupt_rank)
  int corrupt_message = 0;
};

struct RingCell {
  int procs = 0;
  std::size_t size = 0;
  std::string order;  // "natural" or "random"
  bool two_way = false;
  host::Kind requested = host::Kind::double_copy;
  host::Kind used = host::Kind::double_copy;
  std::string fallback;  // why `used` differs, else empty
  host::Bind bind = host::Bind::spread;
  std::vector<int> cpu_of_rank;  // spread: the CPU of each rank; empty for none
  int iters = 0;
  double seconds = 0;                  // fastest repetition, slowest rank
  double bandwidth = 0;                // bytes received per process per second (both directions)
  std::uint64_t messages_checked = 0;  // checksummed messages over all ranks, directions and repetitions
  bool huge_pages = true;              // RingOptions::huge_pages
  // KiB of a rank's send and receive buffers backed by huge pages (the
  // least over ranks); -1 unknown (no /proc/self/smaps).
  long huge_kib = -1;
  // One-way cache-line hand-over between ranks 0 and 1 around the fastest
  // repetition (s; the larger of the probes just before and just after it,
  // host::Rank::handover), which tells whether the hypervisor ran
  // their CPUs near (one cache) or apart; -1 when not probed (bind none,
  // or one CPU).
  double handover = -1;
};

// Untimed steps per message size before the timed repetitions.
inline constexpr int kWarmupSteps = 2;

// Iterations per repetition for a message size.
[[nodiscard]] int ring_iters(const RingOptions& o, std::size_t size);
// The ranks in ring order: position p holds rank order[p] and sends to the
// rank at p + 1 (natural: order[p] = p; random: a permutation seeded by
// `seed`, as hpcc's randomly ordered ring).
[[nodiscard]] std::vector<int> ring_order(int procs, bool random, std::uint64_t seed);
// Ring neighbours of every rank: left[r] sends to r, r sends to right[r]
// (over ring_order).
void ring_neighbours(int procs, bool random, std::uint64_t seed, std::vector<int>& left, std::vector<int>& right);

// Runs the benchmark (one launch of o.procs processes for all sizes).
// Throws ConfigError for a ring of fewer than 2 processes, a size under 8
// bytes or too many sizes; DataMismatchError naming the message when a
// checksum fails; KernelError for transport failures.
[[nodiscard]] std::vector<RingCell> run_ring(const RingOptions& o);

// The message checksum (64-bit, position dependent) and the pattern of
// rank `src`'s messages; exposed for tests.
[[nodiscard]] std::uint64_t checksum(std::span<const std::byte> data);
void fill_pattern(std::span<std::byte> data, int src, std::uint64_t seed);

}  // namespace hopsim::host
