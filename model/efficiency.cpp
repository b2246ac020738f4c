#include "model/efficiency.h"

#include <algorithm>
#include <cmath>

namespace amdahl::model {
namespace {
double ceil_div(double a, double b) { return std::ceil(a / b); }
}  // namespace

GemmEfficiency gemm_efficiency(const graphs::GemmDims& g, const hw::ClassEfficiency& e,
                               int parallel_units) {
  GemmEfficiency out;
  const double m = static_cast<double>(g.m), n = static_cast<double>(g.n);
  const double k = static_cast<double>(g.k);
  const double batch = static_cast<double>(std::max<std::int64_t>(g.batch, 1));
  if (e.tile_m > 0 && e.tile_n > 0 && m > 0 && n > 0) {
    const double tm = e.tile_m, tn = e.tile_n;
    const double tiles = ceil_div(m, tm) * ceil_div(n, tn) * batch;
    out.tile = (m * n) / (ceil_div(m, tm) * tm * ceil_div(n, tn) * tn);
    const double units = std::max(parallel_units, 1);
    out.wave = tiles / (ceil_div(tiles, units) * units);
  }
  if (e.k_half > 0 && k > 0) out.depth = k / (k + e.k_half);
  out.total = e.compute * out.tile * out.wave * out.depth;
  return out;
}

double thread_scaling_efficiency(const hw::ClassEfficiency& e, int cores) {
  if (e.thread_scaling <= 0) return 1;
  const double c = std::max(cores, 1);
  const double s = std::min(e.thread_scaling, 1.0);
  return (1.0 / ((1.0 - s) + s / c)) / c;
}

double compute_efficiency(const graphs::Operator& op, const hw::ClassEfficiency& e,
                          hw::DeviceKind kind, int parallel_units) {
  double eff = op.gemm.empty() ? e.compute : gemm_efficiency(op.gemm, e, parallel_units).total;
  if (kind == hw::DeviceKind::kCpu) eff *= thread_scaling_efficiency(e, parallel_units);
  return eff;
}

double memory_efficiency(double bytes, const hw::ClassEfficiency& e) {
  if (e.half_bytes > 0 && bytes > 0) return e.memory * bytes / (bytes + e.half_bytes);
  return e.memory;
}

double compute_efficiency(const graphs::Operator& op, const hw::DeviceSpec& device) {
  return compute_efficiency(op, device.efficiency_for(std::string(op_class_name(op.op_class))),
                            device.kind, device.parallel_units);
}

double memory_efficiency(const graphs::Operator& op, const hw::DeviceSpec& device) {
  return memory_efficiency(op.bytes(),
                           device.efficiency_for(std::string(op_class_name(op.op_class))));
}

}  // namespace amdahl::model
