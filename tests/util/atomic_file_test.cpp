#include "util/atomic_file.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scratch_dir.h"
#include "util/error.h"

namespace fs = std::filesystem;
using amdahl::PendingFile;
using amdahl::UserError;
using amdahl::write_file_atomically;
using amdahl::write_files_atomically;
using amdahl::test::scratch_folder;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The names in `dir` but `keep`: what a write left behind.
std::vector<std::string> leftovers(const fs::path& dir, const std::vector<std::string>& keep) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (std::find(keep.begin(), keep.end(), name) == keep.end()) out.push_back(name);
  }
  return out;
}

}  // namespace

TEST_CASE("atomic file: a link planted at the old temporary's name is not written through",
          "[util][paths]") {
  const fs::path dir = scratch_folder("atomic_planted");
  const fs::path victim = dir / "victim.txt";
  std::ofstream(victim) << "precious\n";
  // The name the temporary once had (".STEM.tmp-PID.EXT"), guessable by anyone.
  const fs::path planted = dir / fmt::format(".out.tmp-{}.yaml", ::getpid());
  fs::create_symlink(victim, planted);
  write_file_atomically({(dir / "out.yaml").string(), "new\n"});
  CHECK(read(victim) == "precious\n");
  CHECK(read(dir / "out.yaml") == "new\n");
  CHECK(fs::is_symlink(planted));
  CHECK(leftovers(dir, {"victim.txt", "out.yaml", planted.filename().string()}).empty());
}

TEST_CASE("atomic file: a new file gets the permissions of the umask", "[util][paths]") {
  const fs::path dir = scratch_folder("atomic_mode");
  const mode_t old = ::umask(022);
  write_file_atomically({(dir / "f.csv").string(), "x\n"});
  ::umask(old);
  struct stat st {};
  REQUIRE(::stat((dir / "f.csv").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
}

TEST_CASE("atomic file: an existing target needs replace and nothing is left behind",
          "[util][paths]") {
  const fs::path dir = scratch_folder("atomic_replace");
  const std::string path = (dir / "f.yaml").string();
  std::ofstream(path) << "old\n";
  CHECK_THROWS_WITH(write_file_atomically({path, "new\n"}),
                    Catch::Contains("exists; give --force"));
  CHECK(read(path) == "old\n");
  write_file_atomically({path, "new\n", {}, true});
  CHECK(read(path) == "new\n");
  CHECK(leftovers(dir, {"f.yaml"}).empty());
}

TEST_CASE("atomic file: a set with one refused target writes none", "[util][paths]") {
  const fs::path dir = scratch_folder("atomic_set");
  REQUIRE(::mkfifo((dir / "pipe.csv").c_str(), 0600) == 0);
  std::ofstream(dir / "a.yaml") << "old\n";
  CHECK_THROWS_WITH(write_files_atomically({{(dir / "a.yaml").string(), "new\n", {}, true},
                                            {(dir / "pipe.csv").string(), "x\n", {}, true}}),
                    Catch::Contains("not a regular file (a named pipe)"));
  CHECK(read(dir / "a.yaml") == "old\n");
  CHECK(fs::is_fifo(dir / "pipe.csv"));
  CHECK(leftovers(dir, {"a.yaml", "pipe.csv"}).empty());
}

TEST_CASE("atomic file: a missing folder is named", "[util][paths]") {
  const fs::path dir = scratch_folder("atomic_missing");
  CHECK_THROWS_WITH(write_file_atomically({(dir / "no" / "f.yaml").string(), "x"}),
                    Catch::Contains("does not exist"));
}
