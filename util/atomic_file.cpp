#include "util/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "util/error.h"
#include "util/path_policy.h"
#include "util/suggest.h"

namespace amdahl {
namespace fs = std::filesystem;
namespace {

// A fresh temporary beside `target`: ".STEM.tmp-RANDOM.EXT" (the extension kept, so loaders
// that look at it behave the same), created exclusively: an existing file or symbolic link of
// that name is never opened. Returns the open descriptor; `tmp` gets the name.
int create_temporary(const fs::path& target, const fs::path& dir, fs::path& tmp) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device entropy;
  std::uniform_int_distribution<std::size_t> pick(0, sizeof kChars - 2);
  int error = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string random(12, ' ');
    for (char& c : random) c = kChars[pick(entropy)];
    tmp = dir /
          fmt::format(".{}.tmp-{}{}", target.stem().string(), random, target.extension().string());
    // 0666 less the umask: the permissions a plain new file gets.
    const int fd = ::open(tmp.c_str(), O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    error = errno;
    if (error != EEXIST) break;
  }
  tmp.clear();
  throw UserError(fmt::format("{}: cannot create a temporary file in {} ({})",
                              excerpt(target.string(), 200), excerpt(dir.string(), 200),
                              std::strerror(error)));
}

void write_all(int fd, const std::string& text, const std::string& path) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw UserError(fmt::format("{}: write failed ({})", excerpt(path, 200),
                                  std::strerror(n < 0 ? errno : EIO)));
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace

void write_file_atomically(const PendingFile& file) { write_files_atomically({file}); }

void write_files_atomically(const std::vector<PendingFile>& files) {
  std::vector<fs::path> temporaries;
  const auto remove_all = [&] {
    std::error_code ignored;
    for (const auto& t : temporaries) fs::remove(t, ignored);
  };
  try {
    for (const PendingFile& f : files) check_output_file(f.path, f.replace, {}, f.updates);
    for (const PendingFile& f : files) {
      const fs::path target(f.path);
      const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
      if (!fs::is_directory(dir))
        throw UserError(fmt::format("{}: folder {} does not exist", excerpt(f.path, 200),
                                    excerpt(dir.string(), 200)));
      fs::path tmp;
      const int fd = create_temporary(target, dir, tmp);
      temporaries.push_back(tmp);
      try {
        write_all(fd, f.text, f.path);
      } catch (...) {
        ::close(fd);
        throw;
      }
      if (::close(fd) != 0)
        throw UserError(
            fmt::format("{}: write failed ({})", excerpt(f.path, 200), std::strerror(errno)));
      if (f.validate) {
        f.validate(tmp.string());
        forget_input_file(tmp.string());  // read back to check it: an output, not an input
      }
    }
    // Again just before the renames: the targets may have changed while the files were made.
    for (const PendingFile& f : files) check_output_file(f.path, f.replace, {}, f.updates);
    for (std::size_t i = 0; i < files.size(); ++i) {
      std::error_code ec;
      fs::rename(temporaries[i], files[i].path, ec);
      if (ec)
        throw UserError(
            fmt::format("{}: cannot replace ({})", excerpt(files[i].path, 200), ec.message()));
    }
  } catch (...) {
    remove_all();
    throw;
  }
}

}  // namespace amdahl
