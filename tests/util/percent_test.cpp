// The one format of a printed percentage: one decimal, exponent form from a million percent on,
// never a non-finite number.

#include "util/percent.h"

#include <catch2/catch.hpp>
#include <limits>

#include "util/error.h"

using namespace amdahl;

TEST_CASE("format_percent", "[util][percent]") {
  CHECK(format_percent(0.123) == "12.3%");
  CHECK(format_percent(0.123, true) == "+12.3%");
  CHECK(format_percent(-0.5, true) == "-50.0%");
  // 1e4 x 100 = 1e6 %: exponent form, three significant digits, never hundreds of digits.
  CHECK(format_percent(1e4) == "1e+06%");
  CHECK(format_percent(1.234e298, true) == "+1.23e+300%");
  CHECK_THROWS_AS(format_percent(std::numeric_limits<double>::infinity()), InternalError);
  CHECK_THROWS_AS(format_percent(std::numeric_limits<double>::quiet_NaN()), InternalError);
}
