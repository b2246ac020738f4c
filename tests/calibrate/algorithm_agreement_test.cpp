// The model's kernel against the library's recorded algorithm (calibrate/algorithm_agreement.h).

#include "calibrate/algorithm_agreement.h"

#include <catch2/catch.hpp>

using namespace amdahl::calibrate;

TEST_CASE("algorithm names fall into families", "[calibrate][algorithm]") {
  CHECK(library_family("WINOGRAD") == AlgorithmFamily::kWinograd);
  CHECK(library_family("WINOGRAD_NONFUSED") == AlgorithmFamily::kWinograd);
  CHECK(library_family("FFT_TILING") == AlgorithmFamily::kFft);
  CHECK(library_family("IMPLICIT_PRECOMP_GEMM") == AlgorithmFamily::kDirect);
  CHECK(library_family("ALGO_1") == AlgorithmFamily::kDirect);
  using amdahl::model::Algorithm, amdahl::model::Lowering;
  CHECK(model_family({Algorithm::kWinograd, Lowering::kNative, 128, 64}) ==
        AlgorithmFamily::kWinograd);
  CHECK(model_family({Algorithm::kWinograd, Lowering::kAsForward, 64, 64}) ==
        AlgorithmFamily::kWinograd);
  CHECK(model_family({Algorithm::kSplitK, Lowering::kNative, 128, 128, 4}) ==
        AlgorithmFamily::kDirect);
  CHECK(model_family({Algorithm::kNarrow}) == AlgorithmFamily::kDirect);
  CHECK(label_algorithm("conv_fwd algo=WINOGRAD;c=64;k=64") == "WINOGRAD");
  CHECK(label_algorithm("conv_bwd_data c=64;k=64;algo=ALGO_1") == "ALGO_1");
  CHECK(label_algorithm("conv_bwd_data c=64;k=64") == "");
  CHECK(label_algorithm("conv_fwd c=1;xalgo=FFT") == "");
}

namespace {
amdahl::model::KernelChoice gemm(int m, int n) {
  return {amdahl::model::Algorithm::kGemm, amdahl::model::Lowering::kNative, m, n};
}
amdahl::model::KernelChoice winograd(int m, int n) {
  return {amdahl::model::Algorithm::kWinograd, amdahl::model::Lowering::kNative, m, n};
}
}  // namespace

TEST_CASE("agreement counts each family and splits the errors", "[calibrate][algorithm]") {
  // Errors: +10% and -20% agree (Winograd/Winograd, direct/direct); +50% (library Winograd,
  // model direct) and +30% (FFT) do not; a row without an algorithm is not counted.
  const std::vector<Residual> conv{
      {"conv_fwd algo=WINOGRAD;c=64", false, 1.0, 1.1, winograd(128, 64)},
      {"conv_fwd algo=IMPLICIT_GEMM;c=64", true, 1.0, 0.8, gemm(128, 128)},
      {"conv_fwd algo=WINOGRAD_NONFUSED;c=64", false, 2.0, 3.0, gemm(128, 32)},
      {"conv_fwd algo=FFT;c=64", false, 1.0, 1.3, winograd(128, 32)},
      {"conv_fwd c=64", false, 1.0, 9.0, gemm(128, 32)},
  };
  const std::vector<Residual> linear{{"gemm m=1;n=2;k=3", false, 1.0, 1.0, gemm(16, 16)}};
  const auto a = algorithm_agreement({{"gemm", &linear}, {"conv", &conv}});
  REQUIRE(a.size() == 1);  // gemm names no algorithm
  CHECK(a[0].entry == "conv");
  CHECK(a[0].rows == 4);
  CHECK(a[0].library_winograd == 2);
  CHECK(a[0].both_winograd == 1);
  CHECK(a[0].library_direct == 1);
  CHECK(a[0].both_direct == 1);
  CHECK(a[0].library_fft == 1);
  REQUIRE(a[0].agreeing_errors.size() == 2);
  CHECK(a[0].agreeing_errors[0] == Approx(0.1));
  CHECK(a[0].agreeing_errors[1] == Approx(-0.2));
  REQUIRE(a[0].other_errors.size() == 2);
  CHECK(a[0].other_errors[0] == Approx(0.5));
  CHECK(a[0].other_errors[1] == Approx(0.3));
}
