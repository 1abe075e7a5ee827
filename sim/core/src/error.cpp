#include "hopsim/core/error.hpp"

#include <string_view>

namespace hopsim {

std::string printable(const std::string& message) {
  std::string out;
  out.reserve(message.size());
  for (const char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) {
      constexpr std::string_view kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

Error::Error(const std::string& message) : std::runtime_error(printable(message)) {}
const char* version() { return HOPSIM_VERSION; }
const char* git_revision() { return HOPSIM_GIT_REV; }
}  // namespace hopsim
