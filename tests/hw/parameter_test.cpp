// Hardware parameters by key path (hw/parameter.h) on the catalog's Minsky: what each path
// reads and writes, globs, a link's achieved bandwidths following its nominal one, and the
// errors for what a system file would refuse. Expected values are the catalog files' numbers.

#include "hw/parameter.h"

#include <catch2/catch.hpp>

#include "hw/quantity_expr.h"
#include "hw/system_loader.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::hw;

namespace {

const SystemSpec& minsky() {
  static const SystemSpec s = load_system("minsky");
  return s;
}

}  // namespace

TEST_CASE("a device key path reads and writes the device's number", "[hw][parameter]") {
  const SystemSpec& base = minsky();
  SystemSpec s = base;
  const SystemParameter fp16(base, "gpu0.peak.fp16");  // = gpu0.peak.fp16.rate
  CHECK(fp16.dimension() == Dimension::kFlopRate);
  CHECK(fp16.get(base) == 21.2e12);  // p100-sxm2.yaml
  CHECK(SystemParameter(base, "gpu0.peak.fp16.rate").get(base) == 21.2e12);
  fp16.set(s, base, 100e12);
  CHECK(s.device("gpu0").peak.at(Precision::kFp16).flops_per_s == 100e12);
  CHECK(s.device("gpu1").peak.at(Precision::kFp16).flops_per_s == 21.2e12);  // only gpu0

  const SystemParameter bw(base, "gpu0.memory.bandwidth");
  CHECK(bw.get(base) == 732e9);
  bw.scale(s, base, 2.0);
  CHECK(s.device("gpu0").memory.bandwidth_bytes_per_s == 1464e9);
  CHECK(bw.format(1464e9) == "1.464 TB/s");

  const SystemParameter units(base, "gpu0.parallel_units");
  CHECK(units.integer());
  CHECK(units.get(base) == 56);

  // An efficiency entry the device gives, and one it leaves to `default`.
  const SystemParameter gemm(base, "gpu0.efficiency.gemm.compute");
  CHECK(gemm.get(base) == Approx(0.972));
  gemm.set(s, base, 0.5);
  CHECK(s.device("gpu0").efficiency_for(OpClass::kGemm).compute == 0.5);
  const SystemParameter softmax(base, "gpu0.efficiency.softmax.memory");
  CHECK(softmax.get(base) == base.device("gpu0").default_efficiency().memory);
  softmax.set(s, base, 0.9);
  CHECK(s.device("gpu0").efficiency_for(OpClass::kSoftmax).memory == 0.9);
  CHECK(s.device("gpu0").efficiency_for(OpClass::kSoftmax).compute ==
        base.device("gpu0").default_efficiency().compute);  // the rest from `default`
}

TEST_CASE("a glob sets every matching device", "[hw][parameter]") {
  const SystemSpec& base = minsky();
  SystemSpec s = base;
  const SystemParameter all(base, "gpu*.memory.bandwidth");
  CHECK(all.targets() == std::vector<std::string>{"gpu0", "gpu1", "gpu2", "gpu3"});
  all.set(s, base, 2e12);
  for (const char* g : {"gpu0", "gpu1", "gpu2", "gpu3"})
    CHECK(s.device(g).memory.bandwidth_bytes_per_s == 2e12);
  CHECK(s.device("cpu0").memory.bandwidth_bytes_per_s ==
        base.device("cpu0").memory.bandwidth_bytes_per_s);
}

TEST_CASE("a link's bandwidth carries its achieved bandwidths in proportion", "[hw][parameter]") {
  const SystemSpec& base = minsky();
  SystemSpec s = base;
  const LinkSpec& b = *base.link_between("cpu0", "gpu0");
  const SystemParameter nominal(base, "links.cpu0-gpu0.bandwidth");
  nominal.set(s, base, 2 * b.bandwidth_bytes_per_s);
  const LinkSpec& l = *s.link_between("cpu0", "gpu0");
  CHECK(l.bandwidth_bytes_per_s == 2 * b.bandwidth_bytes_per_s);
  CHECK(l.h2d_pinned == Approx(2 * b.h2d_pinned));
  CHECK(l.d2h_pageable == Approx(2 * b.d2h_pageable));
  // Set again from the base: no accumulation on the working copy.
  nominal.set(s, base, 2 * b.bandwidth_bytes_per_s);
  CHECK(s.link_between("cpu0", "gpu0")->h2d_pinned == Approx(2 * b.h2d_pinned));
  // One achieved bandwidth alone.
  SystemParameter(base, "links.cpu0-gpu0.h2d_pinned").set(s, base, 1e9);
  CHECK(s.link_between("cpu0", "gpu0")->h2d_pinned == 1e9);
  CHECK(s.link_between("cpu0", "gpu0")->bandwidth_bytes_per_s == 2 * b.bandwidth_bytes_per_s);
}

TEST_CASE("runtime key paths", "[hw][parameter]") {
  const SystemSpec& base = minsky();
  SystemSpec s = base;
  const SystemParameter dispatch(base, "runtime.dispatch_per_op");
  CHECK(dispatch.get(base) == Approx(20e-6));  // minsky.yaml
  dispatch.set(s, base, 5e-6);
  CHECK(s.runtime.dispatch_per_op_s == 5e-6);
  const SystemParameter conv(base, "runtime.ops.conv.host");
  conv.set(s, base, 7e-6);
  CHECK(s.runtime.op_host_s(OpClass::kConv, false) == 7e-6);
  CHECK(s.runtime.op_host_s(OpClass::kConv, true) == Approx(20e-6));  // backward: the fallback
}

TEST_CASE("key path errors name the key, the valid ones and the closest", "[hw][parameter]") {
  const SystemSpec& s = minsky();
  CHECK_THROWS_WITH(SystemParameter(s, "gpu0.memroy.bandwidth"),
                    Catch::Contains("unknown key 'memroy' after 'gpu0'") &&
                        Catch::Contains("did you mean 'memory'"));
  CHECK_THROWS_WITH(SystemParameter(s, "gpu0.peak.fp33"),
                    Catch::Contains("unknown name 'fp33' after 'gpu0.peak'") &&
                        Catch::Contains("did you mean 'fp32'"));
  CHECK_THROWS_WITH(SystemParameter(s, "gpu9.peak.fp32"),
                    Catch::Contains("no device named 'gpu9'") && Catch::Contains("cpu0, cpu1"));
  CHECK_THROWS_WITH(SystemParameter(s, "links.cpu0-gpu9.bandwidth"),
                    Catch::Contains("no link named 'cpu0-gpu9'"));
  CHECK_THROWS_WITH(SystemParameter(s, "gpu0.kind"), Catch::Contains("is not a number"));
  CHECK_THROWS_WITH(SystemParameter(s, "gpu0.memory"), Catch::Contains("a key is missing"));
  CHECK_THROWS_WITH(SystemParameter(s, "gpu0.peak.tf32"), Catch::Contains("has no tf32 rate"));
  CHECK_THROWS_WITH(SystemParameter(s, "network.bandwidth"),
                    Catch::Contains("no network between nodes"));
  CHECK_THROWS_WITH(SystemParameter(s, "runtime.collectives.bucket_cap"),
                    Catch::Contains("change how a network is lowered"));
  CHECK_THROWS_WITH(SystemParameter(s, "gpu0"), Catch::Contains("expected <device>.<key>"));
}

TEST_CASE("values are checked as a file's would be", "[hw][parameter]") {
  const SystemSpec& s = minsky();
  const SourceLocation where{"--vary", 0, 0};
  CHECK_THROWS_WITH(SystemParameter(s, "gpu0.memory.bandwidth").check(-1e12, "-1TB/s", where),
                    Catch::Contains("gpu0.memory.bandwidth: must be positive (got '-1TB/s')"));
  CHECK_THROWS_WITH(SystemParameter(s, "gpu0.efficiency.gemm.compute").check(1.5, "1.5", where),
                    Catch::Contains("must be a fraction in (0, 1]"));
  CHECK_THROWS_WITH(SystemParameter(s, "gpu0.parallel_units").check(10.5, "10.5", where),
                    Catch::Contains("must be a whole number"));
  CHECK_THROWS_WITH(SystemParameter(s, "gpu0.memory.bandwidth").check(1e-3, "1 mB/s", where),
                    Catch::Contains("outside the range amdahl models"));
  CHECK_NOTHROW(SystemParameter(s, "gpu0.memory.bandwidth").check(2e12, "2TB/s", where));
}

TEST_CASE("cost expressions: quantities, names and errors", "[hw][parameter]") {
  const QuantityExpression e("0.5 * peak / 100TFLOP/s + bw / 1 TB/s", {"peak", "bw"});
  CHECK(e.evaluate({200e12, 2e12}) == Approx(0.5 * 2 + 2));
  CHECK(QuantityExpression("2^3 - -1", {}).evaluate({}) == 9);
  CHECK(QuantityExpression("(1 + 2) * 3", {}).evaluate({}) == 9);
  CHECK(QuantityExpression("x / 1TB/s/2", {"x"}).evaluate({4e12}) == 2);  // "TB/s", then "/2"
  CHECK(QuantityExpression("5us", {}).evaluate({}) == Approx(5e-6));
  CHECK_THROWS_WITH(
      QuantityExpression("peek * 2", {"peak", "bw"}),
      Catch::Contains("unknown parameter 'peek'") && Catch::Contains("did you mean 'peak'"));
  CHECK_THROWS_WITH(QuantityExpression("5furlongs", {}), Catch::Contains("unknown unit"));
  CHECK_THROWS_WITH(QuantityExpression("(1 + 2", {}), Catch::Contains("expected ')'"));
  CHECK_THROWS_WITH(QuantityExpression("1 +", {}), Catch::Contains("character 4"));
}
