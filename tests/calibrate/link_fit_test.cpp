#include "calibrate/link_fit.h"

#include <catch2/catch.hpp>

#include "calibrate/profile_writer.h"
#include "hw/system_loader.h"
#include "scratch_dir.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::calibrate;

using amdahl::test::write_scratch_file;

namespace {
// tests/fixtures/calibrate/cudabench-link.csv: exact curves (its header), 33 sizes 4 KiB .. 256
// MiB per copy bench.
const std::string kFixture = std::string(AMDAHL_FIXTURES) + "/calibrate/cudabench-link.csv";
constexpr double kTolerance = 1e-6;  // the fixture's times carry 10 significant digits

Measurement copy(const std::string& bench, double bytes, double time_s) {
  Measurement m;
  m.bench = bench;
  m.op_class = "transfer";
  m.precision = "none";
  m.shape = {{"bytes", std::to_string(static_cast<long long>(bytes))}};
  m.bytes = bytes;
  m.time_s = time_s;
  return m;
}

const std::string kLink =
    "# a link\n"
    "name: Test link\n"
    "source: test\n"
    "bandwidth: 63 GB/s  # nominal\n"
    "latency: 8 us       # ASSUMPTION\n"
    "calibrated: false\n";
}  // namespace

TEST_CASE("copy curves recover latency and bandwidth of exact measurements", "[calibrate][link]") {
  const std::vector<CopyCurve> curves = fit_copy_curves(read_measurements(kFixture));
  REQUIRE(curves.size() == 4);
  struct Expected {
    const char* bench;
    double latency_s, bytes_per_s;
  };
  const Expected expected[] = {{"copy_h2d_pinned", 8e-6, 50e9},
                               {"copy_d2h_pinned", 9e-6, 52e9},
                               {"copy_h2d_pageable", 20e-6, 20e9},
                               {"copy_d2h_pageable", 25e-6, 16e9}};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(curves[i].bench == expected[i].bench);
    CHECK(curves[i].latency_s == Approx(expected[i].latency_s).epsilon(kTolerance));
    CHECK(curves[i].bytes_per_s == Approx(expected[i].bytes_per_s).epsilon(kTolerance));
    // 33 sizes: every fifth (index 4, 9, ..., 29) held out.
    CHECK(curves[i].train.count == 27);
    CHECK(curves[i].held_out.count == 6);
    CHECK(curves[i].held_out.max_abs < kTolerance);
  }
}

TEST_CASE("a copy curve whose intercept would be negative goes through zero", "[calibrate][link]") {
  // time = bytes / 10 GB/s - 1 us for 1..64 MiB: least squares gives a negative latency.
  MeasurementSet set;
  for (int i = 0; i < 7; ++i) {
    const double bytes = static_cast<double>(1 << 20) * (1 << i);
    set.rows.push_back(copy("copy_h2d_pinned", bytes, bytes / 10e9 - 1e-6));
  }
  const std::vector<CopyCurve> curves = fit_copy_curves(set);
  REQUIRE(curves.size() == 1);
  CHECK(curves[0].latency_s == 0);
  // Through zero the slope alone fits; the bandwidth stays within 1% of the curve's 10 GB/s.
  CHECK(curves[0].bytes_per_s == Approx(10e9).epsilon(0.01));
}

TEST_CASE("copy curves reject too few sizes and times that do not grow", "[calibrate][link]") {
  MeasurementSet few;
  few.rows = {copy("copy_d2h_pinned", 4096, 1e-5), copy("copy_d2h_pinned", 8192, 1.1e-5)};
  CHECK_THROWS_WITH(fit_copy_curves(few),
                    Catch::Contains("copy_d2h_pinned") && Catch::Contains("at least 3"));
  MeasurementSet shrinking;
  for (int i = 0; i < 6; ++i)
    shrinking.rows.push_back(copy("copy_h2d_pageable", 4096.0 * (1 << i), 1e-4 / (1 << i)));
  CHECK_THROWS_WITH(fit_copy_curves(shrinking), Catch::Contains("do not grow"));
}

TEST_CASE("launch times come from the launch rows and the largest graph", "[calibrate][link]") {
  const LaunchTimes t = launch_times(read_measurements(kFixture));
  CHECK(t.async_s == Approx(2.5e-6));
  CHECK(t.sync_s == Approx(7e-6));
  CHECK(t.graph_kernels == 1000);
  CHECK(t.graph_kernel_s == Approx(1.1e-6));
  CHECK(launch_times(MeasurementSet{}).async_s == 0);
}

TEST_CASE("the calibrated link keeps its nominal bandwidth and loads", "[calibrate][link]") {
  const std::vector<CopyCurve> curves = fit_copy_curves(read_measurements(kFixture));
  const std::string text = render_calibrated_link(kLink, curves, "synthetic");
  // The assumption's line is replaced, not kept beside the measured one.
  CHECK(text.find("ASSUMPTION") == std::string::npos);
  const hw::LinkSpec link = hw::load_link_file(write_scratch_file("link_fit_test.yaml", text));
  CHECK(link.bandwidth_bytes_per_s == Approx(63e9));
  CHECK(link.latency_s == Approx((8e-6 + 9e-6) / 2).epsilon(1e-3));  // the pinned copies' mean
  CHECK(link.h2d_pinned == Approx(50e9).epsilon(1e-3));
  CHECK(link.d2h_pinned == Approx(52e9).epsilon(1e-3));
  CHECK(link.h2d_pageable == Approx(20e9).epsilon(1e-3));
  CHECK(link.d2h_pageable == Approx(16e9).epsilon(1e-3));
  CHECK(link.calibrated);
  CHECK_THROWS_AS(render_calibrated_link(kLink, {}, "none"), UserError);
}

TEST_CASE("top-level keys are replaced with their blocks or appended", "[calibrate][link]") {
  const std::string text = "a: 1\nb:\n  x: 2\n  y: 3\nc: 4  # note\n";
  CHECK(set_top_level_keys(text, {{"b", "5"}, {"c", "6"}, {"d", "7"}}) ==
        "a: 1\nb: 5\nc: 6\nd: 7\n");
  CHECK(set_top_level_keys(text, {}) == text);
}
