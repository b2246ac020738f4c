#pragma once
// Where a convolution's windows fall: how many there are along a dimension, and the input
// they actually read.
//
// Output size: windows of `kernel` elements dilated by `dilation` (spanning
// dilation (kernel - 1) + 1) step by `stride` over the input padded by `pad` on each side:
// (in + 2 pad - span) / stride + 1, or none when the span exceeds the padded input.
//
// The input the windows read: along one dimension, `out` windows of `kernel` elements each
// touch at most out x kernel of the `in` input elements: all of them
// when the windows overlap or abut (kernel >= stride), and only out x kernel when the kernel
// is smaller than its stride. A 1x1 stride-2 convolution (ResNet's projection shortcuts)
// thus reads a quarter of its input, and its forward and weight-gradient kernels move a
// quarter of the input bytes; its data gradient still writes every element of dX (zeros
// between the strided positions). graphs/ops/conv.cpp counts bytes this way; calibration
// takes its ops from the registry (calibrate/measured_op.h) and the standalone CUDA bench
// keeps a checked copy (calibrate/cuda/conv_bytes.h), so that a fitted memory efficiency
// means the same thing in the fit and in predictions.

#include <cstdint>
#include <optional>

#include "util/checked_math.h"

namespace amdahl::graphs {

// Output positions along one dimension; nullopt when the dilated window does not fit the
// padded input, the stride is not positive, or the span or the padded input passes 2^63
// (graphs/ops/conv.cpp reports that one first, located).
inline std::optional<std::int64_t> conv_output_extent(std::int64_t in, std::int64_t kernel,
                                                      std::int64_t pad, std::int64_t stride,
                                                      std::int64_t dilation = 1) {
  const CheckedInt span = CheckedInt(dilation) * (kernel - 1) + 1;
  const CheckedInt padded = CheckedInt(in) + CheckedInt(2) * pad;
  if (stride <= 0 || !span.ok() || !padded.ok() || padded.value() < span.value())
    return std::nullopt;
  return (padded.value() - span.value()) / stride + 1;
}

// min(in, out x kernel) for sizes >= 0, without forming a product beyond `in`.
inline std::int64_t conv_input_extent(std::int64_t in, std::int64_t out, std::int64_t kernel) {
  return out > 0 && kernel > in / out ? in : out * kernel;
}

}  // namespace amdahl::graphs
