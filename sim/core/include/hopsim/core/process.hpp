#pragma once
// Runs another program as a child process (a family's program built on its
// own, a `hopsim run` of a sweep point) with its standard output, and
// optionally its standard error, sent to a file.
#include <string>
#include <vector>

namespace hopsim {

struct ChildResult {
  int exit_code = 0;  // the child's exit status; 128 + signal when a signal ended it
  bool signalled = false;
};

// Starts `argv[0]` (a path, or a name looked up on PATH) with `argv`, its
// stdout to `stdout_path` (created or truncated), its stderr there too when
// `merge_stderr` (else inherited), and waits for it. Throws Error naming
// the program when it cannot be started.
ChildResult run_child(const std::vector<std::string>& argv, const std::string& stdout_path, bool merge_stderr);

// The same with the child's stderr to its own file (or merged into stdout),
// a working folder ("": this one) and variables ("NAME=value") added to
// its environment. Empty paths: the stream is inherited.
struct ChildOptions {
  std::string stdout_path, stderr_path, cwd;
  bool merge_stderr = false;
  std::vector<std::string> env;
};
ChildResult run_child(const std::vector<std::string>& argv, const ChildOptions& opt);

// The folder of the running executable (/proc/self/exe), "" if unknown.
std::string executable_dir();

}  // namespace hopsim
