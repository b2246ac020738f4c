// Each efficiency model against hand-computed values at chosen shapes.

#include "model/efficiency.h"

#include <catch2/catch.hpp>

#include "graphs/lower.h"
#include "graphs/zoo.h"
#include "model/roofline.h"
#include "test_device.h"

using namespace amdahl;
using namespace amdahl::model;

namespace {
constexpr double kTight = 1e-12;  // pure arithmetic: only rounding separates the two sides
}

TEST_CASE("conv as implicit GEMM: tile, wave and depth terms", "[model][efficiency]") {
  // A 3x3 conv, 64 -> 128 channels, 14x14 output, batch 8, as implicit GEMM:
  // m = N*P*Q = 8*14*14 = 1568, n = K = 128, k = C*R*S = 64*9 = 576.
  hw::ClassEfficiency e{0.8, 0.8};
  e.gemm.tile_m = 128;
  e.gemm.tile_n = 64;
  e.gemm.k_half = 64;
  const auto g = gemm_efficiency({1568, 128, 576, 1}, e, 56);
  // ceil(1568/128) = 13 row tiles, 2 column tiles: 26 tiles on 56 units -> 1 wave, 26/56 busy.
  CHECK(g.tile == Approx(1568.0 * 128 / (13 * 128 * 2 * 64)).epsilon(kTight));
  CHECK(g.wave == Approx(26.0 / 56.0).epsilon(kTight));
  CHECK(g.depth == Approx(576.0 / (576 + 64)).epsilon(kTight));
  CHECK(g.total == Approx(0.8 * g.tile * g.wave * g.depth).epsilon(kTight));
}

TEST_CASE("batched GEMM counts tiles across the batch", "[model][efficiency]") {
  hw::ClassEfficiency e{1.0, 1.0};
  e.gemm.tile_m = 64;
  e.gemm.tile_n = 64;
  // 4 x (64 x 64): 4 tiles on 10 units -> 0.4 of a wave; 40 x (64 x 64) = 4 full waves.
  CHECK(gemm_efficiency({64, 64, 64, 4}, e, 10).wave == Approx(0.4));
  CHECK(gemm_efficiency({64, 64, 64, 40}, e, 10).wave == Approx(1.0));
}

TEST_CASE("CPU thread scaling follows Amdahl's law", "[model][efficiency]") {
  hw::ClassEfficiency e{0.5, 0.8};
  e.cpu.thread_scaling = 0.9;
  // 10 cores, parallel fraction 0.9: speedup 1 / (0.1 + 0.09) = 5.263; per core 0.5263.
  CHECK(thread_scaling_efficiency(e, 10) == Approx(1.0 / 0.19 / 10).epsilon(kTight));
  graphs::Operator op;
  op.op_class = OpClass::kElementwise;
  op.flops = 1;
  CHECK(compute_efficiency(op, e, hw::DeviceKind::kCpu, 10) ==
        Approx(0.5 / 0.19 / 10).epsilon(kTight));
  // A GPU ignores thread scaling.
  CHECK(compute_efficiency(op, e, hw::DeviceKind::kGpu, 10) == Approx(0.5));
  // Ideal scaling when not given.
  e.cpu.thread_scaling = 0;
  CHECK(thread_scaling_efficiency(e, 10) == 1.0);
}

TEST_CASE("memory-bound time is latency plus bytes over the asymptotic bandwidth",
          "[model][efficiency]") {
  // bytes / (B * m * bytes / (bytes + h)) = h / (B m) + bytes / (B m).
  hw::ClassEfficiency e{1.0, 0.5};
  e.traffic.half_bytes = 2e6;
  const double bw = 100e9;
  for (double bytes : {1e3, 1e6, 1e9}) {
    const double t = bytes / (bw * memory_efficiency(bytes, e));
    CHECK(t == Approx(2e6 / (bw * 0.5) + bytes / (bw * 0.5)).epsilon(1e-12));
  }
}

TEST_CASE("cache-resident ops stream at up to cache_boost times the DRAM fraction",
          "[model][efficiency]") {
  // factor = 1 + (boost - 1) * c / (c + bytes): boost at 0 bytes, halfway at c, 1 far above.
  hw::ClassEfficiency e{1.0, 0.5};
  e.traffic.cache_boost = 5;
  e.traffic.cache_bytes = 4e6;
  CHECK(memory_efficiency(0, e) == Approx(0.5 * 5));
  CHECK(memory_efficiency(4e6, e) == Approx(0.5 * 3));                    // 1 + 4 / 2
  CHECK(memory_efficiency(36e6, e) == Approx(0.5 * (1 + 4 * 4.0 / 40)));  // a tenth of the way
  CHECK(memory_efficiency(1e12, e) == Approx(0.5).epsilon(1e-4));         // 1 + 1.6e-5
  // cache_bytes 0 (the schema default) switches the term off whatever cache_boost says.
  e.traffic.cache_bytes = 0;
  CHECK(memory_efficiency(1e3, e) == 0.5);
}

TEST_CASE("tensor-core rates serve only matrix classes", "[model][roofline]") {
  hw::DeviceSpec d = test::round_device();
  d.peak[Precision::kFp16] = {8e12, hw::ComputeUnit::kTensor};
  const Roofline r(d);
  CHECK(r.peak(OpClass::kGemm, Precision::kFp16) == 8e12);
  CHECK(r.peak(OpClass::kConv, Precision::kFp16) == 8e12);
  CHECK(r.peak(OpClass::kElementwise, Precision::kFp16) == 1e12);
  REQUIRE(r.rate_note(OpClass::kElementwise, Precision::kFp16));
  CHECK(r.rate_note(OpClass::kElementwise, Precision::kFp16)->kind ==
        AssumptionKind::kNonMatrixRate);
  CHECK_FALSE(r.rate_note(OpClass::kGemm, Precision::kFp16));
  // No bf16 rate at all: everything at fp32, with a note.
  CHECK(r.peak(OpClass::kGemm, Precision::kBf16) == 1e12);
  REQUIRE(r.rate_note(OpClass::kGemm, Precision::kBf16));
  CHECK(r.rate_note(OpClass::kGemm, Precision::kBf16)->kind == AssumptionKind::kNoPrecisionRate);
}

TEST_CASE("Roofline resolves class parameters and flags the defaulted ones", "[model][roofline]") {
  hw::DeviceSpec d = test::round_device();
  d.efficiency[hw::entry("gemm")] = hw::ClassEfficiency{0.9, 0.7};
  const Roofline r(d);
  CHECK(r.efficiency(OpClass::kGemm).compute == 0.9);
  CHECK_FALSE(r.uses_default_efficiency(OpClass::kGemm));
  CHECK(r.uses_default_efficiency(OpClass::kPooling));
  // The fast path and the one-off estimate agree exactly.
  graphs::Operator op;
  op.op_class = OpClass::kGemm;
  op.flops = 2.0 * 512 * 512 * 512;
  op.bytes_read = 2e6;
  op.gemm = {512, 512, 512, 1};
  CHECK(r.estimate(op).time_s == estimate(op, d).time_s);
}

TEST_CASE("stride-1 data gradients run as the forward convolution they are",
          "[model][efficiency]") {
  // 3x3, C 64 -> K 128 at 14x14, batch 8, backward data: m = N H W = 1568, n = C = 64,
  // k = K R S = 1152. Its forward GEMM: 1568 x 128 x 576.
  hw::DeviceSpec device = test::round_device();
  hw::ClassEfficiency conv{0.8, 0.8};
  conv.gemm.tile_m = 128;
  conv.gemm.tile_n = 64;
  device.efficiency[hw::entry("conv")] = conv;
  hw::ClassEfficiency data{0.5, 0.8};
  data.conv.as_forward = 1.25;
  device.efficiency[hw::entry("conv_bwd_data")] = data;
  graphs::Operator op;
  op.op_class = OpClass::kConv;
  op.phase = Phase::kBackwardData;
  op.conv_kernel = 3;
  op.conv_stride = 1;
  op.gemm = {1568, 64, 1152, 1};
  op.flops = 2.0 * 1568 * 64 * 1152;
  op.bytes_read = 4e6;
  REQUIRE(can_run_as_forward(op));
  const graphs::Operator f = forward_op(op);
  CHECK(f.phase == Phase::kForward);
  CHECK(f.gemm.m == 1568);
  CHECK(f.gemm.n == 128);
  CHECK(f.gemm.k == 576);
  const double as_forward = 1.25 * estimate(f, device).time_s;
  CHECK(estimate(op, device).time_s == Approx(as_forward).epsilon(kTight));
  // The kernel it is costed on is the forward's, so named.
  CHECK(kernel_name(estimate(f, device).kernel) == "gemm 128x64");
  CHECK(kernel_name(estimate(op, device).kernel) == "as forward: gemm 128x64");
  // 1x1: the dual GEMM is the op's own.
  graphs::Operator pointwise = op;
  pointwise.conv_kernel = 1;
  pointwise.gemm = {1568, 64, 128, 1};
  CHECK(forward_op(pointwise).gemm.n == 64);
  CHECK(forward_op(pointwise).gemm.k == 128);
  // Strided, 5x5 (another algorithm than the forward's on DeepBench), or no ratio: their own
  // entry's implicit GEMM.
  graphs::Operator strided = op;
  strided.conv_stride = 2;
  graphs::Operator wide = op;
  wide.conv_kernel = 5;
  CHECK_FALSE(can_run_as_forward(strided));
  CHECK_FALSE(can_run_as_forward(wide));
  device.efficiency[hw::entry("conv_bwd_data")].conv.as_forward = 0;
  CHECK(estimate(op, device).time_s != Approx(as_forward).epsilon(0.01));
}

TEST_CASE("matrix ops at a tensor-core precision look up their precision's entries first",
          "[model][efficiency]") {
  hw::DeviceSpec device = test::round_device();
  device.efficiency[hw::entry("conv")] = hw::ClassEfficiency{0.1, 0.8};
  device.efficiency[hw::entry("conv.fp16")] = hw::ClassEfficiency{0.2, 0.8};
  device.efficiency[hw::entry("conv_bwd_data")] = hw::ClassEfficiency{0.3, 0.8};
  device.efficiency[hw::entry("conv_bwd_data.fp16")] = hw::ClassEfficiency{0.4, 0.8};
  device.efficiency[hw::entry("elementwise")] = hw::ClassEfficiency{0.5, 0.8};
  graphs::Operator op;
  op.op_class = OpClass::kConv;
  op.precision = Precision::kFp16;
  CHECK(entry_precision(op) == Precision::kFp16);
  CHECK(specific_efficiency(op, device)->compute == 0.2);  // forward: conv.fp16
  op.phase = Phase::kBackwardData;
  CHECK(specific_efficiency(op, device)->compute == 0.4);  // conv_bwd_data.fp16
  device.efficiency.erase(hw::entry("conv_bwd_data.fp16"));
  CHECK(specific_efficiency(op, device)->compute == 0.2);  // then conv.fp16
  device.efficiency.erase(hw::entry("conv.fp16"));
  CHECK(specific_efficiency(op, device)->compute == 0.3);  // then conv_bwd_data
  op.precision = Precision::kFp32;
  CHECK_FALSE(entry_precision(op));
  op.phase = Phase::kForward;
  CHECK(specific_efficiency(op, device) == nullptr);  // the class entry applies
  graphs::Operator add;
  add.op_class = OpClass::kElementwise;
  add.precision = Precision::kFp16;
  CHECK_FALSE(entry_precision(add));  // memory-bound classes have one entry
}

TEST_CASE("Roofline resolves phase and precision entries as specific_efficiency does",
          "[model][roofline]") {
  // Every class, phase and precision: the efficiency Roofline applies (its entries resolved
  // once from the device's keys) is the one the lookup by name gives.
  hw::DeviceSpec device = test::round_device();
  const auto entry = [](double compute) {
    hw::ClassEfficiency e{compute, 0.8};
    e.gemm.tile_m = 64;
    e.gemm.tile_n = 64;
    return e;
  };
  device.efficiency[hw::entry("conv")] = entry(0.11);
  device.efficiency[hw::entry("conv.fp16")] = entry(0.12);
  device.efficiency[hw::entry("conv_bwd_data")] = entry(0.13);
  device.efficiency[hw::entry("conv_bwd_data.fp16")] = entry(0.14);
  device.efficiency[hw::entry("conv_bwd_filter.tf32")] = entry(0.15);
  device.efficiency[hw::entry("gemm.bf16")] = entry(0.16);
  // a phase entry of another class (no device file names it; the roofline takes any key)
  device.efficiency[hw::EfficiencyKey{OpClass::kRnn, Phase::kBackwardData}] = entry(0.17);
  const Roofline roofline(device);
  for (int c = 0; c < kOpClassCount; ++c)
    for (int p = 0; p < kPhaseCount; ++p)
      for (int q = 0; q < kPrecisionCount; ++q) {
        graphs::Operator op;
        op.op_class = static_cast<OpClass>(c);
        op.phase = static_cast<Phase>(p);
        op.precision = static_cast<Precision>(q);
        op.gemm = {1000, 1000, 1000, 1};
        op.flops = 2e9;
        op.bytes_read = 1e6;
        INFO(op_class_name(op.op_class) << " phase " << p << " precision " << q);
        CHECK(roofline.estimate(op).compute_efficiency ==
              Approx(compute_efficiency(op, device)).epsilon(kTight));
      }
}

TEST_CASE("starved convolutions may split their reduction", "[model][efficiency]") {
  // A 3x3 filter gradient, C = K = 64: m = 64, n = 576, k = N P Q = 8 x 56 x 56 = 25088, on
  // 10 units with 64 x 64 tiles: 1 x 9 = 9 tiles, so floor(10 / 9) = 1 part: no split. With
  // m = n = 64 (1 tile) it splits into min(floor(10 / 1), floor(25088 / 256)) = 10 parts of
  // depth 2509.
  hw::ClassEfficiency e{0.8, 0.8};
  e.gemm.tile_m = 64;
  e.gemm.tile_n = 64;
  e.gemm.k_half = 512;
  e.gemm.split_k = 0.5;
  CHECK(split_k_efficiency({64, 576, 25088, 1}, e, 10) == 0);
  const GemmEfficiency split = gemm_efficiency({64, 64, 2509, 10}, e, 10);
  CHECK(split.wave == Approx(1.0).epsilon(kTight));
  CHECK(split_k_efficiency({64, 64, 25088, 1}, e, 10) == Approx(0.5 * split.total).epsilon(kTight));
  // The faster of split and unsplit: the unsplit kernel keeps 1 of 10 units busy.
  graphs::Operator op;
  op.op_class = OpClass::kConv;
  op.phase = Phase::kBackwardWeight;
  op.gemm = {64, 64, 25088, 1};
  const double unsplit = gemm_efficiency(op.gemm, e, 10).total;
  CHECK(unsplit == Approx(0.8 * 0.1 * 25088.0 / (25088 + 512)).epsilon(kTight));
  CHECK(compute_efficiency(op, e, hw::DeviceKind::kGpu, 10) ==
        Approx(std::max(unsplit, 0.5 * split.total)).epsilon(kTight));
  CHECK(kernel_name(compute_choice(op, e, hw::DeviceKind::kGpu, 10).kernel) ==
        "split-K 10 x 64x64");
  // A shallow reduction does not split: floor(300 / 256) = 1 part.
  CHECK(split_k_efficiency({64, 64, 300, 1}, e, 10) == 0);
  // The entry decides, not the phase: a forward op on it splits the same way; without
  // split_k nothing splits.
  op.phase = Phase::kForward;
  CHECK(compute_efficiency(op, e, hw::DeviceKind::kGpu, 10) ==
        Approx(std::max(unsplit, 0.5 * split.total)).epsilon(kTight));
  e.gemm.split_k = 0;
  CHECK(compute_efficiency(op, e, hw::DeviceKind::kGpu, 10) == Approx(unsplit).epsilon(kTight));
  CHECK(kernel_name(compute_choice(op, e, hw::DeviceKind::kGpu, 10).kernel) == "gemm 64x64");
}

namespace {
constexpr hw::DeviceKind kGpu = hw::DeviceKind::kGpu;

// A plain convolution as graphs/ops/conv.cpp lowers it (N x C x H x W -> N x K x P x Q, R = S =
// `kernel`, stride 1, fp32, no bias; X read whole): FLOPs 2 N K P Q (C/g) R S, bytes X, W and Y,
// implicit GEMM per group as conv.cpp's comment gives it.
graphs::Operator plain_conv(Phase phase, std::int64_t n, std::int64_t c, std::int64_t hw,
                            std::int64_t k, int kernel, std::int64_t groups) {
  graphs::Operator op;
  op.op_class = OpClass::kConv;
  op.phase = phase;
  op.conv_kernel = kernel;
  op.conv_stride = 1;
  op.conv_batch = n;
  op.conv_groups = groups;
  const std::int64_t taps = static_cast<std::int64_t>(kernel) * kernel;
  const std::int64_t grid = n * hw * hw;  // P = Q = H = W ("same" padding)
  const double x = 4.0 * static_cast<double>(n * c * hw * hw);
  const double y = 4.0 * static_cast<double>(n * k * hw * hw);
  const double w = 4.0 * static_cast<double>(k * (c / groups) * taps);
  op.conv_input_elements = x / 4;
  op.conv_output_elements = y / 4;
  op.flops = 2.0 * static_cast<double>(grid * k * (c / groups) * taps);
  switch (phase) {
    case Phase::kForward:
      op.gemm = {grid, k / groups, (c / groups) * taps, groups};
      op.bytes_read = x + w;
      op.bytes_written = y;
      break;
    case Phase::kBackwardData:
      op.gemm = {grid, c / groups, (k / groups) * taps, groups};
      op.bytes_read = y + w;
      op.bytes_written = x;
      break;
    default:
      op.gemm = {k / groups, (c / groups) * taps, grid, groups};
      op.bytes_read = y + x;
      op.bytes_written = w;
      break;
  }
  return op;
}
}  // namespace

TEST_CASE("depthwise convolutions run on direct kernels, other grouped ones on GEMMs",
          "[model][efficiency][direct]") {
  for (const Phase phase : {Phase::kForward, Phase::kBackwardData, Phase::kBackwardWeight}) {
    INFO(phase_name(phase));
    // Depthwise: C = K = groups = 32 (one channel per group), and with a channel multiplier
    // of 2 (K = 64, still one input channel per group: PyTorch's is_depthwise).
    CHECK(conv_group_channels(plain_conv(phase, 8, 32, 14, 32, 3, 32)) == 1);
    CHECK(runs_direct(plain_conv(phase, 8, 32, 14, 32, 3, 32), kGpu));
    CHECK(runs_direct(plain_conv(phase, 8, 32, 14, 64, 3, 32), kGpu));
    CHECK(runs_direct(plain_conv(phase, 8, 32, 14, 32, 5, 32), kGpu));
    // ResNeXt's grouped 3x3 (32 groups of 4 channels) and an ungrouped convolution: GEMMs.
    CHECK(conv_group_channels(plain_conv(phase, 8, 128, 14, 128, 3, 32)) == 4);
    CHECK_FALSE(runs_direct(plain_conv(phase, 8, 128, 14, 128, 3, 32), kGpu));
    CHECK_FALSE(runs_direct(plain_conv(phase, 8, 32, 14, 32, 3, 1), kGpu));
    // One input channel but no groups (a first layer on a one-channel image): a GEMM.
    CHECK_FALSE(runs_direct(plain_conv(phase, 8, 1, 14, 32, 3, 1), kGpu));
  }
  // No groups recorded (dilated and transposed convolutions) or not a convolution.
  graphs::Operator dilated = plain_conv(Phase::kForward, 8, 32, 14, 32, 3, 32);
  dilated.conv_groups = 0;
  CHECK_FALSE(runs_direct(dilated, kGpu));
  graphs::Operator gemm = plain_conv(Phase::kForward, 8, 32, 14, 32, 3, 32);
  gemm.op_class = OpClass::kGemm;
  CHECK_FALSE(runs_direct(gemm, kGpu));
  // On a CPU (oneDNN, with its layout conversions) the rule does not apply.
  CHECK_FALSE(runs_direct(plain_conv(Phase::kForward, 8, 32, 14, 32, 3, 32), hw::DeviceKind::kCpu));
}

TEST_CASE("MobileNet-v2's depthwise layers, and only they, run on direct kernels",
          "[model][efficiency][direct]") {
  // The lowering's own dims (graphs/ops/conv.cpp), every direction: the zoo network's
  // depthwise convolutions are its layers named "dw" (groups: hidden).
  graphs::LoweringOptions lo;
  lo.mode = graphs::Mode::kTrain;
  const graphs::LoweredNetwork net = graphs::lower(
      graphs::bind_sizes(graphs::load_zoo_network("mobilenet-v2"), {{"batch", 2}}), lo);
  const hw::DeviceSpec device = test::round_device();
  int direct = 0, convs = 0;
  for (std::size_t id = 0; id < net.graph.size(); ++id) {
    const graphs::Operator& op = net.graph.op(id);
    if (op.op_class != OpClass::kConv) continue;
    ++convs;
    INFO(op.name);
    const bool depthwise = op.layer.size() > 3 && op.layer.substr(op.layer.size() - 3) == ".dw";
    CHECK(runs_direct(op, kGpu) == depthwise);
    CHECK((estimate(op, device).kernel.algorithm == Algorithm::kDirect) == depthwise);
    direct += depthwise;
  }
  // 17 depthwise layers, each with a forward, a data and a filter gradient.
  CHECK(direct == 17 * 3);
  CHECK(convs > direct);
}

TEST_CASE("a direct kernel's time is its bytes at the elementwise bandwidth, or its FLOPs",
          "[model][efficiency][direct]") {
  // round_device: 1 TFLOP/s fp32 (FMA), 100 GB/s, no launch latency; elementwise at memory 0.5,
  // compute 0.25, latency 2 us; the conv entry would run its GEMM at 0.9.
  hw::DeviceSpec device = test::round_device();
  device.peak[Precision::kBf16] = {8e12, hw::ComputeUnit::kTensor};
  hw::ClassEfficiency elementwise{0.25, 0.5};
  elementwise.latency_s = 2e-6;
  device.efficiency[hw::entry("elementwise")] = elementwise;
  device.efficiency[hw::entry("conv")] = hw::ClassEfficiency{0.9, 0.9};
  // Depthwise 3x3, N = 2, C = K = 8, 8x8: X and Y 2 x 8 x 8 x 8 x 4 B = 4096 B each, W 8 x 9
  // x 4 B = 288 B; 2 x 2 x 8 x 8 x 8 x 9 = 18432 FLOPs, 73.7 ns at 0.25 TFLOP/s against
  // 8480 B / 50 GB/s = 169.6 ns: memory-bound.
  const graphs::Operator fwd = plain_conv(Phase::kForward, 2, 8, 8, 8, 3, 8);
  REQUIRE(fwd.bytes() == 4096 + 288 + 4096);
  REQUIRE(fwd.flops == 18432);
  const OpCost c = estimate(fwd, device);
  CHECK(c.kernel.algorithm == Algorithm::kDirect);
  CHECK(c.bound == Bound::kLatency);  // 2 us of latency against 170 ns of traffic
  CHECK(c.memory_s == Approx((4096 + 288 + 4096) / (100e9 * 0.5)).epsilon(kTight));
  CHECK(c.compute_s == Approx(18432 / (1e12 * 0.25)).epsilon(kTight));
  CHECK(c.time_s == Approx((4096 + 288 + 4096) / (100e9 * 0.5) + 2e-6).epsilon(kTight));
  // Each direction moves its own tensors: the filter gradient reads X and Y, writes W.
  const graphs::Operator dw = plain_conv(Phase::kBackwardWeight, 2, 8, 8, 8, 3, 8);
  CHECK(estimate(dw, device).time_s ==
        Approx((4096 + 4096 + 288) / (100e9 * 0.5) + 2e-6).epsilon(kTight));
  // A 7x7 depthwise layer at 0.01 of the FMA peak is compute-bound: 2 x 2 x 8 x 8 x 8 x 49
  // = 100352 FLOPs at 10 GFLOP/s, 10 us, against 4096 + 1568 + 4096 B at 50 GB/s (195 ns).
  device.efficiency[hw::entry("elementwise")].compute = 0.01;
  const graphs::Operator wide = plain_conv(Phase::kForward, 2, 8, 8, 8, 7, 8);
  const OpCost w = estimate(wide, device);
  CHECK(w.bound == Bound::kCompute);
  CHECK(w.time_s == Approx(100352 / (1e12 * 0.01) + 2e-6).epsilon(kTight));
  // At bf16 the direct kernel runs on the FMA pipes, not the tensor cores: the fp32 rate.
  graphs::Operator half = wide;
  half.precision = Precision::kBf16;
  CHECK(estimate(half, device).compute_s == Approx(100352 / (1e12 * 0.01)).epsilon(kTight));
  // The same layer ungrouped (C/g = 8) is the conv entry's GEMM.
  CHECK(estimate(plain_conv(Phase::kForward, 2, 8, 8, 8, 7, 1), device).kernel.algorithm ==
        Algorithm::kGemm);
}
