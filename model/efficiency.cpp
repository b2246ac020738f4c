#include "model/efficiency.h"

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

namespace {
std::string class_key(const graphs::Operator& op) {
  return std::string(graphs::op_class_name(op.op_class));
}
}  // namespace

double compute_efficiency(const graphs::Operator& op, const hw::DeviceSpec& device) {
  const hw::ClassEfficiency& e = device.efficiency_for(class_key(op));
  double eff =
      op.gemm.empty() ? e.compute : gemm_efficiency(op.gemm, e, device.parallel_units).total;
  if (device.kind == hw::DeviceKind::kCpu && e.thread_scaling > 0) {
    const double cores = std::max(device.parallel_units, 1);
    const double s = std::min(e.thread_scaling, 1.0);
    eff *= (1.0 / ((1.0 - s) + s / cores)) / cores;
  }
  return eff;
}

double memory_efficiency(const graphs::Operator& op, const hw::DeviceSpec& device) {
  const hw::ClassEfficiency& e = device.efficiency_for(class_key(op));
  const double bytes = op.bytes();
  if (e.half_bytes > 0 && bytes > 0) return e.memory * bytes / (bytes + e.half_bytes);
  return e.memory;
}

}  // namespace amdahl::model
