#pragma once
// Include once, in the file that defines the program's main(): the program's
// main is renamed; the real main starts the HAM runtime (parsing and removing
// the --ham-* options), runs the program's main on the host while the target
// serves messages, then tells the target to finish.
#include "ham/offload.hpp"

int ham_user_main(int argc, char* argv[]);

namespace ham::offload::detail {
int run_main(int argc, char** argv, int (*user_main)(int, char**));
}

int main(int argc, char* argv[]) { return ham::offload::detail::run_main(argc, argv, &ham_user_main); }

#define main ham_user_main
