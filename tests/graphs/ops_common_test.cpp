// The size arithmetic the op rules share (graphs/ops/common.h): dprod for FLOP and byte
// counts, checked_size for the integers a rule needs exactly; the broadcast rule
// (graphs/ops/broadcast.h).

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>

#include "graphs/ops/broadcast.h"
#include "graphs/ops/common.h"
#include "test_network.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::graphs;
using Catch::Contains;

TEST_CASE("dprod multiplies as doubles, exact below 2^53 and unwrapped past 2^63",
          "[graphs][ops]") {
  CHECK(ops::dprod(std::int64_t{32}, std::int64_t{128}, std::int64_t{768}) == 32.0 * 128 * 768);
  CHECK(ops::dprod(std::int64_t{7}) == 7.0);
  CHECK(ops::dprod(std::int64_t{-3}, 2.5) == -7.5);
  // 10^9 x 10^9 x 32 = 3.2 x 10^19 is beyond 2^63; an int64 product would wrap.
  const std::int64_t l = 1000000000;
  CHECK(ops::dprod(l, l, std::int64_t{32}) == 3.2e19);
}

TEST_CASE("checked_size returns exact sizes and reports an overflow at the layer",
          "[graphs][ops]") {
  const Layer fc = test::layer("fc", "linear", {}, {});
  CHECK(ops::checked_size(fc, "weight", CheckedInt(4096) * 4096) == 4096 * 4096);
  CHECK(ops::checked_size(fc, "padded dim", CheckedInt(5) + -2 + -3) == 0);
  CHECK(ops::checked_size(fc, "signed", CheckedInt(-(std::int64_t{1} << 62)) * 2) ==
        std::numeric_limits<std::int64_t>::min());
  // 2^32 x 2^31 = 2^63: one past the largest int64.
  const CheckedInt past = CheckedInt(std::int64_t{1} << 32) * (std::int64_t{1} << 31);
  CHECK_THROWS_AS(ops::checked_size(fc, "weight", past), UserError);
  CHECK_THROWS_WITH(ops::checked_size(fc, "weight", past),
                    "test:1:1: layer 'fc' (linear): weight: 4294967296 * 2147483648 overflows "
                    "2^63 (sizes too large?)");
  CHECK_THROWS_WITH(ops::checked_size(fc, "GEMM m", CheckedInt(-(std::int64_t{1} << 62)) * -2),
                    Contains("GEMM m: -4611686018427387904 * -2 overflows 2^63"));
}

TEST_CASE("broadcast aligns trailing dims and names the first shape that conflicts",
          "[graphs][ops][broadcast]") {
  // NumPy's rule (ONNX multidirectional broadcasting): trailing dims aligned, each pair equal
  // or one of them 1; a missing leading dim counts as 1; a 0 broadcasts against a 1 only.
  CHECK(*ops::broadcast({{8, 1, 6, 1}, {7, 1, 5}}) == Shape{8, 7, 6, 5});
  CHECK(*ops::broadcast({{4, 1}, {3}, {1, 1}}) == Shape{4, 3});
  CHECK(*ops::broadcast({{2, 1}, {2, 0}}) == Shape{2, 0});
  CHECK(*ops::broadcast({{5}}) == Shape{5});
  CHECK(ops::broadcast({}).value().empty());
  std::size_t conflict = 99;
  CHECK_FALSE(ops::broadcast({{2, 3}, {1, 3}, {4, 3}, {5, 3}}, &conflict));
  CHECK(conflict == 2);
  CHECK_FALSE(ops::broadcast({{2, 0}, {3}}, &conflict));
  CHECK(conflict == 1);
  // A layer's error lists every shape.
  const Layer add = test::layer("add", "add", {}, {});
  CHECK_THROWS_WITH(ops::broadcast_shapes(add, {{2, 3}, {4}}),
                    Contains("shapes do not broadcast: [2, 3] and [4]"));
}
