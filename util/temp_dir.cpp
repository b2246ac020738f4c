#include "util/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <system_error>

namespace amdahl {

TempDir::TempDir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::system_error(errno, std::generic_category(), "cannot make folder " + pattern);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;  // nothing to report from a destructor; the folder is temporary
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace amdahl
