#pragma once
// The test process's own temporary folder (util/temp_dir.h), made on first use and removed when
// the process ends. Tests write their files there: ctest runs test cases in parallel processes
// and two checkouts may test on one machine at once, so a fixed name under /tmp would be shared,
// and nothing is left behind.

#include <filesystem>
#include <fstream>
#include <string>

#include "util/temp_dir.h"

namespace amdahl::test {

inline const std::filesystem::path& scratch_dir() {
  static const TempDir dir("amdahl-test");
  return dir.path();
}

// The path of `name` in the process's scratch folder.
inline std::string scratch_file(const std::string& name) { return (scratch_dir() / name).string(); }

// A fresh, empty folder `name` in the process's scratch folder, for one test case.
inline std::filesystem::path scratch_folder(const std::string& name) {
  const std::filesystem::path p = scratch_dir() / name;
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

// Writes `text` to `name` in the process's scratch folder and returns its path.
inline std::string write_scratch_file(const std::string& name, const std::string& text) {
  const std::string path = scratch_file(name);
  std::ofstream(path) << text;
  return path;
}

}  // namespace amdahl::test
