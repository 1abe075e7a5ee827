#pragma once
// Logging: one spdlog logger per module instance name, sharing one sink.
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace hopsim::log {

// Sets the global level from a name ("trace".."off"); throws ConfigError otherwise.
void set_level(const std::string& level);

// The logger for a module instance (created on first use, shares the stderr sink).
std::shared_ptr<spdlog::logger> get(const std::string& name);

}  // namespace hopsim::log
