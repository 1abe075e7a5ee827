// Shared parts of the fuzz harnesses (tests/fuzz/*.cpp). Each harness feeds
// one reader of user input with arbitrary bytes. The contract it checks: a
// reader either accepts the input or throws one of hopsim's own error types
// (hopsim::Error and its subclasses, traces::TraceError, traces::ImportError)
// with a non-empty message. Any other exception, a crash, a sanitizer report,
// a hang or unbounded memory is a bug. The same harnesses are built twice:
// with libFuzzer (the standalone project in this folder, `make fuzz`) and with
// replay.cpp as main, which CTest runs over the seed and regression corpus.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hopsim/core/error.hpp"
#include "hopsim/traces/error.hpp"

namespace hopsim::fuzz {

// Reports a contract violation and aborts (libFuzzer saves the input).
[[noreturn]] void violation(std::string_view what, std::string_view message);

// Runs `reader`; accepts success and hopsim's error types with a message.
template <class F>
void expect_clean(F&& reader) {
  try {
    std::forward<F>(reader)();
  } catch (const hopsim::Error& e) {
    if (std::string_view(e.what()).empty()) violation("hopsim::Error without a message", "");
  } catch (const traces::TraceError& e) {
    if (std::string_view(e.what()).empty()) violation("TraceError without a message", "");
  } catch (const traces::ImportError& e) {
    if (std::string_view(e.what()).empty()) violation("ImportError without a message", "");
  } catch (const std::exception& e) {
    violation("an exception that is not one of hopsim's errors escaped the reader", e.what());
  }
}

// A file in this process's own scratch folder (removed at exit), rewritten
// for every input, for readers that take a path.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name);
  // Replaces the file's contents with `data`; returns its path.
  const std::filesystem::path& write(const std::uint8_t* data, std::size_t size);
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

// The input as text, split at the first line that is exactly "----": the
// document before it, and every line after it (the `--set` overrides).
struct DocAndLines {
  std::string doc;
  std::vector<std::string> lines;
};
DocAndLines split_doc(const std::uint8_t* data, std::size_t size);

// Every query the viewer and `hopsim trace` make on an open trace, with
// windows taken from the trace's own range, and both exporters.
void query_everything(const std::filesystem::path& trace);

}  // namespace hopsim::fuzz

namespace hopsim::fuzz {

// Writes a small trace made by the project's own writer: `variant` 0 records
// hops, 1 counters only, 2 is a run that stopped early (incomplete), 3 holds
// launches of both modes and no links. Pages are 512 bytes so that byte-level
// mutations reach every table. Returns `path`.
const std::filesystem::path& write_sample_trace(const std::filesystem::path& path, int variant);

}  // namespace hopsim::fuzz
