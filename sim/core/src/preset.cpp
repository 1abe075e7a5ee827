#include "hopsim/core/preset.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/strict_json.hpp"

namespace fs = std::filesystem;

namespace hopsim {

std::vector<std::string> search_dirs(const char* env, const std::string& installed,
                                     const std::vector<std::string>& fallbacks) {
  std::vector<std::string> dirs;
  if (const char* value = std::getenv(env)) {
    const std::string s = value;
    std::size_t start = 0;
    for (;;) {
      const auto colon = s.find(':', start);
      const auto part = s.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!part.empty()) dirs.push_back(part);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  // An installed hopsim finds its data next to itself.
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back((exe.parent_path().parent_path() / installed).string());
  dirs.insert(dirs.end(), fallbacks.begin(), fallbacks.end());
  return dirs;
}

std::vector<std::string> preset_dirs() {
  return search_dirs("HOPSIM_PRESET_PATH", "share/hopsim/presets",
                     {HOPSIM_INSTALLED_PRESET_DIR, HOPSIM_SOURCE_PRESET_DIR});
}

std::string find_data_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (path.empty()) throw ConfigError(what + ": an empty file name");
  if (fs::exists(path, ec)) return path;
  if (fs::path(path).is_absolute()) throw ConfigError(fmt::format("{}: {}: no such file", what, path));
  const auto dirs = search_dirs("HOPSIM_DATA_PATH", "share/hopsim", {HOPSIM_INSTALLED_DATA_DIR, HOPSIM_SOURCE_DIR});
  for (const auto& d : dirs) {
    const fs::path f = fs::path(d) / path;
    if (fs::is_regular_file(f, ec)) return f.lexically_normal().string();
  }
  std::string searched;
  for (const auto& d : dirs) searched += (searched.empty() ? "" : ", ") + d;
  throw ConfigError(fmt::format("{}: {}: no such file here, nor in {}", what, path, searched));
}

namespace {
Preset parse_preset(const fs::path& file) {
  const auto doc = read_json_file(file.string());
  const std::string where = file.string();
  // `system`: a host profile's reference system (host::model::Profile::system).
  require_known_keys(doc, where, {"name", "family", "description", "system", "network", "params"});
  Preset p;
  p.file = where;
  p.name = get_string(doc, "name", where, file.stem().string());
  p.family = get_string(doc, "family", where, "");
  p.description = get_string(doc, "description", where, "");
  if (p.family.empty()) throw ConfigError(where + ": preset has no family");
  p.params = doc.value("params", nlohmann::json::object());
  if (!p.params.is_object()) throw ConfigError(where + ": params must be an object");
  p.network = doc.value("network", nlohmann::json::object());
  if (!p.network.is_object()) throw ConfigError(where + ": network must be an object");
  require_known_keys(p.network, where + ": network", {"topology", "dims", "routing"});
  return p;
}
}  // namespace

std::vector<Preset> list_presets() {
  std::vector<Preset> out;
  std::set<std::string> seen;
  for (const auto& dir : preset_dirs()) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".json") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      if (seen.count(f.stem().string())) continue;
      seen.insert(f.stem().string());
      out.push_back(parse_preset(f));
    }
  }
  std::sort(out.begin(), out.end(), [](const Preset& a, const Preset& b) { return a.name < b.name; });
  return out;
}

Preset load_preset(const std::string& name, const std::string& key) {
  // A file in preset format (a host profile written by `hopsim host calibrate`).
  if (name.ends_with(".json")) {
    std::error_code ec;
    if (!fs::exists(name, ec)) throw ConfigError(fmt::format("{}: preset file '{}' does not exist", key, name));
    return parse_preset(name);
  }
  if (name.empty() || name.find('/') != std::string::npos) {
    throw ConfigError(fmt::format("{}: '{}' is not a preset name", key, name));
  }
  for (const auto& dir : preset_dirs()) {
    const fs::path f = fs::path(dir) / (name + ".json");
    std::error_code ec;
    if (fs::exists(f, ec)) return parse_preset(f);
  }
  std::string known;
  for (const auto& p : list_presets()) known += (known.empty() ? "" : ", ") + p.name;
  throw ConfigError(fmt::format("{}: unknown machine preset '{}' (known: {})", key, name, known));
}

ParamSet ParamSet::resolve(const std::vector<ParamDecl>& decls, const Preset& preset, const nlohmann::json& overrides,
                           const std::string& path) {
  ParamSet set;
  auto known_list = [&] {
    std::string s;
    for (const auto& d : decls) s += (s.empty() ? "" : ", ") + d.name;
    return s;
  };
  auto find_decl = [&](const std::string& name) -> const ParamDecl* {
    for (const auto& d : decls)
      if (d.name == name) return &d;
    return nullptr;
  };
  auto set_value = [&](const ParamDecl& d, const nlohmann::json& v, const std::string& key, const std::string& source) {
    const double x = parse_quantity(v, d.dim, key);
    if (x < d.min || x > d.max) {
      throw ConfigError(fmt::format("{}: {} is out of range [{}, {}]", key, format_quantity(x, d.dim),
                                    format_quantity(d.min, d.dim), format_quantity(d.max, d.dim)));
    }
    if (d.integer && std::floor(x) != x) {
      throw ConfigError(fmt::format("{}: must be a whole number, got {}", key, x));
    }
    set.values_[d.name] = Value{x, d.dim, source};
  };
  for (const auto& [name, entry] : preset.params.items()) {
    const std::string key = fmt::format("{}: params.{}", preset.file, name);
    const ParamDecl* d = find_decl(name);
    if (!d) {
      throw ConfigError(
          fmt::format("{}: unknown parameter of a {} machine (known: {})", key, preset.family, known_list()));
    }
    if (!entry.is_object() || !entry.contains("value")) {
      throw ConfigError(key + ": expected {\"value\": ..., \"source\": ...}");
    }
    require_known_keys(entry, key, {"value", "source"});
    set_value(*d, entry["value"], key, entry.value("source", std::string("preset ") + preset.name));
  }
  if (!overrides.is_null()) {
    if (!overrides.is_object()) throw ConfigError(path + ": expected an object of parameter overrides");
    for (const auto& [name, v] : overrides.items()) {
      const std::string key = join_path(path, name);
      const ParamDecl* d = find_decl(name);
      if (!d) {
        throw ConfigError(
            fmt::format("{}: unknown parameter of a {} machine (known: {})", key, preset.family, known_list()));
      }
      set_value(*d, v, key, "scenario override");
    }
  }
  for (const auto& d : decls) {
    if (!set.values_.count(d.name)) {
      throw ConfigError(fmt::format("{}: preset {} gives no value for parameter {}", preset.file, preset.name, d.name));
    }
  }
  return set;
}

double ParamSet::get(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("undeclared parameter " + name);
  return it->second.value;
}

int ParamSet::get_int(const std::string& name) const { return static_cast<int>(std::lround(get(name))); }

const std::string& ParamSet::source(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("undeclared parameter " + name);
  return it->second.source;
}

nlohmann::json ParamSet::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, v] : values_) {
    j[name] = {{"value", format_quantity(v.value, v.dim)}, {"source", v.source}};
  }
  return j;
}

void print_params(const std::vector<ParamDecl>& decls, const std::string& preset_name, std::ostream& out) {
  const auto preset = load_preset(preset_name, "preset");
  const auto j = ParamSet::resolve(decls, preset, nullptr, "machine").to_json();
  for (const auto& d : decls)
    out << fmt::format("{:<22} {:>12}  {}  [{}]\n", d.name, j[d.name]["value"].get<std::string>(), d.meaning,
                       j[d.name]["source"].get<std::string>());
}

}  // namespace hopsim
