#include "calibrate/measurement.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "scratch_dir.h"
#include "util/atomic_file.h"
#include "util/error.h"

using namespace amdahl::calibrate;

using amdahl::test::scratch_file;
using amdahl::test::write_scratch_file;

TEST_CASE("measurement CSV round-trips with its provenance", "[calibrate]") {
  MeasurementSet set;
  set.provenance["device"] = "test";
  set.rows.push_back({"gemm",
                      "gemm",
                      "fp32",
                      {{"m", "64"}, {"n", "32"}, {"k", "16"}},
                      2.0 * 64 * 32 * 16,
                      4.0 * (64 * 16 + 16 * 32 + 64 * 32),
                      1.5e-6,
                      10});
  const auto path = scratch_file("meas.csv");
  amdahl::write_file_atomically({path, measurements_text(set), {}, true});
  const MeasurementSet back = read_measurements(path);
  REQUIRE(back.rows.size() == 1);
  CHECK(back.provenance.at("device") == "test");
  CHECK(back.rows[0].shape_number("m") == 64);
  CHECK(back.rows[0].time_s == Approx(1.5e-6));
}

TEST_CASE("measurement CSV: missing columns and non-positive times are errors", "[calibrate]") {
  CHECK_THROWS_WITH(read_measurements(write_scratch_file("m1.csv", "bench,op_class,precision\n")),
                    Catch::Contains("missing column 'shape'"));
  CHECK_THROWS_WITH(read_measurements(write_scratch_file(
                        "m2.csv",
                        "bench,op_class,precision,shape,flops,bytes,time_s,reps\n"
                        "gemm,gemm,fp32,m=1,2,3,0,1\n")),
                    Catch::Contains("m2.csv:2: column time_s: expected a time from 1 ns"));
}

TEST_CASE("measurement CSV: counts and dims are whole numbers in range, never a cast double",
          "[calibrate]") {
  const std::string header = "bench,op_class,precision,shape,flops,bytes,time_s,reps\n";
  // 2.9e11 repetitions does not fit an int (the fuzzer's csv_readers regression); 2.5 is no
  // count; 0 is below 1.
  for (const char* reps : {"2.9e11", "290000000000", "2.5", "0", "-3", "1e3"}) {
    INFO(reps);
    CHECK_THROWS_WITH(
        read_measurements(
            write_scratch_file("m3.csv", header + "gemm,gemm,fp32,m=1,2,3,1e-6," + reps)),
        Catch::Contains("m3.csv:2: column reps: expected a whole number from 1 to 2147483647"));
  }
  const MeasurementSet ok = read_measurements(
      write_scratch_file("m4.csv", header + "gemm,gemm,fp32,m=1024;n=1e40;k=-2;t=+7,"
                                            "2,3,1e-6,5\n"));
  REQUIRE(ok.rows.size() == 1);
  CHECK(ok.rows[0].reps == 5);
  CHECK(ok.rows[0].shape_whole("m") == 1024);
  CHECK(ok.rows[0].shape_whole("t") == 7);
  CHECK_THROWS_WITH(ok.rows[0].shape_whole("n"),
                    Catch::Contains("n: expected a whole number from 0 to 9223372036854775807 "
                                    "(got '1e40')"));
  CHECK_THROWS_WITH(ok.rows[0].shape_whole("k"), Catch::Contains("(got '-2')"));
  CHECK_THROWS_WITH(ok.rows[0].shape_whole("q"), Catch::Contains("has no 'q' in its shape"));
}
