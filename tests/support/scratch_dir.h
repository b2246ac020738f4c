#pragma once
// A directory of the test process's own under the system's temporary directory, made unique by
// mkdtemp and removed with its contents when the process ends. Tests write their files there:
// ctest runs test cases in parallel processes and two checkouts may test on one machine at
// once, so a fixed name under /tmp would be shared, and nothing is left behind.

#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

namespace amdahl::test {

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "amdahl-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    dir_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;  // a file still open elsewhere must not turn into a test failure
    std::filesystem::remove_all(dir_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

// The process's scratch directory, made on first use.
inline const std::filesystem::path& scratch_dir() {
  static const ScratchDir dir;
  return dir.path();
}

// The path of `name` in the process's scratch directory.
inline std::string scratch_file(const std::string& name) { return (scratch_dir() / name).string(); }

}  // namespace amdahl::test
