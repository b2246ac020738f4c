#pragma once
// The input a convolution's windows actually read. Along one dimension, `out` windows of
// `kernel` elements each touch at most out x kernel of the `in` input elements: all of them
// when the windows overlap or abut (kernel >= stride), and only out x kernel when the kernel
// is smaller than its stride. A 1x1 stride-2 convolution (ResNet's projection shortcuts)
// thus reads a quarter of its input, and its forward and weight-gradient kernels move a
// quarter of the input bytes; its data gradient still writes every element of dX (zeros
// between the strided positions). graphs/ops/conv.cpp counts bytes this way, and so do the
// calibration benches (calibrate/measured_op.h conv_bytes, calibrate/cuda/conv_bench.cu),
// so that a fitted memory efficiency means the same thing in the fit and in predictions.

#include <algorithm>
#include <cstdint>

namespace amdahl::graphs {

inline std::int64_t conv_input_extent(std::int64_t in, std::int64_t out, std::int64_t kernel) {
  return std::min(in, out * kernel);
}

}  // namespace amdahl::graphs
