#pragma once
// The program's main() becomes ham_user_main(): the `main` token is
// replaced by a real main that starts the HAM runtime (parsing and removing
// the --ham-* options), runs the program's main on the host while the
// targets serve messages, then tells the targets to finish. The program's
// main may take (int, char**) or nothing. ham/offload.hpp includes this
// header unless HAM_EXPLICIT is defined.
#include "ham/offload/offload.hpp"

// Declared weak: the program defines one of the two, the other's address is null.
__attribute__((weak)) int ham_user_main(int argc, char* argv[]);
__attribute__((weak)) int ham_user_main();

// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): how HAM-Offload renames main
#define main                                                                                   \
  main(int ham_main_argc, char* ham_main_argv[]) {                                             \
    return ::ham::offload::detail::run_main(ham_main_argc, ham_main_argv,                      \
                                            static_cast<int (*)(int, char**)>(&ham_user_main), \
                                            static_cast<int (*)()>(&ham_user_main));           \
  }                                                                                            \
  int ham_user_main
