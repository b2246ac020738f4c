// Convolutions a CPU framework runs as im2col + BLAS GEMM (model/efficiency.h runs_as_gemm):
// PyTorch 1.13 on one thread, thresholds 16 (1x1 batch) and 20480 (batch-1 input elements).

#include <catch2/catch.hpp>

#include "model/efficiency.h"
#include "model/roofline.h"
#include "test_device.h"

using namespace amdahl;

namespace {

constexpr double kTight = 1e-12;

// A forward convolution N x C x H x W -> K, kernel r, stride, `groups`, padded to keep H x W
// at stride 1 (the geometry graphs/ops/conv.cpp describes).
graphs::Operator conv(std::int64_t n, std::int64_t c, std::int64_t hw, std::int64_t k, int r,
                      int stride = 1, std::int64_t groups = 1) {
  graphs::Operator op;
  op.op_class = OpClass::kConv;
  const std::int64_t p = hw / stride;
  op.flops = 2.0 * n * k * p * p * (c / groups) * r * r;
  op.gemm = {n * p * p, k / groups, (c / groups) * r * r, groups};
  op.conv_kernel = r;
  op.conv_stride = stride;
  op.conv_batch = n;
  op.conv_groups = groups;
  op.conv_input_elements = static_cast<double>(n * c * hw * hw);
  return op;
}

hw::ClassEfficiency pytorch_rule() {
  hw::ClassEfficiency e{0.5, 1.0};
  e.cpu.gemm_pointwise_below_batch = 16;
  e.cpu.gemm_single_max_input = 20480;
  return e;
}

}  // namespace

TEST_CASE("PyTorch 1.13's single-thread rule for im2col + GEMM convolutions",
          "[model][efficiency]") {
  const hw::ClassEfficiency rule = pytorch_rule();
  // 1x1 stride 1: below batch 16 only, whatever the input size.
  CHECK(model::runs_as_gemm(conv(8, 64, 56, 256, 1), rule));
  CHECK(model::runs_as_gemm(conv(15, 64, 56, 256, 1), rule));
  CHECK_FALSE(model::runs_as_gemm(conv(16, 64, 56, 256, 1), rule));
  CHECK_FALSE(model::runs_as_gemm(conv(8, 128, 28, 256, 1, 2), rule));  // strided: oneDNN
  // Batch 1, kernels up to 3x3, ungrouped, at most 20480 input elements (512 x 7 x 7 = 25088
  // is above, 320 x 8 x 8 = 20480 at the bound).
  CHECK(model::runs_as_gemm(conv(1, 320, 8, 320, 3), rule));
  CHECK_FALSE(model::runs_as_gemm(conv(1, 512, 7, 512, 3), rule));
  CHECK_FALSE(model::runs_as_gemm(conv(2, 320, 8, 320, 3), rule));
  CHECK_FALSE(model::runs_as_gemm(conv(1, 320, 8, 320, 3, 1, 320), rule));  // depthwise
  CHECK_FALSE(model::runs_as_gemm(conv(1, 16, 8, 16, 5), rule));            // kernel > 3
  // A device without the rule, and ops that are not plain convolutions.
  CHECK_FALSE(model::runs_as_gemm(conv(8, 64, 56, 256, 1), hw::ClassEfficiency{}));
  graphs::Operator transposed = conv(8, 64, 56, 256, 1);
  transposed.conv_batch = 0;  // transposed or dilated: graphs/ops/conv.cpp leaves it 0
  CHECK_FALSE(model::runs_as_gemm(transposed, rule));
}

TEST_CASE("a convolution the framework runs as GEMM is costed with the gemm entry",
          "[model][roofline]") {
  hw::DeviceSpec d = model::test::round_device();  // 1 TFLOP/s, 100 GB/s
  d.kind = hw::DeviceKind::kCpu;
  d.efficiency[hw::entry("gemm")] = hw::ClassEfficiency{0.01, 1.0};
  d.efficiency[hw::entry("conv")] = pytorch_rule();
  const model::Roofline roofline(d);
  const graphs::Operator slow = conv(8, 64, 56, 256, 1);
  const model::OpCost c = roofline.estimate(slow);
  CHECK(c.time_s == Approx(slow.flops / (1e12 * 0.01)).epsilon(kTight));
  CHECK(c.compute_efficiency == Approx(0.01).epsilon(kTight));
  CHECK(c.kernel.lowering == model::Lowering::kIm2colGemm);
  CHECK(model::kernel_name(c.kernel) == "im2col + BLAS: gemm");
  const graphs::Operator library = conv(16, 64, 56, 256, 1);
  CHECK(roofline.estimate(library).time_s == Approx(library.flops / (1e12 * 0.5)).epsilon(kTight));
  // Backward directions follow the forward's backend.
  graphs::Operator data = slow;
  data.phase = Phase::kBackwardData;
  CHECK(roofline.estimate(data).time_s == Approx(c.time_s).epsilon(kTight));
  // The GEMM carries no convolution geometry (no Winograd, no strided zero work).
  const graphs::Operator g = model::as_gemm_op(conv(1, 320, 8, 320, 3));
  CHECK(g.op_class == OpClass::kGemm);
  CHECK(g.conv_kernel == 0);
  CHECK(g.conv_batch == 0);
}

TEST_CASE("each im2col + GEMM direction is costed with the linear GEMM of its transposition",
          "[model][roofline]") {
  // ConvolutionMM2d.cpp calls the BLAS NN (forward), NT (data gradient), TN (filter gradient);
  // a linear layer's forward is TN, its data gradient NN, its filter gradient NT.
  hw::DeviceSpec d = model::test::round_device();  // 1 TFLOP/s
  d.kind = hw::DeviceKind::kCpu;
  d.efficiency[hw::entry("gemm")] = hw::ClassEfficiency{0.001, 1.0};             // TN
  d.efficiency[hw::entry("gemm_bwd_data")] = hw::ClassEfficiency{0.004, 1.0};    // NN
  d.efficiency[hw::entry("gemm_bwd_filter")] = hw::ClassEfficiency{0.002, 1.0};  // NT
  d.efficiency[hw::entry("conv")] = pytorch_rule();
  const model::Roofline roofline(d);
  graphs::Operator op = conv(8, 64, 56, 256, 1);
  const auto rate = [&](Phase phase) {
    op.phase = phase;
    return op.flops / roofline.estimate(op).time_s;
  };
  CHECK(rate(Phase::kForward) == Approx(4e9).epsilon(kTight));
  CHECK(rate(Phase::kBackwardData) == Approx(2e9).epsilon(kTight));
  CHECK(rate(Phase::kBackwardWeight) == Approx(1e9).epsilon(kTight));
  op.phase = Phase::kBackwardWeight;
  CHECK(model::as_gemm_op(op).phase == Phase::kForward);
}

TEST_CASE("an im2col + GEMM convolution carries the dims of its BLAS calls",
          "[model][efficiency]") {
  // 3x3 layer 64 -> 128 at 8 x 8 (P Q = 64), batch 4: per sample, forward K x PQ x CRS,
  // data gradient CRS x PQ x K, filter gradient K x CRS x PQ (ConvolutionMM2d.cpp).
  const std::int64_t n = 4, c = 64, k = 128, pq = 64, crs = 64 * 9;
  graphs::Operator fwd = conv(n, c, 8, k, 3);
  fwd.conv_output_elements = static_cast<double>(n * k * pq);
  graphs::Operator data = fwd;
  data.phase = Phase::kBackwardData;
  data.gemm = {n * 8 * 8, c, k * 9, 1};  // the implicit GEMM over the input grid
  graphs::Operator filter = fwd;
  filter.phase = Phase::kBackwardWeight;
  filter.gemm = {k, crs, n * pq, 1};
  const auto dims = [](const graphs::Operator& op) {
    const graphs::GemmDims g = model::as_gemm_op(op).gemm;
    return std::vector<std::int64_t>{g.m, g.n, g.k, g.batch};
  };
  CHECK(dims(fwd) == std::vector<std::int64_t>{k, pq, crs, n});
  CHECK(dims(data) == std::vector<std::int64_t>{crs, pq, k, n});
  CHECK(dims(filter) == std::vector<std::int64_t>{k, crs, pq, n});
  // The same MACs as the convolution in every direction.
  for (const graphs::Operator* op : {&fwd, &data, &filter}) {
    const graphs::GemmDims g = model::as_gemm_op(*op).gemm;
    CHECK(2.0 * g.m * g.n * g.k * g.batch == Approx(fwd.flops).epsilon(kTight));
  }
}

TEST_CASE("an unblocked library re-reads the n x k operand for every result row",
          "[model][roofline]") {
  // A linear layer 4096 -> 1024 at batch 32 (m 32, n 1024, k 4096): 16 MB of weight streamed
  // 32 times, 512 MB, against the op's own 16.9 MB.
  hw::DeviceSpec d = model::test::round_device();  // 1 TFLOP/s, 100 GB/s
  d.kind = hw::DeviceKind::kCpu;
  hw::ClassEfficiency e{0.5, 0.1};
  e.traffic.unblocked = true;
  d.efficiency[hw::entry("gemm")] = e;
  graphs::Operator op;
  op.op_class = OpClass::kGemm;
  op.gemm = {32, 1024, 4096, 1};
  op.flops = 2.0 * 32 * 1024 * 4096;
  op.bytes_read = 4.0 * (32 * 4096 + 4096 * 1024);
  op.bytes_written = 4.0 * 32 * 1024;
  const model::MemoryTraffic t = model::memory_traffic(op, e);
  CHECK(t.bytes == 4.0 * 32 * 1024 * 4096);
  CHECK(t.cache_size == 4.0 * 1024 * 4096);
  const model::Roofline flat(d);
  CHECK(flat.estimate(op).memory_s == Approx(t.bytes / (100e9 * 0.1)).epsilon(kTight));
  CHECK(flat.estimate(op).bound == model::Bound::kMemory);
  // The cache step is keyed on the 16 MB operand: at cache_bytes = 16 MB, halfway to a 3x boost.
  d.efficiency[hw::entry("gemm")].traffic.cache_boost = 3;
  d.efficiency[hw::entry("gemm")].traffic.cache_bytes = 4.0 * 1024 * 4096;
  const model::Roofline cached(d);
  CHECK(cached.estimate(op).memory_s == Approx(t.bytes / (100e9 * 0.1 * 2)).epsilon(kTight));
  // The device-level lookup keys the step the same way.
  CHECK(model::memory_efficiency(op, d) == Approx(0.1 * 2).epsilon(kTight));
  // Without the flag: the op's own bytes.
  e.traffic.unblocked = false;
  CHECK(model::memory_traffic(op, e).bytes == op.bytes());
}

TEST_CASE("a fresh output above the allocation threshold pays its page faults",
          "[model][roofline]") {
  hw::DeviceSpec d = model::test::round_device();  // 100 GB/s
  d.kind = hw::DeviceKind::kCpu;
  d.allocation = {32.0 * 1024 * 1024, 2e9};
  const model::Roofline roofline(d);
  graphs::Operator add;
  add.op_class = OpClass::kElementwise;
  add.bytes_read = 128e6;
  add.bytes_written = 64e6;  // above 32 MiB
  const model::OpCost c = roofline.estimate(add);
  CHECK(c.allocation_s == Approx(64e6 / 2e9).epsilon(kTight));
  CHECK(c.time_s == Approx(192e6 / 100e9 + 64e6 / 2e9).epsilon(kTight));
  CHECK(c.bound == model::Bound::kMemory);
  add.bytes_written = 32.0 * 1024 * 1024;  // at the threshold: served from the heap
  CHECK(roofline.estimate(add).allocation_s == 0);
  graphs::Operator update = add;  // optimizer updates write in place
  update.op_class = OpClass::kOptimizer;
  update.bytes_written = 64e6;
  CHECK(roofline.estimate(update).allocation_s == 0);
  graphs::Operator relu_ = add;  // PyTorch's ReLU(inplace=True): into its input's storage
  relu_.bytes_written = 64e6;
  relu_.in_place = true;
  CHECK(roofline.estimate(relu_).allocation_s == 0);
  CHECK(roofline.estimate(relu_).time_s == Approx(192e6 / 100e9).epsilon(kTight));
}

TEST_CASE("a library convolution on a CPU framework also allocates its layout buffers",
          "[model][roofline]") {
  hw::DeviceSpec d = model::test::round_device();
  d.kind = hw::DeviceKind::kCpu;
  d.allocation = {32.0 * 1024 * 1024, 2e9};
  d.efficiency[hw::entry("conv")] = pytorch_rule();
  d.efficiency[hw::entry("gemm")] = hw::ClassEfficiency{0.01, 1.0};
  const model::Roofline roofline(d);
  // MobileNet-v2's 1x1 24 -> 144 at 56x56, batch 32: X 9.6 MB (heap), Y 57.8 MB (fresh).
  graphs::Operator op = conv(32, 24, 56, 144, 1);
  op.conv_output_elements = 32.0 * 144 * 56 * 56;
  op.bytes_written = 4 * op.conv_output_elements;
  const double x = 4 * op.conv_input_elements, y = 4 * op.conv_output_elements;
  REQUIRE(x < 32.0 * 1024 * 1024);
  CHECK(roofline.estimate(op).allocation_s == Approx(2 * y / 2e9).epsilon(kTight));
  op.phase = Phase::kBackwardData;  // reads dY (fresh copy), writes dX (heap)
  CHECK(roofline.estimate(op).allocation_s == Approx(y / 2e9).epsilon(kTight));
  op.phase = Phase::kBackwardWeight;  // reads X and dY, writes a small dW
  op.bytes_written = 4.0 * 144 * 24;
  CHECK(roofline.estimate(op).allocation_s == Approx(y / 2e9).epsilon(kTight));
  // Run as im2col + GEMM (batch 8): only the framework's own output tensor.
  graphs::Operator slow = conv(8, 24, 128, 144, 1);
  slow.conv_output_elements = 8.0 * 144 * 128 * 128;
  slow.bytes_written = 4 * slow.conv_output_elements;
  CHECK(roofline.estimate(slow).allocation_s == Approx(slow.bytes_written / 2e9).epsilon(kTight));
}
