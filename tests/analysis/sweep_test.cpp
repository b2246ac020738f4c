#include "analysis/sweep.h"

#include <catch2/catch.hpp>

#include "graphs/point_lowering.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::model;
using namespace amdahl::analysis;

TEST_CASE("parse_vary: lists, ranges, steps and geometric ranges", "[model][sweep]") {
  CHECK(parse_vary("batch=1,2,4").values == std::vector<std::int64_t>{1, 2, 4});
  CHECK(parse_vary("batch=1..4").values == std::vector<std::int64_t>{1, 2, 3, 4});
  CHECK(parse_vary("batch=16..64:16").values == std::vector<std::int64_t>{16, 32, 48, 64});
  CHECK(parse_vary("batch=1..100:x4").values == std::vector<std::int64_t>{1, 4, 16, 64});
  CHECK(parse_vary("seq_len=3,8..10").values == std::vector<std::int64_t>{3, 8, 9, 10});
  CHECK(parse_vary("batch=1..1000").values.size() == 1000);
  CHECK_THROWS_AS(parse_vary("batch"), UserError);
  CHECK_THROWS_AS(parse_vary("batch=0"), UserError);
  CHECK_THROWS_AS(parse_vary("batch=8..2"), UserError);
  CHECK_THROWS_AS(parse_vary("batch=1..8:x1"), UserError);
}

TEST_CASE("sweep_grid: cartesian product, last axis fastest", "[model][sweep]") {
  const auto g =
      sweep_grid({parse_vary("batch=1,2"), parse_vary("image=64,128")}, {{"classes", 10}});
  REQUIRE(g.size() == 4);
  CHECK(g[1] == graphs::Bindings{{"batch", 1}, {"image", 128}, {"classes", 10}});
  CHECK(g[2].at("batch") == 2);
  CHECK_THROWS_AS(sweep_grid({parse_vary("batch=1"), parse_vary("batch=2")}, {}), UserError);
}

TEST_CASE("sweep: rows match single predictions, in order, on several threads", "[model][sweep]") {
  const hw::SystemSpec system = hw::load_system("minsky");
  const auto net = std::make_shared<const graphs::Network>(graphs::load_zoo_network("alexnet"));
  const auto lower_at = [&](const graphs::Bindings& b) {
    return graphs::lower(graphs::bind_sizes(*net, b), graphs::LoweringOptions{});
  };
  const MakeLowerAt per_worker = [&]() -> LowerAt {
    auto points = std::make_shared<graphs::PointLowering>(net, graphs::LoweringOptions{});
    return [points](const graphs::Bindings& b) -> const graphs::LoweredNetwork& {
      return points->at(b);
    };
  };
  const auto grid = sweep_grid({parse_vary("batch=1,8,64,256")}, {});
  SweepOptions o;
  o.threads = 3;
  const auto rows = sweep(per_worker, system, grid, o);
  REQUIRE(rows.size() == 4);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    PredictOptions po;
    po.batch = grid[i].at("batch");
    const Prediction p = predict(lower_at(grid[i]), system, po);
    CHECK(rows[i].batch == po.batch);
    CHECK(rows[i].step_s == p.step_time_s);
    CHECK(rows[i].share_by_class.total() == Approx(1.0));
    PredictOptions host = po;
    host.placement.all = "host";
    CHECK(rows[i].host_step_s == predict(lower_at(grid[i]), system, host).step_time_s);
    CHECK(rows[i].host_speedup == Approx(rows[i].host_step_s / rows[i].step_s));
  }
  // The GPU's advantage grows with the problem: host-bound at batch 1, compute-bound later.
  CHECK(rows[3].host_speedup > rows[0].host_speedup);
  CHECK(rows[3].samples_per_s > rows[0].samples_per_s);
}

TEST_CASE("sweep rethrows the first error", "[model][sweep]") {
  const hw::SystemSpec system = hw::load_system("minsky");
  const MakeLowerAt failing = [] {
    return [](const graphs::Bindings&) -> const graphs::LoweredNetwork& {
      throw UserError("no such size");
    };
  };
  CHECK_THROWS_WITH(sweep(failing, system, {{{"batch", 1}}, {{"batch", 2}}}, SweepOptions{}),
                    "no such size");
}

TEST_CASE("a sweep range ends at the largest integers and is bounded in points", "[model][sweep]") {
  // The last step would overflow: the range stops instead of wrapping around for ever.
  const SweepAxis top = parse_vary("batch=9223372036854775806..9223372036854775807:x2");
  REQUIRE(top.values.size() == 1);
  CHECK(parse_vary("batch=9223372036854775806..9223372036854775807").values.size() == 2);
  CHECK_THROWS_WITH(parse_vary("batch=1..100000000"), Catch::Contains("more than 100000 points"));
  CHECK(parse_vary("batch=1..100000000:1000").values.size() == 100000);
  CHECK_THROWS_WITH(sweep_grid({parse_vary("a=1..1000"), parse_vary("b=1..1000")}, {}),
                    Catch::Contains("the grid has more than 100000 points"));
}

TEST_CASE("scaling is throughput against the base run, efficiency per rank", "[model][sweep]") {
  // 4 GPUs at 3x the throughput of 1: speedup 3, efficiency 3/4.
  const Scaling s = scaling_against(300, 4, 100, 1);
  CHECK(s.speedup == Approx(3.0));
  CHECK(s.efficiency == Approx(0.75));
  // Against a base of 2 GPUs, 8 GPUs at 4x: linear scaling (efficiency 1).
  CHECK(scaling_against(400, 8, 100, 2).efficiency == Approx(1.0));
  // A base that did not run (0 samples/s) gives 0, not infinity.
  CHECK(scaling_against(100, 2, 0, 1).speedup == 0.0);
}
