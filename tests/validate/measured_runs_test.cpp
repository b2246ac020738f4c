#include "validate/measured_runs.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using namespace amdahl::validate;

TEST_CASE("measured runs keep extra columns and errors are located", "[validate]") {
  const auto path = (std::filesystem::temp_directory_path() / "amdahl_runs.csv").string();
  std::ofstream(path) << "workload,batch,mode,precision,measured_s,device\n"
                         "resnet50,64,train,fp32,0.05,NVIDIA H200\n";
  const auto runs = read_measured_runs(path);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].extra.at("device") == "NVIDIA H200");
  std::ofstream(path) << "workload,batch,mode,precision,measured_s\nresnet50,64,train,fp32,-1\n";
  CHECK_THROWS_WITH(read_measured_runs(path), Catch::Contains("amdahl_runs.csv:2: measured_s"));
}

TEST_CASE("error summary: median and 90th percentile of |error|", "[validate]") {
  CHECK(signed_error(1.1, 1.0) == Approx(0.1));
  const ErrorSummary s = summarize({0.1, -0.2, 0.3, -0.4, 0.5});
  CHECK(s.median_abs == Approx(0.3));
  CHECK(s.p90_abs == Approx(0.46));  // linear interpolation between 0.4 and 0.5
}
