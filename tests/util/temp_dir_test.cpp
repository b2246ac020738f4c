#include "util/temp_dir.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

TEST_CASE("a temporary folder is the caller's own and goes with its contents", "[util]") {
  fs::path kept;
  {
    const amdahl::TempDir a("amdahl-temp-dir-test");
    const amdahl::TempDir b("amdahl-temp-dir-test");
    CHECK(a.path() != b.path());  // unique per object, not per prefix
    CHECK(a.path().parent_path() == fs::temp_directory_path());
    CHECK(a.path().filename().string().rfind("amdahl-temp-dir-test-", 0) == 0);
    REQUIRE(fs::is_directory(a.path()));
    struct stat st {};
    REQUIRE(::stat(a.path().c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);  // mkdtemp's mode: no other user can add a file
    fs::create_directories(a.path() / "sub");
    std::ofstream(a.path() / "sub" / "file.txt") << "x";
    kept = a.path();
  }
  CHECK_FALSE(fs::exists(kept));
}
