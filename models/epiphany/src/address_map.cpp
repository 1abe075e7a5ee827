#include "hopsim/epiphany/address_map.hpp"

#include <fmt/format.h>

namespace hopsim::epiphany {

AddressMap::AddressMap(const Params& p) : p_(p) {}

std::uint32_t AddressMap::coreid(int row, int col) const {
  return static_cast<std::uint32_t>(((p_.first_row + row) << 6) | (p_.first_col + col));
}

std::uint32_t AddressMap::coreid_of(std::uint32_t core) const { return coreid(row_of(core), col_of(core)); }

int AddressMap::core_of_coreid(std::uint32_t id) const {
  const int row = static_cast<int>(id >> 6) - p_.first_row;
  const int col = static_cast<int>(id & 0x3f) - p_.first_col;
  if (id > 0xfff || row < 0 || col < 0 || row >= p_.rows || col >= p_.cols) return -1;
  return row * p_.cols + col;
}

Location AddressMap::locate(std::uint64_t addr, std::uint64_t bytes) const {
  Location loc;
  if (addr >= p_.emem_base && addr + bytes <= std::uint64_t{p_.emem_base} + p_.emem_size) {
    loc.kind = Location::Kind::emem;
    loc.offset = static_cast<std::uint32_t>(addr - p_.emem_base);
    return loc;
  }
  if (addr > 0xFFFFFFFFull) return loc;
  const int core = core_of_coreid(static_cast<std::uint32_t>(addr >> 20));
  const std::uint64_t off = addr & 0xFFFFF;
  if (core < 0 || off + bytes > p_.local_mem) return loc;
  loc.kind = Location::Kind::core;
  loc.core = static_cast<std::uint32_t>(core);
  loc.offset = static_cast<std::uint32_t>(off);
  return loc;
}

std::string AddressMap::describe_core(std::uint32_t core) const {
  return fmt::format("core {} (coreid 0x{:03x}, row {}, col {})", core, coreid_of(core), row_of(core),
                     col_of(core));
}

}  // namespace hopsim::epiphany
