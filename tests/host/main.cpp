#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

// libsystemc references sc_main; this test program has its own main().
extern "C" int sc_main(int, char**) { return 1; }
