// Every shipped catalog file loads and validates; the reference systems have the topology
// their sources describe.

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <tuple>

#include "hw/system_loader.h"

using namespace amdahl;
namespace fs = std::filesystem;

TEST_CASE("every catalog system loads and validates", "[hw][catalog]") {
  const auto names = hw::catalog_system_names();
  REQUIRE(names.size() >= 4);
  for (const auto& name : names) {
    INFO(name);
    const hw::SystemSpec s = hw::load_system(name);
    CHECK(s.name == name);
    CHECK(!s.devices.empty());
    CHECK_NOTHROW(s.device(s.default_device));
  }
}

TEST_CASE("every catalog device and link file validates on its own", "[hw][catalog]") {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(hw::catalog_dir()) / "devices")) {
    INFO(entry.path());
    CHECK_NOTHROW(hw::load_device_file(entry.path().string()));
    ++files;
  }
  for (const auto& entry : fs::directory_iterator(fs::path(hw::catalog_dir()) / "links")) {
    INFO(entry.path());
    CHECK_NOTHROW(hw::load_link_file(entry.path().string()));
    ++files;
  }
  CHECK(files >= 10);
}

TEST_CASE("minsky: 2 POWER8 sockets, 4 P100, NVLink to the socket and the sibling",
          "[hw][catalog]") {
  const hw::SystemSpec s = hw::load_system("minsky");
  int cpus = 0, gpus = 0;
  for (const auto& d : s.devices) (d.kind == hw::DeviceKind::kCpu ? cpus : gpus)++;
  CHECK(cpus == 2);
  CHECK(gpus == 4);
  const hw::DeviceSpec& gpu = s.device("gpu0");
  // specs.yaml: 3584 cores x 2 x 1.48 GHz, 732 GB/s, 56 SMs.
  CHECK(gpu.peak_for(Precision::kFp32)->flops_per_s == Approx(10.6e12));
  CHECK(gpu.memory.bandwidth_bytes_per_s == Approx(732e9));
  CHECK(gpu.parallel_units == 56);
  REQUIRE(s.link_between("cpu0", "gpu0") != nullptr);
  REQUIRE(s.link_between("gpu0", "gpu1") != nullptr);
  CHECK(s.link_between("gpu0", "gpu2") == nullptr);  // different sockets: no direct NVLink
  CHECK(s.link_between("cpu0", "cpu1") != nullptr);  // the sockets' SMP X-bus
  // measured_microbenchmarks.csv: bandwidthTest 29526.9 "MB/s" = 30.24 GB/s decimal.
  CHECK(s.link_between("cpu0", "gpu0")->h2d_pinned == Approx(30.24e9));
  CHECK(s.host_of("gpu2")->name == "cpu1");
}

TEST_CASE("uncalibrated values are reported", "[hw][catalog]") {
  const hw::SystemSpec s = hw::load_system("minsky");
  const auto parts = s.uncalibrated_parts();
  CHECK(!parts.empty());
  CHECK(std::find(parts.begin(), parts.end(), "runtime tensorflow-1.x") != parts.end());
}

TEST_CASE("dgx1-p100: the NVLink hybrid cube-mesh, 4 bricks per GPU, sockets on QPI",
          "[hw][catalog]") {
  const hw::SystemSpec s = hw::load_system("dgx1-p100");
  int nvlink = 0;
  std::map<std::string, int> bricks;  // per GPU
  for (const auto& l : s.links)
    if (l.model == "NVLink 1.0 x1") {
      ++nvlink;
      ++bricks[l.from];
      ++bricks[l.to];
    }
  CHECK(nvlink == 16);  // white paper: two fully connected quads and 4 links between them
  for (const auto& [gpu, n] : bricks) {
    INFO(gpu);
    CHECK(n == 4);  // specs.yaml tesla_p100_sxm2.nvlink_links
  }
  CHECK(s.link_between("gpu0", "gpu5") == nullptr);
  REQUIRE(s.link_between("cpu0", "cpu1") != nullptr);
  CHECK(s.host_of("gpu5")->name == "cpu1");  // the host links are unchanged
}

TEST_CASE("clusters: 8 nodes of a catalog system over EDR InfiniBand", "[hw][catalog]") {
  for (const auto& [cluster, node, nics] :
       {std::tuple{"minsky-cluster", "minsky", 2}, std::tuple{"dgx1-cluster", "dgx1-p100", 4}}) {
    INFO(cluster);
    const hw::SystemSpec c = hw::load_system(cluster);
    const hw::SystemSpec n = hw::load_system(node);
    CHECK(c.nodes == 8);
    REQUIRE(c.network.has_value());
    CHECK(c.network->link.bandwidth_bytes_per_s == Approx(12.5e9));  // ib-edr.yaml: 100 Gbit/s
    CHECK(static_cast<int>(c.network->attach.size()) == nics);
    // A node is the catalog system: the same devices and links.
    REQUIRE(c.devices.size() == n.devices.size());
    for (std::size_t i = 0; i < c.devices.size(); ++i)
      CHECK(c.devices[i].model == n.devices[i].model);
    CHECK(c.links.size() == n.links.size());
    CHECK(n.nodes == 1);
    CHECK(!n.network.has_value());
  }
}

TEST_CASE("replace_links: every link of one model takes another's numbers, ends kept",
          "[hw][catalog]") {
  // Catalog link names resolve like system names; unknown ones list the catalog.
  CHECK(hw::load_link("nvlink2-x2").bandwidth_bytes_per_s == Approx(50e9));
  CHECK_THROWS_WITH(hw::load_link("nvlink3"),
                    Catch::Matchers::Contains("unknown link 'nvlink3'") &&
                        Catch::Matchers::Contains("nvlink1-x2"));
  hw::SystemSpec s = hw::load_system("minsky");
  const hw::LinkSpec v1 = hw::load_link("nvlink1-x2");
  const hw::LinkSpec v2 = hw::load_link("nvlink2-x2");
  const auto replaced = s.replace_links(v1, v2);
  // minsky.yaml: each P100 has 2 NVLink 1.0 bricks to its socket and 2 to its sibling.
  CHECK(replaced == std::vector<std::string>{"cpu0-gpu0", "cpu0-gpu1", "cpu1-gpu2", "cpu1-gpu3",
                                             "gpu0-gpu1", "gpu2-gpu3"});
  const hw::LinkSpec* l = s.link_between("gpu1", "gpu0");
  REQUIRE(l != nullptr);
  CHECK(l->name == "gpu0-gpu1");
  CHECK(l->model == "NVLink 2.0 x2");
  CHECK(l->p2p_bandwidth() == Approx(50e9));
  CHECK(s.link_between("cpu0", "cpu1")->model == "POWER8 SMP X-bus");  // another model: kept
  // Nothing of the model left: a second replacement finds none.
  CHECK(s.replace_links(v1, v2).empty());
  // The network's NIC link is replaced too.
  hw::SystemSpec cluster = hw::load_system("minsky-cluster");
  const auto nic = cluster.replace_links(hw::load_link("ib-edr"), v2);
  CHECK(nic == std::vector<std::string>{"network"});
  CHECK(cluster.network->link.bandwidth_bytes_per_s == Approx(50e9));
}
