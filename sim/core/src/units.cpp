#include "hopsim/core/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"

namespace hopsim {
namespace {

struct Unit {
  std::string_view name;
  Dim dim;
  double scale;
};

constexpr std::array kUnits{
    Unit{"", Dim::count, 1.0},
    Unit{"cycle", Dim::cycles, 1.0},
    Unit{"cycles", Dim::cycles, 1.0},
    Unit{"Hz", Dim::frequency, 1.0},
    Unit{"kHz", Dim::frequency, 1e3},
    Unit{"MHz", Dim::frequency, 1e6},
    Unit{"GHz", Dim::frequency, 1e9},
    Unit{"B", Dim::bytes, 1.0},
    Unit{"KiB", Dim::bytes, 1024.0},
    Unit{"MiB", Dim::bytes, 1024.0 * 1024.0},
    Unit{"GiB", Dim::bytes, 1024.0 * 1024.0 * 1024.0},
    Unit{"kB", Dim::bytes, 1e3},
    Unit{"MB", Dim::bytes, 1e6},
    Unit{"GB", Dim::bytes, 1e9},
    Unit{"B/cycle", Dim::bytes_per_cycle, 1.0},
    Unit{"B/s", Dim::bytes_per_second, 1.0},
    Unit{"kB/s", Dim::bytes_per_second, 1e3},
    Unit{"MB/s", Dim::bytes_per_second, 1e6},
    Unit{"GB/s", Dim::bytes_per_second, 1e9},
    Unit{"s", Dim::seconds, 1.0},
    Unit{"ms", Dim::seconds, 1e-3},
    Unit{"us", Dim::seconds, 1e-6},
    Unit{"ns", Dim::seconds, 1e-9},
    Unit{"ps", Dim::seconds, 1e-12},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view dim_name(Dim d) {
  switch (d) {
    case Dim::count:
      return "count";
    case Dim::cycles:
      return "cycles";
    case Dim::frequency:
      return "Hz";
    case Dim::bytes:
      return "B";
    case Dim::bytes_per_cycle:
      return "B/cycle";
    case Dim::seconds:
      return "s";
    case Dim::bytes_per_second:
      return "B/s";
    case Dim::address:
      return "address";
  }
  return "?";
}

double parse_quantity(std::string_view text, Dim dim, std::string_view key) {
  const std::string_view t = trim(text);
  if ((dim == Dim::count || dim == Dim::address) && t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    unsigned long long hex = 0;
    const auto r = std::from_chars(t.data() + 2, t.data() + t.size(), hex, 16);
    if (r.ec == std::errc{} && r.ptr == t.data() + t.size()) return static_cast<double>(hex);
    throw ConfigError(fmt::format("{}: '{}' is not a hexadecimal number", key, text));
  }
  double number = 0.0;
  const auto* first = t.data();
  const auto* last = t.data() + t.size();
  const auto res = std::from_chars(first, last, number);
  if (res.ec != std::errc{} || !std::isfinite(number)) {
    throw ConfigError(
        fmt::format("{}: '{}' is not a quantity (expected a number with unit {})", key, text, dim_name(dim)));
  }
  const std::string_view unit = trim(std::string_view(res.ptr, static_cast<size_t>(last - res.ptr)));
  for (const auto& u : kUnits) {
    if (u.name != unit) continue;
    // A bare number is taken in the expected dimension's base unit.
    if (u.dim == dim || (unit.empty())) return number * u.scale;
    break;
  }
  throw ConfigError(fmt::format("{}: unit '{}' in '{}' does not measure {}", key, unit, text, dim_name(dim)));
}

double parse_quantity(const nlohmann::json& v, Dim dim, std::string_view key) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return parse_quantity(std::string_view(v.get_ref<const std::string&>()), dim, key);
  throw ConfigError(fmt::format("{}: expected a number or a quantity string, got {}", key, v.dump()));
}

std::string format_quantity(double value, Dim dim) {
  switch (dim) {
    case Dim::frequency:
      if (value >= 1e9) return fmt::format("{} GHz", value / 1e9);
      if (value >= 1e6) return fmt::format("{} MHz", value / 1e6);
      return fmt::format("{} Hz", value);
    case Dim::bytes:
      if (value >= 1024.0 * 1024.0 && std::fmod(value, 1024.0 * 1024.0) == 0.0)
        return fmt::format("{} MiB", value / (1024.0 * 1024.0));
      if (value >= 1024.0 && std::fmod(value, 1024.0) == 0.0) return fmt::format("{} KiB", value / 1024.0);
      return fmt::format("{} B", value);
    case Dim::seconds:
      if (value < 1e-6) return fmt::format("{} ns", value * 1e9);
      if (value < 1e-3) return fmt::format("{} us", value * 1e6);
      return fmt::format("{} s", value);
    case Dim::count:
      return fmt::format("{}", value);
    case Dim::address:
      if (value >= 0 && value < 18446744073709551616.0 && std::floor(value) == value)
        return fmt::format("0x{:x}", static_cast<unsigned long long>(value));
      return fmt::format("{}", value);
    case Dim::bytes_per_second:
      if (value >= 1e9) return fmt::format("{} GB/s", value / 1e9);
      if (value >= 1e6) return fmt::format("{} MB/s", value / 1e6);
      return fmt::format("{} B/s", value);
    default:
      return fmt::format("{} {}", value, dim_name(dim));
  }
}

}  // namespace hopsim
