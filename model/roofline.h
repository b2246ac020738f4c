#pragma once
// Per-op cost: time = max(FLOPs / (peak x compute efficiency),
//                         bytes / (bandwidth x memory efficiency)) + launch latency
//                    + the class's fixed latency.
// The peak is the rate of the unit the op uses at its math precision:
//  - tf32 falls back to fp32 where the device has no TF32 unit (DeviceSpec::peak_for);
//  - a precision the device has no rate for is costed at its fp32 rate, with a note;
//  - a rate delivered by tensor cores or matrix engines serves only matrix classes (gemm,
//    conv, rnn, attention); other classes at that precision run on the FMA/SIMD pipes and
//    are costed at the fp32 rate, with a note (pointwise 16-bit math does not use the
//    tensor cores; NVIDIA Hopper/Ampere architecture whitepapers).
// Transfers cost latency + bytes / achieved link bandwidth (pinned or pageable, by
// direction).

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "graphs/op_graph.h"
#include "hw/system.h"
#include "model/op_cost.h"

namespace amdahl::model {

// A device prepared for costing many ops: efficiency parameters resolved per op class and
// the peak rate per (class group, precision), so estimate() does no lookups by name.
class Roofline {
 public:
  explicit Roofline(const hw::DeviceSpec& device);

  // The op's cost on this device; rate_note() says when a rate other than the op's own was
  // used.
  OpCost estimate(const graphs::Operator& op) const;

  const hw::DeviceSpec& device() const { return *device_; }
  const hw::ClassEfficiency& efficiency(OpClass c) const {
    return efficiency_[static_cast<int>(c)];
  }
  // True when the device file has no entry for the class and "default" applies.
  bool uses_default_efficiency(OpClass c) const { return defaulted_[static_cast<int>(c)]; }
  // Why ops of class `c` at precision `p` were costed at another rate (kNoPrecisionRate,
  // kNonMatrixRate); nullopt if they were not.
  std::optional<Assumption> rate_note(OpClass c, Precision p) const;
  double peak(OpClass c, Precision p) const {
    return rates_[is_matrix_class(c) ? 1 : 0][static_cast<int>(p)].flops_per_s;
  }

 private:
  // The op's entry: its specific entry (phase, precision) when the device has one, else its
  // class entry.
  const hw::ClassEfficiency& entry(const graphs::Operator& op) const;
  // The op on the library's kernels other than FFT (estimate() also weighs FFT: model/fft.h).
  OpCost estimate_kernels(const graphs::Operator& op) const;
  // The op as an FFT convolution on its cheaper tile (model/fft.h; op fft_eligible).
  OpCost estimate_fft(const graphs::Operator& op) const;
  // Why a rate is not the op's own; the note's text is formatted only when asked for (a
  // sweep builds Rooflines per point and rarely reads them).
  enum class RateNote : std::uint8_t { kNone, kNoRate, kNonMatrixUnit };
  struct Rate {
    double flops_per_s = 0;
    RateNote note = RateNote::kNone;
    hw::ComputeUnit unit{};       // kNonMatrixUnit: the precision's unit
    hw::ComputeUnit fp32_unit{};  // kNonMatrixUnit: the fp32 unit
  };
  const hw::DeviceSpec* device_;
  std::array<hw::ClassEfficiency, kOpClassCount> efficiency_{};
  // specific_efficiency (efficiency.h) resolved per class, phase and precision: the op's entry
  // when it is not the class entry above, else nullptr.
  static int specific_index(OpClass c, Phase p, Precision q) {
    return (static_cast<int>(c) * kPhaseCount + static_cast<int>(p)) * kPrecisionCount +
           static_cast<int>(q);
  }
  std::array<const hw::ClassEfficiency*, kOpClassCount * kPhaseCount * kPrecisionCount> specific_{};
  void resolve_specific_entries(const hw::DeviceSpec& device);
  std::array<bool, kOpClassCount> defaulted_{};
  std::array<std::array<Rate, kPrecisionCount>, 2> rates_;  // [matrix class][precision]
};

// One-off costing (builds a Roofline).
OpCost estimate(const graphs::Operator& op, const hw::DeviceSpec& device);

enum class Direction { kHostToDevice, kDeviceToHost };
// Achieved bandwidth of the link in that direction (pinned or pageable host memory).
double link_bandwidth(const hw::LinkSpec& link, Direction direction, bool pinned);
OpCost estimate_transfer(double bytes, const hw::LinkSpec& link, Direction direction, bool pinned);

}  // namespace amdahl::model
