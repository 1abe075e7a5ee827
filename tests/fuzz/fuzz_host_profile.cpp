// Harness: a host calibration profile as `hopsim host predict --profile`
// and the host family's runs read it, then its interpolation and the
// apart variant the ring runs use.
#include "fuzz.hpp"
#include "hopsim/host/model/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static hopsim::fuzz::ScratchFile file("profile.json");
  const auto& path = file.write(data, size);
  hopsim::fuzz::expect_clean([&] {
    const auto p = hopsim::host::model::load_profile(path.string());
    (void)p.to_json().dump();
    if (p.has_apart()) (void)p.as_apart().to_json();
  });
  return 0;
}
