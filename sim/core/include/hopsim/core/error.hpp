#pragma once
// Typed errors. Configuration and input problems throw these; the CLI turns
// each into one message and a non-zero exit. Models never call exit().
#include <stdexcept>
#include <string>

namespace hopsim {

// `message` with control characters but newline and tab written as \xNN.
std::string printable(const std::string& message);

// Base of every error hopsim reports to a user. Its message is printable:
// control characters that came from input (a key or value holding "\u0000")
// are written as \xNN, so that what() is the whole message; newlines and
// tabs stay.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  explicit Error(const char* message) : Error(std::string(message)) {}
};

// A scenario, preset or command-line value is malformed, unknown or out of range.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// A kernel did something the device would not allow (e.g. wrote outside memory).
class KernelError : public Error {
 public:
  using Error::Error;
};

// Every processing element is blocked and nothing can wake them.
class DeadlockError : public Error {
 public:
  using Error::Error;
};

// The run finished but native and simulated data differ, or a data check failed.
class DataMismatchError : public Error {
 public:
  using Error::Error;
};

const char* version();       // e.g. "0.1.0"
const char* git_revision();  // short hash at configure time, or "unknown"

}  // namespace hopsim
