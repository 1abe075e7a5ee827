#pragma once
// Cross Memory Attach (process_vm_readv / process_vm_writev) with the
// kernel's rules made explicit: at most IOV_MAX iovecs per call, partial
// transfers resumed where they stopped, and permission (ptrace access mode
// ATTACH_REALCREDS, Yama ptrace_scope) reported as a typed refusal.
#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <span>
#include <string>

#include "hopsim/core/error.hpp"

namespace hopsim::host {

// The kernel refused CMA access to a process (EPERM): the caller may fall
// back to another transport; the message says why and what would allow it.
class CmaRefused : public Error {
 public:
  using Error::Error;
};

// Yama's kernel.yama.ptrace_scope: 0-3, or -1 when Yama is not in this kernel.
[[nodiscard]] int yama_ptrace_scope();
// One line describing the scope's rule for CMA between sibling processes.
[[nodiscard]] std::string yama_rule(int scope);

// Lets every descendant of `ancestor` attach to (and so use CMA on) this
// process when Yama is in scope 1 (prctl PR_SET_PTRACER). A no-op without
// Yama or in scope 0; returns false if prctl failed.
bool allow_ptracer(pid_t ancestor);

// Test aid that makes the kernel really refuse CMA to this process: it
// becomes non-dumpable and drops CAP_SYS_PTRACE from its effective set, so
// ptrace_may_access() fails with EPERM for any other process.
void make_cma_inaccessible();

// Moves every byte described by `local` to/from `remote` in process `pid`.
// Splits the lists into batches of at most IOV_MAX iovecs and resumes
// partial transfers. Throws CmaRefused on EPERM, KernelError on ESRCH (pid
// gone) or EFAULT/EINVAL (naming how many bytes had moved). Returns bytes moved.
std::size_t cma_write(pid_t pid, std::span<const iovec> local, std::span<const iovec> remote);
std::size_t cma_read(pid_t pid, std::span<const iovec> local, std::span<const iovec> remote);

// Contiguous convenience forms.
std::size_t cma_write(pid_t pid, const void* local, void* remote, std::size_t bytes);
std::size_t cma_read(pid_t pid, void* local, const void* remote, std::size_t bytes);

// How many system calls the last cma_* call on this thread made (tests
// check the IOV_MAX batching and partial-transfer resumption with it).
[[nodiscard]] int cma_last_calls();

}  // namespace hopsim::host
