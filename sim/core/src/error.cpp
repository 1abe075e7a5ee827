#include "hopsim/core/error.hpp"

namespace hopsim {
const char* version() { return HOPSIM_VERSION; }
const char* git_revision() { return HOPSIM_GIT_REV; }
}  // namespace hopsim
