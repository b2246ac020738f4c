// calibrate/calibration_run.h: the DeepBench card found from device files alone, the summary's
// reports, and requests the library refuses.
#include "calibrate/calibration_run.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "calibrate/deepbench.h"
#include "hw/system_loader.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::calibrate;

namespace {
const std::string kFixtures = std::string(AMDAHL_FIXTURES) + "/calibrate";
const std::string kDeepBench = std::string(AMDAHL_SHARED_DIR) + "/data/deepbench";
}  // namespace

TEST_CASE("a DeepBench dataset listed by a device file is found without C++ changes",
          "[calibrate][deepbench]") {
  const std::string catalog = kFixtures + "/catalog";
  const std::string card = catalog + "/devices/fixture-card.yaml";
  CHECK(deepbench_measured_device("Fixture_2024", catalog) == card);
  CHECK(deepbench_measured_device("Fixture_2025", catalog) == card);
  // The key is part of the device schema: the fixture loads as a device.
  CHECK(hw::load_device_file(card).model == "Tesla P100 PCIe 16GB");
  // Another name lists the datasets of the folder (other.yaml lists none).
  CHECK_THROWS_WITH(
      deepbench_measured_device("Fixture_2023", catalog),
      Catch::Contains("'Fixture_2023'") && Catch::Contains("listed: Fixture_2024, Fixture_2025;"));
  CHECK(deepbench_cards(catalog).size() == 2);
}

TEST_CASE("a malformed or duplicated deepbench_datasets is a located error",
          "[calibrate][deepbench]") {
  CHECK_THROWS_WITH(deepbench_cards(kFixtures + "/catalog-duplicate"),
                    Catch::Contains("b.yaml:") && Catch::Contains("'Fixture_2025'") &&
                        Catch::Contains("a.yaml too"));
  CHECK_THROWS_WITH(
      deepbench_cards(kFixtures + "/catalog-bad"),
      Catch::Contains("scalar.yaml:") && Catch::Contains("expected a list of dataset names"));
  CHECK_THROWS_WITH(hw::load_device_file(kFixtures + "/catalog-bad/devices/scalar.yaml"),
                    Catch::Contains("deepbench_datasets: expected a list of strings"));
  CHECK_THROWS_WITH(deepbench_cards(kFixtures + "/no-such-catalog"),
                    Catch::Contains("not a folder of device files"));
}

TEST_CASE("a calibration summary reports itself in one line", "[calibrate][summary]") {
  CalibrationSummary s;
  s.source = "DeepBench P100_baidu_2018 fp32";
  ClassFit gemm, conv;
  gemm.entry = {OpClass::kGemm};
  gemm.train.count = 128;
  gemm.held_out.count = 32;
  gemm.held_out.median_abs = 0.052;
  conv.entry = {OpClass::kConv};
  conv.train.count = 75;
  conv.held_out.count = 19;
  conv.held_out.median_abs = 0.091;
  s.calibration.fits = {gemm, conv};
  s.written = {{"p100.yaml"}, {"residuals.csv"}};
  CHECK(s.brief_report() ==
        "DeepBench P100_baidu_2018 fp32: 2 entries fitted (gemm 160, conv 94), held-out median "
        "|err| 5.2%..9.1%; wrote p100.yaml, residuals.csv");
  // The full report ends with one "wrote" line per group; a group of three as a list.
  s.written = {{"cpu.yaml", "cpu.device.yaml", "cpu.csv"}};
  const std::string full = s.full_report();
  CHECK(full.find("\ngemm ") != std::string::npos);
  CHECK_THAT(full, Catch::EndsWith("\nwrote cpu.yaml, cpu.device.yaml and cpu.csv\n"));
}

TEST_CASE("a check summary reports its overall error in one line", "[calibrate][summary]") {
  CheckSummary s;
  s.device = "p100-sxm2.yaml";
  s.source = "h200.csv";
  s.total.count = 601;
  s.total.median_abs = 0.071;
  s.total.p90_abs = 0.25;
  s.total.mean_signed = -0.012;
  CHECK(s.brief_report() ==
        "p100-sxm2.yaml checked against h200.csv: 601 rows, median |err| 7.1%, p90 25.0%, mean "
        "signed -1.2%");
}

TEST_CASE("calibration requests the library refuses", "[calibrate][summary]") {
  std::ostringstream log;
  CalibrationRequest cpu{CpuSource{true}, "", "", "", true};
  cpu.out = "/nonexistent/cpu.yaml";
  CHECK_THROWS_WITH(run_calibration(cpu, log), Catch::Contains("cross-validation"));
  CalibrationRequest db{DeepBenchSource{kDeepBench, "P100_baidu_2018"}, "", "out.yaml", "", false};
  CHECK_THROWS_WITH(run_calibration(db, log), Catch::Contains("the base device file is required"));
  MeasurementsSource link_only{kFixtures + "/cudabench-link.csv", "", "/nonexistent/link.yaml"};
  CalibrationRequest ms{link_only, hw::catalog_dir() + "/devices/h200-sxm.yaml", "out.yaml", "",
                        false};
  CHECK_THROWS_WITH(run_calibration(ms, log), Catch::Contains("needs the link file"));
  CHECK(log.str().empty());
}
