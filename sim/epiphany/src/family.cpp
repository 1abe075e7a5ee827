#include "hopsim/epiphany/family.hpp"

#include <map>

namespace hopsim::runtime {

namespace {
std::map<std::string, FamilyRunner>& runners() {
  static std::map<std::string, FamilyRunner> r;
  return r;
}
}  // namespace

void register_family_runner(const std::string& family, FamilyRunner runner) { runners()[family] = std::move(runner); }

const FamilyRunner* family_runner(const std::string& family) {
  const auto it = runners().find(family);
  return it == runners().end() ? nullptr : &it->second;
}

}  // namespace hopsim::runtime
