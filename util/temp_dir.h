#pragma once
// A folder of the caller's own under the system's temporary folder: made unique by mkdtemp
// (mode 0700, so no other user's file can be in it or be raced into it) and removed with its
// contents when the object goes. The figure renderer works in one; the tests and the fuzz
// targets each keep one per process for the files they write.

#include <filesystem>
#include <string>

namespace amdahl {

class TempDir {
 public:
  // PREFIX-XXXXXX under std::filesystem::temp_directory_path(). Throws std::system_error
  // (naming the folder) when none can be made.
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace amdahl
