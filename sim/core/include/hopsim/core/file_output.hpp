#pragma once
// Files a run leaves behind are written whole or not at all: the text goes
// to PATH.partial and is renamed over PATH only when complete, so a failed
// or interrupted run never leaves a half-written file over a good one.
// Every output of hopsim goes through AtomicFile; CSV fields through
// csv_field.
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>

namespace hopsim {

class AtomicFile {
 public:
  // Opens PATH.partial (PATH.partial.HOST.PID with `unique`, for writers that
  // may race on one path, on this host or others sharing the folder; HOST is
  // partial_host()). Throws ConfigError "cannot write PATH: why" (an empty
  // name, a folder there, its folder missing or not writable) if it cannot
  // be created.
  explicit AtomicFile(std::filesystem::path path, bool unique = false);
  // Not committed: the partial file is removed and PATH is left as it was.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& partial() const { return partial_; }
  // Flushes, closes and renames into place. Throws Error on a write error.
  void commit();

 private:
  std::filesystem::path path_, partial_;
  std::ofstream out_;
  bool committed_ = false;
};

// This machine's name as it appears in unique partial files: letters, digits
// and '-' (any other character as '-'), "host" when it has no name.
std::string partial_host();
// The name AtomicFile writes to before committing PATH.
std::filesystem::path partial_path(const std::filesystem::path& path);
// Renames a complete PATH.partial written by other means (a database) over PATH.
void commit_partial(const std::filesystem::path& partial, const std::filesystem::path& path);
// Writes `text` to PATH through an AtomicFile.
void write_file_atomic(const std::filesystem::path& path, std::string_view text, bool unique = false);

// Before a long run: that PATH can be written (not a folder; its folder
// takes a new file). Throws ConfigError "WHAT PATH: why" otherwise; PATH
// is left as it was.
void check_writable(const std::filesystem::path& path, std::string_view what);

// Creates folder PATH and its parents for a run's outputs. Throws
// ConfigError "WHAT PATH: why" when a file stands there or it cannot be made.
void make_output_folder(const std::filesystem::path& path, std::string_view what);

// One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF.
std::string csv_field(std::string_view field);
// Fields joined by commas, each through csv_field, with a trailing newline.
std::string csv_row(std::span<const std::string> fields);

}  // namespace hopsim
