#include "util/checked_math.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>

using amdahl::CheckedInt;

namespace {
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();  // 2^63 - 1
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();  // -2^63
constexpr std::int64_t k2To31 = std::int64_t{1} << 31;
constexpr std::int64_t k2To32 = std::int64_t{1} << 32;
}  // namespace

TEST_CASE("CheckedInt multiplies exactly up to the int64 range", "[util]") {
  CHECK((CheckedInt(32) * 128 * 768).value() == 32 * 128 * 768);
  // floor(sqrt(2^63 - 1)) = 3037000499: its square is the largest square below 2^63.
  const CheckedInt square = CheckedInt(3037000499) * 3037000499;
  REQUIRE(square.ok());
  CHECK(square.value() == 9223372030926249001);
  CHECK((CheckedInt(k2To31) * (k2To32 - 1)).value() == kMax - (k2To31 - 1));
  CHECK((CheckedInt(0) * kMax).value() == 0);
}

TEST_CASE("CheckedInt marks a product beyond 2^63 overflowed and names the step", "[util]") {
  // 2^31 x 2^32 = 2^63, one past the largest int64.
  const CheckedInt p = CheckedInt(k2To31) * k2To32;
  CHECK_FALSE(p.ok());
  CHECK(p.overflow() == "2147483648 * 4294967296");
  // Overflow sticks through later steps, which keep the first overflowed step's name.
  const CheckedInt later = (p + 1) * 0 - 5;
  CHECK_FALSE(later.ok());
  CHECK(later.overflow() == "2147483648 * 4294967296");
  // A right operand that overflowed passes its step on too.
  const CheckedInt right = CheckedInt(2) * (CheckedInt(kMax) + 1);
  CHECK(right.overflow() == "9223372036854775807 + 1");
  CHECK(CheckedInt(7).overflow().empty());
}

TEST_CASE("CheckedInt handles negative values at both ends of the range", "[util]") {
  // -2^62 x 2 = -2^63 is representable; -2^62 x -2 = +2^63 is not.
  const std::int64_t minus_2_to_62 = -(std::int64_t{1} << 62);
  CHECK((CheckedInt(minus_2_to_62) * 2).value() == kMin);
  CHECK_FALSE((CheckedInt(minus_2_to_62) * -2).ok());
  CHECK((CheckedInt(-3) * -4).value() == 12);
  CHECK((CheckedInt(-3) * 4).value() == -12);
  CHECK_FALSE((CheckedInt(kMin) * -1).ok());
  CHECK_FALSE((CheckedInt(kMin) - 1).ok());
  CHECK_FALSE((CheckedInt(0) - kMin).ok());
  CHECK((CheckedInt(kMin) + kMax).value() == -1);
  CHECK_FALSE((CheckedInt(kMax) + 1).ok());
}

TEST_CASE("CheckedInt divides as int64 does and marks what has no int64 quotient", "[util]") {
  CHECK((CheckedInt(7) / 2).value() == 3);
  CHECK((CheckedInt(-7) / 2).value() == -3);  // toward zero
  CHECK((CheckedInt(kMin) / 2).value() == kMin / 2);
  CHECK_FALSE((CheckedInt(kMin) / -1).ok());  // +2^63
  CHECK_FALSE((CheckedInt(1) / 0).ok());
}

TEST_CASE("CheckedInt's compound assignments accumulate products and sums", "[util]") {
  CheckedInt product = 1;
  for (std::int64_t dim : {64, 3, 224, 224}) product *= dim;
  CHECK(product.value() == 64 * 3 * 224 * 224);
  CheckedInt sum = kMax - 2;
  sum += 2;
  CHECK(sum.value() == kMax);
  sum += 1;
  CHECK_FALSE(sum.ok());
  sum -= 5;  // stays overflowed
  CHECK_FALSE(sum.ok());
}
