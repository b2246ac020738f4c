// calibrate/allreduce_fit.h: the ring all-reduce of model::CollectiveGroup over a PCIe box of
// GPUs, fitted to DeepBench's all-reduce runs.

#include "calibrate/allreduce_fit.h"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <utility>

#include "calibrate/allreduce_catalog.h"
#include "hw/system_loader.h"
#include "hw/topology.h"
#include "model/collective.h"
#include "scratch_dir.h"
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

// A box whose levels all run at `bw`.
PcieBox flat(double a, double bw, double network = 0) { return {a, {bw, bw, bw}, network}; }

}  // namespace

TEST_CASE("allreduce fit: the box's ring is the alpha-beta formula at its slowest level",
          "[calibrate][allreduce]") {
  // Levels of distinct bandwidths: 2 GPUs share a switch; 3 and 4 cross their socket's root
  // complex; 5 to 8 cross QPI. Each ring crosses every link direction at most once.
  const PcieBox box{8e-6, {12e9, 9e9, 5e9}, 0};
  for (const auto& [p, bw] : std::initializer_list<std::pair<int, double>>{
           {2, 12e9}, {3, 9e9}, {4, 9e9}, {5, 5e9}, {8, 5e9}}) {
    INFO(p);
    const auto c = box_ring_allreduce(p, 1, 64e6, box);
    CHECK(c.time_s == Approx(ring_by_hand(p, 64e6, 8e-6, bw)).epsilon(kRel));
    CHECK(c.steps == 2 * (p - 1));
    CHECK(c.bandwidth_bytes_per_s == Approx(bw));
  }
  // Over several nodes the ring enters and leaves each node once: each NIC carries one hop
  // each way, so the ring runs at min(B, N).
  for (const auto& [p, nodes] :
       std::initializer_list<std::pair<int, int>>{{4, 2}, {16, 2}, {32, 4}, {3, 3}}) {
    INFO(p << " GPUs on " << nodes << " nodes");
    const auto slow = box_ring_allreduce(p, nodes, 64e6, flat(8e-6, 6e9, 4e9));
    CHECK(slow.time_s == Approx(ring_by_hand(p, 64e6, 8e-6, 4e9)).epsilon(kRel));
    CHECK(slow.steps == 2 * (p - 1));
    const auto fast = box_ring_allreduce(p, nodes, 64e6, flat(8e-6, 6e9, 9e9));
    CHECK(fast.bandwidth_bytes_per_s == Approx(6e9));  // the levels bind
  }
  // 8 GPUs a node: the QPI level binds below the network.
  CHECK(box_ring_allreduce(16, 2, 64e6, {8e-6, {12e9, 9e9, 5e9}, 7e9}).bandwidth_bytes_per_s ==
        Approx(5e9));
  CHECK_THROWS_WITH(box_ring_allreduce(6, 4, 1e6, flat(8e-6, 6e9, 4e9)),
                    Contains("6 GPUs do not divide evenly over 4 nodes"));
}

namespace {

// Rows of a toy dataset: one node (2, 4 and 8 GPUs, the switch, socket and QPI levels) made
// with a and the level's bandwidth in `bw`, then, when `nodes_a` is positive, 4 GPUs a node on 2
// and 4 nodes made with (nodes_a, N).
std::vector<AllReduceRow> toy_rows(double a, std::array<double, kBoxLevels> bw, double nodes_a,
                                   double network) {
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
    for (const int level : {0, 1, 2}) add(2 << level, 1, bytes, a, bw[level]);
  if (nodes_a > 0)
    for (const double bytes : {4e5, 1.2e7, 6.7e7, 2.6e8})
      for (const int nodes : {2, 4}) add(4 * nodes, nodes, bytes, nodes_a, network);
  return rows;
}

}  // namespace

TEST_CASE("allreduce fit: recovers the parameters its rows were made with",
          "[calibrate][allreduce]") {
  const double a = 7e-6, nodes_a = 12e-6, network = 3.5e9;
  const std::array<double, kBoxLevels> bw = {11e9, 8e9, 5.5e9};
  std::vector<AllReduceRow> rows = toy_rows(a, bw, nodes_a, network);
  AllReduceRow mpi = rows.front();  // not NCCL: counted, not fitted
  mpi.algorithm = "OSU MPI";
  rows.push_back(mpi);
  const auto fits = fit_allreduce(rows);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].step_latency_s == Approx(a).epsilon(1e-6));
  for (int l = 0; l < kBoxLevels; ++l)
    CHECK(fits[0].level_bytes_per_s[static_cast<std::size_t>(l)] ==
          Approx(bw[static_cast<std::size_t>(l)]).epsilon(1e-6));
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
  std::vector<AllReduceRow> rows = toy_rows(7e-6, {5.5e9, 5.5e9, 5.5e9}, 0, 0);
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
  const std::vector<AllReduceRow> all = toy_rows(7e-6, {5.5e9, 5.5e9, 5.5e9}, 12e-6, 3.5e9);
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
  const auto rows = toy_rows(7e-6, {5.5e9, 5.5e9, 5.5e9}, 12e-6, 11e9);
  CHECK_THROWS_WITH(fit_allreduce(rows),
                    Contains("dataset 'toy': the network bandwidth fitted to its multi-node NCCL "
                             "runs, 11.00 GB/s, is not below its narrowest one-node level's, "
                             "5.50 GB/s"));
}

TEST_CASE(
    "allreduce fit: levels are widest first, and a level no row crosses takes its "
    "neighbour's",
    "[calibrate][allreduce]") {
  // The socket level measured faster than the switch level: the two are fitted as one, whose
  // bandwidth lies between them; the QPI level stays its own.
  const auto inverted = fit_allreduce(toy_rows(7e-6, {6e9, 8e9, 4e9}, 0, 0));
  REQUIRE(inverted.size() == 1);
  const auto& b = inverted[0].level_bytes_per_s;
  CHECK(b[0] == b[1]);
  CHECK(b[0] > 6e9);
  CHECK(b[0] < 8e9);
  CHECK(b[2] == Approx(4e9).epsilon(0.05));
  // Only 2 and 4 GPUs: the QPI level takes the socket level's bandwidth.
  std::vector<AllReduceRow> rows;
  for (const AllReduceRow& r : toy_rows(7e-6, {11e9, 8e9, 5e9}, 0, 0))
    if (r.gpus <= 4) rows.push_back(r);
  const auto partial = fit_allreduce(rows);
  REQUIRE(partial.size() == 1);
  CHECK(partial[0].level_bytes_per_s[0] == Approx(11e9).epsilon(1e-6));
  CHECK(partial[0].level_bytes_per_s[1] == Approx(8e9).epsilon(1e-6));
  CHECK(partial[0].level_bytes_per_s[2] == partial[0].level_bytes_per_s[1]);
}

TEST_CASE("allreduce fit: DeepBench's PCIe boxes, held out", "[calibrate][allreduce]") {
  const auto fits = fit_allreduce(read_deepbench_allreduce(kAllReduce));
  REQUIRE(fits.size() == 6);
  // Issue targets per system: held-out median |error| <= 15%, 90th percentile <= 30%.
  for (const AllReduceFit& f : fits) {
    INFO(f.dataset);
    CHECK(f.held_out.count >= 3);
    CHECK(f.held_out.median_abs <= 0.15);
    CHECK(f.held_out.p90_abs <= 0.30);
    // A PCIe 3.0 x16 hop carries at most its 15.75 GB/s (specs.yaml pcie_gen3_x16), and the
    // levels are widest first.
    CHECK(f.level_bytes_per_s[0] < 15.75e9);
    CHECK(std::is_sorted(f.level_bytes_per_s.rbegin(), f.level_bytes_per_s.rend()));
    CHECK(f.step_latency_s > 0);
  }
  const AllReduceFit& p100 = fits.front();
  REQUIRE(p100.dataset == "P100_baidu_2018");
  // The step latency a system without `collectives` gets (hw/system_schema.cpp) is this fit's,
  // as printed to 0.1 us.
  const double default_step = hw::load_system("minsky").runtime.collectives.step_latency_s;
  CHECK(default_step == Approx(p100.step_latency_s).margin(0.05e-6));
}

TEST_CASE("allreduce fit: the catalog's DeepBench boxes cost every row as the fit does",
          "[calibrate][allreduce]") {
  // hw/catalog/systems/deepbench-*.yaml are the fitted boxes written out
  // (calibrate/allreduce_catalog.h; cli.calibrate_reproduces.allreduce checks they are what the
  // command writes). Loaded as any system, through its links and runtime, each must give every
  // fitted row the fit's own prediction: the files round bandwidths to 0.1 MB/s and the step to
  // 1 ns, so kRounding.
  constexpr double kRounding = 1e-3;
  const auto fits = fit_allreduce(read_deepbench_allreduce(kAllReduce));
  int systems = 0, rows = 0;
  for (const AllReduceFit& f : fits) {
    for (const bool cluster : {false, true}) {
      if (cluster && !f.network) continue;
      const hw::SystemSpec s = hw::load_system(allreduce_system_name(f.dataset, cluster));
      ++systems;
      const hw::Topology t(s);
      for (const AllReduceResidual& r : f.residuals) {
        if ((r.row.nodes > 1) != cluster) continue;
        INFO(r.row.where);
        const model::CollectiveGroup g(t, hw::data_parallel_devices(s, r.row.gpus),
                                       s.runtime.collectives);
        CHECK(g.cost(model::Collective::kAllReduce, r.row.bytes).time_s ==
              Approx(r.predicted_s).epsilon(kRounding));
        ++rows;
      }
    }
  }
  CHECK(systems == 11);  // 6 one-node boxes, 5 with a network fit
  CHECK(rows > 100);
}

TEST_CASE("allreduce fit: bad rows are located errors", "[calibrate][allreduce]") {
  const std::string bad = std::string(AMDAHL_FIXTURES) + "/calibrate/allreduce_bad_time.csv";
  CHECK_THROWS_WITH(
      read_deepbench_allreduce(bad),
      Contains("allreduce_bad_time.csv:3: column mean_us: expected a time from 1 ns to 1e+04 s "
               "(got '-5')"));
  // More GPUs in a node than the box has slots: located.
  const std::string crowded = std::string(AMDAHL_FIXTURES) + "/calibrate/allreduce_crowded.csv";
  CHECK_THROWS_WITH(read_deepbench_allreduce(crowded),
                    Contains("allreduce_crowded.csv:3: n_gpus: expected at most 8 GPUs per node "
                             "(the slots of DeepBench's PCIe boxes); got 4000 on 2 nodes"));
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
  std::vector<AllReduceRow> uneven = toy_rows(7e-6, {5.5e9, 5.5e9, 5.5e9}, 0, 0);
  AllReduceRow odd = uneven.front();
  odd.where = "toy.csv:40";
  odd.gpus = 6;
  odd.nodes = 4;
  uneven.push_back(odd);
  CHECK_THROWS_WITH(fit_allreduce(uneven),
                    Contains("toy.csv:40: n_gpus: 6 GPUs do not divide evenly over 4 nodes"));
}

namespace {

// A Tartan folder (shared/data/published/dgx1-p100-tartan/README.md) of NCCL `version` files
// holding the given bodies under their headers.
std::string tartan_folder(const std::string& name, const std::string& bandwidth,
                          const std::string& latency, const std::string& packet) {
  const std::filesystem::path dir = amdahl::test::scratch_folder(name);
  std::ofstream(dir / "nccl-v1-bandwidth.txt") << "OP,GPU,Bandwidth\n" << bandwidth;
  std::ofstream(dir / "nccl-v1-latency.txt") << "OP,GPU,Latency\n" << latency;
  std::ofstream(dir / "nccl-v1-packet.txt") << "OP,Packet,Bandwidth\n" << packet;
  return dir.string();
}

}  // namespace

TEST_CASE("allreduce fit: Tartan rows are times from nccl-tests' bus bandwidth",
          "[calibrate][allreduce]") {
  const std::string dir = tartan_folder(
      "tartan-rows", "all_gather_perf,2,15.95\nall_reduce_perf,1,0.00\nall_reduce_perf,4,14.25\n",
      "all_reduce_perf,8,0.074\n",
      "all_reduce_perf,8,0.00\nall_reduce_perf,512,0.01\nall_reduce_perf,1048576,5.90\n");
  const std::vector<AllReduceRow> rows = read_tartan_allreduce(dir, "v1", "dgx1");
  REQUIRE(rows.size() == 6);  // the all_gather row is not an all-reduce
  // busbw = algbw 2(p-1)/p, algbw = S / t (nccl-tests): t = S 2(p-1)/p / busbw.
  CHECK(rows[1].gpus == 4);
  CHECK(rows[1].bytes == 1073741824.0);
  CHECK(rows[1].measured_s == Approx(1073741824.0 * 1.5 / 14.25e9).epsilon(kRel));
  CHECK(rows[1].where == dir + "/nccl-v1-bandwidth.txt:4");
  CHECK(fitted_allreduce_row(rows[1]));
  CHECK_FALSE(fitted_allreduce_row(rows[0]));  // one GPU: no transfer
  // latency.txt: milliseconds of an 8-byte all-reduce.
  CHECK(rows[2].bytes == 8);
  CHECK(rows[2].gpus == 8);
  CHECK(rows[2].measured_s == Approx(74e-6).epsilon(kRel));
  // packet.txt: 8 GPUs; 0.00 and 0.01 GB/s have too few digits to time a row.
  CHECK_FALSE(fitted_allreduce_row(rows[3]));
  CHECK_FALSE(fitted_allreduce_row(rows[4]));
  CHECK(rows[5].measured_s == Approx(1048576.0 * 1.75 / 5.90e9).epsilon(kRel));
  CHECK(rows[5].dataset == "dgx1");

  // Bad rows: located at the file, line and column.
  const std::string bad = tartan_folder("tartan-bad", "all_reduce_perf,9,7.58\n",
                                        "all_reduce_perf,8,0.074\n", "all_reduce_perf,1024,0.02\n");
  CHECK_THROWS_WITH(read_tartan_allreduce(bad, "v1", "dgx1"),
                    Contains("nccl-v1-bandwidth.txt:2: column GPU: expected a whole number from "
                             "1 to 8 (got '9')"));
  const std::string negative =
      tartan_folder("tartan-negative", "all_reduce_perf,8,-7.58\n", "all_reduce_perf,8,0.074\n",
                    "all_reduce_perf,1024,0.02\n");
  CHECK_THROWS_WITH(read_tartan_allreduce(negative, "v1", "dgx1"),
                    Contains("nccl-v1-bandwidth.txt:2: column Bandwidth"));
  const std::string no_time =
      tartan_folder("tartan-no-time", "all_reduce_perf,8,7.58\n", "all_reduce_perf,8,fast\n",
                    "all_reduce_perf,1024,0.02\n");
  CHECK_THROWS_WITH(read_tartan_allreduce(no_time, "v1", "dgx1"),
                    Contains("nccl-v1-latency.txt:2: column Latency"));
}

TEST_CASE("allreduce fit: the DGX-1's NCCL 1.x collectives are the Tartan fit",
          "[calibrate][allreduce][catalog]") {
  const std::string dir = std::string(AMDAHL_SHARED_DIR) + "/data/published/dgx1-p100-tartan";
  const std::vector<AllReduceFit> fits =
      fit_allreduce(read_tartan_allreduce(dir, "v1", std::string(kTartanDataset)));
  REQUIRE(fits.size() == 1);
  const AllReduceFit& f = fits.front();
  // Held out, as docs/calibration-collectives.md reports it.
  CHECK(f.held_out.count == 6);
  CHECK(f.held_out.median_abs < 0.15);
  CHECK(f.held_out.p90_abs < 0.30);
  // The system file holds the fit as the command prints it: the step to 0.1 us, the
  // bandwidths to 0.01 GB/s (half a printed digit each way).
  constexpr double kPrintedStep = 0.05e-6, kPrintedBandwidth = 0.005e9;
  // What those roundings do to a row's time: under 1% (a 6.0 us step off by 0.05 us, 7.71 GB/s
  // off by 0.005 GB/s).
  constexpr double kRoundedTime = 0.01;
  const hw::SystemSpec dgx1 = hw::load_system("dgx1-p100");
  const hw::CollectiveSpec& c = dgx1.runtime.collectives;
  CHECK_FALSE(c.peer_links);
  CHECK(c.algorithm == hw::CollectiveAlgorithmChoice::kRing);
  CHECK(std::abs(c.step_latency_s - f.step_latency_s) <= kPrintedStep);
  REQUIRE(c.link_bandwidth.size() == 2);
  // The switch and socket levels are both the DGX-1's PCIe 3.0 x16 links: one bandwidth.
  CHECK(f.level_bytes_per_s[0] == f.level_bytes_per_s[1]);
  CHECK(c.link_bandwidth[0].link_model == "PCIe 3.0 x16");
  CHECK(std::abs(c.link_bandwidth[0].bytes_per_s - f.level_bytes_per_s[0]) <= kPrintedBandwidth);
  CHECK(c.link_bandwidth[1].link_model == "Intel QPI 9.6 GT/s x2");
  CHECK(std::abs(c.link_bandwidth[1].bytes_per_s - f.level_bytes_per_s[2]) <= kPrintedBandwidth);
  // The system's collectives cost each fitted row as the fit's box does, to that rounding:
  // its PCIe tree is the box's (GPUs in pairs behind a switch, two switches a socket).
  const hw::Topology t(dgx1, hw::LinkUse::kCollectives);
  for (const AllReduceResidual& r : f.residuals) {
    INFO(r.row.where);
    const model::CollectiveGroup g(t, hw::data_parallel_devices(dgx1, r.row.gpus), c);
    CHECK(g.cost(model::Collective::kAllReduce, r.row.bytes).time_s ==
          Approx(r.predicted_s).epsilon(kRoundedTime));
  }
}
