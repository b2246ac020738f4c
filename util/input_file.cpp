#include "util/input_file.h"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "util/error.h"
#include "util/path_policy.h"

namespace amdahl {

void check_input_file(const std::string& path, std::uintmax_t limit, std::string_view what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    throw UserError(fmt::format("{}: cannot open {} (no such file)", path, what));
  if (fs::is_directory(st))
    throw UserError(fmt::format("{}: cannot open {} (a directory, not a file)", path, what));
  if (!fs::is_regular_file(st))
    throw UserError(fmt::format("{}: cannot open {} (not a regular file: a device, pipe or socket)",
                                path, what));
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw UserError(fmt::format("{}: cannot open {} ({})", path, what, ec.message()));
  if (size > limit)
    throw UserError(fmt::format("{}: {} of {} bytes is larger than the {} MiB amdahl reads", path,
                                what, size, limit >> 20));
  note_input_file(path);
}

bool names_a_file(std::string_view name) {
  return name.find('/') != std::string_view::npos || name.ends_with(".yaml") ||
         name.ends_with(".yml");
}

}  // namespace amdahl
