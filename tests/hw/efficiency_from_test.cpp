// efficiency_from: a device file that starts from another device's efficiency entries (a
// what-if card on a measured card's calibration, docs/calibration-checks.md).

#include <catch2/catch.hpp>
#include <string>

#include "cli/assumption_text.h"
#include "hw/system_loader.h"
#include "hw_fixtures.h"

using namespace amdahl;
using Catch::Contains;

using namespace amdahl::hw::test;

TEST_CASE("efficiency_from: the other device's entries, this file's replacing them one by one",
          "[hw][efficiency_from]") {
  const hw::DeviceSpec v100 = hw::load_device_file(hw::catalog_dir() + "/devices/v100-sxm2.yaml");
  const hw::DeviceSpec d = hw::load_device_file(fixture("efficiency_from.yaml"));
  CHECK(d.model == "Test GPU");
  CHECK(d.parallel_units == 8);  // its own specifications
  CHECK(d.peak_for(Precision::kFp32)->flops_per_s == Approx(10e12));
  CHECK(d.efficiency.size() == v100.efficiency.size());
  CHECK(d.efficiency.at(hw::entry("gemm")).compute == 0.5);  // its own entry, whole: no V100 tiles
  CHECK(d.efficiency.at(hw::entry("gemm")).gemm.tile_max == 0);
  for (const char* name : {"default", "conv", "conv_bwd_data", "conv_bwd_filter", "rnn"}) {
    const hw::EfficiencyKey entry = hw::entry(name);
    const hw::ClassEfficiency &mine = d.efficiency.at(entry), &theirs = v100.efficiency.at(entry);
    CHECK(mine.compute == theirs.compute);
    CHECK(mine.gemm.k_half == theirs.gemm.k_half);
    CHECK(mine.gemm.tile_max == theirs.gemm.tile_max);
  }
  bool said = false;
  for (const std::string& a : cli::assumption_lines(d.assumptions))
    said = said || (a.find("efficiency entries from Tesla V100 SXM2 16GB") != std::string::npos &&
                    a.find("fitted") != std::string::npos);
  CHECK(said);
}

TEST_CASE("efficiency_from: a missing, invalid or circular source is a located error",
          "[hw][efficiency_from]") {
  CHECK_THAT(device_error("efficiency_from_missing.yaml"),
             Contains("efficiency_from_missing.yaml:13:") && Contains("efficiency_from") &&
                 Contains("cannot open file") && Contains("'no_such_device.yaml'"));
  // The source's own problems, at their own locations.
  CHECK_THAT(device_error("efficiency_from_invalid.yaml"),
             Contains("missing_required.yaml:") && Contains("required key is missing"));
  CHECK_THAT(device_error("efficiency_from_cycle_a.yaml"),
             Contains("efficiency_from_cycle_b.yaml:13:") && Contains("cycle") &&
                 Contains("efficiency_from_cycle_a.yaml -> ") &&
                 Contains("efficiency_from_cycle_b.yaml -> "));
}
