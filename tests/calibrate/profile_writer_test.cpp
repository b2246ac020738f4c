#include "calibrate/profile_writer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "hw/system_loader.h"
#include "scratch_dir.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::calibrate;
namespace fs = std::filesystem;

using amdahl::test::scratch_file;

namespace {
const std::string kBase =
    "# a device\n"
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
    "  # defaults\n"
    "  default: {compute: 0.75, memory: 0.8, source: \"assumption\"}\n"
    "  gemm: {compute: 0.5, memory: 0.8}\n";

ClassFit gemm_fit() {
  ClassFit f;
  f.entry = {OpClass::kGemm};
  f.params.compute = 0.9123;
  f.params.memory = 0.8;
  f.params.gemm.tile_m = 128;
  f.params.gemm.tile_n = 64;
  f.params.gemm.k_half = 40;
  f.params.latency_s = 2.5e-6;
  return f;
}
}  // namespace

TEST_CASE("a calibrated device keeps the base, replaces fitted entries and is stable",
          "[calibrate][writer]") {
  const std::string once = render_calibrated_device(kBase, {gemm_fit()}, {"fit"}, "test data");
  CHECK(once.find("calibrated: true") != std::string::npos);
  CHECK(once.find("calibration: \"test data\"") != std::string::npos);
  CHECK(once.find("default: {compute: 0.75") != std::string::npos);  // kept verbatim
  CHECK(once.find("gemm: {compute: 0.5") == std::string::npos);      // replaced
  CHECK(once.find("gemm: {compute: 0.9123, memory: 0.8, tile_m: 128, tile_n: 64, k_half: 40, "
                  "latency: 2.5 us") != std::string::npos);
  // Calibrating the calibrated file again gives the same text (the shipped file reproduces).
  CHECK(render_calibrated_device(once, {gemm_fit()}, {"fit"}, "test data") == once);

  const auto path = scratch_file("writer_test.yaml");
  write_file_atomically(
      {path, once, [](const std::string& tmp) { hw::load_device_file(tmp); }, true});
  const hw::DeviceSpec d = hw::load_device_file(path);
  CHECK(d.calibrated);
  CHECK(d.efficiency.at(hw::entry("gemm")).gemm.tile_m == 128);
  CHECK(d.efficiency.at(hw::entry("gemm")).latency_s == Approx(2.5e-6));
}

TEST_CASE("a kernel family with Winograd as an algorithm is written and read back",
          "[calibrate][writer]") {
  ClassFit f = gemm_fit();
  f.entry = {OpClass::kConv};
  f.params.gemm.tile_n = 0;  // tile_m 128 fixes the rows of the tile set 32..128
  f.params.gemm.tile_min = 32;
  f.params.gemm.tile_max = 128;
  f.params.gemm.tile_choice = hw::TileChoice::kWaste;
  f.params.conv.winograd = 2.4;
  f.params.conv.winograd_algorithm = true;
  f.params.conv.strided_work = 0.48;
  f.params.conv.as_forward = 1.064;
  f.params.gemm.split_k = 0.517;
  f.params.traffic.memory_in_series = true;
  f.params.traffic.unblocked = true;
  const std::string text = render_calibrated_device(kBase, {f}, {"fit"}, "test data");
  CHECK(text.find("conv: {compute: 0.9123, memory: 0.8, tile_m: 128, tile_min: 32, tile_max: 128, "
                  "tile_choice: waste, winograd: 2.4, winograd_algorithm: true, strided_work: "
                  "0.48, as_forward: 1.064, split_k: 0.517, memory_in_series: true, "
                  "unblocked: true") != std::string::npos);
  const auto path = scratch_file("writer_family_test.yaml");
  write_file_atomically(
      {path, text, [](const std::string& tmp) { hw::load_device_file(tmp); }, true});
  const hw::ClassEfficiency e = hw::load_device_file(path).efficiency.at(hw::entry("conv"));
  CHECK(e.gemm.tile_m == 128);
  CHECK(e.gemm.tile_n == 0);
  CHECK(e.gemm.tile_choice == hw::TileChoice::kWaste);
  CHECK(e.conv.winograd_algorithm);
  CHECK(e.conv.winograd == Approx(2.4));
  CHECK(e.conv.strided_work == Approx(0.48));
  CHECK(e.conv.as_forward == Approx(1.064));
  CHECK(e.gemm.split_k == Approx(0.517));
  CHECK(e.traffic.memory_in_series);
  CHECK(e.traffic.unblocked);
  // The defaults: fill, Winograd as a factor.
  const hw::ClassEfficiency g = hw::load_device_file(path).efficiency.at(hw::entry("gemm"));
  CHECK(g.gemm.tile_choice == hw::TileChoice::kFill);
  CHECK_FALSE(g.conv.winograd_algorithm);
  CHECK(g.conv.strided_work == 1);
  CHECK(g.conv.as_forward == 0);
  CHECK_FALSE(g.traffic.memory_in_series);
  CHECK_FALSE(g.traffic.unblocked);
}

TEST_CASE("a cache term is written and read back", "[calibrate][writer]") {
  ClassFit f;
  f.entry = {OpClass::kElementwise};
  f.params.compute = 0.5;
  f.params.memory = 0.95;
  f.params.latency_s = 1.2e-6;
  f.params.traffic.cache_boost = 4.447;
  f.params.traffic.cache_bytes = 6113812;
  const std::string text = render_calibrated_device(kBase, {f}, {"fit"}, "test data");
  CHECK(text.find("elementwise: {compute: 0.5, memory: 0.95, latency: 1.2 us, cache_boost: 4.447, "
                  "cache_bytes: 6113812 B") != std::string::npos);
  const auto path = scratch_file("writer_cache_test.yaml");
  write_file_atomically(
      {path, text, [](const std::string& tmp) { hw::load_device_file(tmp); }, true});
  const hw::DeviceSpec d = hw::load_device_file(path);
  CHECK(d.efficiency.at(hw::entry("elementwise")).traffic.cache_boost == Approx(4.447));
  CHECK(d.efficiency.at(hw::entry("elementwise")).traffic.cache_bytes == Approx(6113812));
  // Off by default: boost 1, no size.
  CHECK(d.efficiency.at(hw::entry("gemm")).traffic.cache_boost == 1);
  CHECK(d.efficiency.at(hw::entry("gemm")).traffic.cache_bytes == 0);
}

TEST_CASE("a profile that fails validation is never written", "[calibrate][writer]") {
  const auto path = scratch_file("writer_keep.yaml");
  std::ofstream(path) << "old contents\n";
  CHECK_THROWS_AS(
      write_file_atomically({path, "name: [broken\n",
                             [](const std::string& tmp) { hw::load_device_file(tmp); }, true}),
      UserError);
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  CHECK(line == "old contents");
  for (const auto& e : fs::directory_iterator(amdahl::test::scratch_dir()))
    CHECK(e.path().filename().string().find(".writer_keep.tmp") == std::string::npos);
}

TEST_CASE("files written together: one that fails validation leaves every target as it was",
          "[calibrate][writer]") {
  const auto device = scratch_file("writer_pair_device.yaml");
  const auto link = scratch_file("writer_pair_link.yaml");
  std::ofstream(device) << "old device\n";
  std::ofstream(link) << "old link\n";
  const auto first_line = [](const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
  };
  const auto accept = [](const std::string&) {};
  const auto reject = [](const std::string&) { throw UserError("link: bad"); };
  CHECK_THROWS_WITH(write_files_atomically({{device, "new device\n", accept, true},
                                            {link, "new link\n", reject, true}}),
                    "link: bad");
  CHECK(first_line(device) == "old device");  // validated first, never renamed
  CHECK(first_line(link) == "old link");
  for (const auto& e : fs::directory_iterator(amdahl::test::scratch_dir()))
    CHECK(e.path().filename().string().find(".writer_pair_") == std::string::npos);
  write_files_atomically(
      {{device, "new device\n", accept, true}, {link, "new link\n", accept, true}});
  CHECK(first_line(device) == "new device");
  CHECK(first_line(link) == "new link");
}
