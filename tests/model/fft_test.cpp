// FFT convolutions (model/fft.h): which ops may run as one, what its parts cost by formula, and
// that the roofline takes it only where the entry declares it and it is faster.

#include "model/fft.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "calibrate/measured_op.h"
#include "hw/system_loader.h"
#include "model/kernel_choice.h"
#include "model/roofline.h"
#include "test_device.h"

using namespace amdahl;
using namespace amdahl::model;

namespace {
constexpr double kTight = 1e-12;  // pure arithmetic: only rounding separates the two sides

// AlexNet's second layer (torchvision): 64 -> 192 channels, 5x5, pad 2, on 27x27, batch 128.
const calibrate::ConvShape kAlexNetConv2{128, 64, 27, 27, 192, 5, 5, 2, 1};

graphs::Operator conv(const std::string& bench, const calibrate::ConvShape& g,
                      double element_bytes = 4) {
  return calibrate::conv_operator(bench, g, element_bytes);
}

// round_device with the entries FFT is costed on: gemm at compute 0.5, elementwise at memory
// 0.5, and a conv entry whose direct GEMM runs at 0.25 and that declares FFT when `fft`.
hw::DeviceSpec fft_device(bool fft) {
  hw::DeviceSpec d = test::round_device();
  d.efficiency[hw::entry("gemm")] = hw::ClassEfficiency{0.5, 1.0};
  d.efficiency[hw::entry("elementwise")] = hw::ClassEfficiency{1.0, 0.5};
  hw::ClassEfficiency c{0.25, 1.0};
  c.conv.fft_algorithm = fft;
  for (const char* key : {"conv", "conv_bwd_data", "conv_bwd_filter"})
    d.efficiency[hw::entry(key)] = c;
  return d;
}
}  // namespace

TEST_CASE("FFT convolutions: stride-1, ungrouped, windows from 5x5 to 32x32, fp32 or fp16",
          "[model][fft]") {
  for (const char* bench : {"conv_fwd", "conv_bwd_data", "conv_bwd_filter"}) {
    INFO(bench);
    CHECK(fft_eligible(conv(bench, kAlexNetConv2)));
    CHECK(fft_eligible(conv(bench, kAlexNetConv2, 2)));  // fp16 (cuDNN's PSEUDO_HALF)
    calibrate::ConvShape g = kAlexNetConv2;
    g.r = g.s = 3;  // 3x3: Winograd's (fft.h: the window bound)
    g.pad = 1;
    CHECK_FALSE(fft_eligible(conv(bench, g)));
    g = kAlexNetConv2;
    g.stride = 2;
    CHECK_FALSE(fft_eligible(conv(bench, g)));
    g = kAlexNetConv2;
    g.groups = 2;
    CHECK_FALSE(fft_eligible(conv(bench, g)));
    g = {8, 16, 64, 64, 16, 33, 33, 16, 1};  // larger than the largest tile
    CHECK_FALSE(fft_eligible(conv(bench, g)));
    graphs::Operator bf16 = conv(bench, kAlexNetConv2, 2);
    bf16.precision = Precision::kBf16;  // no bf16 FFT in cuDNN
    CHECK_FALSE(fft_eligible(bf16));
    bf16.precision = Precision::kTf32;  // no tensor-core math
    CHECK_FALSE(fft_eligible(bf16));
  }
}

TEST_CASE("an FFT convolution's parts by formula", "[model][fft]") {
  // 32x32 tiles: 28x28 outputs each, so one tile per 27x27 image; bins = 32 * 17 = 544.
  const double n = 128, c = 64, k = 192, tiles = 128, bins = 544;
  const double x = n * c * 27 * 27, y = n * k * 27 * 27, w = k * c * 25;
  const double x_hat = tiles * c * bins, y_hat = tiles * k * bins, w_hat = k * c * bins;
  const double fft_flops = 2.5 * 1024 * 10;  // 2.5 T^2 log2(T^2) per transform
  {
    const FftParts f = fft_parts(conv("conv_fwd", kAlexNetConv2), 32);
    CHECK(f.product.gemm == graphs::GemmDims{128, 192, 64, 544});
    CHECK(f.product.flops == Approx(8 * tiles * k * c * bins).epsilon(kTight));
    CHECK(f.product.bytes_read == Approx(8 * (x_hat + w_hat)).epsilon(kTight));
    CHECK(f.product.bytes_written == Approx(8 * y_hat).epsilon(kTight));
    CHECK(f.product.precision == Precision::kFp32);
    CHECK(f.transforms[0].bytes_read == Approx(4 * x).epsilon(kTight));
    CHECK(f.transforms[0].bytes_written == Approx(8 * x_hat).epsilon(kTight));
    CHECK(f.transforms[0].flops == Approx(n * c * fft_flops).epsilon(kTight));
    CHECK(f.transforms[1].bytes_read == Approx(4 * w).epsilon(kTight));
    CHECK(f.transforms[1].bytes_written == Approx(8 * w_hat).epsilon(kTight));
    CHECK(f.transforms[2].bytes_read == Approx(8 * y_hat).epsilon(kTight));
    CHECK(f.transforms[2].bytes_written == Approx(4 * y).epsilon(kTight));
  }
  {
    const FftParts f = fft_parts(conv("conv_bwd_data", kAlexNetConv2), 32);
    CHECK(f.product.gemm == graphs::GemmDims{128, 64, 192, 544});
    CHECK(f.transforms[0].bytes_read == Approx(4 * y).epsilon(kTight));
    CHECK(f.transforms[2].bytes_written == Approx(4 * x).epsilon(kTight));
  }
  {
    const FftParts f = fft_parts(conv("conv_bwd_filter", kAlexNetConv2), 32);
    CHECK(f.product.gemm == graphs::GemmDims{192, 64, 128, 544});
    CHECK(f.transforms[2].bytes_read == Approx(8 * w_hat).epsilon(kTight));
    CHECK(f.transforms[2].bytes_written == Approx(4 * w).epsilon(kTight));
  }
  // 16x16 tiles hold 12x12 outputs: ceil(27 / 12) = 3 per side, 9 per image, 144 bins.
  const FftParts small = fft_parts(conv("conv_fwd", kAlexNetConv2), 16);
  CHECK(small.product.gemm == graphs::GemmDims{128 * 9, 192, 64, 144});
}

TEST_CASE("the roofline runs a convolution as FFT where its entry declares it and it is faster",
          "[model][fft]") {
  const graphs::Operator op = conv("conv_fwd", kAlexNetConv2);
  const hw::DeviceSpec with = fft_device(true), without = fft_device(false);
  const OpCost direct = estimate(op, without);
  CHECK(direct.kernel.algorithm != Algorithm::kFft);
  const OpCost fft = estimate(op, with);
  REQUIRE(fft.kernel.algorithm == Algorithm::kFft);
  CHECK(kernel_name(fft.kernel) == "fft 32x32");
  // Its time is its four parts' (no launch latency on this device), on the 32x32 tile.
  const FftParts parts = fft_parts(op, 32);
  double expected = estimate(parts.product, with).time_s;
  for (const auto& t : parts.transforms) expected += estimate(t, with).time_s;
  CHECK(fft.time_s == Approx(expected).epsilon(kTight));
  CHECK(fft.time_s < direct.time_s);
  // The product at 0.5 of 1 TFLOP/s: 6.85 GFLOP -> 13.7 ms; the transforms' bytes at 50 GB/s.
  CHECK(estimate(parts.product, with).compute_s ==
        Approx(8.0 * 128 * 192 * 64 * 544 / 0.5e12).epsilon(kTight));
  // A direct GEMM at full efficiency beats the FFT: it keeps its own kernel.
  hw::DeviceSpec fast = with;
  for (const char* key : {"conv", "conv_bwd_data", "conv_bwd_filter"})
    fast.efficiency[hw::entry(key)].compute = 1.0;
  fast.efficiency[hw::entry("gemm")].compute = 0.01;
  CHECK(estimate(op, fast).kernel.algorithm != Algorithm::kFft);
  // A CPU runs its convolutions on its own library (no FFT there).
  hw::DeviceSpec cpu = with;
  cpu.kind = hw::DeviceKind::kCpu;
  CHECK(estimate(op, cpu).kernel.algorithm != Algorithm::kFft);
}

TEST_CASE("the H200's fp32 entries run AlexNet's 5x5 layer as FFT, its forward within 15%",
          "[model][fft]") {
  // ../shared/data/h200/kernels/conv.csv, fp32,128,64,27,27,192,5,5,1,2: 336.2 us forward (no
  // call floor: the kernel's own time, calibrate/call_overhead.h). The gradients' rows include
  // the ~90 us of torch.autograd.grad before their kernels, so only their algorithm is checked
  // here (calibrate check torch compares them with the call).
  const hw::DeviceSpec h200 = hw::load_device_file(hw::catalog_dir() + "/devices/h200-sxm.yaml");
  constexpr double kMeasured = 336.2e-6, kTolerance = 0.15;
  const OpCost forward = estimate(conv("conv_fwd", kAlexNetConv2), h200);
  CHECK(forward.kernel.algorithm == Algorithm::kFft);
  CHECK(std::abs(forward.time_s - kMeasured) / kMeasured < kTolerance);
  for (const char* bench : {"conv_bwd_data", "conv_bwd_filter"}) {
    INFO(bench);
    CHECK(estimate(conv(bench, kAlexNetConv2), h200).kernel.algorithm == Algorithm::kFft);
  }
  // Its 3x3 layers stay on the other kernels (fft.h's window bound).
  const calibrate::ConvShape conv3{128, 192, 13, 13, 384, 3, 3, 1, 1};
  CHECK(estimate(conv("conv_fwd", conv3), h200).kernel.algorithm != Algorithm::kFft);
}
