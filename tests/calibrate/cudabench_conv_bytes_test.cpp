// amdahl-cudabench counts convolution bytes with its own copy of graphs/conv_traffic.h's rule
// (the standalone CUDA target cannot include the graphs library); both must agree, or a fitted
// H200 memory efficiency would mean something else in predictions.

#include <catch2/catch.hpp>

#include "calibrate/cuda/conv_bytes.h"
#include "calibrate/measured_op.h"

using namespace amdahl;

TEST_CASE("amdahl-cudabench's convolution bytes follow the op graph's rule", "[calibrate][cuda]") {
  // ResNet-50 layers of the bench (n, c, h, w, k, r, s, pad, stride): 7x7 stride 2, 1x1, 3x3,
  // the 3x3 stride-2 of a stage's first block and the 1x1 stride-2 projection shortcut.
  const calibrate::ConvShape layers[] = {{16, 3, 224, 224, 64, 7, 7, 3, 2},
                                         {32, 64, 56, 56, 256, 1, 1, 0, 1},
                                         {32, 128, 56, 56, 128, 3, 3, 1, 2},
                                         {64, 256, 56, 56, 512, 1, 1, 0, 2},
                                         {64, 512, 7, 7, 512, 3, 3, 1, 1}};
  for (const auto& g : layers) {
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    const cudabench::ConvBytesShape b{u(g.n), u(g.c), u(g.h),   u(g.w),  u(g.k),
                                      u(g.r), u(g.s), u(g.p()), u(g.q())};
    for (const char* bench : {"conv_fwd", "conv_bwd_data", "conv_bwd_filter"})
      for (int element : {2, 4})
        CHECK(static_cast<double>(cudabench::conv_bench_bytes(bench, b, element)) ==
              calibrate::conv_bytes(bench, g, element));
  }
  // The 1x1 stride-2 shortcut reads a quarter of X forward: 64 x 256 x 28 x 28 of 56 x 56.
  const cudabench::ConvBytesShape shortcut{64, 256, 56, 56, 512, 1, 1, 28, 28};
  CHECK(cudabench::conv_bench_bytes("conv_fwd", shortcut, 4) ==
        4 * (64ull * 256 * 28 * 28 + 512ull * 256 + 64ull * 512 * 28 * 28));
}
