// util/confined_process.h: the child runs the program in its folder with a minimal
// environment, no inherited descriptor and, with seccomp built in, no way to start a process.

#include "util/confined_process.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "util/temp_dir.h"

namespace fs = std::filesystem;
using amdahl::run_confined;

namespace {

std::string contents(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("confined: a command that needs a new process does not run", "[util][confined]") {
  const amdahl::TempDir dir("amdahl-confined-test");
  // `touch` needs a fork of the shell (it is not the last command, so no exec in place).
  const amdahl::ConfinedRun r = run_confined("sh", {"-c", "touch PWNED; true"}, dir.path());
  REQUIRE(r.started);
  if (!amdahl::confinement_built_in()) {
    WARN("built without libseccomp: process creation is not denied");
    return;
  }
  CHECK_FALSE(fs::exists(dir.path() / "PWNED"));
  CHECK(r.exit_status != 0);  // the shell reports that it cannot fork
  // The shell's builtins still work: the child runs, in its folder.
  const amdahl::ConfinedRun ok = run_confined("sh", {"-c", "echo ran > ran.txt"}, dir.path());
  CHECK(ok.started);
  CHECK(ok.exit_status == 0);
  CHECK(contents(dir.path() / "ran.txt") == "ran\n");
}

TEST_CASE("confined: a minimal environment, stdin empty, no inherited descriptor",
          "[util][confined]") {
  const amdahl::TempDir dir("amdahl-confined-test");
  ::setenv("GNUPLOT_DRIVER_DIR", "/tmp/evil", 1);
  ::setenv("PAGER", "touch PWNED", 1);
  const fs::path leak = dir.path() / "leak.txt";
  const int fd = ::open(leak.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);  // not close-on-exec
  REQUIRE(fd >= 3);
  // Builtins only: a pipe or a command would need a new process.
  const std::string script =
      "export -p > env.txt; read x; echo \"[$x]\" > stdin.txt; echo "
      "leaked >&" +
      std::to_string(fd);
  const amdahl::ConfinedRun r = run_confined("sh", {"-c", script}, dir.path());
  ::close(fd);
  ::unsetenv("GNUPLOT_DRIVER_DIR");
  ::unsetenv("PAGER");
  REQUIRE(r.started);
  CHECK(r.exit_status != 0);  // the write to the closed descriptor fails
  const std::string env = contents(dir.path() / "env.txt");
  CHECK(env.find("GNUPLOT") == std::string::npos);
  CHECK(env.find("PAGER") == std::string::npos);
  CHECK(env.find("HOME") != std::string::npos);
  CHECK(env.find(dir.path().string()) != std::string::npos);  // HOME, the folder
  CHECK(env.find("/usr/local/bin:/usr/bin:/bin") != std::string::npos);
  CHECK(contents(dir.path() / "stdin.txt") == "[]\n");
  CHECK(contents(leak).empty());
}

TEST_CASE("confined: a program not on PATH is reported, not run", "[util][confined]") {
  const amdahl::TempDir dir("amdahl-confined-test");
  const amdahl::ConfinedRun r = run_confined("amdahl-no-such-program", {}, dir.path());
  CHECK_FALSE(r.found);
  CHECK_FALSE(r.started);
  CHECK(r.failure == "amdahl-no-such-program is not installed (not found on PATH)");
}

TEST_CASE("confined: gnuplot draws SVG and PNG but runs no command", "[util][confined]") {
  const amdahl::TempDir dir("amdahl-confined-test");
  if (!amdahl::run_confined("gnuplot", {"--version"}, dir.path()).found) {
    WARN("gnuplot not installed");
    return;
  }
  const fs::path out = dir.path();
  std::ofstream(out / "plot.gp") << "set terminal svg\nset output './plot.svg'\nplot x\n"
                                    "set terminal pngcairo\nset output './plot.png'\nreplot\n";
  const amdahl::ConfinedRun drawn = run_confined("gnuplot", {"./plot.gp"}, out);
  CHECK(drawn.exit_status == 0);
  CHECK(fs::file_size(out / "plot.svg") > 0);
  CHECK(fs::file_size(out / "plot.png") > 0);
  if (!amdahl::confinement_built_in()) return;
  for (const char* script : {"system('touch PWNED')\n", "x = \"`touch PWNED`\"\n",
                             "load '< touch PWNED'\n", "set print '| touch PWNED'\nprint 1\n",
                             "set output '| touch PWNED'\nplot x\n", "! touch PWNED\n"}) {
    INFO(script);
    std::ofstream(out / "evil.gp") << script;
    run_confined("gnuplot", {"./evil.gp"}, out);
    CHECK_FALSE(fs::exists(out / "PWNED"));
  }
}
