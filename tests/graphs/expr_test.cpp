#include "graphs/expr.h"

#include <catch2/catch.hpp>

#include "util/error.h"

using amdahl::graphs::evaluate;

TEST_CASE("size expressions evaluate with integer arithmetic", "[graphs][expr]") {
  const amdahl::graphs::Bindings b{{"batch", 64}, {"image", 224}, {"hidden", 256}};
  CHECK(evaluate("batch", b) == 64);
  CHECK(evaluate("4*hidden", b) == 1024);
  CHECK(evaluate("(image - 1) / 2 + 1", b) == 112);  // integer division truncates
  CHECK(evaluate("-3 + 10 % 4", b) == -1);
  CHECK(evaluate("42", {}) == 42);
}

TEST_CASE("unbound names, syntax errors and division by zero are errors", "[graphs][expr]") {
  const amdahl::graphs::Bindings b{{"batch", 64}};
  CHECK_THROWS_WITH(evaluate("seq_len * 2", b),
                    Catch::Contains("unbound size 'seq_len'") && Catch::Contains("--set seq_len="));
  CHECK_THROWS_WITH(evaluate("(batch", b), Catch::Contains("missing ')'"));
  CHECK_THROWS_WITH(evaluate("batch / 0", b), Catch::Contains("division by zero"));
  CHECK_THROWS_AS(evaluate("batch $ 2", b), amdahl::UserError);
}

TEST_CASE("results beyond 2^63 and deep nesting are errors, never wrapped or a crash",
          "[graphs][expr][ranges]") {
  const amdahl::graphs::Bindings b{{"big", INT64_MAX}};
  CHECK(evaluate("big", b) == INT64_MAX);
  CHECK(evaluate("9223372036854775807", {}) == INT64_MAX);
  for (const char* overflowing :
       {"big + 1", "big * 2", "-big - 2", "9223372036854775808", "(0 - big - 1) / -1"})
    CHECK_THROWS_WITH(evaluate(overflowing, b), Catch::Contains("overflows 2^63"));
  // kMaxExpressionDepth parentheses are fine, one more is an error (not a stack overflow, as
  // 100,000 would be without the bound).
  const int depth = amdahl::graphs::kMaxExpressionDepth;
  CHECK(evaluate(std::string(depth, '(') + "7" + std::string(depth, ')'), {}) == 7);
  CHECK_THROWS_WITH(evaluate(std::string(depth + 1, '(') + "7" + std::string(depth + 1, ')'), {}),
                    Catch::Contains("nested more than"));
  CHECK_THROWS_WITH(evaluate(std::string(100000, '-') + "7", {}),
                    Catch::Contains("nested more than"));
}

TEST_CASE("a size binding NAME=VALUE: a whole number >= 0, else what is wrong", "[graphs][expr]") {
  CHECK(amdahl::graphs::parse_size_binding("aux=0") ==
        std::pair<std::string, std::int64_t>{"aux", 0});
  CHECK(amdahl::graphs::parse_size_binding("image=299") ==
        std::pair<std::string, std::int64_t>{"image", 299});
  CHECK(amdahl::graphs::parse_size_binding("a=9223372036854775807").second == INT64_MAX);
  const struct {
    const char* text;
    const char* message;
  } cases[] = {
      {"aux", "expects NAME=VALUE (got 'aux')"},
      {"=3", "expects NAME=VALUE (got '=3')"},
      {"aux=", "aux: expected an integer (got '')"},
      {"aux=1x", "aux: expected an integer (got '1x')"},
      {"aux=1.5", "aux: expected an integer (got '1.5')"},
      {"aux=9223372036854775808", "aux: expected an integer (got '9223372036854775808')"},
      {"aux=-1", "aux: the value must not be negative (got -1)"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK_THROWS_WITH(amdahl::graphs::parse_size_binding(c.text), c.message);
  }
}
