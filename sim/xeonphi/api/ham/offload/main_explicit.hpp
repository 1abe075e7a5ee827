#pragma once
// HAM_EXPLICIT: the program's main() runs on every node and starts and ends
// the runtime itself, as in HAM-Offload:
//
//   if (ham::offload::ham_init(&argc, &argv)) { ... offload from the host ... }
//   ham::offload::ham_finalise();
//
// ham_init parses and removes the --ham-* options and starts the runtime.
// On the host it returns true. On a target (its own process natively and
// under mpirun) it serves messages until the host finishes, then returns
// false; in --ham-mode sim the targets are modelled inside the host
// process, so only the host runs main. ham_finalise tells the targets to
// finish (host) and returns 0, or the first deferred failure's status.
// A bad --ham-* option prints one line and exits with status 2.
#include "ham/offload/offload.hpp"

namespace ham::offload {
bool ham_init(int* argc_ptr, char*** argv_ptr);  // HAM-Offload's (int*, char** argv_ptr[])
int ham_finalise();
}  // namespace ham::offload
