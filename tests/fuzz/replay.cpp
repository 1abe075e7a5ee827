// Runs a harness over files and folders of inputs (the seed and regression
// corpus) without libFuzzer: `fuzz_NAME_replay PATH...`. Exit 0 when every
// input kept the harness's contract; a violation aborts naming the input.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
std::vector<std::filesystem::path> inputs_of(const std::filesystem::path& p) {
  std::vector<std::filesystem::path> out;
  if (std::filesystem::is_directory(p)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(p))
      if (e.is_regular_file()) out.push_back(e.path());
    std::sort(out.begin(), out.end());
  } else {
    out.push_back(p);
  }
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::cout << "usage: " << argv[0] << " FILE_OR_FOLDER...\n"
              << "Runs this fuzz harness once over each input file (folders recursively).\n";
    return argc < 2 ? 2 : 0;
  }
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::filesystem::exists(argv[i])) {
      std::cerr << argv[0] << ": " << argv[i] << ": no such file or folder\n";
      return 2;
    }
    for (const auto& file : inputs_of(argv[i])) {
      std::ifstream in(file, std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::cerr << "input " << file.string() << " (" << bytes.size() << " bytes)\n";
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++count;
    }
  }
  std::cout << count << " inputs, every one handled\n";
  return count == 0 ? 2 : 0;
}
