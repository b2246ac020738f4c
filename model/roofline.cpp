#include "model/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "model/efficiency.h"
#include "model/fft.h"

namespace amdahl::model {

Roofline::Roofline(const hw::DeviceSpec& device) : device_(&device) {
  for (int i = 0; i < kOpClassCount; ++i) {
    const auto it = device.efficiency.find({static_cast<OpClass>(i)});
    defaulted_[i] = it == device.efficiency.end();
    efficiency_[i] = defaulted_[i] ? device.default_efficiency() : it->second;
  }
  resolve_specific_entries(device);
  const auto fp32 = device.peak_for(Precision::kFp32);
  const double fp32_rate = fp32 ? fp32->flops_per_s : 0;
  for (int p = 0; p < kPrecisionCount; ++p) {
    const auto precision = static_cast<Precision>(p);
    const auto peak = device.peak_for(precision);
    for (int matrix = 0; matrix < 2; ++matrix) {
      Rate& r = rates_[matrix][p];
      if (!peak) {
        r.flops_per_s = fp32_rate;
        r.note = RateNote::kNoRate;
      } else if (!matrix && precision != Precision::kFp32 &&
                 (peak->unit == hw::ComputeUnit::kTensor ||
                  peak->unit == hw::ComputeUnit::kMatrix) &&
                 fp32 && fp32->unit != hw::ComputeUnit::kTensor &&
                 fp32->unit != hw::ComputeUnit::kMatrix) {
        r.flops_per_s = fp32_rate;
        r.note = RateNote::kNonMatrixUnit;
        r.unit = peak->unit;
        r.fp32_unit = fp32->unit;
      } else {
        r.flops_per_s = peak->flops_per_s;
      }
    }
  }
}

std::optional<Assumption> Roofline::rate_note(OpClass c, Precision p) const {
  const Rate& r = rates_[is_matrix_class(c) ? 1 : 0][static_cast<int>(p)];
  const std::string precision(precision_name(p));
  switch (r.note) {
    case RateNote::kNone:
      return std::nullopt;
    case RateNote::kNoRate:
      return Assumption{AssumptionKind::kNoPrecisionRate, {device_->model, precision}, {}};
    case RateNote::kNonMatrixUnit:
      return Assumption{AssumptionKind::kNonMatrixRate,
                        {device_->model, precision, std::string(hw::compute_unit_name(r.unit)),
                         std::string(hw::compute_unit_name(r.fp32_unit))},
                        {}};
  }
  return std::nullopt;
}

// specific_efficiency's order, from the device's keys rather than by probing every class,
// phase and precision (a Roofline is built per model::estimate call while fitting): phase
// entry at the op's precision (3), class entry at its precision (2), phase entry (1).
void Roofline::resolve_specific_entries(const hw::DeviceSpec& device) {
  std::array<int, std::tuple_size_v<decltype(specific_)>> rank{};
  const auto offer = [&](OpClass c, Phase p, Precision q, int r, const hw::ClassEfficiency* e) {
    const int i = specific_index(c, p, q);
    if (r > rank[i]) {
      rank[i] = r;
      specific_[i] = e;
    }
  };
  for (const auto& [key, entry] : device.efficiency) {
    if (!key.op_class) continue;  // `default`
    const std::optional<Phase> phase =
        key.phase == Phase::kForward ? std::nullopt : std::optional(key.phase);
    const std::optional<Precision>& precision = key.precision;
    for (int p = 0; p < kPhaseCount; ++p)
      for (int q = 0; q < kPrecisionCount; ++q) {
        const auto ph = static_cast<Phase>(p);
        const auto pr = static_cast<Precision>(q);
        if (phase && ph != *phase) continue;
        if (precision && pr != *precision) continue;
        if (!phase && !precision) continue;  // the class entry: efficiency_
        offer(*key.op_class, ph, pr, phase && precision ? 3 : precision ? 2 : 1, &entry);
      }
  }
}

namespace {
// The bytes an op allocates fresh from the OS (hw::AllocationSpec): its output when larger
// than `above` (optimizer updates and in-place layers write into existing tensors). A convolution
// run by the library on a CPU framework (not as im2col + GEMM, which writes the framework's tensor
// directly) also has the library convert layouts: every activation it reads (X, dY) into a new
// buffer in its own layout, and every activation it produces (Y, dX) into a new buffer that is then
// converted into the framework's new output tensor (oneDNN on PyTorch's NCHW tensors). Each buffer
// larger than `above` counts.
double fresh_bytes(const graphs::Operator& op, double above) {
  if (op.op_class == OpClass::kOptimizer || op.in_place) return 0;
  const auto fresh = [&](double bytes) { return bytes > above ? bytes : 0.0; };
  if (op.op_class != OpClass::kConv || op.conv_batch <= 0) return fresh(op.bytes_written);
  const double e = graphs::dtype_bytes(op.dtype);
  const double x = fresh(e * op.conv_input_elements), y = fresh(e * op.conv_output_elements);
  switch (op.phase) {
    case Phase::kBackwardData:
      return y + 2 * x;
    case Phase::kBackwardWeight:
      return x + y + fresh(op.bytes_written);
    default:
      return x + 2 * y;
  }
}
}  // namespace

const hw::ClassEfficiency& Roofline::entry(const graphs::Operator& op) const {
  const hw::ClassEfficiency* specific =
      specific_[specific_index(op.op_class, op.phase, op.precision)];
  return specific ? *specific : efficiency_[static_cast<int>(op.op_class)];
}

OpCost Roofline::estimate(const graphs::Operator& op) const {
  OpCost c = estimate_kernels(op);
  if (device_->kind == hw::DeviceKind::kGpu && entry(op).conv.fft_algorithm && fft_eligible(op)) {
    // The library's search times FFT beside the other algorithms and keeps the fastest.
    const OpCost fft = estimate_fft(op);
    if (fft.time_s < c.time_s) return fft;
  }
  return c;
}

OpCost Roofline::estimate_fft(const graphs::Operator& op) const {
  OpCost best;
  for (const int tile : kFftTiles) {
    if (!fft_tile_fits(op, tile)) continue;
    const FftParts parts = fft_parts(op, tile);
    const OpCost product = estimate(parts.product);
    OpCost c;
    c.peak_flops_per_s = product.peak_flops_per_s;
    c.bandwidth_bytes_per_s = device_->memory.bandwidth_bytes_per_s;
    c.compute_s = product.compute_s;
    c.memory_s = product.memory_s;
    c.latency_s = product.latency_s;
    double work = std::max(product.compute_s, product.memory_s);
    for (const graphs::Operator& t : parts.transforms) {
      const OpCost tc = estimate(t);
      c.memory_s += tc.memory_s;
      c.latency_s += tc.latency_s;
      c.memory_efficiency = tc.memory_efficiency;
      work += std::max(tc.compute_s, tc.memory_s);
    }
    const hw::AllocationSpec& a = device_->allocation;
    if (a.bytes_per_s > 0) c.allocation_s = fresh_bytes(op, a.above_bytes) / a.bytes_per_s;
    c.time_s = work + c.allocation_s + c.latency_s;
    // The direct FLOPs over the time the product computes: above 1 where the transform saves
    // more work than its GEMM loses, as Winograd's.
    c.compute_efficiency = c.compute_s > 0 ? op.flops / (c.peak_flops_per_s * c.compute_s) : 0;
    if (c.latency_s > work + c.allocation_s)
      c.bound = Bound::kLatency;
    else
      c.bound = c.compute_s >= c.memory_s + c.allocation_s ? Bound::kCompute : Bound::kMemory;
    c.kernel = {Algorithm::kFft, Lowering::kNative, tile, tile};
    if (best.time_s == 0 || c.time_s < best.time_s) best = c;
  }
  return best;
}

OpCost Roofline::estimate_kernels(const graphs::Operator& op) const {
  const int cls = static_cast<int>(op.op_class);
  const hw::ClassEfficiency* specific =
      specific_[specific_index(op.op_class, op.phase, op.precision)];
  if (runs_as_gemm(op, efficiency_[cls])) {
    OpCost c = estimate(as_gemm_op(op));
    c.kernel.lowering = Lowering::kIm2colGemm;
    return c;
  }
  if (runs_direct(op, device_->kind)) {  // efficiency.h: a depthwise convolution's direct kernel
    OpCost c = estimate(direct_op(op));
    c.kernel = {Algorithm::kDirect};
    return c;
  }
  if (specific && specific->conv.as_forward > 0 && can_run_as_forward(op)) {
    // efficiency.h: the forward convolution it runs as, times the ratio.
    const double ratio = specific->conv.as_forward;
    OpCost c = estimate(forward_op(op));
    c.time_s *= ratio;
    c.compute_s *= ratio;
    c.memory_s *= ratio;
    c.latency_s *= ratio;
    c.compute_efficiency /= ratio;
    c.memory_efficiency /= ratio;
    c.kernel.lowering = Lowering::kAsForward;
    return c;
  }
  OpCost c;
  const hw::ClassEfficiency& e = entry(op);
  c.peak_flops_per_s =
      rates_[is_matrix_class(op.op_class) ? 1 : 0][static_cast<int>(op.precision)].flops_per_s;
  c.bandwidth_bytes_per_s = device_->memory.bandwidth_bytes_per_s;
  const ComputeChoice choice = compute_choice(op, e, device_->kind, device_->parallel_units);
  c.compute_efficiency = choice.efficiency;
  c.kernel = choice.kernel;
  const MemoryTraffic traffic = memory_traffic(op, e);
  const double bytes = traffic.bytes;
  c.memory_efficiency = memory_efficiency(traffic.cache_size, e);
  c.compute_s = op.flops > 0 ? op.flops / (c.peak_flops_per_s * c.compute_efficiency) : 0;
  c.memory_s = bytes > 0 ? bytes / (c.bandwidth_bytes_per_s * c.memory_efficiency) : 0;
  c.latency_s = device_->launch_latency_s + e.latency_s;
  // Fresh allocations' page faults come before the op can write them, in series with its work.
  const hw::AllocationSpec& a = device_->allocation;
  if (a.bytes_per_s > 0) c.allocation_s = fresh_bytes(op, a.above_bytes) / a.bytes_per_s;
  const double work =
      e.traffic.memory_in_series ? c.compute_s + c.memory_s : std::max(c.compute_s, c.memory_s);
  c.time_s = work + c.allocation_s + c.latency_s;
  if (c.latency_s > work + c.allocation_s)
    c.bound = Bound::kLatency;
  else
    c.bound = c.compute_s >= c.memory_s + c.allocation_s ? Bound::kCompute : Bound::kMemory;
  return c;
}

OpCost estimate(const graphs::Operator& op, const hw::DeviceSpec& device) {
  return Roofline(device).estimate(op);
}

double link_bandwidth(const hw::LinkSpec& link, Direction direction, bool pinned) {
  const bool h2d = direction == Direction::kHostToDevice;
  return pinned ? (h2d ? link.h2d_pinned : link.d2h_pinned)
                : (h2d ? link.h2d_pageable : link.d2h_pageable);
}

OpCost estimate_transfer(double bytes, const hw::LinkSpec& link, Direction direction, bool pinned) {
  OpCost c;
  c.bandwidth_bytes_per_s = link_bandwidth(link, direction, pinned);
  c.memory_efficiency = c.bandwidth_bytes_per_s / link.bandwidth_bytes_per_s;
  c.transfer_s = bytes / c.bandwidth_bytes_per_s;
  c.latency_s = link.latency_s;
  c.time_s = c.transfer_s + c.latency_s;
  c.bound = c.latency_s > c.transfer_s ? Bound::kLatency : Bound::kTransfer;
  return c;
}

}  // namespace amdahl::model
