// `fuzz_trace_seeds DIR`: writes the sample traces (fuzz.hpp,
// write_sample_trace) into DIR as the trace harnesses' seed corpus.
#include <filesystem>
#include <iostream>

#include "fuzz.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_trace_seeds DIR\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  for (int v = 0; v < 4; ++v) hopsim::fuzz::write_sample_trace(dir / ("sample-" + std::to_string(v) + ".db"), v);
  return 0;
}
