#include "hw/class_efficiency.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <string>

#include "calibrate/profile_writer.h"
#include "hw/system_loader.h"
#include "hw/system_schema.h"
#include "scratch_dir.h"

// The efficiency parameter table drives the schema, the loader and the calibrated-file writer:
// every row is a schema key with the row's bounds and default, and every value a calibrated file
// writes loads back as the same value.

using namespace amdahl;

using amdahl::test::scratch_file;

namespace {

const std::string kBase =
    "name: Test GPU\n"
    "kind: gpu\n"
    "source: test\n"
    "parallel_units: 10\n"
    "peak:\n"
    "  fp32: {rate: 1 TFLOP/s}\n"
    "memory: {capacity: 1 GiB, bandwidth: 100 GB/s}\n"
    "launch_latency: 5 us\n"
    "calibrated: false\n"
    "efficiency:\n"
    "  default: {compute: 0.75, memory: 0.8}\n";

// A value inside the row's bounds, away from its default, exactly representable in the
// writer's 4 significant digits.
double non_default_value(const hw::EfficiencyParamSpec& p) {
  switch (p.type) {
    case hw::ParamType::kBool:
      return 1;
    case hw::ParamType::kEnum:
      return static_cast<double>(p.choices.size() - 1);
    case hw::ParamType::kInt:
      return 32;
    default:
      break;
  }
  if (p.format == hw::WriteFormat::kWhole) return p.default_value + 4096;
  if (p.max <= 1) return 0.375;
  if (p.transform == hw::FitTransform::kRange) return (p.fit_min + p.fit_max) / 2;
  if (p.dimension == hw::Dimension::kTime) return 2.5e-6;
  return p.default_value + 1.5;
}

const hw::Field& efficiency_field(const std::string& key) {
  for (const auto& f : hw::device_schema())
    if (f.key == "efficiency")
      for (const auto& c : f.children)
        if (c.key == key) return c;
  FAIL("efficiency." << key << " is not in the device schema");
  throw;
}

}  // namespace

TEST_CASE("efficiency parameters: one row each, in enumerator order, unique keys", "[hw]") {
  std::set<std::string_view> keys;
  for (std::size_t i = 0; i < hw::efficiency_params().size(); ++i) {
    const auto& p = hw::efficiency_params()[i];
    CHECK(static_cast<std::size_t>(p.id) == i);
    CHECK(keys.insert(p.key).second);
    CHECK_FALSE(p.description.empty());
    bool group_known = false;
    for (const auto& g : hw::efficiency_param_groups()) group_known |= g.name == p.group;
    CHECK(group_known);
  }
}

TEST_CASE("efficiency parameters: the schema has each row's key, default and bounds", "[hw]") {
  for (const auto& p : hw::efficiency_params()) {
    const hw::Field& f = efficiency_field(std::string(p.key));
    CHECK(f.default_text == p.default_text);
    if (p.type != hw::ParamType::kBool && p.type != hw::ParamType::kEnum) {
      CHECK(f.min_value == p.min);
      CHECK(f.max_value == p.max);
      CHECK(f.min_exclusive == p.min_exclusive);
    }
  }
}

TEST_CASE("efficiency parameters: written by the calibration writer, read back by the loader",
          "[hw][calibrate]") {
  for (const auto& p : hw::efficiency_params()) {
    DYNAMIC_SECTION(p.key) {
      // A file of its own per key: a file this process has read is never replaced by it
      // (util/path_policy.h).
      const auto path = scratch_file(fmt::format("param_table_{}.yaml", p.key));
      calibrate::ClassFit fit;
      fit.entry = {OpClass::kGemm};
      fit.params = hw::ClassEfficiency{0.5, 0.5};
      // Rows written only together with another (a tile set's bounds, the narrow kernel, the
      // cache step) get their partner set too.
      fit.params.gemm.tile_m = 64;
      fit.params.gemm.narrow_max = 8;
      fit.params.gemm.narrow_compute = 0.25;
      fit.params.traffic.cache_bytes = 4096;
      const double v = non_default_value(p);
      p.access.set(fit.params, v);
      REQUIRE(p.access.get(fit.params) == v);
      const std::string text = calibrate::render_calibrated_device(kBase, {fit}, {"t"}, "t");
      write_file_atomically({path, text, {}, true});
      const hw::DeviceSpec d = hw::load_device_file(path);
      CHECK(p.access.get(d.efficiency.at(hw::entry("gemm"))) == Approx(v).epsilon(1e-12));
      std::filesystem::remove(path);
    }
  }
}

TEST_CASE("efficiency parameters: a default-valued parameter is not written", "[calibrate]") {
  calibrate::ClassFit fit;
  fit.entry = {OpClass::kGemm};
  fit.params = hw::ClassEfficiency{0.5, 0.25};
  const std::string entry = calibrate::efficiency_entry(fit, "s");
  CHECK(entry == "gemm: {compute: 0.5, memory: 0.25, source: \"s\"}");
}

TEST_CASE(
    "efficiency keys: every name parses back to its key, and unknown names list the valid ones",
    "[hw]") {
  for (const auto& k : hw::efficiency_keys()) CHECK(hw::parse_efficiency_key(k.name()) == k);
  CHECK(hw::entry("conv_bwd_data.tf32") ==
        hw::EfficiencyKey{OpClass::kConv, Phase::kBackwardData, Precision::kTf32});
  CHECK(hw::entry("default").is_default());
  CHECK(hw::entry("gemm_bwd_filter").phase == Phase::kBackwardWeight);
  // Precision entries belong to the matrix classes only.
  CHECK_FALSE(hw::parse_efficiency_key("elementwise.fp16"));
  CHECK_FALSE(hw::parse_efficiency_key("conv.fp32"));
  CHECK_THROWS_WITH(hw::entry("conv_bwd_dat"), Catch::Contains("did you mean 'conv_bwd_data'"));
}
