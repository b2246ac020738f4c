#pragma once
// The kernel the efficiency model runs a GEMM-like op on (model/efficiency.h), kept with the
// op's cost so that reports can say which algorithm a time assumes ("winograd 128x64",
// "split-K 4 x 128x128", "as forward: gemm 128x32", "direct depthwise", "fft 32x32") and
// calibration can compare it with the algorithm a measurement names (DeepBench records cuDNN's
// forward choice).

#include <cstdint>
#include <string>

namespace amdahl::model {

enum class Algorithm : std::uint8_t {
  kNone,      // no GEMM dims: a memory-bound or scalar-rate op
  kGemm,      // tiled GEMM / implicit-GEMM convolution (tile_m x tile_n, 0 x 0: untiled)
  kNarrow,    // the narrow (GEMV-like) kernel
  kWinograd,  // Winograd's transformed GEMM (tile of that GEMM), or the Winograd factor
  kSplitK,    // the reduction split into `split` parts
  kDirect,    // a direct (depthwise) convolution kernel, bound by memory traffic (runs_direct)
  kFft,       // an FFT convolution on tile_m x tile_n transforms (model/fft.h)
};

// How the op reached that kernel: as itself, as the forward convolution a stride-1 data
// gradient is (efficiency.h can_run_as_forward), or as a CPU framework's im2col + BLAS GEMM.
enum class Lowering : std::uint8_t { kNative, kAsForward, kIm2colGemm };

struct KernelChoice {
  Algorithm algorithm = Algorithm::kNone;
  Lowering lowering = Lowering::kNative;
  int tile_m = 0;
  int tile_n = 0;
  int split = 0;  // parts of a split-K reduction
};

// "-" for kNone; otherwise e.g. "gemm 128x64", "narrow", "winograd 128x32",
// "split-K 4 x 128x128", "direct depthwise", "fft 32x32", prefixed "as forward: " or "im2col +
// BLAS: " for the lowerings.
std::string kernel_name(const KernelChoice& k);

}  // namespace amdahl::model
