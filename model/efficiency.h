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
// Memory-bound ops: bandwidth fraction = memory * bytes / (bytes + half_bytes), i.e. the
// time is half_bytes / (memory x bandwidth) of fixed latency plus bytes over the
// asymptotic bandwidth (the latency-plus-bandwidth curve of a streaming kernel).
// CPU ops with thread_scaling s (Amdahl): speedup over one core = 1 / ((1 - s) + s / cores),
// so efficiency relative to all cores = compute * speedup / cores.
//
// Parameters a device file does not give come from the schema defaults (hw/system_schema.cpp:
// compute 0.75, memory 0.8, quantization terms off); prediction lists them as assumptions.

#include "graphs/op_graph.h"
#include "hw/system.h"

namespace amdahl::model {

struct GemmEfficiency {
  double tile = 1;
  double wave = 1;
  double depth = 1;
  double total = 1;  // including the class's `compute` fraction
};

GemmEfficiency gemm_efficiency(const graphs::GemmDims& g, const hw::ClassEfficiency& e,
                               int parallel_units);
// Amdahl thread-scaling factor (<= 1) on a CPU with `cores`; 1 when thread_scaling is 0.
double thread_scaling_efficiency(const hw::ClassEfficiency& e, int cores);

// With the class parameters already resolved (the fast path used by Roofline).
double compute_efficiency(const graphs::Operator& op, const hw::ClassEfficiency& e,
                          hw::DeviceKind kind, int parallel_units);
double memory_efficiency(double bytes, const hw::ClassEfficiency& e);

// Looking the class parameters up on the device ("default" when the class has none).
double compute_efficiency(const graphs::Operator& op, const hw::DeviceSpec& device);
double memory_efficiency(const graphs::Operator& op, const hw::DeviceSpec& device);

}  // namespace amdahl::model
