#pragma once
// FFT convolution: cuDNN's FFT-tiling algorithms (CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING and its
// data- and filter-gradient counterparts), which the library's algorithm search (PyTorch's
// cudnn.benchmark, cudnnFind*) takes where they beat the implicit-GEMM and Winograd kernels:
// AlexNet's 5x5 layer on an H200 at fp32 runs its forward in 336 us where the implicit GEMM
// costs about 1.3 ms (shared/data/h200/kernels/conv.csv; the profile names the kernels,
// fft2d_r2c_32x32, a cf32 GEMM, fft2d_c2r_32x32).
//
// The output grid P x Q is cut into tiles of T - R + 1 by T - S + 1 outputs, each read as a T x T
// input tile (T in kFftTiles: the 16x16 and 32x32 kernels); a real T x T transform has
// bins = T (T/2 + 1) complex values. Three transforms and one product:
//   forward        X -> X^, W -> W^ (the filter, padded to T x T), Y^ -> Y
//   data gradient  dY -> dY^, W -> W^ (flipped), dX^ -> dX
//   filter grad.   X -> X^, dY -> dY^, dW^ -> dW
// the product a batch of `bins` complex GEMMs (8 real FLOPs per complex multiply-add):
//   forward        Y^ [N tiles x K]  = X^ [N tiles x C] W^ [C x K]
//   data gradient  dX^[N tiles x C]  = dY^[N tiles x K] W^ [K x C]
//   filter grad.   dW^[K x C]        = dY^[K x N tiles] X^ [N tiles x C]
// An activation's transform holds N tiles C bins (or K) complex values, the filter's K C bins.
//
// Cost (model/roofline.cpp): each transform an elementwise op (its spatial tensor read or
// written at the op's element size, its complex tensor at 8 bytes per value, 2.5 T^2 log2(T^2)
// FLOPs per transform) on the device's `elementwise` entry, the product a GEMM op at fp32 on its
// `gemm` entry; their times add (four kernels in sequence). No parameter of its own: the entries
// it uses are fitted to their own kernels. The op runs on the faster of this and its other
// algorithms, for the tile size that is cheaper.
//
// Eligible (fft_eligible): a plain (not dilated, not transposed), ungrouped, stride-1
// convolution with a window of at least kFftMinWindow on each side and no larger than the
// largest tile, at fp32 or fp16 (cuDNN's FFT configurations are FLOAT and PSEUDO_HALF: no bf16,
// and no tensor-core math, so tf32 runs its other kernels), on an entry with fft_algorithm.
// The window bound: for 3x3 windows this cost is 2-4x below what the H200 measures for every
// 3x3 stride-1 row of kernels/conv.csv at fp32 (e.g. 64 -> 64 channels at 56x56, batch 32:
// about 90 us against 292 us), and the ResNet-50 profile, all 3x3 and 1x1 layers, has no FFT
// kernel: cuDNN's FFT kernels do not reach this cost on small windows, where Winograd (which
// the model has) wins. AlexNet's 3x3 layers at 13x13 do run FFT in its profile (16x16
// transforms), which the bound leaves out (docs/calibration-h200.md).

#include <array>

#include "graphs/op_graph.h"

namespace amdahl::model {

inline constexpr std::array<int, 2> kFftTiles{16, 32};
inline constexpr int kFftMinWindow = 5;
inline constexpr double kComplexBytes = 8;  // a complex fp32 value

// The precisions the library's FFT runs: fp32 and fp16 (computed in fp32).
bool fft_precision(Precision p);
bool fft_eligible(const graphs::Operator& op);

// What an FFT convolution of op with T x T tiles runs: the three transforms, then the product.
struct FftParts {
  std::array<graphs::Operator, 3> transforms;
  graphs::Operator product;
};

// Whether `tile` holds op's window (a tile must cover at least one output).
bool fft_tile_fits(const graphs::Operator& op, int tile);
// op: fft_eligible, `tile`: fft_tile_fits.
FftParts fft_parts(const graphs::Operator& op, int tile);

}  // namespace amdahl::model
