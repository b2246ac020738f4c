// The one parser of a workload's precision: exactly the precisions a step is costed at.

#include "util/precision.h"

#include <catch2/catch.hpp>

#include "util/error.h"

using namespace amdahl;

TEST_CASE("parse_workload_precision takes the costed precisions", "[util][precision]") {
  CHECK(parse_workload_precision("fp32", "--precision") == Precision::kFp32);
  CHECK(parse_workload_precision("tf32", "--precision") == Precision::kTf32);
  CHECK(parse_workload_precision("fp16", "--precision") == Precision::kFp16);
  CHECK(parse_workload_precision("bf16", "--precision") == Precision::kBf16);
  CHECK(workload_precision_names() == std::vector<std::string>{"fp32", "tf32", "fp16", "bf16"});
}

TEST_CASE("parse_workload_precision rejects device-only, unknown and miscased precisions",
          "[util][precision]") {
  // int8 and fp64 are device peaks (the schema's keys), not precisions a step is costed at.
  for (const char* text : {"int8", "fp64", "fp8", "FP32", "fp32 ", "", "none"}) {
    INFO(text);
    CHECK_THROWS_WITH(parse_workload_precision(text, "runs.csv:2: column precision"),
                      Catch::StartsWith("runs.csv:2: column precision: unknown precision '") &&
                          Catch::Contains("fp32, tf32, fp16, bf16"));
    CHECK_FALSE(workload_precision_error(text).empty());
  }
  CHECK_THAT(workload_precision_error("FP32"), Catch::Contains("did you mean 'fp32'"));
  CHECK(workload_precision_error("bf16").empty());
}
