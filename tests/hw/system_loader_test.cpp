#include "hw/system_loader.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "scratch_dir.h"
#include "util/error.h"

namespace fs = std::filesystem;
using amdahl::UserError;
using amdahl::test::scratch_dir;

namespace {

// A one-device system in a fresh folder `name` of the scratch folder, its device the catalog's,
// with `extra` lines; returns its path.
std::string system_file(const std::string& name, const std::string& extra) {
  const fs::path dir = scratch_dir() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "s.yaml").string();
  std::ofstream(path) << "name: s\ndescription: d\nsource: s\ndevices:\n"
                      << "  - {name: gpu0, include: " << amdahl::hw::catalog_dir()
                      << "/devices/h200-sxm.yaml}\n"
                      << "runtime: {name: rt, source: s, dispatch_per_op: 10 us, calibrated: "
                         "false}\ndefault_device: gpu0\n"
                      << extra;
  return path;
}

std::string load_error(const std::string& path) {
  try {
    amdahl::hw::load_system(path);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("system loader: measured_runs is held to the include rule", "[hw][paths]") {
  // Inside the system's folder (it need not exist yet): resolved against it.
  const std::string inside = system_file("loader_runs_inside", "measured_runs: runs/steps.csv\n");
  CHECK(amdahl::hw::load_system(inside).measured_runs ==
        (fs::path(inside).parent_path() / "runs/steps.csv").string());
  // Outside it, by "..", an absolute path or a link: a located error naming the resolved path.
  for (const char* named : {"../../../../../../../../etc/passwd", "/etc/passwd", "../x.csv"}) {
    const std::string path =
        system_file("loader_runs_outside", std::string("measured_runs: ") + named + "\n");
    const std::string error = load_error(path);
    CHECK_THAT(error, Catch::Contains(path + ":8:") && Catch::Contains("measured_runs") &&
                          Catch::Contains("is outside the folders amdahl reads from"));
  }
  const std::string linked = system_file("loader_runs_link", "measured_runs: runs.csv\n");
  fs::create_symlink("/etc/passwd", fs::path(linked).parent_path() / "runs.csv");
  CHECK_THAT(load_error(linked), Catch::Contains("/etc/passwd is outside the folders"));
}

TEST_CASE("system loader: the catalog's systems name their measured runs in shared/data",
          "[hw][paths]") {
  const amdahl::hw::SystemSpec h200 = amdahl::hw::load_system("h200");
  CHECK(h200.measured_runs.find("shared/data/h200/networks/steps.csv") != std::string::npos);
}

TEST_CASE("system loader: an include through a link that leaves the folder is refused",
          "[hw][paths]") {
  const std::string path = system_file("loader_include_link", "");
  const fs::path dir = fs::path(path).parent_path();
  std::ofstream(path, std::ios::app)
      << "links: [{name: l, from: gpu0, to: gpu1, include: l.yaml}]\n";
  fs::create_symlink("/etc/passwd", dir / "l.yaml");
  CHECK_THAT(load_error(path), Catch::Contains("links[0].include") &&
                                   Catch::Contains("/etc/passwd is outside the folders"));
}
