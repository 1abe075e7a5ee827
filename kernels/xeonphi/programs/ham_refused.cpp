// Must not compile: a std::string owns memory of the sending process, so
// hopsim refuses it as an offloaded function's argument (tests/xeonphi).
#include <string>

#include "ham/offload.hpp"

namespace {
std::size_t length(std::string s) { return s.size(); }
}  // namespace

int main() { return static_cast<int>(ham::offload::sync(1, f2f(&length, std::string("hopsim")))); }
