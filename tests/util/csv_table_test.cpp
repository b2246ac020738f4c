// CsvTable's typed reader of measured quantities (measured_cell) against hw::measured_range:
// a value inside the range comes back in SI units, everything else is an error at the cell.

#include "util/csv_table.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "hw/units.h"
#include "util/error.h"
#include "util/temp_dir.h"

using namespace amdahl;

namespace {
const PlausibleRange kTime = hw::measured_range(hw::Dimension::kTime);
constexpr double kUs = 1e-6;
}  // namespace

TEST_CASE("measured_cell scales a cell into SI units inside the range", "[util][csv]") {
  // 12.5 us in a microsecond column is 12.5e-6 s.
  CHECK(measured_cell("12.5", "f.csv:2", "median_us", kUs, kTime) == Approx(12.5e-6));
  // The range's ends are values: 1 ns and dimension_range(kTime).max.
  CHECK(measured_cell("1e-9", "f.csv:2", "time_s", 1, kTime) == 1e-9);
  CHECK(measured_cell("1e4", "f.csv:2", "time_s", 1, kTime) == 1e4);
}

TEST_CASE("measured_cell rejects absurd numbers at the cell, naming the rule", "[util][csv]") {
  // Each parses as a double, none is a measurement: beyond either end, not finite, negative
  // zero, subnormal, hexadecimal below 1 ns, a microsecond value that scales below 1 ns.
  for (const char* text : {"1e-300", "1e308", "nan", "inf", "-inf", "-0", "0", "1e-320",
                           "0x1p-1000", "-1", "1e5", "", "12 us", "0.0009"}) {
    INFO(text);
    const double scale = std::string(text) == "0.0009" ? kUs : 1;
    CHECK_THROWS_WITH(measured_cell(text, "f.csv:7", "time_s", scale, kTime),
                      Catch::Contains("f.csv:7: column time_s: expected a time from 1 ns to") &&
                          Catch::Contains("(got '"));
  }
}

TEST_CASE("a range with zero allowed takes exactly 0 and nothing between 0 and its minimum",
          "[util][csv]") {
  const PlausibleRange r = hw::measured_range(hw::Dimension::kTime, true);
  CHECK(measured_cell("0", "w", "c", kUs, r) == 0);
  CHECK(measured_cell("0.0", "w", "c", kUs, r) == 0);
  CHECK_THROWS_WITH(measured_cell("1e-300", "w", "c", kUs, r),
                    Catch::Contains("expected 0 or a time from 1 ns"));
  // 1e-320 us underflows to 0 s when scaled: still no zero.
  CHECK_THROWS_WITH(measured_cell("1e-320", "w", "c", kUs, r),
                    Catch::Contains("expected 0 or a time from 1 ns"));
}

TEST_CASE("CsvTable::measured locates the error at the file's line and column", "[util][csv]") {
  TempDir dir("amdahl-csv-test");
  const std::string path = (dir.path() / "runs.csv").string();
  std::ofstream(path) << "name,median_us\n\nok,100\nbad,1e308\n";
  const CsvTable t = CsvTable::read(path);
  CHECK(t.measured(0, 1, kUs, kTime) == Approx(100e-6));
  CHECK_THROWS_WITH(t.measured(1, 1, kUs, kTime),
                    Catch::Contains(path + ":4: column median_us: expected a time") &&
                        Catch::Contains("(got '1e308')"));
}

TEST_CASE("measured_range per dimension: within dimension_range, above zero", "[hw][units]") {
  for (const auto d : {hw::Dimension::kBytes, hw::Dimension::kBandwidth, hw::Dimension::kFlops,
                       hw::Dimension::kFlopRate, hw::Dimension::kTime, hw::Dimension::kFrequency}) {
    const PlausibleRange m = hw::measured_range(d);
    const hw::DimensionRange r = hw::dimension_range(d);
    CHECK(m.min > 0);
    CHECK(m.min >= r.min);
    CHECK(m.max == r.max);
    CHECK_FALSE(m.contains(0));
    CHECK(hw::measured_range(d, true).contains(0));
  }
  CHECK(hw::measured_range(hw::Dimension::kTime).min == 1e-9);
  CHECK(hw::measured_range(hw::Dimension::kBytes).min == 1);
  CHECK_THROWS_AS(hw::measured_range(hw::Dimension::kDimensionless), InternalError);
}
