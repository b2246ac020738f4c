#include "fuzz/fuzz_input.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace amdahl::fuzz {
namespace fs = std::filesystem;
namespace {

struct Scratch {
  std::string dir;
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "amdahl-fuzz-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) std::abort();
    dir = pattern;
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

}  // namespace

const std::string& scratch_dir() {
  static const Scratch scratch;
  return scratch.dir;
}

std::string write_input(const std::uint8_t* data, std::size_t size, const std::string& name,
                        const std::string& subfolder) {
  fs::path dir = scratch_dir();
  if (!subfolder.empty()) {
    dir /= subfolder;
    fs::create_directories(dir);
  }
  const std::string path = (dir / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) std::abort();  // the scratch folder itself failed: not the input's fault
  return path;
}

}  // namespace amdahl::fuzz
