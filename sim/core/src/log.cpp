#include "hopsim/core/log.hpp"

#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>

#include "hopsim/core/error.hpp"

namespace hopsim::log {
namespace {
spdlog::sink_ptr sink() {
  static spdlog::sink_ptr s = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  return s;
}
std::mutex& mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

void set_level(const std::string& level) {
  const auto lvl = spdlog::level::from_str(level);
  if (lvl == spdlog::level::off && level != "off") {
    throw ConfigError("log.level: unknown level '" + level +
                      "' (expected trace, debug, info, warn, error, critical or off)");
  }
  spdlog::set_level(lvl);
}

std::shared_ptr<spdlog::logger> get(const std::string& name) {
  std::lock_guard lock(mutex());
  if (auto l = spdlog::get(name)) return l;
  auto l = std::make_shared<spdlog::logger>(name, sink());
  l->set_level(spdlog::get_level());
  l->set_pattern("[%^%l%$] %n: %v");
  spdlog::register_logger(l);
  return l;
}

}  // namespace hopsim::log
