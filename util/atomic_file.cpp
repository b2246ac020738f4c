#include "util/atomic_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "util/error.h"

namespace amdahl {
namespace fs = std::filesystem;

void write_file_atomically(const std::string& path, const std::string& text,
                           const std::function<void(const std::string&)>& validate) {
  write_files_atomically({{path, text, validate}});
}

void write_files_atomically(const std::vector<PendingFile>& files) {
  std::vector<fs::path> temporaries;
  const auto remove_all = [&] {
    std::error_code ignored;
    for (const auto& t : temporaries) fs::remove(t, ignored);
  };
  try {
    for (const PendingFile& f : files) {
      const fs::path target(f.path);
      const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
      if (!fs::is_directory(dir))
        throw UserError(fmt::format("{}: folder {} does not exist", f.path, dir.string()));
      // The temporary keeps the target's extension so loaders that look at it behave the same.
      const fs::path tmp = dir / fmt::format(".{}.tmp-{}{}", target.stem().string(), ::getpid(),
                                             target.extension().string());
      temporaries.push_back(tmp);
      std::ofstream out(tmp);
      if (!out)
        throw UserError(fmt::format("{}: cannot write (temporary {}: {})", f.path, tmp.string(),
                                    std::strerror(errno)));
      out << f.text;
      out.close();
      if (!out) throw UserError(fmt::format("{}: write failed ({})", f.path, std::strerror(errno)));
      if (f.validate) f.validate(tmp.string());
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
      std::error_code ec;
      fs::rename(temporaries[i], files[i].path, ec);
      if (ec) throw UserError(fmt::format("{}: cannot replace ({})", files[i].path, ec.message()));
    }
  } catch (...) {
    remove_all();
    throw;
  }
}

}  // namespace amdahl
