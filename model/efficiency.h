#pragma once
// Efficiency models: the fraction of the roofline an op reaches as a function of its
// shape, from the per-class parameters of the device file (hw::ClassEfficiency).
//
// GEMM and convolution (implicit GEMM, m x n output tiled by tile_m x tile_n), and RNN and
// attention ops that carry GEMM dimensions (their GEMMs; their pointwise steps are separate
// elementwise ops):
//   tiles      = ceil(m / tile_m) * ceil(n / tile_n) * batch
//   tile_eff   = (m * n) / (ceil(m / tile_m) * tile_m * ceil(n / tile_n) * tile_n)
//   wave_eff   = tiles / (ceil(tiles / parallel_units) * parallel_units)
//   depth_eff  = k / (k + k_half)
//   efficiency = compute * tile_eff * wave_eff * depth_eff
// so a GEMM one tile past a full wave takes two waves. Without tile sizes only `compute`
// and depth_eff apply. (Tile and wave quantization as in NVIDIA's "Matrix Multiplication
// Background User's Guide", sections on tile and wave quantization.)
// Tile set (tile_min, tile_max > 0): candidates tm x tn with tn in {tile_min, 2 tile_min, ...,
// tile_max} and tm the same set, or tm = tile_m when tile_m > 0 (a kernel family with fixed
// rows, e.g. cuDNN's 128x32, 128x64, 128x128 implicit-GEMM kernels); a candidate's data reuse is
//   intensity  = tm * tn / (tm + tn)   (FMAs per operand element loaded per k step)
//   reuse      = intensity / (intensity + tile_reuse_half)
//   reuse_eff  = reuse / reuse(largest candidate)   (1 when tile_reuse_half is 0)
// so `compute` is the largest tile's fraction. The op runs on the candidate with the largest
// tile_eff * wave_eff * reuse_eff (tile_choice fill: the heuristic picks the fastest kernel per
// shape) or the largest tile_eff * reuse_eff (tile_choice waste: the kernel that wastes least
// of its tiles, whatever wave quantization then costs):
//   efficiency = compute * tile_eff * wave_eff * reuse_eff (of the chosen tile) * depth_eff
// Narrow GEMMs (min(m, n) <= narrow_max, narrow_compute > 0) run on a separate kernel family
// (GEMV-like; cuBLAS and cuDNN dispatch such shapes to other kernels than their tiled GEMMs):
//   efficiency = narrow_compute * depth_eff   (no tile, wave or reuse terms)
// Winograd (is_winograd_eligible ops): efficiency *= winograd (>= 1; the op's FLOPs are the
// direct count, the fitted factor is the FLOP saving actually realized, at most 2.25 for
// F(2x2,3x3) and 4 for F(4x4,3x3)), so a 3x3 stride-1 convolution may exceed efficiency 1.
// With winograd_algorithm, Winograd is an algorithm of its own, as cuDNN's algorithm search
// treats it: its efficiency is winograd * (the GEMM efficiency of winograd_dims(op), tile chosen
// by fill), and the op runs on the faster of it and the direct convolution.
// Split-K (entries with split_k > 0; calibrated for convolution forward and filter gradients):
// when the chosen tiles number fewer than the parallel units, the reduction (depth k: C R S
// for a forward convolution, N P Q for a filter gradient) may be split into
//   s = min(floor(units / tiles), floor(k / kSplitMinDepth))
// parts run as a batch of s GEMMs of depth k / s (cuDNN's ALGO_0/ALGO_3 filter gradients, and
// the split kernels that run a deep, starved forward such as a 5x5 layer 832 -> 128 at 7x7),
// whose partial sums are added atomically or in a second pass; their efficiency times split_k
// (the cost of that summation) competes with the unsplit one and the faster is taken.
// Stride-1 convolution data gradients (can_run_as_forward) on a device whose conv_bwd_data
// entry has as_forward > 0 run as the forward convolution they are: dX is dY convolved with
// the transposed, rotated filter. For a 1x1 kernel that is the dual GEMM, the op's own (m =
// N H W, n = C, k = K, the forward GEMM of a K -> C layer); for a larger square kernel the
// layer's own forward GEMM, m x K x C R S, whose direct and Winograd costs are symmetric in C
// and K (DeepBench P100: 3x3 data gradients run at 0.89-1.0x their forward time). It is costed
// with the `conv` entry as a forward op and its time multiplied by as_forward.
// CPU frameworks' backend choice (the `conv` entry's gemm_pointwise_below_batch and
// gemm_single_max_input; runs_as_gemm): a convolution the framework runs as im2col + its BLAS
// GEMM instead of its convolution library is costed as that GEMM (the op's implicit-GEMM
// dims, no Winograd or strided terms) with the device's `gemm` entry, in all three directions
// (the backward follows the forward's backend). PyTorch 1.13 on one thread does this for 1x1
// stride-1 convolutions below batch 16 and for batch-1 convolutions of at most 20480 input
// elements with kernels of at most 3x3 (aten/src/ATen/native/Convolution.cpp, use_mkldnn);
// `calibrate cpu` asks the framework for both thresholds. The GEMM's entry is the one
// of the linear-layer GEMM with the same BLAS transposition, because a reference BLAS runs each
// transposition as another loop nest at another rate (Debian's, here: NN and NT about 4.4
// GFLOP/s, TN, a dot-product loop, about 2.8): im2col + GEMM calls NN for the forward, NT for
// the data gradient and TN for the filter gradient (aten/src/ATen/native/ConvolutionMM2d.cpp),
// a linear layer TN for its forward (x W^T), NN for dY W and NT for dY^T X, so a forward
// convolution is costed with `gemm_bwd_data`, a data gradient with `gemm_bwd_filter` and a
// filter gradient with `gemm` (as_gemm_op sets the phase that selects them).
// Alignment (entries with unaligned > 0): an op at a tensor-core precision (tf32, fp16, bf16)
// whose GEMM dims m, n and k are not all multiples of 16 bytes of its elements (8 for 16-bit
// types, 4 for tf32) runs on kernels that cannot use 16-byte vector loads, at `unaligned` times
// the aligned efficiency (H200, PyTorch 2.11: bf16 GEMMs with n = 7133 or 5481 at 140 TFLOP/s
// against 570-700 for their aligned neighbours, m = 5124 at 224; tf32 with n = 7133 at 110
// against 300, while tf32's m = 5124, a multiple of 4, is not slowed).
// Memory-bound ops: bandwidth fraction = memory * bytes / (bytes + half_bytes), i.e. the
// time is half_bytes / (memory x bandwidth) of fixed latency plus bytes over the
// asymptotic bandwidth (the latency-plus-bandwidth curve of a streaming kernel). Caches
// (cache_bytes > 0): bandwidth fraction *= 1 + (cache_boost - 1) * cache_bytes / (cache_bytes +
// bytes), so an op whose operands fit in cache streams at up to cache_boost times the DRAM
// fraction (a CPU's L2 and L3 run 2-5x its DRAM bandwidth), halfway back at cache_bytes and
// at the DRAM fraction for large ops. One smooth step stands for the whole hierarchy, and an
// op's operands count as cache-resident by their size alone: in a network, a small tensor
// was usually just written by the op before.
// CPU ops with thread_scaling s (Amdahl): speedup over one core = 1 / ((1 - s) + s / cores),
// so efficiency relative to all cores = compute * speedup / cores.
//
// Parameters a device file does not give come from the schema defaults (hw/system_schema.cpp:
// compute 0.75, memory 0.8, quantization terms off); prediction lists them as assumptions.

#include <optional>
#include <vector>

#include "graphs/op_graph.h"
#include "hw/system.h"
#include "model/kernel_choice.h"

namespace amdahl::model {

struct GemmEfficiency {
  double tile = 1;
  double wave = 1;
  double depth = 1;
  double reuse = 1;  // tile data-reuse factor (tile set or tile_reuse_half)
  double total = 1;  // including the class's `compute` fraction
  int tile_m = 0;    // the tile chosen (0: no tile quantization)
  int tile_n = 0;
  bool narrow = false;  // ran on the narrow kernel (narrow_max)
};

GemmEfficiency gemm_efficiency(const graphs::GemmDims& g, const hw::ClassEfficiency& e,
                               int parallel_units);
// With the tile chosen by `choice` instead of e.gemm.tile_choice.
GemmEfficiency gemm_efficiency(const graphs::GemmDims& g, const hw::ClassEfficiency& e,
                               int parallel_units, hw::TileChoice choice);
// The split-K efficiency of a GEMM (above; 0 when it would not split); `unsplit` is
// gemm_efficiency(g, e, parallel_units) when the caller already has it.
double split_k_efficiency(const graphs::GemmDims& g, const hw::ClassEfficiency& e,
                          int parallel_units);
double split_k_efficiency(const graphs::GemmDims& g, const hw::ClassEfficiency& e,
                          int parallel_units, const GemmEfficiency& unsplit);
// Amdahl thread-scaling factor (<= 1) on a CPU with `cores`; 1 when thread_scaling is 0.
double thread_scaling_efficiency(const hw::ClassEfficiency& e, int cores);

// With the class parameters already resolved (the fast path used by Roofline): the
// efficiency and the kernel it assumes (kernel_choice.h; lowering kNative: the as-forward and
// im2col lowerings are Roofline's).
struct ComputeChoice {
  double efficiency = 0;
  KernelChoice kernel;
};
ComputeChoice compute_choice(const graphs::Operator& op, const hw::ClassEfficiency& e,
                             hw::DeviceKind kind, int parallel_units);
double compute_efficiency(const graphs::Operator& op, const hw::ClassEfficiency& e,
                          hw::DeviceKind kind, int parallel_units);
double memory_efficiency(double bytes, const hw::ClassEfficiency& e);

// A library without cache blocking (hw::ClassEfficiency::unblocked; a reference BLAS, whose
// loops keep no tile of the operands in cache): for each of the m rows of the result (a
// linear layer's batch rows for its forward and data gradient, its output features for the
// weight gradient) it streams the whole n x k operand (the weight, or X for the weight
// gradient), m n k elements per op, and that operand's size decides the cache step. Debian's
// reference BLAS through PyTorch 1.13 here, batch 32: AlexNet's fc6 forward (a 151 MB weight)
// at 2.2 GFLOP/s, 1024 x 1024 and 512 x 2048 layers (4 MB) at 3.0-3.2. Other entries: the
// op's own bytes, the cache step keyed on them.
struct MemoryTraffic {
  double bytes = 0;       // moved
  double cache_size = 0;  // what the cache step is keyed on
};
MemoryTraffic memory_traffic(const graphs::Operator& op, const hw::ClassEfficiency& e);

// 3x3 stride-1 convolutions, which cuDNN may run as Winograd F(2x2,3x3) or F(4x4,3x3)
// (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", CVPR 2016): 2.25x
// or 4x fewer multiplications than the direct FLOP count the op carries.
bool is_winograd_eligible(const graphs::Operator& op);

// Whether an op with GEMM dims at a tensor-core precision has them all 16-byte aligned (above);
// true for every other op.
bool tensor_core_aligned(const graphs::Operator& op);

// The GEMM Winograd F(2x2,3x3) runs for a 3x3 stride-1 convolution: per 2x2 output tile, its
// 4x4 transform positions each multiply (tiles x C) by (C x K), so for the implicit GEMM
// m x n x k = (N P Q) x K x (9 C) of the forward (and (N H W) x C x (9 K) of backward data) the
// work is spread over m/4 rows with depth k/9; backward filter, (K) x (9 C) x (N P Q), reduces
// over the k/4 tiles into n/9 columns. (The 16 positions run inside a thread block, so they add
// no parallelism; spatial tile rounding is ignored: the op carries no P, Q.)
graphs::GemmDims winograd_dims(const graphs::Operator& op);

// Convolutions: min(1, FLOPs / (2 m n k batch)). The implicit GEMM of a strided
// backward-data convolution runs over the input grid (m = n h w), stride^2 times the MACs the
// op's FLOPs count (the zeros inserted between dY's elements are multiplied too): every
// strided backward-data op gets efficiency *= this fraction. (DeepBench P100: 1x1 stride-2
// layers run 2-4x slower than their forward; larger strided kernels less so, which the
// fraction overstates; docs/calibration.md.)
double implicit_gemm_work_fraction(const graphs::Operator& op);

// Each part of a split-K filter gradient reduces at least this deep (DeepBench P100 fits do not
// change between 256 and 1024: the units, not the depth, bound the split).
inline constexpr double kSplitMinDepth = 256;

// A stride-1 convolution data gradient with a 1x1 or 3x3 kernel and GEMM dimensions.
bool can_run_as_forward(const graphs::Operator& op);
// The forward convolution such an op runs as (phase forward, the GEMM above): its numbers
// only, no names or shapes.
graphs::Operator forward_op(const graphs::Operator& op);

// Whether a framework runs this convolution as im2col + GEMM, by the rule in `conv` (above).
bool runs_as_gemm(const graphs::Operator& op, const hw::ClassEfficiency& conv);
// That GEMM: the op as class gemm with no convolution geometry, in the phase whose
// linear-layer GEMM has the same transposition (above), with the dims of the BLAS call
// (one per sample and group) in the linear layers' convention: forward K x (P Q) x (C R S),
// data gradient (C R S) x (P Q) x K, filter gradient K x (C R S) x (P Q), each m rows of
// the result re-reading the n x k operand (memory_traffic). Its numbers only: no names or
// shapes.
graphs::Operator as_gemm_op(const graphs::Operator& op);

// Input channels per group, C/g, of a plain convolution with a square kernel (graphs/ops/conv.cpp's
// implicit-GEMM dims: forward k = (C/g) R S, data gradient n = C/g, filter gradient
// n = (C/g) R S); 0 for other ops.
std::int64_t conv_group_channels(const graphs::Operator& op);

// Depthwise convolutions (groups > 1 and one input channel per group: each output channel
// reads one input channel, K a multiple of C) on a GPU run on direct kernels, not on GEMM
// tiles, in all three directions and at every precision: PyTorch sends them to its own
// depthwise kernels
// (aten/src/ATen/native/cuda/DepthwiseConv2d.cu, conv_depthwise2d and its two gradients;
// ConvUtils.h `is_depthwise`) or, at half precision, to cuDNN's depthwise kernels, direct
// kernels too. Their implicit GEMM per group, N P Q x (K/g) x R S (forward), would have one
// column per group, which no tile fills. A direct kernel reads its input and filter and writes
// its output once, at 2 R S FLOPs per output element, so it is costed as the memory-bound op it
// is (direct_op), with the device's `elementwise` entry at the non-tensor-core rate of the op's
// precision:
//   time = max(FLOPs / (non-tensor peak x compute), bytes / (bandwidth x memory(bytes)))
//          + launch latency + latency
// with `compute`, the bandwidth curve `memory(bytes)` and `latency` of that entry, and bytes
// the op's input, filter and output at its precision. That entry standing for the depthwise
// kernels is an assumption (no measurement here isolates one: docs/calibration.md gives its
// range). Grouped convolutions with more channels per group (ResNeXt's 4 to 32) stay implicit
// GEMMs per group, as cuDNN runs them. Dilated and transposed convolutions carry no groups
// (OpNumbers::conv_groups) and stay GEMMs. On a CPU the rule does not apply: PyTorch runs
// depthwise convolutions through oneDNN with its layout conversions, which the CPU's conv
// entries describe (this machine's MobileNet-v2 steps at batch 32, docs/validation.md, came out
// 12-14 points worse, -35% and -44%, with its depthwise layers costed as elementwise traffic).
bool runs_direct(const graphs::Operator& op, hw::DeviceKind kind);
// The op as its direct kernel is costed: class elementwise, no GEMM dims or convolution
// geometry. Its numbers only: no names or shapes.
graphs::Operator direct_op(const graphs::Operator& op);

// Per-phase entries: a backward-data op looks up its class's backward-data entry
// ("<class>_bwd_data") and a backward-weight op its backward-weight entry ("<class>_bwd_filter",
// DeepBench's names; hw/efficiency_key.h). This key, the class entry for other phases.
hw::EfficiencyKey phase_efficiency_key(const graphs::Operator& op);

// Precision entries: an op of a matrix class (gemm, conv, rnn, attention) at a tensor-core
// precision (tf32, fp16, bf16) reaches another fraction of another peak than at fp32, so a
// device may give it entries of its own ("gemm.fp16", "conv_bwd_data.tf32"; calibrate fits them
// from amdahl-cudabench's rows at that precision).
// The precision of such an op's entries; nullopt otherwise (fp32, other classes).
std::optional<Precision> entry_precision(const graphs::Operator& op);

// The entries an op looks its parameters up in, most specific first: its phase entry at its
// precision, its class entry at its precision, its phase entry, its class entry (then the
// device's `default`); those that do not apply to the op are left out.
std::vector<hw::EfficiencyKey> efficiency_lookup(const graphs::Operator& op);
// The first entry of efficiency_lookup that the device has, the class entry excluded; nullptr
// when none.
const hw::ClassEfficiency* specific_efficiency(const graphs::Operator& op,
                                               const hw::DeviceSpec& device);

// Looking the parameters up on the device in the order above.
double compute_efficiency(const graphs::Operator& op, const hw::DeviceSpec& device);
double memory_efficiency(const graphs::Operator& op, const hw::DeviceSpec& device);

}  // namespace amdahl::model
