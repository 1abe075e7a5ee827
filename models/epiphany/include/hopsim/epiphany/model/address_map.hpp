#pragma once
// The Epiphany global address map: core (row, col) has coreid = row<<6 | col
// and its local memory at coreid<<20; external memory sits at emem_base.
// Core indices here are mesh-relative (0 .. rows*cols-1, index = r*cols + c).
#include <cstdint>
#include <string>
#include <vector>

#include "hopsim/epiphany/model/params.hpp"

namespace hopsim::epiphany::model {

struct Location {
  enum class Kind { core, emem, none } kind = Kind::none;
  std::uint32_t core = 0;    // mesh index when kind == core
  std::uint32_t offset = 0;  // offset inside the core's memory or external memory
};

class AddressMap {
 public:
  explicit AddressMap(const Params& p);

  std::uint32_t coreid(int row, int col) const;  // mesh-relative row/col
  std::uint32_t coreid_of(std::uint32_t core) const { return coreids_[core]; }
  std::uint32_t base_of(std::uint32_t core) const { return coreids_[core] << 20; }
  int row_of(std::uint32_t core) const { return static_cast<int>(core) / p_.cols; }
  int col_of(std::uint32_t core) const { return static_cast<int>(core) % p_.cols; }
  // Mesh index of a coreid, or -1 if it is not on this chip.
  int core_of_coreid(std::uint32_t coreid) const { return coreid > 0xfff ? -1 : core_of_id_[coreid]; }
  // Where [addr, addr+bytes) lands; Kind::none if it is not wholly inside one
  // core's local memory or external memory.
  Location locate(std::uint64_t addr, std::uint64_t bytes) const {
    Location loc;
    const std::uint64_t id = addr >> 20;
    const std::uint64_t off = addr & 0xFFFFF;
    if (id <= 0xfff && core_of_id_[id] >= 0 && off + bytes <= p_.local_mem) {
      loc.kind = Location::Kind::core;
      loc.core = static_cast<std::uint32_t>(core_of_id_[id]);
      loc.offset = static_cast<std::uint32_t>(off);
      return loc;
    }
    if (addr >= p_.emem_base && addr + bytes <= std::uint64_t{p_.emem_base} + p_.emem_size) {
      loc.kind = Location::Kind::emem;
      loc.offset = static_cast<std::uint32_t>(addr - p_.emem_base);
    }
    return loc;
  }
  // "core(0,2) (coreid 0x80a)" for messages, as traces name cores.
  std::string describe_core(std::uint32_t core) const;

  std::uint32_t local_size() const { return p_.local_mem; }
  std::uint32_t emem_base() const { return p_.emem_base; }
  std::uint32_t emem_size() const { return p_.emem_size; }
  std::uint32_t num_cores() const { return p_.num_cores(); }

 private:
  Params p_;
  std::vector<std::uint32_t> coreids_;    // mesh index -> coreid
  std::vector<std::int16_t> core_of_id_;  // coreid (12 bits) -> mesh index or -1
};

}  // namespace hopsim::epiphany::model
