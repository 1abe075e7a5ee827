#pragma once
// The --csv FILE of the host subcommands, written whole or not at all
// (AtomicFile).
#include <memory>
#include <optional>
#include <string>

#include "hopsim/core/file_output.hpp"

namespace hopsim::host::commands {

// --csv FILE, opened before any measurement so a bad path fails at once
// (null without --csv).
[[nodiscard]] std::unique_ptr<AtomicFile> open_csv(const std::optional<std::string>& path);

}  // namespace hopsim::host::commands
