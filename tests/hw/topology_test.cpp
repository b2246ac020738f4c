// The topology graph: the path a transfer takes (widest, then fewest hops, then least latency),
// multi-node systems, their loading errors, and the devices of a data-parallel job.

#include "hw/topology.h"

#include <catch2/catch.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "cli/assumption_text.h"
#include "hw/system_loader.h"
#include "hw_fixtures.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::hw::test;
using Catch::Contains;

namespace {

// Bandwidths and latencies are sums and minimums of catalog numbers: only rounding separates
// them from the expected value.
constexpr double kRel = 1e-12;

hw::SystemSpec toy(const std::string& name) { return hw::load_system(fixture("topology_" + name)); }

std::string path_error(const hw::Topology& t, const std::string& a, const std::string& b) {
  try {
    t.path(a, b);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("topology: the widest path wins over the shorter narrow one", "[hw][topology]") {
  // a-b: 10 GB/s, no p2p (link_10.yaml); a-c and c-b: 20 GB/s nominal, p2p 16 GB/s
  // (link_20_p2p.yaml), 2 us each.
  const hw::Topology t(toy("wide_or_short.yaml"));
  const hw::Path p = t.path("a", "b");
  CHECK(p.str() == "a>c>b");
  CHECK(p.bandwidth_bytes_per_s == Approx(16e9).epsilon(kRel));
  CHECK(p.latency_s == Approx(2e-6 + 2e-6).epsilon(kRel));
  REQUIRE(p.hops.size() == 2);
  CHECK(p.hops[0].name == "a-c");
  CHECK(p.hops[0].forward);
  CHECK(p.hops[1].name == "c-b");
  CHECK(p.hops[1].forward);
  // The way back crosses the same links the other way: separate resources.
  const hw::Path back = t.path("b", "a");
  CHECK(back.str() == "b>c>a");
  CHECK(!back.hops[0].forward);
  CHECK(!back.hops[1].forward);
  // A device to itself moves nothing over no link.
  CHECK(t.path("c", "c").hops.empty());
}

TEST_CASE("topology: among equally wide paths the fewest hops win", "[hw][topology]") {
  // ring4: d0-d1-d2-d3-d0, every link 10 GB/s and 1 us: d0 to d1 directly (1 hop, not 3).
  const hw::Topology t(toy("ring4.yaml"));
  const hw::Path direct = t.path("d0", "d1");
  CHECK(direct.str() == "d0>d1");
  CHECK(direct.bandwidth_bytes_per_s == Approx(10e9).epsilon(kRel));
  const hw::Path across = t.path("d0", "d2");
  CHECK(across.hops.size() == 2);
  CHECK(across.latency_s == Approx(2 * 1e-6).epsilon(kRel));
}

namespace {

// The candidate a greedy ring takes next, from path() of each: the widest, then the fewest hops,
// then the least latency, then the first listed.
std::size_t nearest_by_paths(const hw::Topology& t, const std::string& from,
                             const std::vector<std::string>& candidates) {
  std::size_t best = 0;
  for (std::size_t j = 1; j < candidates.size(); ++j) {
    const hw::Path a = t.path(from, candidates[j]);
    const hw::Path b = t.path(from, candidates[best]);
    if (a.bandwidth_bytes_per_s != b.bandwidth_bytes_per_s
            ? a.bandwidth_bytes_per_s > b.bandwidth_bytes_per_s
            : (a.hops.size() != b.hops.size() ? a.hops.size() < b.hops.size()
                                              : a.latency_s < b.latency_s))
      best = j;
  }
  return best;
}

}  // namespace

TEST_CASE("topology: nearest is the candidate path() reaches widest, then in fewest hops",
          "[hw][topology][catalog]") {
  // Every device of node 0 of the catalog's multi-GPU systems and of the toy systems, against
  // every suffix of the other devices of its node that links reach (file order).
  std::vector<hw::SystemSpec> systems;
  for (const char* name : {"minsky", "dgx1-p100", "minsky-cluster", "dgx1-cluster"})
    systems.push_back(hw::load_system(name));
  for (const char* name : {"wide_or_short.yaml", "ring4.yaml", "star4.yaml", "two_nodes.yaml"})
    systems.push_back(toy(name));
  int compared = 0;
  for (const hw::SystemSpec& s : systems) {
    INFO(s.name);
    const hw::Topology t(s);
    std::vector<std::string> node;
    for (const hw::DeviceSpec& d : s.devices) node.push_back(hw::vertex_name(s.nodes, 0, d.name));
    for (const std::string& from : node) {
      std::vector<std::string> others;
      for (const std::string& d : node)
        if (d != from && t.connected(from, d)) others.push_back(d);
      for (std::size_t first = 0; first < others.size(); ++first) {
        const std::vector<std::string> candidates(others.begin() + static_cast<long>(first),
                                                  others.end());
        INFO(from << " among " << candidates.size() << " from " << candidates.front());
        CHECK(t.nearest(from, candidates) == nearest_by_paths(t, from, candidates));
        ++compared;
      }
    }
  }
  CHECK(compared > 200);
  const hw::Topology two(toy("two_nodes.yaml"));
  CHECK(two.nearest("n0.g0", {"n0.cpu0", "n0.g1"}) == 1);  // the p2p link is the wider
  CHECK_THROWS_AS(two.nearest("n0.g0", {"n1.g1"}), InternalError);
  // A candidate no link reaches is never the nearest; none reached is a located error.
  const hw::Topology apart(toy("wide_or_short.yaml"));
  CHECK(apart.nearest("a", {"host", "b"}) == 1);
  CHECK_THROWS_WITH(apart.nearest("a", {"host"}), Contains("no chain of links joins a and host"));
  CHECK_THROWS_AS(two.nearest("n0.g0", {}), InternalError);
}

TEST_CASE("topology: nearest_chain places the nearest of the devices left, step by step",
          "[hw][topology][catalog]") {
  // The chain by hand: from each device placed, nearest_by_paths among those left (file order).
  for (const char* name : {"minsky", "dgx1-p100", "dgx1-cluster"}) {
    INFO(name);
    const hw::SystemSpec s = hw::load_system(name);
    const hw::Topology t(s);
    std::vector<std::string> node;
    for (const hw::DeviceSpec& d : s.devices)
      if (d.model == s.device(s.default_device).model)
        node.push_back(hw::vertex_name(s.nodes, 0, d.name));
    REQUIRE(node.size() >= 4);
    std::vector<std::size_t> expected{0}, left(node.size() - 1);
    std::iota(left.begin(), left.end(), 1);
    while (!left.empty()) {
      std::vector<std::string> candidates;
      for (const std::size_t i : left) candidates.push_back(node[i]);
      const std::size_t k = nearest_by_paths(t, node[expected.back()], candidates);
      expected.push_back(left[k]);
      left.erase(left.begin() + static_cast<long>(k));
    }
    CHECK(t.nearest_chain(node) == expected);
  }
  // A device no link reaches from the chain's end: the located error nearest() gives.
  const hw::Topology apart(toy("wide_or_short.yaml"));
  CHECK_THROWS_WITH(apart.nearest_chain({"a", "host"}),
                    Contains("no chain of links joins a and host"));
  CHECK(apart.nearest_chain({}).empty());
}

TEST_CASE("topology: devices without a chain of links are a located error", "[hw][topology]") {
  const hw::Topology t(toy("wide_or_short.yaml"));
  const std::string e = path_error(t, "a", "host");
  CHECK_THAT(e, Contains("wide_or_short.yaml") && Contains("no chain of links joins a and host"));
  CHECK_THAT(path_error(t, "a", "gpu9"),
             Contains("wide_or_short.yaml") && Contains("no device 'gpu9'"));
  // A device of the default device's model that nothing reaches fails the system's loading,
  // located at the device's entry.
  CHECK_THAT(system_error("topology_unconnected.yaml"),
             Contains("unconnected.yaml:8:") && Contains("devices[2].name") &&
                 Contains("no chain of links joins g1 to the default device g0") &&
                 Contains("(got 'g1')"));
}

TEST_CASE("topology: minsky paths (catalog numbers)", "[hw][topology][catalog]") {
  const hw::SystemSpec s = hw::load_system("minsky");
  const hw::Topology t(s);
  // Same socket: the direct NVLink x2 at its measured p2p (specs.yaml nvlink_1_0
  // .measured_p2p_double_link_unidirectional).
  const double nvlink2 = s.link_between("gpu0", "gpu1")->p2p_bandwidth();
  CHECK(nvlink2 == Approx(36.39e9).epsilon(kRel));
  const hw::Path same = t.path("gpu0", "gpu1");
  CHECK(same.str() == "gpu0>gpu1");
  CHECK(same.bandwidth_bytes_per_s == Approx(nvlink2).epsilon(kRel));
  // Across sockets: up to cpu0, over the X-bus, down from cpu1; the NVLink x2 (36.39) is
  // narrower than the X-bus (38.4, xbus-power8.yaml).
  const hw::LinkSpec& up = *s.link_between("cpu0", "gpu0");
  const hw::LinkSpec& xbus = *s.link_between("cpu0", "cpu1");
  const hw::LinkSpec& down = *s.link_between("cpu1", "gpu2");
  const hw::Path across = t.path("gpu0", "gpu2");
  CHECK(across.str() == "gpu0>cpu0>cpu1>gpu2");
  CHECK(across.bandwidth_bytes_per_s ==
        Approx(std::min({up.p2p_bandwidth(), xbus.p2p_bandwidth(), down.p2p_bandwidth()}))
            .epsilon(kRel));
  CHECK(across.bandwidth_bytes_per_s == Approx(36.39e9).epsilon(kRel));
  CHECK(across.latency_s == Approx(up.latency_s + xbus.latency_s + down.latency_s).epsilon(kRel));
}

TEST_CASE("topology: dgx1-p100 paths stay on NVLink", "[hw][topology][catalog]") {
  const hw::SystemSpec s = hw::load_system("dgx1-p100");
  const hw::Topology t(s);
  const double brick = s.link_between("gpu0", "gpu1")->p2p_bandwidth();
  CHECK(brick == Approx(18.31e9).epsilon(kRel));  // nvlink_1_0 single link, measured
  // gpu0 and gpu5 share no link: two bricks (through gpu1 or gpu4), never PCIe.
  const hw::Path p = t.path("gpu0", "gpu5");
  CHECK(p.hops.size() == 2);
  CHECK(p.bandwidth_bytes_per_s == Approx(brick).epsilon(kRel));
  for (const std::string& v : p.vertices) CHECK(v.rfind("gpu", 0) == 0);
  // Every GPU pair of the hybrid cube-mesh is at most two bricks apart.
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      const hw::Path q = t.path("gpu" + std::to_string(a), "gpu" + std::to_string(b));
      INFO(q.str());
      CHECK(q.hops.size() <= 2);
      CHECK(q.bandwidth_bytes_per_s == Approx(brick).epsilon(kRel));
    }
}

TEST_CASE("topology: a multi-node system", "[hw][topology]") {
  // two_nodes: per node cpu0, g0, g1; cpu0-g0 and cpu0-g1 10 GB/s 1 us, g0-g1 p2p 16 GB/s 2 us;
  // one NIC (p2p 16 GB/s, 2 us) from each node's cpu0 to the fabric.
  const hw::SystemSpec s = toy("two_nodes.yaml");
  CHECK(s.nodes == 2);
  REQUIRE(s.network.has_value());
  CHECK(s.network->attach == std::vector<std::string>{"cpu0"});
  const hw::Topology t(s);
  CHECK(t.vertices().size() == 2 * 3 + 1);
  CHECK(t.links().size() == 2 * (3 + 1));
  CHECK(t.vertex("fabric").kind == hw::VertexKind::kFabric);
  CHECK(t.vertex("n1.g0").device == "g0");
  CHECK(t.vertex("n1.g0").node == 1);
  const hw::Path p = t.path("n0.g0", "n1.g1");
  CHECK(p.str() == "n0.g0>n0.cpu0>fabric>n1.cpu0>n1.g1");
  CHECK(p.bandwidth_bytes_per_s == Approx(10e9).epsilon(kRel));  // the cpu0-g links
  CHECK(p.latency_s == Approx(1e-6 + 2e-6 + 2e-6 + 1e-6).epsilon(kRel));
  REQUIRE(p.hops.size() == 4);
  CHECK(p.hops[0].name == "n0.cpu0-g0");
  CHECK(!p.hops[0].forward);  // declared cpu0 -> g0, crossed g0 -> cpu0
  CHECK(p.hops[1].name == "n0.nic0");
  CHECK(p.hops[1].forward);
  CHECK(p.hops[2].name == "n1.nic0");
  CHECK(!p.hops[2].forward);
  CHECK(p.hops[3].name == "n1.cpu0-g1");
  // Inside a node the direct p2p link is wider than the way through the host.
  CHECK(t.path("n1.g0", "n1.g1").str() == "n1.g0>n1.g1");
  CHECK_THAT(path_error(t, "g0", "g1"), Contains("n<k>.<device>"));
  // The p2p assumption is stated once per link model.
  REQUIRE(t.p2p_assumption(0));  // n0.cpu0-g0: link_10.yaml, no p2p
  CHECK_THAT(cli::assumption_text(*t.p2p_assumption(0)),
             Contains("Toy link 10 links: p2p not measured") && Contains("nominal 10 GB/s"));
  CHECK_FALSE(t.p2p_assumption(2));  // n0.g0-g1: p2p measured
}

TEST_CASE("topology: multi-node loading errors are located", "[hw][topology]") {
  CHECK_THAT(system_error("topology_nodes_no_network.yaml"),
             Contains("nodes_no_network.yaml:9:8: nodes: a system of more than one node needs "
                      "`network`") &&
                 Contains("(got '2')"));
  CHECK_THAT(system_error("topology_network_bad_attach.yaml"),
             Contains("network_bad_attach.yaml:13:") &&
                 Contains("network.attach[0]: unknown device; did you mean 'cpu0'") &&
                 Contains("(got 'cpu1')"));
  CHECK_THAT(system_error("topology_network_one_node.yaml"),
             Contains("network_one_node.yaml:9:") &&
                 Contains("network: only a system of more than one node has a network"));
}

TEST_CASE("topology: the devices of a data-parallel job", "[hw][topology]") {
  const hw::SystemSpec minsky = hw::load_system("minsky");
  CHECK(hw::data_parallel_devices(minsky, 2) == std::vector<std::string>{"gpu0", "gpu1"});
  CHECK(hw::data_parallel_devices(minsky, 4).back() == "gpu3");
  const hw::SystemSpec two = toy("two_nodes.yaml");
  CHECK(hw::data_parallel_devices(two, 3) == std::vector<std::string>{"n0.g0", "n0.g1", "n1.g0"});
  auto error = [](const hw::SystemSpec& s, int gpus) -> std::string {
    try {
      hw::data_parallel_devices(s, gpus);
    } catch (const UserError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK_THAT(error(minsky, 5), Contains("minsky.yaml") && Contains("system 'minsky' has 4") &&
                                   Contains("nodes: N") && Contains("asked for 5"));
  CHECK_THAT(error(minsky, 0), Contains("asked for 0"));
  CHECK_THAT(error(two, 5), Contains("has 4") && Contains("2 per node x 2 nodes"));
}

TEST_CASE("collectives spec: given keys, defaults stated as assumptions", "[hw][collective]") {
  const hw::SystemSpec two = toy("two_nodes.yaml");
  const hw::CollectiveSpec& c = two.runtime.collectives;
  CHECK(c.algorithm == hw::CollectiveAlgorithmChoice::kRing);
  CHECK(c.step_latency_s == Approx(3e-6));
  CHECK(c.bucket_cap_bytes == 50.0 * (1 << 20));
  CHECK(c.assumptions.empty());

  // minsky has no `collectives`: every default is an assumption of the collective, not of a
  // single-device prediction.
  const hw::SystemSpec minsky = hw::load_system("minsky");
  const hw::CollectiveSpec& d = minsky.runtime.collectives;
  CHECK(d.algorithm == hw::CollectiveAlgorithmChoice::kAuto);
  CHECK(d.step_latency_s == Approx(9.2e-6));  // fitted: calibrate/allreduce_fit_test.cpp
  CHECK(d.bucket_cap_bytes == 25.0 * (1 << 20));
  CHECK(d.assumptions.size() == 3);
  bool bucket = false;
  for (const std::string& a : cli::assumption_lines(d.assumptions))
    bucket = bucket || (a.find("runtime.collectives.bucket_cap = 25 MiB") != std::string::npos &&
                        a.find("PyTorch DDP") != std::string::npos);
  CHECK(bucket);
  for (const std::string& a : cli::assumption_lines(minsky.runtime.assumptions))
    CHECK(a.find("collectives") == std::string::npos);

  CHECK_THAT(system_error("topology_bad_collectives.yaml"),
             Contains("bad_collectives.yaml:12:28: runtime.collectives.algorithm: unknown value") &&
                 Contains("(got 'butterfly')"));
}

TEST_CASE("links: p2p is measured or falls back to the nominal bandwidth", "[hw][catalog]") {
  const std::string links = hw::catalog_dir() + "/links/";
  const hw::LinkSpec x1 = hw::load_link_file(links + "nvlink1-x1.yaml");
  CHECK(x1.bandwidth_bytes_per_s == Approx(20e9));  // nvlink_1_0.per_link_bandwidth_per_direction
  CHECK(x1.p2p_bandwidth() == Approx(18.31e9));     // measured_p2p_single_link_unidirectional
  CHECK(hw::load_link_file(links + "nvlink1-x2.yaml").p2p_bandwidth() == Approx(36.39e9));
  const hw::LinkSpec pcie = hw::load_link_file(links + "pcie3-x16.yaml");
  CHECK(!pcie.p2p_bytes_per_s.has_value());
  CHECK(pcie.p2p_bandwidth() == pcie.bandwidth_bytes_per_s);
}

TEST_CASE("topology: each device's host link, and a node's copy of a link",
          "[hw][topology][catalog]") {
  // host_links() is host_route(), per device, in one pass.
  for (const std::string& name : hw::catalog_system_names()) {
    INFO(name);
    const hw::SystemSpec s = hw::load_system(name);
    const auto links = s.host_links();
    std::size_t linked = 0;
    for (std::size_t i = 0; i < s.devices.size(); ++i) {
      INFO(s.devices[i].name);
      const hw::LinkSpec* link = s.devices[i].kind == hw::DeviceKind::kCpu
                                     ? nullptr
                                     : s.host_route(s.devices[i].name).link;
      const auto it = links.find(s.devices[i].name);
      CHECK((it != links.end()) == (link != nullptr));
      if (link != nullptr && it != links.end()) {
        ++linked;
        CHECK(it->second == static_cast<std::size_t>(link - s.links.data()));
      }
    }
    CHECK(links.size() == linked);  // devices only, each once
    const hw::Topology t(s);
    for (int k = 0; k < s.nodes; ++k)
      for (std::size_t j = 0; j < s.links.size(); ++j)
        CHECK(t.links()[t.link_index(k, j)].name ==
              (s.nodes > 1 ? "n" + std::to_string(k) + "." : "") + s.links[j].name);
    CHECK_THROWS_AS(t.link_index(s.nodes, 0), InternalError);
  }
  // minsky: gpu0's copies take cpu0-gpu0, gpu2's cpu1-gpu2.
  const hw::SystemSpec minsky = hw::load_system("minsky");
  const auto links = minsky.host_links();
  CHECK(minsky.links.at(links.at("gpu0")).name == "cpu0-gpu0");
  CHECK(minsky.links.at(links.at("gpu2")).name == "cpu1-gpu2");
  // dgx1-p100: behind PCIe switches, gpu5's copies take its link to plx2, on cpu1's side.
  const hw::SystemSpec dgx1 = hw::load_system("dgx1-p100");
  CHECK(dgx1.links.at(dgx1.host_links().at("gpu5")).name == "plx2-gpu5");
  const hw::HostRoute route = dgx1.host_route("gpu5");
  REQUIRE(route.host != nullptr);
  CHECK(route.host->name == "cpu1");
  CHECK(route.link->name == "plx2-gpu5");
}

TEST_CASE("topology: a PCIe switch is a vertex the devices behind it share",
          "[hw][topology][catalog]") {
  const hw::SystemSpec s = hw::load_system("dgx1-p100");
  const hw::Topology t(s);
  CHECK(t.vertex("plx0").kind == hw::VertexKind::kSwitch);
  CHECK(t.vertex("plx0").model == "PCIe 3.0 switch (PLX)");
  // A GPU to its CPU: up its own link to the switch, then the switch's uplink.
  const hw::Path& up = t.path("gpu1", "cpu0");
  CHECK(up.vertices == std::vector<std::string>{"gpu1", "plx0", "cpu0"});
  // gpu0 and gpu1 reach cpu0 through the one uplink: both paths cross cpu0-plx0 toward the CPU.
  const hw::Path& other = t.path("gpu0", "cpu0");
  REQUIRE(up.hops.size() == 2);
  REQUIRE(other.hops.size() == 2);
  CHECK(up.hops[1].link == other.hops[1].link);
  CHECK(up.hops[1].forward == other.hops[1].forward);
  CHECK(up.hops[1].name == "cpu0-plx0");
  // Over several nodes each node has its switches.
  const hw::Topology cluster(hw::load_system("dgx1-cluster"));
  CHECK(cluster.vertex("n3.plx2").kind == hw::VertexKind::kSwitch);
  CHECK(cluster.path("n3.gpu4", "n3.cpu1").vertices ==
        std::vector<std::string>{"n3.gpu4", "n3.plx2", "n3.cpu1"});
}

TEST_CASE("topology: the collective view takes the library's links at its bandwidths",
          "[hw][topology][catalog]") {
  // dgx1-p100's NCCL 1.x moved no data over NVLink (peer_links: false) and its ring hops ran at
  // the fitted PCIe and QPI bandwidths (collectives.link_bandwidth).
  const hw::SystemSpec s = hw::load_system("dgx1-p100");
  const hw::CollectiveSpec& c = s.runtime.collectives;
  REQUIRE(c.link_bandwidth.size() == 2);
  const double pcie = c.link_bandwidth[0].bytes_per_s, qpi = c.link_bandwidth[1].bytes_per_s;
  const hw::Topology all(s), nccl(s, hw::LinkUse::kCollectives);
  // Both views index the same links.
  REQUIRE(all.links().size() == nccl.links().size());
  for (std::size_t i = 0; i < all.links().size(); ++i)
    CHECK(all.links()[i].name == nccl.links()[i].name);
  // gpu0 and gpu1: one NVLink brick for copies; behind their PCIe switch for NCCL 1.x.
  CHECK(all.path("gpu0", "gpu1").hops.size() == 1);
  const hw::Path pair = nccl.path("gpu0", "gpu1");
  CHECK(pair.str() == "gpu0>plx0>gpu1");
  CHECK(pair.bandwidth_bytes_per_s == Approx(pcie).epsilon(kRel));
  // gpu0 and gpu4: across the sockets, at the library's QPI hop bandwidth.
  const hw::Path across = nccl.path("gpu0", "gpu4");
  CHECK(across.str() == "gpu0>plx0>cpu0>cpu1>plx2>gpu4");
  CHECK(across.bandwidth_bytes_per_s == Approx(qpi).epsilon(kRel));
  // The links the library takes at its own bandwidth count as measured; copies keep the link
  // files' numbers.
  const std::size_t qpi_link = s.links.size() - 1;
  REQUIRE(s.links[qpi_link].name == "cpu0-cpu1");
  CHECK(nccl.links()[qpi_link].p2p_measured);
  CHECK_FALSE(nccl.p2p_assumption(qpi_link));
  CHECK(all.links()[qpi_link].bandwidth_bytes_per_s == Approx(38.4e9).epsilon(kRel));
  CHECK(all.p2p_assumption(qpi_link));
  // Without a collectives block the two views agree (minsky: peer links, no bandwidths).
  const hw::SystemSpec m = hw::load_system("minsky");
  const hw::Topology m_all(m), m_nccl(m, hw::LinkUse::kCollectives);
  CHECK(m_nccl.path("gpu0", "gpu1").str() == m_all.path("gpu0", "gpu1").str());
  CHECK(m_nccl.path("gpu0", "gpu2").bandwidth_bytes_per_s ==
        m_all.path("gpu0", "gpu2").bandwidth_bytes_per_s);

  // A link model the system does not have is a located error naming the ones it has.
  CHECK_THAT(system_error("topology_bad_link_bandwidth.yaml"),
             Contains("topology_bad_link_bandwidth.yaml:17:16: "
                      "runtime.collectives.link_bandwidth[0].link: no link of this system is of "
                      "this model") &&
                 Contains("Toy link 10"));
}
