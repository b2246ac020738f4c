// Collective costs against the alpha-beta formulas of model/collective.h, worked by hand on toy
// topologies with round numbers, and the rings chosen on the catalog systems.

#include "model/collective.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "cli/assumption_text.h"
#include "hw/system_loader.h"
#include "hw/topology.h"
#include "util/error.h"

using namespace amdahl;
using Catch::Contains;
using model::Collective;
using model::CollectiveAlgorithm;

namespace {

// The costs are a few products and sums of the inputs: only rounding separates them.
constexpr double kRel = 1e-12;

hw::SystemSpec toy(const std::string& name) {
  return hw::load_system(std::string(AMDAHL_FIXTURES) + "/hw/topology_" + name);
}

std::string group_error(const hw::SystemSpec& s, const std::vector<std::string>& devices) {
  try {
    const hw::Topology t(s);
    model::CollectiveGroup g(t, devices, s.runtime.collectives);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("collective: ring over 4 devices in a ring of equal links", "[collective]") {
  // ring4: d0-d1-d2-d3-d0, 10 GB/s and 1 us each (no p2p: the nominal is used); step_latency
  // 4 us. The ring follows the links: every hop one link, no link shared.
  const hw::SystemSpec s = toy("ring4.yaml");
  const hw::Topology t(s);
  const model::CollectiveGroup g(t, {"d0", "d1", "d2", "d3"}, s.runtime.collectives);
  const int p = 4;
  const double B = 10e9;
  const double a = 4e-6;  // step_latency: the links' latency is a copy's setup, not a step's
  CHECK(g.size() == p);
  CHECK(g.ring() == std::vector<std::string>{"d0", "d1", "d2", "d3"});
  CHECK(g.ring_bandwidth() == Approx(B).epsilon(kRel));
  CHECK(g.ring_step_latency() == Approx(a).epsilon(kRel));

  const double S = 100e6;
  const auto ar = g.cost(Collective::kAllReduce, S, CollectiveAlgorithm::kRing);
  CHECK(ar.time_s == Approx(2 * (p - 1) * (a + S / (p * B))).epsilon(kRel));
  CHECK(ar.steps == 2 * (p - 1));
  CHECK(ar.step_latency_s == Approx(a).epsilon(kRel));
  CHECK(ar.bandwidth_bytes_per_s == Approx(B).epsilon(kRel));
  CHECK(g.cost(Collective::kReduceScatter, S).time_s ==
        Approx((p - 1) * (a + S / (p * B))).epsilon(kRel));
  CHECK(g.cost(Collective::kAllGather, S).time_s ==
        Approx((p - 1) * (a + S / (p * B))).epsilon(kRel));
  CHECK(g.cost(Collective::kBroadcast, S, CollectiveAlgorithm::kRing).time_s ==
        Approx((p - 1) * a + S / B).epsilon(kRel));
  // NCCL has no tree reduce-scatter: forcing the tree gives the ring.
  CHECK(g.cost(Collective::kReduceScatter, S, CollectiveAlgorithm::kTree).algorithm ==
        CollectiveAlgorithm::kRing);
  // Nothing to move: no time.
  CHECK(g.cost(Collective::kAllReduce, 0).time_s == 0);
  CHECK_THAT(g.route(), Contains("ring d0>d1>d2>d3>d0, bottleneck 10 GB/s"));
  CHECK_THAT(cli::assumption_text(g.assumptions().back()),
             Contains("Toy link 10 links: p2p not measured"));
}

TEST_CASE("collective: ring and tree through a hub whose links the tree shares", "[collective]") {
  // star4: d0..d3 each linked to `hub` (10 GB/s, 1 us, no p2p); step_latency 4 us.
  // Ring: every hop di > hub > dj crosses di's link up and dj's link down: no link direction
  // twice, B = 10 GB/s, a = step_latency = 4 us.
  // Tree over the ranks d0..d3 (the ring order): 1->2, 3->2, 2->0, depth 2. In the reduce phase
  // hub->d2 carries 1->2 and 3->2: each gets 10/2 GB/s; in the broadcast phase d2->hub carries
  // 2->1 and 2->3. B_tree = 5 GB/s, a_tree = 4 us.
  const hw::SystemSpec s = toy("star4.yaml");
  const hw::Topology t(s);
  const model::CollectiveGroup g(t, hw::data_parallel_devices(s, 4), s.runtime.collectives);
  const int p = 4;
  const double B = 10e9, a = 4e-6;
  const double B_tree = 10e9 / 2, a_tree = 4e-6;
  const int depth = 2;
  CHECK(g.ring_bandwidth() == Approx(B).epsilon(kRel));
  CHECK(g.ring_step_latency() == Approx(a).epsilon(kRel));
  CHECK(g.tree_bandwidth() == Approx(B_tree).epsilon(kRel));
  CHECK(g.tree_step_latency() == Approx(a_tree).epsilon(kRel));
  CHECK(g.tree_depth() == depth);

  auto ring = [&](double S) { return 2 * (p - 1) * (a + S / (p * B)); };
  auto tree = [&](double S) { return 2 * depth * a_tree + 2 * S / B_tree; };
  for (const double S : {1e3, 100e6}) {
    INFO(S);
    const auto r = g.cost(Collective::kAllReduce, S, CollectiveAlgorithm::kRing);
    const auto k = g.cost(Collective::kAllReduce, S, CollectiveAlgorithm::kTree);
    CHECK(r.time_s == Approx(ring(S)).epsilon(kRel));
    CHECK(k.time_s == Approx(tree(S)).epsilon(kRel));
    CHECK(k.steps == 2 * depth);
    // auto: the faster. 1 kB: the tree's 4 steps beat the ring's 6; 100 MB: the ring moves
    // 2(p-1)/p S = 1.5 S at 10 GB/s, the tree 2 S at 5 GB/s.
    const auto chosen = g.cost(Collective::kAllReduce, S);
    CHECK(chosen.time_s == Approx(std::min(ring(S), tree(S))).epsilon(kRel));
    CHECK(chosen.algorithm == (S < 1e6 ? CollectiveAlgorithm::kTree : CollectiveAlgorithm::kRing));
  }
  CHECK(g.cost(Collective::kBroadcast, 100e6, CollectiveAlgorithm::kTree).time_s ==
        Approx(depth * a_tree + 100e6 / B_tree).epsilon(kRel));
  CHECK_THAT(g.route(), Contains("tree depth 2") && Contains("shared by 2 transfers"));
}

TEST_CASE("parameter server: on the hub CPU and spread over the GPUs of a star", "[collective]") {
  // star4 (above): d0..d3 each linked to the CPU `hub`, 10 GB/s and 1 us per link.
  // On the CPU (hub, the host of d0): the four gradients go in at once, each on its own link
  // (B_in = 10 GB/s), the four variables come out the same way (B_out = 10 GB/s); a = 1 us (one
  // link); the hub sums at M = 20 GB/s (framework_cpu.yaml), reading 4 S and writing S.
  const hw::SystemSpec s = toy("star4.yaml");
  const hw::Topology t(s);
  const std::vector<std::string> devices = hw::data_parallel_devices(s, 4);
  const double p = 4, S = 100e6;
  const model::ParameterServer cpu(t, s, devices, false);
  const double B = 10e9, a = 1e-6, M_cpu = 20e9;
  CHECK(cpu.server() == "hub");
  CHECK(cpu.in_bandwidth() == Approx(B).epsilon(kRel));
  CHECK(cpu.out_bandwidth() == Approx(B).epsilon(kRel));
  CHECK(cpu.leg_latency() == Approx(a).epsilon(kRel));
  const auto c = cpu.cost(S);
  CHECK(c.time_s == Approx(2 * a + S / B + (p + 1) * S / M_cpu + S / B).epsilon(kRel));
  CHECK(c.algorithm == CollectiveAlgorithm::kParameterServer);
  CHECK(c.steps == 2);
  CHECK_THAT(cpu.route(), Contains("parameter server on hub"));

  // On the GPUs: all 12 ordered pairs at once, di > hub > dj; each link carries 3 transfers
  // each way, so B_pair = 10/3 GB/s; a = 2 us (two links); each GPU sums at 732 GB/s
  // (valid_device.yaml). A variable is charged (p-1) S of the p(p-1) B_pair each way and a
  // p-th of a sum.
  const model::ParameterServer gpus(t, s, devices, true);
  const double B_pair = 10e9 / 3, a_pair = 2e-6, M_gpu = 732e9;
  CHECK(gpus.in_bandwidth() == Approx(B_pair).epsilon(kRel));
  CHECK(gpus.leg_latency() == Approx(a_pair).epsilon(kRel));
  CHECK(gpus.cost(S).time_s ==
        Approx(2 * a_pair + 2 * S / (p * B_pair) + (p + 1) * S / (p * M_gpu)).epsilon(kRel));
  CHECK_THAT(gpus.route(), Contains("shared by 3 transfers"));

  // One replica, or nothing to move: no time.
  CHECK(model::ParameterServer(t, s, {"d0"}, false).cost(S).time_s == 0);
  CHECK(cpu.cost(0).time_s == 0);
}

TEST_CASE("parameter server and ring behind PCIe switches", "[collective]") {
  // switch4: d0, d1 behind sw0 and d2, d3 behind sw1, each switch on one uplink to the CPU hub;
  // every link 10 GB/s and 1 us.
  const hw::SystemSpec s = toy("switch4.yaml");
  const hw::Topology t(s);
  const std::vector<std::string> devices = hw::data_parallel_devices(s, 4);
  // On the CPU: two gradients share each uplink on the way in, two variables on the way out,
  // so B_in = B_out = 10 / 2 GB/s; a = 2 us (a device's link and its switch's uplink).
  const model::ParameterServer cpu(t, s, devices, false);
  CHECK(cpu.server() == "hub");
  CHECK(cpu.in_bandwidth() == Approx(5e9).epsilon(kRel));
  CHECK(cpu.out_bandwidth() == Approx(5e9).epsilon(kRel));
  CHECK(cpu.leg_latency() == Approx(2e-6).epsilon(kRel));
  // The ring d0 > d1 > d2 > d3 crosses each uplink once each way: B = 10 GB/s, the star's.
  const model::CollectiveGroup g(t, devices, s.runtime.collectives);
  CHECK(g.ring_bandwidth() == Approx(10e9).epsilon(kRel));
  const double S = 100e6, p = 4, a = 4e-6;
  CHECK(g.cost(Collective::kAllReduce, S, CollectiveAlgorithm::kRing).time_s ==
        Approx(2 * (p - 1) * (a + S / (p * 10e9))).epsilon(kRel));
  // A device's copies take its own link to its switch, toward the hub.
  const hw::HostRoute route = s.host_route("d2");
  REQUIRE(route.host != nullptr);
  CHECK(route.host->name == "hub");
  CHECK(route.link->name == "sw1-d2");
}

TEST_CASE("parameter server: a system without a CPU is a located error", "[collective]") {
  const hw::SystemSpec s = toy("ring4.yaml");
  const hw::Topology t(s);
  try {
    model::ParameterServer ps(t, s, {"d0", "d1"}, false);
    FAIL("expected an error");
  } catch (const UserError& e) {
    CHECK_THAT(e.what(),
               Contains("ring4.yaml") && Contains("no CPU") && Contains("parameter-server-gpu"));
  }
}

TEST_CASE("collective: two nodes, a ring that enters and leaves each node once", "[collective]") {
  // two_nodes: per node cpu0, g0, g1; cpu0-g* 10 GB/s 1 us; g0-g1 p2p 16 GB/s 2 us; one NIC
  // (p2p 16 GB/s, 2 us) from cpu0 to the fabric; algorithm ring, step_latency 3 us.
  // Ring n0.g0>n0.g1>n1.g0>n1.g1: the hops between nodes go g > cpu0 > fabric > cpu0 > g, 10 GB/s
  // at the cpu0-g links, each NIC direction crossed once; a = step_latency.
  const hw::SystemSpec s = toy("two_nodes.yaml");
  const hw::Topology t(s);
  const model::CollectiveGroup g(t, hw::data_parallel_devices(s, 4), s.runtime.collectives);
  const int p = 4;
  const double B = 10e9, a = 3e-6;
  CHECK(g.ring() == std::vector<std::string>{"n0.g0", "n0.g1", "n1.g0", "n1.g1"});
  CHECK(g.ring_bandwidth() == Approx(B).epsilon(kRel));
  CHECK(g.ring_step_latency() == Approx(a).epsilon(kRel));
  const double S = 100e6;
  const auto forced = g.cost(Collective::kAllReduce, S);  // the spec forces the ring
  CHECK(forced.algorithm == CollectiveAlgorithm::kRing);
  CHECK(forced.time_s == Approx(2 * (p - 1) * (a + S / (p * B))).epsilon(kRel));
  // Tree: the nodes are the ranks (node 1 below node 0), each node's g1 chained below its g0:
  // n1.g1 > n1.g0 > n0.g0 and n0.g1 > n0.g0, depth 2. The chains cross the 16 GB/s links, the
  // transfer between nodes the 10 GB/s cpu0-g0 links: B_tree = 10 GB/s; a_tree = step_latency.
  const double B_tree = 10e9, a_tree = 3e-6;
  CHECK(g.tree_bandwidth() == Approx(B_tree).epsilon(kRel));
  CHECK(g.tree_depth() == 2);
  CHECK(g.cost(Collective::kAllReduce, S, CollectiveAlgorithm::kTree).time_s ==
        Approx(2 * 2 * a_tree + 2 * S / B_tree).epsilon(kRel));
}

TEST_CASE("collective: more than 8 devices in a node take the nearest next", "[collective]") {
  // star4 grown to d0..d9, each on a hub link of 10 GB/s and 1 us (hub-d8: 0.5 us), with p2p
  // links of 16 GB/s (link_20_p2p) d0-d7, d7-d3 and d3-d9. Beyond 8 devices the ring is greedy:
  // from d0 the widest paths lead to d7, d3 and d9; every other device is 2 hops through the
  // hub at 10 GB/s, d8 the nearest (1.5 us), then the rest in file order.
  hw::SystemSpec s = toy("star4.yaml");
  const hw::DeviceSpec device = s.device("d0");
  const hw::LinkSpec hub_link = s.links.front();
  const hw::LinkSpec wide = toy("wide_or_short.yaml").links.back();  // c-b: link_20_p2p
  REQUIRE(wide.p2p_bytes_per_s == Approx(16e9));
  for (int i = 4; i < 10; ++i) {
    hw::DeviceSpec d = device;
    d.name = "d" + std::to_string(i);
    s.devices.push_back(d);
    hw::LinkSpec l = hub_link;
    l.name = "hub-" + d.name;
    l.to = d.name;
    if (i == 8) l.latency_s = 0.5e-6;
    s.links.push_back(l);
  }
  for (const auto& [a, b] : std::initializer_list<std::pair<const char*, const char*>>{
           {"d0", "d7"}, {"d7", "d3"}, {"d3", "d9"}}) {
    hw::LinkSpec l = wide;
    l.name = std::string(a) + "-" + b;
    l.from = a;
    l.to = b;
    s.links.push_back(l);
  }
  const hw::Topology t(s);
  std::vector<std::string> devices;
  for (int i = 0; i < 10; ++i) devices.push_back("d" + std::to_string(i));
  const model::CollectiveGroup g(t, devices, s.runtime.collectives);
  CHECK(g.ring() ==
        std::vector<std::string>{"d0", "d7", "d3", "d9", "d8", "d1", "d2", "d4", "d5", "d6"});
  // No hub link direction is crossed twice: the hub links bind.
  CHECK(g.ring_bandwidth() == Approx(10e9).epsilon(kRel));
}

TEST_CASE("collective: one device costs nothing", "[collective]") {
  const hw::SystemSpec s = hw::load_system("minsky");
  const hw::Topology t(s);
  const model::CollectiveGroup g(t, {"gpu0"}, s.runtime.collectives);
  const auto c = g.cost(Collective::kAllReduce, 100e6);
  CHECK(c.time_s == 0);
  CHECK(c.steps == 0);
  CHECK_THAT(g.route(), Contains("one device"));
}

TEST_CASE("collective: groups that cannot run are located errors", "[collective]") {
  const hw::SystemSpec minsky = hw::load_system("minsky");
  CHECK_THAT(group_error(minsky, {"gpu0", "cpu0"}), Contains("minsky.yaml") &&
                                                        Contains("of one model") &&
                                                        Contains("gpu0") && Contains("cpu0"));
  CHECK_THAT(group_error(minsky, {"gpu0", "gpu0"}), Contains("twice"));
  CHECK_THAT(group_error(minsky, {"gpu0", "gpu7"}), Contains("no device 'gpu7'"));
  CHECK_THAT(group_error(minsky, {}), Contains("at least one device"));
  // A topology that lost its links (a SystemSpec built by hand: loading rejects it).
  hw::SystemSpec cut = toy("ring4.yaml");
  cut.links.erase(cut.links.begin() + 1);  // d1-d2
  cut.links.pop_back();                    // d3-d0
  CHECK_THAT(group_error(cut, {"d0", "d1", "d2", "d3"}),
             Contains("ring4.yaml") && Contains("no chain of links joins d0 to d2, d3"));
}

TEST_CASE("collective: minsky rings (catalog numbers)", "[collective][catalog]") {
  const hw::SystemSpec s = hw::load_system("minsky");
  const hw::Topology t(s);
  // nvlink1-x2.yaml p2p (specs.yaml measured_p2p_double_link_unidirectional) bounds every hop:
  // the X-bus (38.4 GB/s, an ASSUMPTION) is wider.
  const double nvlink2 = s.link_between("gpu0", "gpu1")->p2p_bandwidth();
  const model::CollectiveGroup two(t, hw::data_parallel_devices(s, 2), s.runtime.collectives);
  CHECK(two.ring_bandwidth() == Approx(nvlink2).epsilon(kRel));
  const model::CollectiveGroup four(t, hw::data_parallel_devices(s, 4), s.runtime.collectives);
  CHECK(four.ring_bandwidth() == Approx(nvlink2).epsilon(kRel));
  // The ring crosses the X-bus once each way: no link direction twice.
  CHECK_THAT(four.route(), Contains("ring gpu0>"));
  const double S = 102e6;
  const auto c = four.cost(Collective::kAllReduce, S, CollectiveAlgorithm::kRing);
  CHECK(c.time_s == Approx(2 * 3 * (four.ring_step_latency() + S / (4 * nvlink2))).epsilon(kRel));
}

TEST_CASE("collective: dgx1-p100 ring over the cube-mesh, one brick per hop",
          "[collective][catalog]") {
  // The full view: a library that takes the peer links (NCCL 2). dgx1-p100's own NCCL 1.x
  // takes PCIe only (hw/topology_test.cpp, calibrate/allreduce_fit_test.cpp).
  const hw::SystemSpec s = hw::load_system("dgx1-p100");
  const hw::Topology t(s);
  const double brick = s.link_between("gpu0", "gpu1")->p2p_bandwidth();
  for (const int gpus : {2, 4, 8}) {
    INFO(gpus);
    const model::CollectiveGroup g(t, hw::data_parallel_devices(s, gpus), s.runtime.collectives);
    CHECK(g.ring_bandwidth() == Approx(brick).epsilon(kRel));
    for (int i = 0; i < gpus; ++i)  // every hop a direct NVLink brick (a Hamiltonian cycle)
      CHECK(t.path(g.ring()[i], g.ring()[(i + 1) % gpus]).hops.size() == 1);
  }
}

TEST_CASE("collective: clusters are bound by their network", "[collective][catalog]") {
  for (const char* name : {"minsky-cluster", "dgx1-cluster"}) {
    INFO(name);
    const hw::SystemSpec s = hw::load_system(name);
    const hw::Topology t(s);
    const double nic = s.network->link.p2p_bandwidth();  // ib-edr.yaml: 12.5 GB/s nominal
    CHECK(nic == Approx(12.5e9));
    const model::CollectiveGroup g(t, hw::data_parallel_devices(s, 16), s.runtime.collectives);
    CHECK(g.size() == 16);
    CHECK(g.ring_bandwidth() == Approx(nic).epsilon(kRel));
    bool ib = false;
    for (const std::string& a : cli::assumption_lines(g.assumptions()))
      ib = ib || a.find("InfiniBand EDR 4x links: p2p not measured") != std::string::npos;
    CHECK(ib);
  }
}
