#include "util/path_policy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "scratch_dir.h"
#include "util/error.h"

namespace fs = std::filesystem;
using amdahl::check_output_file;
using amdahl::PathScope;
using amdahl::UserError;
using amdahl::test::scratch_folder;

namespace {

std::string write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

TEST_CASE("path policy: a named file resolves inside the scope, links followed", "[util][paths]") {
  const fs::path top = scratch_folder("policy_read");
  const fs::path outside = scratch_folder("policy_read_outside");
  write(top / "sys.yaml", "");
  write(top / "dev.yaml", "");
  write(outside / "secret.txt", "secret");
  fs::create_directories(top / "sub");
  fs::create_symlink(outside / "secret.txt", top / "link.yaml");
  fs::create_symlink(outside, top / "linked_folder");
  fs::create_symlink("dev.yaml", top / "inner_link.yaml");
  const std::string sys = (top / "sys.yaml").string();
  const PathScope scope({top.string()});

  CHECK(scope.resolve(sys, "dev.yaml", "the file") == (top / "dev.yaml").string());
  CHECK(scope.resolve(sys, "sub/../dev.yaml", "the file") == (top / "dev.yaml").string());
  CHECK(scope.resolve(sys, "inner_link.yaml", "the file") == (top / "inner_link.yaml").string());
  CHECK(scope.resolve(sys, "absent.yaml", "the file") == (top / "absent.yaml").string());
  // Lexically inside, but a link leads out: the resolved path decides and is the one named.
  for (const char* named :
       {"link.yaml", "linked_folder/secret.txt", "../policy_read_outside/x", "/etc/passwd"})
    CHECK_THROWS_WITH(scope.resolve(sys, named, "the file"),
                      Catch::Contains("is outside the folders amdahl reads from") &&
                          !Catch::Contains("secret\n"));
  CHECK_THROWS_WITH(scope.resolve(sys, "link.yaml", "the file"),
                    Catch::Contains((fs::canonical(outside) / "secret.txt").string()));
  // A folder of the scope itself reached through a link is inside.
  const PathScope through_link({(top / "linked_folder").string()});
  CHECK_NOTHROW(through_link.resolve((outside / "a.yaml").string(), "secret.txt", "the file"));
}

TEST_CASE("path policy: allow_path adds a folder to scopes made after it", "[util][paths]") {
  const fs::path top = scratch_folder("policy_allow");
  const fs::path store = scratch_folder("policy_allow_store");
  write(store / "w.bin", "");
  fs::create_symlink(store / "w.bin", top / "w.bin");
  const std::string model = (top / "m.onnx").string();
  CHECK_THROWS_AS(PathScope({top.string()}).resolve(model, "w.bin", "data"), UserError);
  amdahl::allow_path(store.string());
  CHECK(PathScope({top.string()}).resolve(model, "w.bin", "data") == (top / "w.bin").string());
}

TEST_CASE("path policy: an output replaces only a regular file, with replace", "[util][paths]") {
  const fs::path dir = scratch_folder("policy_write");
  const std::string absent = (dir / "absent.csv").string();
  const std::string existing = write(dir / "existing.csv", "old");
  CHECK_NOTHROW(check_output_file(absent, false, "--out"));
  CHECK_THROWS_WITH(check_output_file(existing, false, "--out"),
                    Catch::Contains("--out " + existing + ": exists; give --force"));
  CHECK_NOTHROW(check_output_file(existing, true, "--out"));

  // Never a pipe, a folder or a device, even with replace; nor a link to one.
  REQUIRE(::mkfifo((dir / "pipe").c_str(), 0600) == 0);
  fs::create_symlink(dir / "pipe", dir / "to_pipe");
  fs::create_symlink("/dev/null", dir / "to_device");
  fs::create_directories(dir / "folder");
  CHECK_THROWS_WITH(check_output_file((dir / "pipe").string(), true),
                    Catch::Contains("not a regular file (a named pipe)"));
  CHECK_THROWS_WITH(check_output_file((dir / "to_pipe").string(), true),
                    Catch::Contains("not a regular file (a named pipe)"));
  CHECK_THROWS_WITH(check_output_file((dir / "to_device").string(), true),
                    Catch::Contains("not a regular file (a device)"));
  CHECK_THROWS_WITH(check_output_file((dir / "folder").string(), true),
                    Catch::Contains("not a regular file (a folder)"));

  // A link to a regular file, or a dangling one: present (the rename replaces the link).
  fs::create_symlink(dir / "existing.csv", dir / "to_file");
  fs::create_symlink(dir / "nowhere", dir / "dangling");
  CHECK_THROWS_WITH(check_output_file((dir / "to_file").string(), false),
                    Catch::Contains("exists"));
  CHECK_THROWS_WITH(check_output_file((dir / "dangling").string(), false),
                    Catch::Contains("exists"));
  CHECK_NOTHROW(check_output_file((dir / "to_file").string(), true));
  CHECK_NOTHROW(check_output_file((dir / "dangling").string(), true));
}

TEST_CASE("path policy: an output never replaces a file the run reads", "[util][paths]") {
  const fs::path dir = scratch_folder("policy_input");
  const std::string input = write(dir / "input.csv", "a,b\n");
  fs::create_symlink(dir / "input.csv", dir / "link.csv");
  fs::create_hard_link(dir / "input.csv", dir / "hard.csv");
  CHECK_NOTHROW(check_output_file(input, true));
  amdahl::note_input_file(input);
  for (const char* name : {"input.csv", "link.csv", "hard.csv"})
    CHECK_THROWS_WITH(check_output_file((dir / name).string(), true),
                      Catch::Contains("is a file this run reads (" + input + ")"));
  // Read back to check it: an output after all.
  amdahl::forget_input_file(input);
  CHECK_NOTHROW(check_output_file(input, true));
}

TEST_CASE("path policy: a file written in place is never opened through a link", "[util][paths]") {
  const fs::path dir = scratch_folder("policy_in_place");
  const std::string path = (dir / "checkpoint").string();
  std::FILE* f = amdahl::open_in_place(path, false, "the checkpoint");
  REQUIRE(f != nullptr);
  std::fputs("header\n", f);
  std::fclose(f);
  // Created only: an existing file, or a dangling link planted at the name, is refused.
  CHECK_THROWS_WITH(amdahl::open_in_place(path, false, "the checkpoint"),
                    Catch::Contains("the checkpoint " + path + ": cannot create it"));
  fs::create_symlink(dir / "planted", dir / "dangling");
  CHECK_THROWS_AS(amdahl::open_in_place((dir / "dangling").string(), false, "x"), UserError);
  CHECK_FALSE(fs::exists(dir / "planted"));
  // Appended to: a regular file, not a link to one, not a pipe (which would block).
  f = amdahl::open_in_place(path, true, "the checkpoint");
  std::fputs("more\n", f);
  std::fclose(f);
  std::ifstream in(path);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(all == "header\nmore\n");
  fs::create_symlink(path, dir / "link");
  CHECK_THROWS_AS(amdahl::open_in_place((dir / "link").string(), true, "x"), UserError);
  REQUIRE(::mkfifo((dir / "pipe").c_str(), 0600) == 0);
  CHECK_THROWS_AS(amdahl::open_in_place((dir / "pipe").string(), true, "x"), UserError);
}
