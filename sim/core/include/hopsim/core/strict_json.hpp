#pragma once
// Strict reading of JSON objects: every key must be known, every value of
// the expected type; errors name the full key path ("machine.rows").
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hopsim {

// Parses JSON text; on syntax errors throws ConfigError naming `origin` and the position.
nlohmann::json parse_json_text(const std::string& text, const std::string& origin);
// Reads and parses a file; throws ConfigError if it cannot be read or parsed.
nlohmann::json read_json_file(const std::string& path);

// Throws ConfigError naming `path.key` for the first key of `obj` not in `known`.
// Also throws if `obj` is not an object.
void require_known_keys(const nlohmann::json& obj, std::string_view path,
                        std::initializer_list<std::string_view> known);
void require_known_keys(const nlohmann::json& obj, std::string_view path, std::span<const std::string_view> known);

// Typed getters; `path` is the key path used in messages.
int get_int(const nlohmann::json& obj, std::string_view key, std::string_view path, int fallback);
std::string get_string(const nlohmann::json& obj, std::string_view key, std::string_view path,
                       const std::string& fallback);
bool get_bool(const nlohmann::json& obj, std::string_view key, std::string_view path, bool fallback);

// Applies "a.b.c=value" to `doc`. The value is parsed as JSON if it parses,
// else taken as a string. Intermediate objects are created as needed.
// A refusal names `option` (the command-line option the assignment came from).
void apply_override(nlohmann::json& doc, const std::string& assignment, std::string_view option = "--set");

std::string join_path(std::string_view path, std::string_view key);

}  // namespace hopsim
