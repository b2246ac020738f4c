// calibrate/allreduce_fit.h: the ring all-reduce of model::CollectiveGroup over a star of GPUs,
// fitted to DeepBench's all-reduce runs.

#include "calibrate/allreduce_fit.h"

#include <catch2/catch.hpp>
#include <initializer_list>
#include <utility>

#include "hw/system_loader.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::calibrate;
using Catch::Matchers::Contains;

namespace {

const std::string kAllReduce =
    std::string(AMDAHL_SHARED_DIR) + "/data/deepbench/deepbench_allreduce.csv";
constexpr double kRel = 1e-9;  // the same formula evaluated in another order

// The ring all-reduce by hand (docs/architecture.md "Topology and collectives").
double ring_by_hand(int p, double bytes, double a, double bw) {
  return 2.0 * (p - 1) * (a + bytes / (p * bw));
}

}  // namespace

TEST_CASE("allreduce fit: the star's ring is the alpha-beta formula", "[calibrate][allreduce]") {
  for (const int p : {2, 3, 4, 8}) {
    INFO(p);
    const auto c = star_ring_allreduce(p, 1, 64e6, {8e-6, 6e9, 0});
    CHECK(c.time_s == Approx(ring_by_hand(p, 64e6, 8e-6, 6e9)).epsilon(kRel));
    CHECK(c.steps == 2 * (p - 1));
    CHECK(c.bandwidth_bytes_per_s == Approx(6e9));  // every link direction crossed once
  }
  // Over several nodes the ring enters and leaves each node once: each NIC carries one hop
  // each way, so the ring runs at min(B, N).
  for (const auto& [p, nodes] :
       std::initializer_list<std::pair<int, int>>{{4, 2}, {16, 2}, {32, 4}, {3, 3}}) {
    INFO(p << " GPUs on " << nodes << " nodes");
    const auto slow = star_ring_allreduce(p, nodes, 64e6, {8e-6, 6e9, 4e9});
    CHECK(slow.time_s == Approx(ring_by_hand(p, 64e6, 8e-6, 4e9)).epsilon(kRel));
    CHECK(slow.steps == 2 * (p - 1));
    const auto fast = star_ring_allreduce(p, nodes, 64e6, {8e-6, 6e9, 9e9});
    CHECK(fast.bandwidth_bytes_per_s == Approx(6e9));  // the hop binds
  }
  CHECK_THROWS_WITH(star_ring_allreduce(6, 4, 1e6, {8e-6, 6e9, 4e9}),
                    Contains("6 GPUs do not divide evenly over 4 nodes"));
}

namespace {

// Rows of a toy dataset: one node (2, 4 and 8 GPUs) made with (a, B), then, when `nodes_a` is
// positive, 4 GPUs a node on 2 and 4 nodes made with (nodes_a, N).
std::vector<AllReduceRow> toy_rows(double a, double bw, double nodes_a, double network) {
  std::vector<AllReduceRow> rows;
  int line = 2;
  auto add = [&](int p, int nodes, double bytes, double step, double b) {
    AllReduceRow r;
    r.where = "toy.csv:" + std::to_string(line++);
    r.dataset = "toy";
    r.gpu = "Toy GPU";
    r.algorithm = "NCCL 2.0 MPI";
    r.gpus = p;
    r.nodes = nodes;
    r.bytes = bytes;
    r.measured_s = ring_by_hand(p, bytes, step, b);
    rows.push_back(r);
  };
  for (const double bytes : {4e5, 1.2e7, 6.7e7, 2.6e8})
    for (const int p : {2, 4, 8}) add(p, 1, bytes, a, bw);
  if (nodes_a > 0)
    for (const double bytes : {4e5, 1.2e7, 6.7e7, 2.6e8})
      for (const int nodes : {2, 4}) add(4 * nodes, nodes, bytes, nodes_a, network);
  return rows;
}

}  // namespace

TEST_CASE("allreduce fit: recovers the parameters its rows were made with",
          "[calibrate][allreduce]") {
  const double a = 7e-6, bw = 5.5e9, nodes_a = 12e-6, network = 3.5e9;
  std::vector<AllReduceRow> rows = toy_rows(a, bw, nodes_a, network);
  AllReduceRow mpi = rows.front();  // not NCCL: counted, not fitted
  mpi.algorithm = "OSU MPI";
  rows.push_back(mpi);
  const auto fits = fit_allreduce(rows);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].step_latency_s == Approx(a).epsilon(1e-6));
  CHECK(fits[0].hop_bytes_per_s == Approx(bw).epsilon(1e-6));
  CHECK(fits[0].rows_not_fitted == 1);
  CHECK(fits[0].train.count == 10);  // 12 rows, every fifth (rows 5 and 10) held out
  CHECK(fits[0].held_out.count == 2);
  CHECK(fits[0].held_out.max_abs < 1e-6);
  REQUIRE(fits[0].network);
  CHECK(fits[0].network->step_latency_s == Approx(nodes_a).epsilon(1e-6));
  CHECK(fits[0].network->bytes_per_s == Approx(network).epsilon(1e-6));
  CHECK(fits[0].network->train.count == 7);  // 8 multi-node rows, the fifth held out
  CHECK(fits[0].network->held_out.count == 1);
  CHECK(fits[0].network->held_out.max_abs < 1e-6);
  CHECK(fits[0].residuals.size() == 20);
}

TEST_CASE("allreduce fit: too few multi-node rows are counted, not fitted",
          "[calibrate][allreduce]") {
  std::vector<AllReduceRow> rows = toy_rows(7e-6, 5.5e9, 0, 0);
  AllReduceRow multi = rows.front();  // 2 GPUs on 2 nodes: one multi-node row
  multi.nodes = 2;
  rows.push_back(multi);
  const auto fits = fit_allreduce(rows);
  REQUIRE(fits.size() == 1);
  CHECK_FALSE(fits[0].network);
  CHECK(fits[0].rows_not_fitted == 1);
  CHECK(fits[0].residuals.size() == 12);
}

TEST_CASE("allreduce fit: the network is fitted from kMinTrainingRows multi-node rows up",
          "[calibrate][allreduce]") {
  // The toy's 8 multi-node rows cut to k: k rows train when k < kHoldOutEvery (nothing held
  // out), so kMinTrainingRows rows fit and one fewer does not.
  const std::vector<AllReduceRow> all = toy_rows(7e-6, 5.5e9, 12e-6, 3.5e9);
  for (const std::size_t k : {kMinTrainingRows - 1, kMinTrainingRows}) {
    INFO(k << " multi-node rows");
    const std::vector<AllReduceRow> rows(all.begin(), all.begin() + 12 + static_cast<long>(k));
    const auto fits = fit_allreduce(rows);
    REQUIRE(fits.size() == 1);
    CHECK(fits[0].network.has_value() == (k >= kMinTrainingRows));
    CHECK(fits[0].rows_not_fitted == (k >= kMinTrainingRows ? 0 : static_cast<int>(k)));
    if (fits[0].network) {
      CHECK(fits[0].network->train.count == static_cast<int>(k));
      CHECK(fits[0].network->bytes_per_s == Approx(3.5e9).epsilon(1e-6));
    }
  }
}

TEST_CASE("allreduce fit: a network faster than the hop cannot be fitted",
          "[calibrate][allreduce]") {
  // Multi-node rows faster than the one-node hop allows: the network does not bind them.
  const auto rows = toy_rows(7e-6, 5.5e9, 12e-6, 11e9);
  CHECK_THROWS_WITH(fit_allreduce(rows),
                    Contains("dataset 'toy': the network bandwidth fitted to its multi-node NCCL "
                             "runs, 11.00 GB/s, is not below its one-node hop's, 5.50 GB/s"));
}

TEST_CASE("allreduce fit: DeepBench's P100 PCIe runs, held out", "[calibrate][allreduce]") {
  const auto fits = fit_allreduce(read_deepbench_allreduce(kAllReduce));
  REQUIRE(fits.size() == 6);
  const AllReduceFit& p100 = fits.front();
  REQUIRE(p100.dataset == "P100_baidu_2018");
  // Issue targets per system: held-out median |error| <= 15%, 90th percentile <= 30%.
  CHECK(p100.held_out.count >= 3);
  CHECK(p100.held_out.median_abs <= 0.15);
  CHECK(p100.held_out.p90_abs <= 0.30);
  // A PCIe 3.0 x16 hop carries at most its 15.75 GB/s (specs.yaml pcie_gen3_x16).
  CHECK(p100.hop_bytes_per_s < 15.75e9);
  CHECK(p100.step_latency_s > 0);
  // The step latency a system without `collectives` gets (hw/system_schema.cpp) is this fit's,
  // as printed to 0.1 us.
  const double default_step = hw::load_system("minsky").runtime.collectives.step_latency_s;
  CHECK(default_step == Approx(p100.step_latency_s).margin(0.05e-6));
}

TEST_CASE("allreduce fit: bad rows are located errors", "[calibrate][allreduce]") {
  const std::string bad = std::string(AMDAHL_FIXTURES) + "/calibrate/allreduce_bad_time.csv";
  CHECK_THROWS_WITH(
      read_deepbench_allreduce(bad),
      Contains("allreduce_bad_time.csv:3: column mean_us: expected a finite number > 0 "
               "(got '-5')"));
  // More GPUs in a node than the star's ring search is bounded for: located.
  const std::string crowded = std::string(AMDAHL_FIXTURES) + "/calibrate/allreduce_crowded.csv";
  CHECK_THROWS_WITH(read_deepbench_allreduce(crowded),
                    Contains("allreduce_crowded.csv:3: n_gpus: expected at most 1024 GPUs per "
                             "node (DeepBench's machines have 8); got 4000 on 2 nodes"));
  std::vector<AllReduceRow> two(2);
  for (auto& r : two) {
    r.dataset = "tiny";
    r.algorithm = "NCCL 2.0 MPI";
    r.gpus = 2;
    r.bytes = 1e6;
    r.measured_s = 1e-4;
  }
  CHECK_THROWS_WITH(fit_allreduce(two),
                    Contains("dataset 'tiny' has 2 training rows of one-node NCCL runs"));
  // GPUs that do not divide evenly over the nodes: located at the row.
  std::vector<AllReduceRow> uneven = toy_rows(7e-6, 5.5e9, 0, 0);
  AllReduceRow odd = uneven.front();
  odd.where = "toy.csv:40";
  odd.gpus = 6;
  odd.nodes = 4;
  uneven.push_back(odd);
  CHECK_THROWS_WITH(fit_allreduce(uneven),
                    Contains("toy.csv:40: n_gpus: 6 GPUs do not divide evenly over 4 nodes"));
}
