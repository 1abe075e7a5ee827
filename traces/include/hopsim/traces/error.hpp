// Errors of the trace layer.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace hopsim::traces {

/// Any failure to create, write or read a trace database; the message names the file.
class TraceError : public std::runtime_error {
public:
    /// Why it failed, so callers can tell a foreign file from a newer trace.
    enum class Reason { other, not_a_trace, newer_schema };

    /// An error with a complete message (it should already name the path).
    /// Control characters from the file (a damaged name) are written as \xNN.
    explicit TraceError(const std::string& message, Reason reason = Reason::other);

    /// The category given at construction.
    Reason reason() const noexcept { return reason_; }

private:
    Reason reason_;
};

/// Malformed input to an importer; the message is "file:line: what".
class ImportError : public std::runtime_error {
public:
    /// line 0 means the file as a whole (cannot open, no rows).
    ImportError(const std::filesystem::path& file, std::size_t line, const std::string& what);

    /// The file as given to the importer.
    const std::filesystem::path& file() const noexcept { return file_; }
    /// 1-based line of the offending record; 0 for the whole file.
    std::size_t line() const noexcept { return line_; }

private:
    std::filesystem::path file_;
    std::size_t line_;
};

}  // namespace hopsim::traces
