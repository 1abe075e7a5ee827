#pragma once
// The two transports behind ham::offload (internal).
#include <memory>

#include "ham/offload/runtime.hpp"

namespace ham::offload::detail {

// Message header in front of every active message in a buffer.
struct MsgHeader {
  std::uint32_t key;
  std::uint32_t body_size;
  std::uint32_t slot;  // result slot on the host
  std::uint32_t result_size;
};
static_assert(sizeof(MsgHeader) == 16);

inline constexpr std::uint32_t kTerminateKey = 0xFFFFFFFFu;

// Every transport's rule for one active message: header + body and the
// result must each fit one message buffer (--ham-message-size); messages
// are never split. Throws hopsim::Error naming the sizes.
void check_message_fits(const Options& o, std::size_t body_size, std::size_t result_size);

std::unique_ptr<Runtime> make_native_runtime(const Options& o);
std::unique_ptr<Runtime> make_sim_runtime(const Options& o);
// Rank 0 or 1 of an mpirun -np 2 job (mpi.cpp); throws hopsim::ConfigError
// when built without MPI or the job does not have two ranks.
std::unique_ptr<Runtime> make_mpi_runtime(const Options& o);
bool launched_by_mpirun();  // OMPI_COMM_WORLD_SIZE is set

}  // namespace ham::offload::detail
