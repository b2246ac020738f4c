// predict() on a data-parallel step (graphs::DataParallel): each bucket costed as the
// collective's all-reduce over the job's devices, throughput over every device, and the
// all-reduce hidden behind the backward pass except for what the critical path shows.

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "graphs/lower.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "hw/topology.h"
#include "model/collective.h"
#include "model/prediction.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::model;
using Catch::Matchers::Contains;

namespace {

constexpr double kRel = 1e-9;  // sums of the same doubles in another order

graphs::LoweredNetwork lowered(
    const std::string& model, std::int64_t batch, int replicas,
    graphs::GradientExchange exchange = graphs::GradientExchange::kBucketedAllReduce) {
  const graphs::Network net = graphs::load_zoo_network(model);
  graphs::LoweringOptions o;
  o.data_parallel.replicas = replicas;
  o.data_parallel.exchange = exchange;
  return graphs::lower(graphs::bind_sizes(net, {{"batch", batch}}), o);
}

Prediction run(const graphs::LoweredNetwork& net, const hw::SystemSpec& s, std::int64_t batch) {
  PredictOptions po;
  po.batch = batch;
  return predict(net, s, po);
}

}  // namespace

TEST_CASE("data-parallel prediction: buckets cost the collective's all-reduce",
          "[model][data_parallel]") {
  const hw::SystemSpec s = hw::load_system("dgx1-p100");
  // The collective library's view: NCCL 1.x's rings over the PCIe tree at its fitted hops.
  const hw::Topology t(s, hw::LinkUse::kCollectives);
  for (const int gpus : {2, 4, 8}) {
    INFO(gpus);
    const graphs::LoweredNetwork net = lowered("resnet50", 32, gpus);
    const Prediction p = run(net, s, 32);
    const CollectiveGroup g(t, hw::data_parallel_devices(s, gpus), s.runtime.collectives);
    double busy = 0, bytes = 0;
    std::map<std::string, int> algorithms;  // each bucket's, counted by name
    for (const auto& b : net.buckets) {
      const CollectiveCost c = g.cost(Collective::kAllReduce, b.bytes);
      busy += c.time_s;
      bytes += b.bytes;
      ++algorithms[std::string(algorithm_name(c.algorithm))];
    }
    std::string listed;  // "ring (12), tree (1)"
    for (const auto& [name, count] : algorithms)
      listed += fmt::format("{}{} ({})", listed.empty() ? "" : ", ", name, count);
    CHECK(p.communication.algorithms == listed);
    CHECK(p.gpus == gpus);
    CHECK(p.communication.devices == hw::data_parallel_devices(s, gpus));
    CHECK(p.communication.buckets == net.buckets.size());
    // Every fp32 gradient all-reduced once: 4 bytes per parameter.
    CHECK(p.communication.bytes == Approx(4.0 * static_cast<double>(net.parameters)));
    CHECK(bytes == Approx(p.communication.bytes));
    CHECK(p.communication.busy_s == Approx(busy).epsilon(kRel));
    // What the critical path shows is at most the all-reduces' time; ResNet-50's backward pass
    // hides most of it (its last bucket, the first layers' gradients, cannot be hidden).
    CHECK(p.communication.exposed_s <= p.communication.busy_s * (1 + kRel));
    CHECK(p.communication.exposed_s < 0.5 * p.communication.busy_s);
    CHECK(p.by_bound[model::Bound::kInterconnect] ==
          Approx(p.communication.exposed_s).epsilon(kRel));
    CHECK(p.samples_per_s == Approx(gpus * 32 / p.step_time_s).epsilon(kRel));
  }
}

TEST_CASE("data-parallel prediction: TensorFlow's variable updates cost one exchange per variable",
          "[model][data_parallel]") {
  hw::SystemSpec s = hw::load_system("minsky");
  const hw::Topology t(s);
  const std::vector<std::string> devices = hw::data_parallel_devices(s, 4);
  // Replicated: each variable all-reduced by the collective group.
  {
    s.runtime.collectives.variable_update = hw::VariableUpdate::kReplicated;
    const graphs::LoweredNetwork net =
        lowered("resnet50", 32, 4, graphs::GradientExchange::kAllReduce);
    const Prediction p = run(net, s, 32);
    const CollectiveGroup g(t, devices, s.runtime.collectives);
    double busy = 0;
    for (const auto& b : net.buckets) busy += g.cost(Collective::kAllReduce, b.bytes).time_s;
    CHECK(p.communication.variable_update == hw::VariableUpdate::kReplicated);
    CHECK(p.communication.buckets == net.weights.size());
    CHECK(p.communication.busy_s == Approx(busy).epsilon(kRel));
    CHECK(p.communication.bytes == Approx(4.0 * static_cast<double>(net.parameters)));
  }
  // Parameter server on the CPU or on the GPUs: each variable's exchange as ParameterServer
  // costs it; the step states where the variables live.
  for (const bool on_gpus : {false, true}) {
    INFO(on_gpus);
    s.runtime.collectives.variable_update =
        on_gpus ? hw::VariableUpdate::kParameterServerGpu : hw::VariableUpdate::kParameterServerCpu;
    const graphs::LoweredNetwork net =
        lowered("resnet50", 32, 4, graphs::GradientExchange::kParameterServer);
    const Prediction p = run(net, s, 32);
    const ParameterServer ps(t, s, devices, on_gpus);
    double busy = 0;
    for (const auto& b : net.buckets) busy += ps.cost(b.bytes).time_s;
    CHECK(p.communication.variable_update == s.runtime.collectives.variable_update);
    CHECK(p.communication.busy_s == Approx(busy).epsilon(kRel));
    CHECK(p.communication.exposed_s <= p.communication.busy_s * (1 + kRel));
    CHECK_THAT(p.communication.route, Contains(on_gpus ? "on the GPUs" : "on cpu0"));
  }
}

TEST_CASE("data-parallel prediction: each variable update lowers to its exchange and back",
          "[model][data_parallel]") {
  using graphs::GradientExchange;
  using hw::VariableUpdate;
  CHECK(gradient_exchange(VariableUpdate::kDdp) == GradientExchange::kBucketedAllReduce);
  CHECK(gradient_exchange(VariableUpdate::kReplicated) == GradientExchange::kAllReduce);
  CHECK(gradient_exchange(VariableUpdate::kParameterServerCpu) ==
        GradientExchange::kParameterServer);
  CHECK(gradient_exchange(VariableUpdate::kParameterServerGpu) ==
        GradientExchange::kParameterServer);
  // A step lowered on the system it runs on keeps the system's update.
  for (std::size_t i = 0; i < hw::variable_update_names().size(); ++i) {
    const auto update = static_cast<VariableUpdate>(i);
    INFO(hw::variable_update_name(update));
    CHECK(variable_update_of(gradient_exchange(update), update) == update);
  }
  // A step lowered for another system's update runs that exchange, as the first update in
  // hw::variable_update_names() that lowers to it: a parameter server on the CPU, buckets as DDP.
  CHECK(variable_update_of(GradientExchange::kParameterServer, VariableUpdate::kDdp) ==
        VariableUpdate::kParameterServerCpu);
  CHECK(variable_update_of(GradientExchange::kBucketedAllReduce, VariableUpdate::kReplicated) ==
        VariableUpdate::kDdp);
  CHECK(variable_update_of(GradientExchange::kAllReduce, VariableUpdate::kParameterServerGpu) ==
        VariableUpdate::kReplicated);
}

TEST_CASE("data-parallel prediction: never faster per step than one GPU, hidden unless exposed",
          "[model][data_parallel]") {
  const hw::SystemSpec s = hw::load_system("minsky");
  const Prediction one = run(lowered("resnet50", 32, 1), s, 32);
  const Prediction four = run(lowered("resnet50", 32, 4), s, 32);
  CHECK(one.gpus == 1);
  CHECK(one.communication.buckets == 0);
  // The same per-GPU work plus the all-reduce's exposed part (the step's critical path gains
  // it; the ops themselves cost the same on every replica).
  CHECK(four.step_time_s >= one.step_time_s);
  CHECK(four.step_time_s <= one.step_time_s + four.communication.busy_s * (1 + kRel));
  CHECK(four.step_time_s - one.step_time_s ==
        Approx(four.communication.exposed_s).epsilon(1e-6).margin(1e-9));
  CHECK(four.memory.gradients_bytes == Approx(2 * one.memory.gradients_bytes));
}

TEST_CASE("data-parallel prediction: a step all on the host has no collective",
          "[model][data_parallel]") {
  const hw::SystemSpec s = hw::load_system("minsky");
  PredictOptions po;
  po.batch = 8;
  po.placement.all = "host";
  CHECK_THROWS_WITH(predict(lowered("autoenc", 8, 2), s, po),
                    Contains("data parallelism (--gpus 2) runs on accelerators"));
}

TEST_CASE("data-parallel prediction: the 8-GPU DGX-1 speedups docs/validation.md quotes",
          "[model][data_parallel][catalog]") {
  // docs/validation.md "multi-GPU": predicted 8-GPU speedups at batch 64 per GPU, printed to
  // 0.01x, against TensorFlow's published 7.91x (ResNet-50) and 7.99x (InceptionV3).
  struct Quoted {
    const char* model;
    graphs::GradientExchange exchange;
    double speedup;
  };
  const Quoted quoted[] = {
      {"resnet50", graphs::GradientExchange::kBucketedAllReduce, 7.93},
      {"inception-v3", graphs::GradientExchange::kBucketedAllReduce, 7.90},
      {"resnet50", graphs::GradientExchange::kAllReduce, 8.00},
      {"inception-v3", graphs::GradientExchange::kAllReduce, 8.00},
  };
  const hw::SystemSpec s = hw::load_system("dgx1-p100");
  for (const Quoted& q : quoted) {
    INFO(q.model << " " << static_cast<int>(q.exchange));
    const Prediction one = run(lowered(q.model, 64, 1), s, 64);
    const Prediction eight = run(lowered(q.model, 64, 8, q.exchange), s, 64);
    CHECK(eight.samples_per_s / one.samples_per_s == Approx(q.speedup).margin(0.005));
  }
}

TEST_CASE("data-parallel prediction: copies and exchanges take turns on a host link both cross",
          "[model][data_parallel][catalog]") {
  // Minsky: the 4-GPU ring gpu0>gpu1>gpu2>gpu3>gpu0 crosses the sockets over the CPUs' NVLinks
  // (gpu1>cpu0>cpu1>gpu2, gpu3>cpu1>cpu0>gpu0), the links the GPUs' copies take, both ways.
  // DGX-1: NCCL 1.x's ring takes PCIe too (peer_links: false), the GPUs' links to their
  // switches, both ways.
  const hw::SystemSpec minsky = hw::load_system("minsky");
  const Prediction four = run(lowered("resnet50", 32, 4), minsky, 32);
  CHECK(four.communication.host_link == "the ring (both ways)");
  // The input copies are done before the backward pass starts the all-reduces.
  CHECK(four.communication.link_wait_s == 0);
  const Prediction eight = run(lowered("resnet50", 32, 8), hw::load_system("dgx1-p100"), 32);
  CHECK(eight.communication.host_link == "the ring (both ways)");
  CHECK(eight.communication.link_wait_s == 0);

  // Pooling on the CPUs: its tensors cross the link during the backward pass as the all-reduces
  // run, and wait for them (or they for the copies).
  PredictOptions po;
  po.batch = 32;
  po.placement = parse_placement("pooling=host");
  const Prediction shared = predict(lowered("resnet50", 32, 4), minsky, po);
  const Prediction alone = predict(lowered("resnet50", 32, 1), minsky, po);
  CHECK(shared.communication.link_wait_s > 0);
  // One GPU's step plus at most every exchange and every wait.
  CHECK(shared.step_time_s >= alone.step_time_s);
  CHECK(shared.step_time_s <= alone.step_time_s + shared.communication.busy_s +
                                  shared.communication.link_wait_s * (1 + kRel));
}
