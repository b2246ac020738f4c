// calibrate/allreduce_fit.h: the ring all-reduce of model::CollectiveGroup over a star of GPUs,
// fitted to DeepBench's all-reduce runs.

#include "calibrate/allreduce_fit.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <iterator>

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
    const auto c = star_ring_allreduce(p, 64e6, 8e-6, 6e9);
    CHECK(c.time_s == Approx(ring_by_hand(p, 64e6, 8e-6, 6e9)).epsilon(kRel));
    CHECK(c.steps == 2 * (p - 1));
    CHECK(c.bandwidth_bytes_per_s == Approx(6e9));  // every link direction crossed once
  }
}

TEST_CASE("allreduce fit: recovers the parameters its rows were made with",
          "[calibrate][allreduce]") {
  const double a = 7e-6, bw = 5.5e9;
  std::vector<AllReduceRow> rows;
  int line = 2;
  for (const double bytes : {4e5, 1.2e7, 6.7e7, 2.6e8})
    for (const int p : {2, 4, 8}) {
      AllReduceRow r;
      r.where = "toy.csv:" + std::to_string(line++);
      r.dataset = "toy";
      r.gpu = "Toy GPU";
      r.algorithm = "NCCL 2.0 MPI";
      r.gpus = p;
      r.bytes = bytes;
      r.measured_s = ring_by_hand(p, bytes, a, bw);
      rows.push_back(r);
    }
  AllReduceRow multi = rows.front();  // two nodes: counted, not fitted
  multi.nodes = 2;
  rows.push_back(multi);
  AllReduceRow mpi = rows.front();  // not NCCL: counted, not fitted
  mpi.algorithm = "OSU MPI";
  rows.push_back(mpi);
  const auto fits = fit_allreduce(rows);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].step_latency_s == Approx(a).epsilon(1e-6));
  CHECK(fits[0].hop_bytes_per_s == Approx(bw).epsilon(1e-6));
  CHECK(fits[0].rows_not_fitted == 2);
  CHECK(fits[0].train.count == 10);  // 12 rows, every fifth (rows 5 and 10) held out
  CHECK(fits[0].held_out.count == 2);
  CHECK(fits[0].held_out.max_abs < 1e-6);
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

TEST_CASE(
    "allreduce fit: every dataset's figures are the ones docs/calibration-collectives.md quotes",
    "[calibrate][allreduce]") {
  // docs/calibration-collectives.md: held-out median and 90th percentile of |error| (printed to
  // 0.1%), step latency (0.1 us) and hop bandwidth (0.01 GB/s).
  // A change in a fit changes the table in the same commit.
  struct Quoted {
    const char* dataset;
    double median, p90, step_us, hop_gb;
  };
  const Quoted quoted[] = {
      {"P100_baidu_2018", 3.8, 14.7, 9.2, 5.75},
      {"P100_baidu_2017-05", 23.6, 41.4, 7.8, 9.54},
      {"TitanXPascal", 7.7, 16.8, 6.7, 10.92},
      {"1080Ti", 7.2, 17.1, 6.5, 10.80},
      {"M40", 2.5, 9.9, 11.0, 5.93},
      {"TitanX_Maxwell", 3.2, 9.5, 11.2, 6.03},
  };
  const auto fits = fit_allreduce(read_deepbench_allreduce(kAllReduce));
  REQUIRE(fits.size() == std::size(quoted));
  for (const Quoted& q : quoted) {
    INFO(q.dataset);
    const auto it = std::find_if(fits.begin(), fits.end(),
                                 [&](const AllReduceFit& f) { return f.dataset == q.dataset; });
    REQUIRE(it != fits.end());
    CHECK(100 * it->held_out.median_abs == Approx(q.median).margin(0.05));
    CHECK(100 * it->held_out.p90_abs == Approx(q.p90).margin(0.05));
    CHECK(1e6 * it->step_latency_s == Approx(q.step_us).margin(0.05));
    CHECK(it->hop_bytes_per_s / 1e9 == Approx(q.hop_gb).margin(0.005));
  }
}

TEST_CASE("allreduce fit: bad rows are located errors", "[calibrate][allreduce]") {
  const std::string bad = std::string(AMDAHL_FIXTURES) + "/calibrate/allreduce_bad_time.csv";
  CHECK_THROWS_WITH(read_deepbench_allreduce(bad),
                    Contains("allreduce_bad_time.csv:3: column mean_us: expected a finite number > 0 "
                             "(got '-5')"));
  std::vector<AllReduceRow> two(2);
  for (auto& r : two) {
    r.dataset = "tiny";
    r.algorithm = "NCCL 2.0 MPI";
    r.gpus = 2;
    r.bytes = 1e6;
    r.measured_s = 1e-4;
  }
  CHECK_THROWS_WITH(fit_allreduce(two), Contains("dataset 'tiny' has 2 training rows"));
}
