#pragma once
// HAM-Offload's umbrella header: the API (ham/offload/offload.hpp) and the
// renaming of the program's main() (ham/offload/main.hpp), or, with
// HAM_EXPLICIT defined before it is included, ham_init/ham_finalise
// (ham/offload/main_explicit.hpp) for a main() that every node runs.
#include "ham/offload/offload.hpp"

#ifdef HAM_EXPLICIT
#include "ham/offload/main_explicit.hpp"
#else
#include "ham/offload/main.hpp"
#endif
