#include "hopsim/core/file_output.hpp"

#include <unistd.h>

#include <array>
#include <cctype>
#include <system_error>

#include "hopsim/core/crash.hpp"
#include "hopsim/core/error.hpp"

namespace hopsim {

namespace fs = std::filesystem;

fs::path partial_path(const fs::path& path) { return {path.string() + ".partial"}; }

std::string partial_host() {
  std::array<char, 256> buf{};
  std::string h = ::gethostname(buf.data(), buf.size() - 1) == 0 ? std::string(buf.data()) : std::string();
  for (char& c : h)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '-';
  return h.empty() ? "host" : h;
}

namespace {
// Why no file PATH can be made: a folder stands there, or its folder is
// missing or not writable.
std::string why_unwritable(const fs::path& path) {
  std::error_code ec;
  if (path.empty()) return "an empty file name";
  if (fs::is_directory(path, ec)) return "is a folder, not a file";
  const auto dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (!fs::is_directory(dir, ec)) return "cannot create a file in " + dir.string() + " (no such folder)";
  return "cannot create a file in " + dir.string() + " (not writable)";
}
}  // namespace

AtomicFile::AtomicFile(fs::path path, bool unique)
    : path_(std::move(path)),
      partial_(unique ? fs::path(partial_path(path_).string() + "." + partial_host() + "." + std::to_string(::getpid()))
                      : partial_path(path_)) {
  std::error_code ec;
  if (path_.empty() || fs::is_directory(path_, ec))
    throw ConfigError("cannot write " + path_.string() + ": " + why_unwritable(path_));
  // Registered before the file exists, so that no signal finds it unregistered.
  const std::string registered = fs::absolute(partial_, ec).string();
  crash::remove_on_crash(registered);
  out_.open(partial_, std::ios::trunc | std::ios::binary);
  if (!out_) {
    crash::forget(registered);
    throw ConfigError("cannot write " + path_.string() + ": " + why_unwritable(path_));
  }
}

void check_writable(const fs::path& path, std::string_view what) {
  try {
    const AtomicFile probe(path, true);  // removed again, uncommitted
  } catch (const Error&) {
    throw ConfigError(std::string(what) + " " + path.string() + ": " + why_unwritable(path));
  }
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  std::error_code ec;
  fs::remove(partial_, ec);
  crash::forget(fs::absolute(partial_, ec).string());
}

void AtomicFile::commit() {
  out_.flush();
  if (!out_) throw Error("cannot write " + path_.string() + ": write error on " + partial_.string());
  out_.close();
  commit_partial(partial_, path_);
  committed_ = true;
  std::error_code ec;
  crash::forget(fs::absolute(partial_, ec).string());
}

void commit_partial(const fs::path& partial, const fs::path& path) {
  std::error_code ec;
  fs::rename(partial, path, ec);
  if (ec) throw Error("cannot rename " + partial.string() + " to " + path.string() + ": " + ec.message());
}

void make_output_folder(const fs::path& path, std::string_view what) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (fs::is_directory(path, ec)) return;
  std::string why = "cannot make the folder";
  for (auto p = path; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p, ec) && !fs::is_directory(p, ec)) {
      why = p == path ? "a file stands there, not a folder" : p.string() + " is a file, not a folder";
      break;
    }
    if (p == p.parent_path()) break;
  }
  throw ConfigError(std::string(what) + " " + path.string() + ": " + why);
}

void write_file_atomic(const fs::path& path, std::string_view text, bool unique) {
  AtomicFile f(path, unique);
  f.stream() << text;
  f.commit();
}

std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string q = "\"";
  for (const char c : field) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string csv_row(std::span<const std::string> fields) {
  std::string row;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) row += ',';
    row += csv_field(fields[i]);
  }
  row += '\n';
  return row;
}

}  // namespace hopsim
