// A driver for builds without libFuzzer (g++, or clang without -fsanitize=fuzzer): runs the
// target once on each file named, and on every file of each folder named, in name order, as
// `TARGET -runs=0 DIR...` does under libFuzzer. Used by ctest to replay the seed corpora and
// the crash regressions; a bug aborts with the file's name.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path p(argv[i]);
    if (argv[i][0] == '-') continue;  // libFuzzer flags, ignored
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay %s (%zu bytes)\n", f.c_str(), bytes.size());
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "replay: %s: uncaught exception: %s\n", f.c_str(), e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "replayed %zu inputs\n", files.size());
  return 0;
}
