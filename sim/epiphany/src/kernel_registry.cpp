#include "hopsim/epiphany_package.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/core/file_output.hpp"
#include "hopsim/core/strict_json.hpp"
#include "hopsim/epiphany_host.hpp"

namespace hopsim::epiphany {
namespace {
std::map<std::string, KernelPackage>& registry() {
  static std::map<std::string, KernelPackage> r;
  return r;
}
HostContext* g_host = nullptr;
}  // namespace

void register_package(KernelPackage pkg) {
  const ProgramInfo& info = pkg;  // the program list keeps the ProgramInfo part
  register_program(info);
  const auto name = pkg.name;
  registry()[name] = std::move(pkg);
}

const KernelPackage& find_package(const std::string& name) {
  const auto it = registry().find(name);
  if (it != registry().end()) return it->second;
  const auto& other = find_program(name);
  throw ConfigError(fmt::format("kernel.name: {} runs on {} machines", name, other.family));
}

std::vector<const KernelPackage*> all_packages() {
  std::vector<const KernelPackage*> out;
  for (const auto& [n, p] : registry()) out.push_back(&p);
  return out;
}

HostContext::HostContext(const KernelPackage& pkg, nlohmann::json args, Device& device, std::string output_dir,
                         Mode mode)
    : pkg_(pkg), args_(std::move(args)), device_(device), output_dir_(std::move(output_dir)), mode_(mode) {
  if (pkg_.prepare) pkg_.prepare(device_);
}

HostContext::~HostContext() {
  std::error_code ec;
  for (const auto& f : pending_) {
    std::filesystem::remove(partial_path(f), ec);
    crash::forget(std::filesystem::absolute(partial_path(f), ec).string());
  }
}

std::string HostContext::output_file(const std::string& stem, const std::string& ext) {
  pending_.push_back(fmt::format("{}/{}-{}.{}", output_dir_, stem, to_string(mode_), ext));
  std::error_code ec;
  crash::remove_on_crash(std::filesystem::absolute(partial_path(pending_.back()), ec).string());
  return partial_path(pending_.back()).string();
}

void HostContext::commit_files() {
  std::error_code ec;
  for (const auto& f : pending_) {
    commit_partial(partial_path(f), f);
    crash::forget(std::filesystem::absolute(partial_path(f), ec).string());
  }
  pending_.clear();
}

void HostContext::record(LaunchRecord r) {
  std::uint64_t total = 0;
  for (const auto& c : device_.counters()) total += c.write_bytes;
  if (r.bytes == 0) r.bytes = total - bytes_recorded_;
  if (r.start < 0) r.start = device_.last_launch().start;
  bytes_recorded_ = total;
  records_.push_back(std::move(r));
}

void HostContext::progress(std::size_t done, std::size_t total, const std::string& what, double fraction) const {
  if (!progress_) {
    progress_ = std::make_unique<Progress>(fmt::format("[{}]", to_string(mode_)), total);
    if (progress_note_) progress_->set_note(progress_note_);
  }
  progress_->update(done, what, fraction);
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

}  // namespace hopsim::epiphany
