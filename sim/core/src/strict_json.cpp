#include "hopsim/core/strict_json.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"

namespace hopsim {

std::string join_path(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return fmt::format("{}.{}", path, key);
}

nlohmann::json parse_json_text(const std::string& text, const std::string& origin) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Report the line of the byte offset, which is what a user can find.
    std::size_t line = 1;
    for (std::size_t i = 0; i < e.byte && i < text.size(); ++i) line += text[i] == '\n';
    throw ConfigError(fmt::format("{}: malformed JSON at line {} (byte {}): {}", origin, line, e.byte, e.what()));
  } catch (const nlohmann::json::exception& e) {
    // A number beyond a double's range (out_of_range.406) and the like.
    throw ConfigError(fmt::format("{}: unreadable JSON: {}", origin, e.what()));
  }
}

nlohmann::json read_json_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ConfigError(fmt::format("{}: is a folder, not a JSON file", path));
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: cannot open file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_json_text(ss.str(), path);
}

void require_known_keys(const nlohmann::json& obj, std::string_view path,
                        std::initializer_list<std::string_view> known) {
  require_known_keys(obj, path, std::span<const std::string_view>(known.begin(), known.size()));
}

void require_known_keys(const nlohmann::json& obj, std::string_view path, std::span<const std::string_view> known) {
  if (!obj.is_object()) {
    throw ConfigError(fmt::format("{}: expected an object, got {}", path.empty() ? "scenario" : path, obj.type_name()));
  }
  for (const auto& [k, v] : obj.items()) {
    bool ok = false;
    for (auto n : known) ok = ok || n == k;
    if (!ok) {
      std::string list;
      for (auto n : known) list += fmt::format("{}{}", list.empty() ? "" : ", ", n);
      throw ConfigError(fmt::format("{}: unknown key (known keys: {})", join_path(path, k), list));
    }
  }
}

int get_int(const nlohmann::json& obj, std::string_view key, std::string_view path, int fallback) {
  const auto it = obj.find(std::string(key));
  if (it == obj.end()) return fallback;
  if (!it->is_number_integer()) {
    throw ConfigError(fmt::format("{}: expected an integer, got {}", join_path(path, key), it->dump()));
  }
  return it->get<int>();
}

std::string get_string(const nlohmann::json& obj, std::string_view key, std::string_view path,
                       const std::string& fallback) {
  const auto it = obj.find(std::string(key));
  if (it == obj.end()) return fallback;
  if (!it->is_string()) {
    throw ConfigError(fmt::format("{}: expected a string, got {}", join_path(path, key), it->dump()));
  }
  return it->get<std::string>();
}

bool get_bool(const nlohmann::json& obj, std::string_view key, std::string_view path, bool fallback) {
  const auto it = obj.find(std::string(key));
  if (it == obj.end()) return fallback;
  if (!it->is_boolean()) {
    throw ConfigError(fmt::format("{}: expected true or false, got {}", join_path(path, key), it->dump()));
  }
  return it->get<bool>();
}

void apply_override(nlohmann::json& doc, const std::string& assignment, std::string_view option) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError(fmt::format("{} '{}': expected key=value", option, assignment));
  }
  const std::string key = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    value = text;  // not JSON, or a number out of range: a string, which the key's check then names
  }
  nlohmann::json* node = &doc;
  std::size_t start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty()) throw ConfigError(fmt::format("{} '{}': empty key component", option, assignment));
    if (!node->is_object()) {
      throw ConfigError(fmt::format("{} '{}': '{}' is not an object", option, assignment, key.substr(0, start - 1)));
    }
    if (dot == std::string::npos) {
      (*node)[part] = value;
      return;
    }
    node = &(*node)[part];
    if (node->is_null()) *node = nlohmann::json::object();
    start = dot + 1;
  }
}

}  // namespace hopsim
