#include "util/path_policy.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "util/error.h"
#include "util/input_log.h"
#include "util/suggest.h"

namespace amdahl {
namespace fs = std::filesystem;
namespace {

std::mutex& policy_mutex() {
  static std::mutex m;
  return m;
}

std::vector<fs::path>& allowed_paths() {
  static std::vector<fs::path> dirs;
  return dirs;
}

// (device, inode) of every file read, with the path it was read as.
std::map<std::pair<dev_t, ino_t>, std::string>& inputs() {
  static std::map<std::pair<dev_t, ino_t>, std::string> files;
  return files;
}

bool inside(const fs::path& path, const fs::path& root) {
  const auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return r == root.end() || (std::next(r) == root.end() && r->empty());  // "root/" ends in ""
}

}  // namespace

void allow_path(const std::string& dir) {
  const std::lock_guard lock(policy_mutex());
  allowed_paths().push_back(resolved_path(dir));
}

fs::path resolved_path(const fs::path& p) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(p, ec);
  if (ec) return p.lexically_normal();
  fs::path c = fs::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal() : c;
}

PathScope::PathScope(const std::vector<std::string>& folders) {
  for (const std::string& f : folders) roots_.push_back(resolved_path(f.empty() ? "." : f));
  const std::lock_guard lock(policy_mutex());
  for (const fs::path& a : allowed_paths()) roots_.push_back(a);
}

std::string PathScope::resolve(const std::string& naming_file, const std::string& named,
                               std::string_view what) const {
  const fs::path p(named);
  const std::string path =
      p.is_absolute() ? p.lexically_normal().string()
                      : (fs::path(naming_file).parent_path() / p).lexically_normal().string();
  const fs::path real = resolved_path(path);
  for (const fs::path& root : roots_)
    if (inside(real, root)) return path;
  std::vector<std::string> roots;
  for (const fs::path& root : roots_) roots.push_back(root.string());
  throw UserError(
      fmt::format("{} {} is outside the folders amdahl reads from ({}); --allow-path DIR adds one",
                  what, excerpt(real.string(), 200), join(roots)));
}

void note_input_file(const std::string& path) {
  log_input_contents(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // the read that follows reports it
  const std::lock_guard lock(policy_mutex());
  inputs().emplace(std::make_pair(st.st_dev, st.st_ino), path);
}

void forget_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;
  const std::lock_guard lock(policy_mutex());
  inputs().erase({st.st_dev, st.st_ino});
}

void check_output_file(const std::string& path, bool replace, std::string_view what,
                       const std::string& updates) {
  const std::string name =
      what.empty() ? excerpt(path, 200) : fmt::format("{} {}", what, excerpt(path, 200));
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) return;  // absent: the writer reports a missing folder
  struct stat st {};
  const bool dangling = ::stat(path.c_str(), &st) != 0;
  if (!dangling && !S_ISREG(st.st_mode))
    throw UserError(fmt::format(
        "{}: exists and is not a regular file ({}); amdahl replaces only regular files", name,
        S_ISDIR(st.st_mode)    ? "a folder"
        : S_ISFIFO(st.st_mode) ? "a named pipe"
        : S_ISSOCK(st.st_mode) ? "a socket"
                               : "a device"));
  struct stat updated {};
  const bool is_update = !dangling && !updates.empty() && ::stat(updates.c_str(), &updated) == 0 &&
                         updated.st_dev == st.st_dev && updated.st_ino == st.st_ino;
  if (!dangling && !is_update) {
    const std::lock_guard lock(policy_mutex());
    const auto it = inputs().find({st.st_dev, st.st_ino});
    // Still that file (an input removed since may have left its inode number to another).
    struct stat input {};
    if (it != inputs().end() && ::stat(it->second.c_str(), &input) == 0 &&
        input.st_dev == st.st_dev && input.st_ino == st.st_ino)
      throw UserError(
          fmt::format("{}: is a file this run reads ({}); an output never replaces an input", name,
                      excerpt(it->second, 200)));
  }
  if (!replace) throw UserError(fmt::format("{}: exists; give --force to replace it", name));
}

std::FILE* open_in_place(const std::string& path, bool append, std::string_view what) {
  // O_NONBLOCK: a pipe without a reader fails at once instead of blocking the open.
  const int flags =
      O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (append ? O_APPEND : O_CREAT | O_EXCL);
  const int fd = ::open(path.c_str(), flags, 0666);
  if (fd < 0)
    throw UserError(fmt::format("{} {}: cannot {} ({})", what, excerpt(path, 200),
                                append ? "append to it" : "create it", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw UserError(fmt::format("{} {}: not a regular file; amdahl writes only regular files", what,
                                excerpt(path, 200)));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::FILE* f = ::fdopen(fd, append ? "ab" : "wb");
  if (!f) {
    ::close(fd);
    throw UserError(
        fmt::format("{} {}: cannot open ({})", what, excerpt(path, 200), std::strerror(errno)));
  }
  return f;
}

}  // namespace amdahl
