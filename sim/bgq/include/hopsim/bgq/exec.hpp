#pragma once
// `hopsim bgq exec`: a BG/Q program with its own main() (built by
// hopsim-mpicc) run once per mode as a child process, with a table of the
// runs and a comparison of what they printed.
#include <ostream>
#include <string>
#include <vector>

namespace hopsim::bgq {

struct ExecOptions {
  std::string machine = "bgq";       // preset
  std::string torus;                 // "AxBxCxDxE"; empty: the preset's
  std::string mode = "both";         // sim, native or both
  std::string transport;             // native ranks: threads (default), double or cma
  std::string out = "out/bgq-exec";  // stdout, stderr and report of each mode
  std::vector<std::string> argv;     // the program and its arguments
};

// Prints the table; returns 0 (every mode exited 0, both printed the same
// lines), 3 (a mode's program failed) or 4 (different output). Throws
// ConfigError for bad options or a missing program.
int exec_program(const ExecOptions& o, std::ostream& out);

}  // namespace hopsim::bgq
