#include "fuzz/fuzz_input.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "util/temp_dir.h"

namespace amdahl::fuzz {
namespace fs = std::filesystem;

const std::string& scratch_dir() {
  static const TempDir dir("amdahl-fuzz");  // throws, and so stops the target, when it cannot
  static const std::string path = dir.path().string();
  return path;
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
