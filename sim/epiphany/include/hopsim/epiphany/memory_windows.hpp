#pragma once
// Each core's local memory is mapped at its real global address in the host
// process (coreid << 20), external memory at emem_base, so addresses that
// kernels compute are valid host pointers. One set of windows per process
// at a time; construction fails with a clear message if the range is taken.
#include <cstddef>
#include <cstdint>

#include "hopsim/epiphany/model/address_map.hpp"

namespace hopsim::epiphany {

class MemoryWindows {
 public:
  explicit MemoryWindows(const epiphany::model::AddressMap& map);
  ~MemoryWindows();
  MemoryWindows(const MemoryWindows&) = delete;
  MemoryWindows& operator=(const MemoryWindows&) = delete;

  // Zeroes every window (between runs of different modes).
  void clear();
  std::uint8_t* core(std::uint32_t index) const;
  std::uint8_t* emem() const;
  const epiphany::model::AddressMap& map() const { return map_; }

 private:
  epiphany::model::AddressMap map_;
  std::size_t core_bytes_;  // mapped size per core (local memory rounded to pages)
};

}  // namespace hopsim::epiphany
