#include "hw/units.h"

#include <catch2/catch.hpp>

#include "util/error.h"

using namespace amdahl::hw;

TEST_CASE("quantities parse to SI base units", "[hw][units]") {
  // Decimal prefixes are powers of 1000, binary ones powers of 1024 (docs/architecture.md, hw/).
  CHECK(parse_quantity_as("732 GB/s", Dimension::kBandwidth) == Approx(732e9));
  CHECK(parse_quantity_as("16 GiB", Dimension::kBytes) == Approx(16.0 * 1024 * 1024 * 1024));
  CHECK(parse_quantity_as("10.6 TFLOP/s", Dimension::kFlopRate) == Approx(10.6e12));
  CHECK(parse_quantity_as("5 us", Dimension::kTime) == Approx(5e-6));
  CHECK(parse_quantity_as("200 ms", Dimension::kTime) == Approx(0.2));
  CHECK(parse_quantity_as("1.48 GHz", Dimension::kFrequency) == Approx(1.48e9));
  CHECK(parse_quantity_as("4 MiB", Dimension::kBytes) == Approx(4.0 * 1048576));
  CHECK(parse_quantity_as("2 GFLOP", Dimension::kFlops) == Approx(2e9));
  CHECK(parse_quantity_as("0.8", Dimension::kDimensionless) == Approx(0.8));
}

TEST_CASE("a value of the wrong dimension is rejected with both dimensions named", "[hw][units]") {
  CHECK_THROWS_WITH(parse_quantity_as("732 GB", Dimension::kBandwidth),
                    Catch::Contains("bytes per second") && Catch::Contains("'732 GB'"));
  CHECK_THROWS_AS(parse_quantity_as("5 us", Dimension::kBytes), amdahl::UserError);
  CHECK_THROWS_AS(parse_quantity_as("16", Dimension::kBytes), amdahl::UserError);
}

TEST_CASE("malformed and unknown units are errors", "[hw][units]") {
  CHECK_THROWS_WITH(parse_quantity("fast"), Catch::Contains("expected a number"));
  CHECK_THROWS_WITH(parse_quantity("12 parsecs"), Catch::Contains("unknown unit 'parsecs'"));
  // Binary prefixes apply to bytes only; sub-unit prefixes to time only.
  CHECK_THROWS_AS(parse_quantity("3 GiHz"), amdahl::UserError);
  CHECK_THROWS_AS(parse_quantity("3 mB"), amdahl::UserError);
}

TEST_CASE("quantities format with readable prefixes", "[hw][units]") {
  CHECK(format_quantity(732e9, Dimension::kBandwidth) == "732 GB/s");
  CHECK(format_quantity(5e-6, Dimension::kTime) == "5 us");
  CHECK(format_quantity(0.0123, Dimension::kTime) == "12.3 ms");
}
