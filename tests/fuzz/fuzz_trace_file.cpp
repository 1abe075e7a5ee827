// Harness: a whole trace database (any bytes), opened as the viewer and
// `hopsim trace` open it, then every query they make and both exporters.
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static hopsim::fuzz::ScratchFile file("trace.db");
  const auto& path = file.write(data, size);
  hopsim::fuzz::expect_clean([&] { hopsim::fuzz::query_everything(path); });
  return 0;
}
