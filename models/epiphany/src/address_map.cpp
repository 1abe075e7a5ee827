#include "hopsim/epiphany/model/address_map.hpp"

#include <fmt/format.h>

namespace hopsim::epiphany::model {

AddressMap::AddressMap(const Params& p) : p_(p), core_of_id_(4096, -1) {
  for (std::uint32_t i = 0; i < p_.num_cores(); ++i) {
    coreids_.push_back(coreid(row_of(i), col_of(i)));
    core_of_id_[coreids_.back()] = static_cast<std::int16_t>(i);
  }
}

std::uint32_t AddressMap::coreid(int row, int col) const {
  return static_cast<std::uint32_t>(((p_.first_row + row) << 6) | (p_.first_col + col));
}

std::string AddressMap::describe_core(std::uint32_t core) const {
  return fmt::format("core({},{}) (coreid 0x{:03x})", row_of(core), col_of(core), coreid_of(core));
}

}  // namespace hopsim::epiphany::model
