#pragma once
// Sweeps: the step predicted over a grid of symbolic sizes (batch, seq_len, image, ...),
// each point lowered (graphs/point_lowering.h: the structure once, the numbers per point),
// costed and simulated, the points spread over all cores.
// At each point the same step is also predicted with every op on the host CPU, giving the
// accelerator's speedup over the CPU as a function of problem size (the reference study's
// "effectiveness of the GPU as a function of problem size").

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "graphs/expr.h"
#include "model/prediction.h"

namespace amdahl::analysis {

// One --vary: a size name and its values.
struct SweepAxis {
  std::string name;
  std::vector<std::int64_t> values;
};

// "batch=1,2,4", "batch=1..1000" (inclusive, step 1), "batch=1..1024:x2" (geometric, factor
// 2) or "batch=16..512:16" (step 16); items combine ("batch=1,2,8..64:8"). Throws UserError
// for a malformed item or a value that is not a positive integer.
// The most points one axis or the whole grid may have (docs/reliability.md): more is surely a
// mistyped range, and each point is a prediction.
inline constexpr std::size_t kMaxSweepPoints = 100000;

SweepAxis parse_vary(const std::string& text);

// The cartesian product of the axes (the last axis varies fastest), each point on top of
// `base`. Throws UserError when an axis repeats.
std::vector<graphs::Bindings> sweep_grid(const std::vector<SweepAxis>& axes,
                                         const graphs::Bindings& base);

struct SweepRow {
  graphs::Bindings sizes;  // the point's bindings (base + axes)
  std::int64_t batch = 0;
  double step_s = 0;
  double samples_per_s = 0;
  model::ClassBreakdown share_by_class;  // critical-path share; sums to 1
  model::BoundBreakdown share_by_bound;
  double host_step_s = 0;   // every op on the host CPU; 0 when not compared
  double host_speedup = 0;  // host_step_s / step_s: the accelerator's speedup over the CPU
};

// The critical path's share of host dispatch and sync at one point (share_by_bound dispatch).
double host_share(const SweepRow& r);

// A throughput on `gpus` data-parallel ranks against a base run on `base_gpus`.
struct Scaling {
  double speedup = 1;     // samples_per_s / base_samples_per_s; 0 when the base is 0
  double efficiency = 1;  // speedup * base_gpus / gpus: 1 is linear scaling
};
Scaling scaling_against(double samples_per_s, std::int64_t gpus, double base_samples_per_s,
                        std::int64_t base_gpus);

struct SweepOptions {
  model::PredictOptions predict;  // device, mode, precision, placement
  bool compare_host = true;       // also predict with every op on the host CPU
  unsigned threads = 0;           // 0: std::thread::hardware_concurrency()
  // Called after each point with the number of points done (one call at a time, from the
  // worker that finished it); none when empty.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

// Lowers the network at one point; the result stays valid until its next call. Each worker
// thread gets its own from a MakeLowerAt (called once per worker, concurrently), so a
// LowerAt may keep state between points (graphs::PointLowering) but must not share it.
using LowerAt = std::function<const graphs::LoweredNetwork&(const graphs::Bindings&)>;
using MakeLowerAt = std::function<LowerAt()>;

// Rows in grid order. The batch of a row is its "batch" binding, else options.predict.batch.
// The first exception thrown at any point is rethrown. Each worker takes consecutive runs of
// points (a worker's points are in grid order), so a worker's LowerAt sees the grid's order.
std::vector<SweepRow> sweep(const MakeLowerAt& make_lower_at, const hw::SystemSpec& system,
                            const std::vector<graphs::Bindings>& grid, const SweepOptions& options);

}  // namespace amdahl::analysis
