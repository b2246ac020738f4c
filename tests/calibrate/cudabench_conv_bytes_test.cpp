// amdahl-cudabench counts convolution bytes with its own copy of the layer registry's rule
// (the standalone CUDA target cannot include the graphs library); both must agree, or a fitted
// H200 memory efficiency would mean something else in predictions.

#include <catch2/catch.hpp>

#include "calibrate/cuda/conv_bytes.h"
#include "calibrate/measured_op.h"

using namespace amdahl;

TEST_CASE("amdahl-cudabench's convolution bytes are the layer registry's", "[calibrate][cuda]") {
  // (n, c, h, w, k, r, s, pad, stride, groups): ResNet-50's 7x7 stride 2 padded stem, a 1x1,
  // the 3x3 stride-2 of a stage's first block, the 1x1 stride-2 projection shortcut (reads a
  // quarter of X), a padded 3x3; a 5x20 speech window (DeepBench); grouped and depthwise.
  const calibrate::ConvShape layers[] = {
      {16, 3, 224, 224, 64, 7, 7, 3, 2},     {32, 64, 56, 56, 256, 1, 1, 0, 1},
      {32, 128, 56, 56, 128, 3, 3, 1, 2},    {64, 256, 56, 56, 512, 1, 1, 0, 2},
      {64, 512, 7, 7, 512, 3, 3, 1, 1},      {4, 1, 161, 700, 32, 5, 20, 0, 2},
      {8, 128, 28, 28, 256, 3, 3, 1, 1, 32}, {8, 96, 56, 56, 96, 3, 3, 1, 2, 96}};
  const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  for (const auto& g : layers) {
    // P and Q as the registry infers them (the forward op's output N x K x P x Q).
    const graphs::Shape y = calibrate::conv_operator("conv_fwd", g).output_shape;
    REQUIRE(y.size() == 4);
    const cudabench::ConvBytesShape b{u(g.n), u(g.c), u(g.h),     u(g.w),     u(g.k),
                                      u(g.r), u(g.s), u(y.at(2)), u(y.at(3)), u(g.groups)};
    for (const char* bench : {"conv_fwd", "conv_bwd_data", "conv_bwd_filter"})
      for (int element : {2, 4}) {
        INFO(bench << " " << element << " bytes, shape n" << g.n << " c" << g.c << " k" << g.k
                   << " r" << g.r << " s" << g.s << " stride" << g.stride << " groups "
                   << g.groups);
        CHECK(static_cast<double>(cudabench::conv_bench_bytes(bench, b, element)) ==
              calibrate::conv_operator(bench, g, element).bytes());
      }
  }
  // The 1x1 stride-2 shortcut reads a quarter of X forward: 64 x 256 x 28 x 28 of 56 x 56.
  const cudabench::ConvBytesShape shortcut{64, 256, 56, 56, 512, 1, 1, 28, 28};
  CHECK(cudabench::conv_bench_bytes("conv_fwd", shortcut, 4) ==
        4 * (64ull * 256 * 28 * 28 + 512ull * 256 + 64ull * 512 * 28 * 28));
  // Depthwise: W is K x 1 x R x S.
  const cudabench::ConvBytesShape depthwise{8, 96, 56, 56, 96, 3, 3, 28, 28, 96};
  CHECK(cudabench::conv_bench_bytes("conv_bwd_data", depthwise, 4) ==
        4 * (8ull * 96 * 56 * 56 + 96ull * 9 + 8ull * 96 * 28 * 28));
}
