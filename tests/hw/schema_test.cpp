// One failing fixture per schema rule; each message must carry file:line and the key path.

#include <catch2/catch.hpp>
#include <string>

#include "hw/system_loader.h"
#include "hw_fixtures.h"
#include "util/diagnostics.h"

using namespace amdahl;

using namespace amdahl::hw::test;

using Catch::Contains;

TEST_CASE("schema rule: unknown key, with a suggestion", "[hw][schema]") {
  CHECK_THAT(
      device_error("unknown_key.yaml"),
      Contains("unknown_key.yaml:9:3: memory.bandwith: unknown key; did you mean 'bandwidth'"));
}

TEST_CASE("schema rule: required key missing", "[hw][schema]") {
  CHECK_THAT(device_error("missing_required.yaml"),
             Contains("missing_required.yaml:2:1: parallel_units: required key is missing"));
}

TEST_CASE("schema rule: quantity of the wrong dimension", "[hw][schema]") {
  CHECK_THAT(device_error("wrong_dimension.yaml"),
             Contains("wrong_dimension.yaml:10:14: memory.bandwidth: expected bytes per second") &&
                 Contains("(got bytes '732 GB')"));
}

TEST_CASE("schema rule: malformed quantity", "[hw][schema]") {
  CHECK_THAT(device_error("malformed_quantity.yaml"),
             Contains("malformed_quantity.yaml:11:17: launch_latency: expected a time") &&
                 Contains("(got 'soon')"));
}

TEST_CASE("schema rule: value not in the enumeration", "[hw][schema]") {
  CHECK_THAT(device_error("bad_enum.yaml"),
             Contains("bad_enum.yaml:3:7: kind: unknown value; did you mean 'gpu'") &&
                 Contains("(got 'gpuu')"));
}

TEST_CASE("schema rule: must be positive", "[hw][schema]") {
  CHECK_THAT(device_error("not_positive.yaml"),
             Contains("not_positive.yaml:5:17: parallel_units: must be positive (got '0')"));
}

TEST_CASE("schema rule: fraction out of range", "[hw][schema]") {
  CHECK_THAT(
      device_error("bad_fraction.yaml"),
      Contains("bad_fraction.yaml:15:22: efficiency.gemm.compute: must be a fraction in (0, 1]") &&
          Contains("(got '1.5')"));
}

TEST_CASE("schema rule: below a lower bound", "[hw][schema]") {
  CHECK_THAT(device_error("bad_cache_boost.yaml"),
             Contains("bad_cache_boost.yaml:15:18: efficiency.elementwise.cache_boost: must be at "
                      "least 1") &&
                 Contains("(got '0.5')"));
}

TEST_CASE("schema rule: key not allowed in a keyed map", "[hw][schema]") {
  CHECK_THAT(device_error("bad_precision.yaml"),
             Contains("bad_precision.yaml:8:3: peak.fp33: unknown key; did you mean 'fp32'"));
}

TEST_CASE("schema rule: integer expected", "[hw][schema]") {
  CHECK_THAT(device_error("not_integer.yaml"),
             Contains("not_integer.yaml:5:17: parallel_units: expected an integer (got '5.5')"));
}

TEST_CASE("schema rule: map expected", "[hw][schema]") {
  CHECK_THAT(device_error("not_a_map.yaml"),
             Contains("not_a_map.yaml:8:9: memory: expected a map (got '16 GiB')"));
}

TEST_CASE("schema rule: peak fp32 is required", "[hw][schema]") {
  CHECK_THAT(device_error("no_fp32.yaml"),
             Contains("no_fp32.yaml:2:1: peak.fp32: required key is missing"));
}

TEST_CASE("schema rule: calibrated devices name their calibration", "[hw][schema]") {
  CHECK_THAT(
      device_error("calibrated_without_source.yaml"),
      Contains(
          "calibrated_without_source.yaml:2:1: calibration: required when calibrated is true"));
}

TEST_CASE("malformed YAML is a located error", "[hw][schema]") {
  CHECK_THAT(device_error("malformed.yaml"),
             Contains("malformed.yaml:5:") && Contains("malformed YAML"));
}

TEST_CASE("all violations of a file are reported together", "[hw][schema]") {
  try {
    hw::load_device_file(fixture("many_errors.yaml"));
    FAIL("expected an error");
  } catch (const ConfigError& e) {
    CHECK(e.items().size() == 3);
  }
}

TEST_CASE("system rule: link to an unknown device", "[hw][schema]") {
  CHECK_THAT(
      system_error("system_unknown_device.yaml"),
      Contains(
          "system_unknown_device.yaml:7:36: links[0].to: unknown device; did you mean 'gpu0'"));
}

TEST_CASE("system rule: switches are linked, named once, and named right by links",
          "[hw][schema]") {
  const std::string e = system_error("system_bad_switches.yaml");
  CHECK_THAT(e, Contains("system_bad_switches.yaml:12:12: switches[2].name: a second device or "
                         "switch of this name (the first is at line 8) (got 'gpu0')"));
  CHECK_THAT(e,
             Contains("system_bad_switches.yaml:15:22: links[1].from: unknown device or "
                      "switch; did you mean 'plx0'? valid: cpu0, gpu0, plx0, lonely (got 'plx1')"));
  CHECK_THAT(e, Contains("system_bad_switches.yaml:11:12: switches[1].name: no link joins this "
                         "switch"));
}

TEST_CASE("system rule: include that does not exist", "[hw][schema]") {
  CHECK_THAT(system_error("system_missing_include.yaml"),
             Contains("no_such_device.yaml: cannot open file"));
}

TEST_CASE("system rule: errors inside an included file keep that file's location", "[hw][schema]") {
  CHECK_THAT(system_error("system_bad_include.yaml"),
             Contains("unknown_key.yaml:9:3: memory.bandwith"));
}

// Devices that include the same file share its problems: each is reported once, and a file
// that cannot be opened once for each entry that names it, at that entry.
TEST_CASE("system rule: a bad file included twice is reported once", "[hw][schema]") {
  const std::string message = system_error("system_bad_include_twice.yaml");
  const auto count = [&](const std::string& text) {
    std::size_t n = 0;
    for (auto at = message.find(text); at != std::string::npos; at = message.find(text, at + 1))
      ++n;
    return n;
  };
  CHECK(count("unknown_key.yaml:9:3: memory.bandwith") == 1);
  CHECK(count("no_such_device.yaml: cannot open file") == 2);
  CHECK_THAT(message, Contains("system_bad_include_twice.yaml:7:") &&
                          Contains("system_bad_include_twice.yaml:8:"));
}

TEST_CASE("system rule: unknown runtime key", "[hw][schema]") {
  CHECK_THAT(system_error("system_bad_runtime.yaml"),
             Contains("system_bad_runtime.yaml:10:3: runtime.dispatch: unknown key; did you mean "
                      "'dispatch_per_op'"));
}

TEST_CASE("unknown catalog system lists the catalog", "[hw][schema]") {
  CHECK_THROWS_WITH(hw::load_system("minksy"), Contains("did you mean 'minsky'"));
  CHECK_THROWS_WITH(hw::load_system("no/such.yaml"), Contains("no/such.yaml: no such system file"));
}

TEST_CASE("efficiency entries per tensor-core precision for matrix classes only", "[hw][schema]") {
  const hw::DeviceSpec d = hw::load_device_file(fixture("precision_entries.yaml"));
  CHECK(d.efficiency.at(hw::entry("gemm.fp16")).compute == 0.5);
  CHECK(d.efficiency.at(hw::entry("conv_bwd_data.bf16")).compute == 0.4);
  CHECK_THAT(device_error("bad_precision_entry.yaml"),
             Contains("bad_precision_entry.yaml:14:3: efficiency.elementwise.fp16: unknown key"));
}

TEST_CASE("schema rule: outside a closed range", "[hw][schema]") {
  CHECK_THAT(device_error("bad_within.yaml"),
             Contains("bad_within.yaml:14:44: efficiency.conv_bwd_filter.split_k: must be within "
                      "[0, 1] (got '1.5')"));
}

TEST_CASE("CPU framework entries: the im2col + GEMM thresholds and per-phase entries",
          "[hw][schema]") {
  const hw::DeviceSpec d = hw::load_device_file(fixture("framework_cpu.yaml"));
  CHECK(d.efficiency.at(hw::entry("conv")).cpu.gemm_pointwise_below_batch == 16);
  CHECK(d.efficiency.at(hw::entry("conv")).cpu.gemm_single_max_input == 20480);
  CHECK(d.efficiency.at(hw::entry("normalization_bwd_data")).memory == 0.9);
  CHECK(d.efficiency.at(hw::entry("pooling_bwd_data")).memory == 0.7);
  CHECK(d.allocation.above_bytes == 32.0 * 1024 * 1024);
  CHECK(d.allocation.bytes_per_s == 2e9);
  CHECK_THAT(device_error("bad_gemm_path.yaml"),
             Contains("bad_gemm_path.yaml:14:52: efficiency.conv.gemm_pointwise_below_batch: "
                      "must not be negative (got '-1')"));
}
