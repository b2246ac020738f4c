#pragma once
// Efficiency models: the fraction of the roofline an op reaches as a function of its
// shape, from the per-class parameters of the device file (hw::ClassEfficiency).
//
// GEMM and convolution (implicit GEMM, m x n output tiled by tile_m x tile_n):
//   tiles      = ceil(m / tile_m) * ceil(n / tile_n) * batch
//   tile_eff   = (m * n) / (ceil(m / tile_m) * tile_m * ceil(n / tile_n) * tile_n)
//   wave_eff   = tiles / (ceil(tiles / parallel_units) * parallel_units)
//   depth_eff  = k / (k + k_half)
//   efficiency = compute * tile_eff * wave_eff * depth_eff
// so a GEMM one tile past a full wave takes two waves. Without tile sizes only `compute`
// and depth_eff apply.
// Memory-bound ops: bandwidth fraction = memory * bytes / (bytes + half_bytes).
// CPU ops with thread_scaling s (Amdahl): speedup over one core = 1 / ((1 - s) + s / cores),
// so efficiency relative to all cores = speedup / cores.

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
double compute_efficiency(const graphs::Operator& op, const hw::DeviceSpec& device);
double memory_efficiency(const graphs::Operator& op, const hw::DeviceSpec& device);

}  // namespace amdahl::model
