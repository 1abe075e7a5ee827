#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"
#include "hopsim/core/preset.hpp"
#include "hopsim/epiphany/device_program.hpp"
#include "hopsim/epiphany_package.hpp"

namespace fs = std::filesystem;

namespace hopsim::epiphany {
namespace {

// Private copies of one library: dlopen returns the same object for the
// same file, so each core gets a copy of the file of its own. The copies
// are deleted once mapped, and never unloaded: the package registry holds
// functions of theirs until the process exits.
class LoadedLibrary {
 public:
  LoadedLibrary(const std::string& path, std::uint32_t cores, const std::string& key) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      throw ConfigError(fmt::format("{}: kernel library {} does not exist", key, path));
    std::string tmpl = "/tmp/hopsim-kernels-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw Error("cannot create a temporary folder for kernel copies");
    dir_ = tmpl;
    for (std::uint32_t i = 0; i <= cores; ++i) {
      const fs::path copy = dir_ / fmt::format("copy{}.so", i);
      fs::copy_file(path, copy, ec);
      if (ec) throw Error(fmt::format("cannot copy {} to {}: {}", path, copy.string(), ec.message()));
      void* h = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        const std::string why = dlerror();
        if (why.find("__tsan_") != std::string::npos)
          throw ConfigError(
              fmt::format("{}: {} was built by an older hopsim-cc (sanitizer hooks): rebuild it", key, path));
        throw ConfigError(fmt::format("{}: cannot load {}: {}", key, path, why));
      }
      handles_.push_back(h);
    }
    fs::remove_all(dir_, ec);
  }
  ~LoadedLibrary() = default;
  LoadedLibrary(const LoadedLibrary&) = delete;
  LoadedLibrary& operator=(const LoadedLibrary&) = delete;

  // The device pass's image of core `i`'s copy (hopsim/device_abi.h), or
  // nullptr if the library was built without the pass (--no-interpose).
  const hopsim_dev_image* image(std::uint32_t i) const {
    return static_cast<const hopsim_dev_image*>(dlsym(handles_.at(i), "__hopsim_device_image"));
  }
  void* host() const { return handles_.back(); }
  void* core(std::uint32_t i) const { return handles_.at(i); }
  std::uint32_t cores() const { return static_cast<std::uint32_t>(handles_.size() - 1); }

 private:
  fs::path dir_;
  std::vector<void*> handles_;
};

std::map<std::string, std::unique_ptr<LoadedLibrary>>& loaded() {
  static std::map<std::string, std::unique_ptr<LoadedLibrary>> m;
  return m;
}

}  // namespace

std::vector<std::string> kernel_dirs() {
  return search_dirs("HOPSIM_KERNEL_PATH", "lib/hopsim/kernels",
                     {HOPSIM_INSTALLED_KERNEL_DIR, HOPSIM_BUILD_KERNEL_DIR});
}

std::string find_kernel_library(const std::string& name) {
  for (const auto& d : kernel_dirs()) {
    const fs::path p = fs::path(d) / (name + ".hopsim.so");
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

const KernelPackage& load_kernel_library(const std::string& path, std::uint32_t cores, const std::string& key) {
  const std::string canon = fs::weakly_canonical(path).string();
  auto& lib = loaded()[canon];
  if (!lib || lib->cores() != cores) {
    // A different machine needs its own set of copies; older sets stay mapped.
    static std::vector<std::unique_ptr<LoadedLibrary>> retired;
    if (lib) retired.push_back(std::move(lib));
    lib = std::make_unique<LoadedLibrary>(canon, cores, key);
  }
  auto entry = reinterpret_cast<PackageEntry>(dlsym(lib->host(), kPackageEntry));
  if (!entry)
    throw ConfigError(fmt::format("{}: {} is not a hopsim kernel library (no {} entry; build it with hopsim-cc)", key,
                                  path, kPackageEntry));
  KernelPackage pkg;
  entry(pkg);
  if (pkg.name.empty()) throw ConfigError(fmt::format("{}: {} declares a package without a name", key, path));
  const LoadedLibrary* l = lib.get();
  for (const auto& s : pkg.symbols) {
    for (std::uint32_t c = 0; c < cores; ++c) {
      if (!dlsym(l->core(c), s.name.c_str()))
        throw ConfigError(fmt::format("{}: {} lists kernel {} but does not define it", key, path, s.name));
    }
  }
  pkg.library = canon;
  if (const hopsim_dev_image* img = l->image(0)) {
    if (img->magic != HOPSIM_DEV_IMAGE_MAGIC || img->version != HOPSIM_DEV_IMAGE_VERSION)
      throw ConfigError(
          fmt::format("{}: {} was built by another hopsim-cc (device image version {}, this one reads {}): "
                      "rebuild it",
                      key, path, img->version, HOPSIM_DEV_IMAGE_VERSION));
    pkg.prepare = [l, canon](Device& d) {
      // Each core's copy has its own image (the same layout, its own initial bytes).
      for (std::uint32_t c = 0; c < std::min(l->cores(), d.params().num_cores()); ++c)
        load_device_image(d, c, *l->image(c), canon);
      d.set_kernel_host_stacks(true);
    };
  }
  pkg.resolve = [l](const std::string& name, std::uint32_t core) -> KernelFn {
    if (core >= l->cores()) return nullptr;
    return reinterpret_cast<KernelFn>(dlsym(l->core(core), name.c_str()));
  };
  const auto name = pkg.name;
  register_package(std::move(pkg));
  return find_package(name);
}

}  // namespace hopsim::epiphany
