#include "hopsim/epiphany/kernel_registry.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "hopsim/core/file_output.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/strict_json.hpp"
#include "hopsim/epiphany/host.hpp"

namespace hopsim::runtime {
namespace {
std::map<std::string, KernelPackage>& registry() {
  static std::map<std::string, KernelPackage> r;
  return r;
}
HostContext* g_host = nullptr;
}  // namespace

void register_package(KernelPackage pkg) {
  const auto name = pkg.name;
  registry()[name] = std::move(pkg);
}

const KernelPackage& find_package(const std::string& name) {
  const auto it = registry().find(name);
  if (it != registry().end()) return it->second;
  std::string known;
  for (const auto& [n, p] : registry()) known += (known.empty() ? "" : ", ") + n;
  throw ConfigError(fmt::format("kernel.name: unknown kernel '{}' (known: {})", name, known));
}

std::vector<const KernelPackage*> all_packages() {
  std::vector<const KernelPackage*> out;
  for (const auto& [n, p] : registry()) out.push_back(&p);
  return out;
}

nlohmann::json resolve_args(const KernelPackage& pkg, const nlohmann::json& given) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& a : pkg.args) out[a.name] = a.default_value;
  if (given.is_null()) return out;
  if (!given.is_object()) throw ConfigError("kernel.args: expected an object");
  for (const auto& [k, v] : given.items()) {
    const auto key = "kernel.args." + k;
    const auto it = std::find_if(pkg.args.begin(), pkg.args.end(), [&](const ArgDecl& a) { return a.name == k; });
    if (it == pkg.args.end()) {
      std::string known;
      for (const auto& a : pkg.args) known += (known.empty() ? "" : ", ") + a.name;
      throw ConfigError(fmt::format("{}: unknown argument of kernel {} (known: {})", key, pkg.name, known));
    }
    const auto& def = it->default_value;
    auto check_choice = [&](const std::string& s) {
      if (!it->choices.empty() && std::find(it->choices.begin(), it->choices.end(), s) == it->choices.end()) {
        std::string list;
        for (const auto& c : it->choices) list += (list.empty() ? "" : ", ") + c;
        throw ConfigError(fmt::format("{}: '{}' is not one of: {}", key, s, list));
      }
    };
    if (def.is_number_integer()) {
      if (!v.is_number_integer()) throw ConfigError(fmt::format("{}: expected an integer, got {}", key, v.dump()));
      const auto x = v.get<long long>();
      if (x < it->min || x > it->max)
        throw ConfigError(fmt::format("{}: {} is out of range [{}, {}]", key, x, it->min, it->max));
    } else if (def.is_string()) {
      if (!v.is_string()) throw ConfigError(fmt::format("{}: expected a string, got {}", key, v.dump()));
      check_choice(v.get<std::string>());
    } else if (def.is_array()) {
      if (!v.is_array() || (v.empty() && !it->allow_empty))
        throw ConfigError(fmt::format("{}: expected a non-empty list, got {}", key, v.dump()));
      for (const auto& e : v) {
        if (!e.is_string()) throw ConfigError(fmt::format("{}: expected strings, got {}", key, e.dump()));
        check_choice(e.get<std::string>());
      }
    } else if (def.is_boolean()) {
      if (!v.is_boolean()) throw ConfigError(fmt::format("{}: expected true or false, got {}", key, v.dump()));
    }
    out[k] = v;
  }
  return out;
}

HostContext::HostContext(const KernelPackage& pkg, nlohmann::json args, Device& device, std::string output_dir,
                         Mode mode)
    : pkg_(pkg), args_(std::move(args)), device_(device), output_dir_(std::move(output_dir)), mode_(mode) {}

std::string HostContext::output_file(const std::string& stem, const std::string& ext) {
  pending_.push_back(fmt::format("{}/{}-{}.{}", output_dir_, stem, to_string(mode_), ext));
  return partial_path(pending_.back()).string();
}

void HostContext::commit_files() {
  for (const auto& f : pending_) commit_partial(partial_path(f), f);
  pending_.clear();
}

void HostContext::record(LaunchRecord r) {
  std::uint64_t total = 0;
  for (const auto& c : device_.counters()) total += c.write_bytes;
  if (r.bytes == 0) r.bytes = total - bytes_recorded_;
  bytes_recorded_ = total;
  records_.push_back(std::move(r));
}

void HostContext::progress(std::size_t done, std::size_t total, const std::string& what) const {
  static const bool tty = isatty(2) != 0;
  if (tty) {
    std::cerr << fmt::format("\r[{}] {}/{} {}\033[K", to_string(mode_), done, total, what);
    if (done == total) std::cerr << '\n';
  } else if (done == total || done % std::max<std::size_t>(1, total / 8) == 0) {
    // Logs and CI: a line per eighth of the run.
    std::cerr << fmt::format("[{}] {}/{} {}\n", to_string(mode_), done, total, what);
  }
  std::cerr.flush();
}

HostContext& HostContext::current() {
  if (!g_host) throw Error("no host program is running");
  return *g_host;
}

HostScope::HostScope(HostContext& h) : prev_(g_host) { g_host = &h; }
HostScope::~HostScope() { g_host = prev_; }

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace hopsim::runtime
