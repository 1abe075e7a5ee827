#pragma once
// Quantities with units, parsed once at load ("600 MHz", "1.5 cycles",
// "32 KiB", "8 B/cycle", "40 ns"). Values are returned in the dimension's
// base unit: Hz, cycles, bytes, bytes per cycle, seconds, or a plain count.
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace hopsim {

// `address`: a device address, a count written and shown in hexadecimal.
enum class Dim { count, cycles, frequency, bytes, bytes_per_cycle, seconds, bytes_per_second, address };

std::string_view dim_name(Dim d);  // "cycles", "Hz", ...

// Parses `text` as a quantity of dimension `dim`. A bare number is accepted
// in the base unit. Throws ConfigError naming `key` on any problem.
double parse_quantity(std::string_view text, Dim dim, std::string_view key);

// Same for a JSON value (number or string).
double parse_quantity(const nlohmann::json& v, Dim dim, std::string_view key);

// Formats a base-unit value with its unit, e.g. "600 MHz", "1.5 cycles".
std::string format_quantity(double value, Dim dim);

}  // namespace hopsim
