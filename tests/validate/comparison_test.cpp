#include "validate/comparison.h"

#include <catch2/catch.hpp>

using namespace amdahl;
using namespace amdahl::validate;

namespace {
MeasuredRun run(std::int64_t batch, const char* precision, const char* mode, double measured_s) {
  MeasuredRun r;
  r.workload = "w";
  r.batch = batch;
  r.precision = precision;
  r.mode = mode;
  r.measured_s = measured_s;
  return r;
}
}  // namespace

TEST_CASE("comparison groups whole steps by precision, mode and batch", "[validate]") {
  // Every prediction is 1 s, so a run measured at m has error (1 - m) / m: measured 0.5 ->
  // +100%, 2 -> -50%, 1.25 -> -20%, 0.8 -> +25%, 4 -> -75%.
  const std::vector<MeasuredRun> runs{
      run(1, "fp32", "train", 0.5),    // +1.00
      run(16, "fp32", "infer", 2.0),   // -0.50
      run(64, "bf16", "train", 1.25),  // -0.20
      run(256, "bf16", "infer", 0.8),  // +0.25
      run(17, "fp32", "train", 4.0),   // -0.75
  };
  const ValidationReport r = compare(runs, [](const MeasuredRun&) {
    model::Prediction p;
    p.step_time_s = 1.0;
    return p;
  });
  REQUIRE(r.points.size() == 5);
  CHECK(r.points[0].error == Approx(1.0));
  CHECK(r.points[4].error == Approx(-0.75));
  const auto find = [&](const std::string& by, const std::string& group) {
    for (const auto& g : r.groups)
      if (g.by == by && g.group == group) return g.summary;
    FAIL("no group " << by << " " << group);
    return ErrorSummary{};
  };
  // |errors| sorted: all 0.20 0.25 0.50 0.75 1.00: median 0.50, p90 at position 3.6: 0.75 +
  // 0.6 x 0.25 = 0.90.
  CHECK(find("all", "all").points == 5);
  CHECK(find("all", "all").median_abs == Approx(0.5));
  CHECK(find("all", "all").p90_abs == Approx(0.9));
  // fp32: 0.50 0.75 1.00 -> median 0.75, p90 at 1.8: 0.75 + 0.8 x 0.25 = 0.95.
  CHECK(find("precision", "fp32").median_abs == Approx(0.75));
  CHECK(find("precision", "fp32").p90_abs == Approx(0.95));
  // bf16: 0.20 0.25 -> median 0.225.
  CHECK(find("precision", "bf16").median_abs == Approx(0.225));
  // train: 0.20 0.75 1.00 -> 0.75; infer: 0.25 0.50 -> 0.375.
  CHECK(find("mode", "train").median_abs == Approx(0.75));
  CHECK(find("mode", "infer").median_abs == Approx(0.375));
  // batch <= 16: 1 and 16 (1.00, 0.50) -> 0.75; > 16: 17, 64, 256 (0.75, 0.20, 0.25) -> 0.25.
  CHECK(find("batch", "<= 16").points == 2);
  CHECK(find("batch", "<= 16").median_abs == Approx(0.75));
  CHECK(find("batch", "> 16").points == 3);
  CHECK(find("batch", "> 16").median_abs == Approx(0.25));
  // Order: all, precisions as first seen, modes, then the batch groups.
  REQUIRE(r.groups.size() == 7);
  CHECK(r.groups[1].group == "fp32");
  CHECK(r.groups[2].group == "bf16");
  CHECK(r.groups[5].group == "<= 16");
}

TEST_CASE("comparison groups by GPU count only where a run used several", "[validate]") {
  // Every prediction is 1 s: measured 0.5 -> +100%, 2 -> -50%, 1.25 -> -20%.
  std::vector<MeasuredRun> runs{run(64, "fp32", "train", 0.5), run(64, "fp32", "train", 2.0),
                                run(64, "fp32", "train", 1.25)};
  const auto predict = [](const MeasuredRun&) {
    model::Prediction p;
    p.step_time_s = 1.0;
    return p;
  };
  auto by_gpus = [](const ValidationReport& r) {
    std::vector<GroupSummary> out;
    for (const auto& g : r.groups)
      if (g.by == "gpus") out.push_back(g);
    return out;
  };
  CHECK(by_gpus(compare(runs, predict)).empty());  // one GPU each: no such grouping
  runs[1].gpus = 8;
  runs[2].gpus = 8;
  const auto groups = by_gpus(compare(runs, predict));
  REQUIRE(groups.size() == 2);  // in order of first appearance
  CHECK(groups[0].group == "1");
  CHECK(groups[0].summary.median_abs == Approx(1.0));
  CHECK(groups[1].group == "8");
  CHECK(groups[1].summary.median_abs == Approx(0.35));  // 0.50 and 0.20
}
