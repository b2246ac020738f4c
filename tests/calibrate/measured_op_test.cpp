// The op a measurement times is the op the layer registry lowers its one-layer network to
// (calibrate/measured_op.h): GEMM dims, FLOPs and bytes as predictions count them.

#include "calibrate/measured_op.h"

#include <catch2/catch.hpp>

using namespace amdahl;
using namespace amdahl::calibrate;

namespace {
Measurement row(std::string bench, std::string op_class, std::map<std::string, std::string> shape,
                std::string precision = "fp32") {
  return Measurement{
      std::move(bench), std::move(op_class), std::move(precision), std::move(shape), 0, 0, 1e-3, 1};
}
}  // namespace

TEST_CASE("a GEMM bench times the linear layer whose GEMM has its m, n, k", "[calibrate][op]") {
  const std::map<std::string, std::string> shape{{"m", "8"}, {"n", "1000"}, {"k", "4096"}};
  for (const char* bench : {"gemm", "gemm_bwd_data", "gemm_bwd_filter"}) {
    INFO(bench);
    const graphs::Operator op = to_operator(row(bench, "gemm", shape));
    CHECK(op.op_class == OpClass::kGemm);
    CHECK(op.gemm.m == 8);
    CHECK(op.gemm.n == 1000);
    CHECK(op.gemm.k == 4096);
    CHECK(op.gemm.batch == 1);
    // 2 m n k FLOPs; A (m x k), B (k x n) and C (m x n) move once each.
    CHECK(op.flops == 2.0 * 8 * 1000 * 4096);
    CHECK(op.bytes() == 4.0 * (8 * 4096 + 4096 * 1000 + 8 * 1000));
  }
  CHECK(to_operator(row("gemm", "gemm", shape)).phase == Phase::kForward);
  CHECK(to_operator(row("gemm_bwd_data", "gemm", shape)).phase == Phase::kBackwardData);
  CHECK(to_operator(row("gemm_bwd_filter", "gemm", shape)).phase == Phase::kBackwardWeight);

  // Batched: a matmul of [b, m, k] x [b, k, n], b GEMMs.
  const graphs::Operator batched =
      to_operator(row("gemm", "gemm", {{"m", "64"}, {"n", "32"}, {"k", "16"}, {"batch", "12"}}));
  CHECK(batched.gemm.batch == 12);
  CHECK(batched.gemm.m == 64);
  CHECK(batched.flops == 2.0 * 12 * 64 * 32 * 16);
  CHECK(batched.bytes() == 4.0 * 12 * (64 * 16 + 16 * 32 + 64 * 32));
}

TEST_CASE("a convolution bench times the conv2d layer's op of its direction", "[calibrate][op]") {
  // N=8, C=128, 28x28, K=256, 3x3, pad 1, stride 2 -> 14x14, groups 32 (C/g = 4, K/g = 8).
  const std::map<std::string, std::string> shape{
      {"n", "8"}, {"c", "128"}, {"h", "28"},  {"w", "28"},     {"k", "256"},
      {"r", "3"}, {"s", "3"},   {"pad", "1"}, {"stride", "2"}, {"groups", "32"}};
  const double p = 14, q = 14, cg = 4, kg = 8;
  const graphs::Operator fwd = to_operator(row("conv_fwd", "conv", shape));
  const graphs::Operator data = to_operator(row("conv_bwd_data", "conv", shape));
  const graphs::Operator filter = to_operator(row("conv_bwd_filter", "conv", shape));
  // Implicit GEMMs, one per group: m = N P Q, n = K/g, k = C/g R S forward; m = N H W,
  // n = C/g, k = K/g R S for dX; m = K/g, n = C/g R S, k = N P Q for dW.
  CHECK(fwd.gemm.m == 8 * 14 * 14);
  CHECK(fwd.gemm.n == kg);
  CHECK(fwd.gemm.k == cg * 9);
  CHECK(fwd.gemm.batch == 32);
  CHECK(data.gemm.m == 8 * 28 * 28);
  CHECK(data.gemm.n == cg);
  CHECK(data.gemm.k == kg * 9);
  CHECK(filter.gemm.m == kg);
  CHECK(filter.gemm.n == cg * 9);
  CHECK(filter.gemm.k == 8 * 14 * 14);
  CHECK(data.phase == Phase::kBackwardData);
  CHECK(filter.phase == Phase::kBackwardWeight);
  for (const graphs::Operator* op : {&fwd, &data, &filter}) {
    CHECK(op->flops == 2.0 * 8 * 256 * p * q * cg * 9);  // every direction: the same MACs
    CHECK(op->conv_kernel == 3);
    CHECK(op->conv_stride == 2);
    CHECK(op->conv_groups == 32);
  }
  // X (all of it: the 3x3 windows overlap), W (K x C/g x 3 x 3) and Y, fp32.
  const double x = 8.0 * 128 * 28 * 28, w = 256.0 * cg * 9, y = 8.0 * 256 * p * q;
  CHECK(fwd.bytes() == 4 * (x + w + y));
  CHECK(fwd.bytes_written == 4 * y);
  CHECK(data.bytes_written == 4 * x);
  CHECK(filter.bytes_written == 4 * w);
  CHECK(conv_flops(conv_shape(row("conv_fwd", "conv", shape))) == fwd.flops);

  // fp16 rows move 2-byte elements and run fp16 math.
  const graphs::Operator half = to_operator(row("conv_fwd", "conv", shape, "fp16"));
  CHECK(half.precision == Precision::kFp16);
  CHECK(half.bytes() == 2 * (x + w + y));
}

TEST_CASE("a memory-bound bench keeps its row's FLOPs and bytes", "[calibrate][op]") {
  Measurement m = row("batchnorm_bwd_data", "normalization", {{"n", "1024"}});
  m.flops = 9 * 1024;
  m.bytes = 4 * 5 * 1024;
  const graphs::Operator op = to_operator(m);
  CHECK(op.flops == m.flops);
  CHECK(op.bytes() == m.bytes);
  CHECK(op.gemm.empty());
  CHECK(op.phase == Phase::kBackwardData);
  CHECK(op.op_class == OpClass::kNormalization);
}

TEST_CASE("a measurement the registry cannot lower is a clear error", "[calibrate][op]") {
  const std::map<std::string, std::string> conv{{"n", "1"}, {"c", "4"},   {"h", "2"},
                                                {"w", "2"}, {"k", "4"},   {"r", "3"},
                                                {"s", "3"}, {"pad", "0"}, {"stride", "1"}};
  CHECK_THROWS_WITH(to_operator(row("conv_fwd", "conv", conv)),
                    Catch::Contains("measurement conv_fwd") &&
                        Catch::Contains("has no output on the padded input 2"));
  CHECK_THROWS_WITH(to_operator(row("conv_fwd", "gemm", {{"n", "1"}})),
                    Catch::Contains("has no 'c' in its shape"));
  auto square = conv;
  square["h"] = square["w"] = "8";
  CHECK_THROWS_WITH(to_operator(row("conv_fwd", "gemm", square)),
                    Catch::Contains("op class 'gemm', but the bench times a conv op"));
  CHECK_THROWS_WITH(to_operator(row("conv_fwd", "kernels", square)),
                    Catch::Contains("unknown op class 'kernels'"));
  CHECK_THROWS_WITH(to_operator(row("conv_fwd", "conv", square, "fp12")),
                    Catch::Contains("unknown precision 'fp12'"));
  CHECK_THROWS_WITH(conv_bytes("gemm", conv_shape(row("conv_fwd", "conv", square)), 4),
                    Catch::Contains("not a convolution"));
  CHECK_THROWS_WITH(conv_bytes("conv_fwd", conv_shape(row("conv_fwd", "conv", square)), 3),
                    Catch::Contains("elements of 3 bytes"));
}
