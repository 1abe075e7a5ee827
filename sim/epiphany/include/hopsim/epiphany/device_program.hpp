#pragma once
// A device program built by e-gcc (a host shared object carrying the device
// pass's image, hopsim/device_abi.h): loaded once per file, copied into a
// core's memory by load(), run on that core by entry().
#include <cstdint>
#include <memory>
#include <string>

#include "hopsim/device_abi.h"
#include "hopsim/epiphany/device.hpp"

namespace hopsim::epiphany {

// Writes a device image (globals and statics of code built through the
// device pass: e-gcc programs, hopsim-cc kernel libraries) into `core`'s
// memory (shared_dram into external memory) and sets up the core's device
// stack below the top of local memory; throws KernelError naming `what`,
// the core and the sizes if the data does not fit its local memory.
void load_device_image(Device& d, std::uint32_t core, const hopsim_dev_image& image, const std::string& what);

class DeviceProgram {
 public:
  // Opens `path`; throws Error with a message naming the file if it is
  // missing, not a shared object, or not built by hopsim's e-gcc.
  static std::shared_ptr<const DeviceProgram> open(const std::string& path);
  ~DeviceProgram();
  DeviceProgram(const DeviceProgram&) = delete;
  DeviceProgram& operator=(const DeviceProgram&) = delete;

  // Writes the program's data into `core`'s memory (and shared_dram into
  // external memory) and sets up its device stack; throws KernelError if
  // the data does not fit the core's local memory.
  void load(Device& d, std::uint32_t core) const;
  // Runs the program's main() on the current core.
  int run() const { return main_(); }
  const std::string& path() const { return path_; }
  const hopsim_dev_image& image() const { return *image_; }

 private:
  DeviceProgram() = default;
  std::string path_;
  void* handle_ = nullptr;
  const hopsim_dev_image* image_ = nullptr;
  int (*main_)() = nullptr;
};

}  // namespace hopsim::epiphany
