#pragma once
// What-if analysis: re-simulate a costed step with some op classes made faster, or with
// another accelerator, and compare with the baseline.
//
// A class sped up by k has the device time of each of its ops (time_s: roofline work and
// launch latency) divided by k; host dispatch is unchanged, since the runtime still issues
// every op. Speeding up `transfer` also divides the inserted host<->device copies. k = inf
// is zero cost. Because the schedule overlaps host, copies and compute, the answer comes
// from re-simulating, not from Amdahl's formula; both are reported:
//   speedup         = baseline / new
//   bound           = the step time with the named classes at zero cost (the Amdahl bound:
//                     no k can do better), and baseline / bound
//   amdahl_formula  = 1 / ((1 - sum f_c) + sum f_c / k_c), f_c the class's critical-path
//                     share of the baseline (Amdahl 1967), for comparison
// With every factor 1, new equals baseline exactly (the same costs are simulated).

#include <array>
#include <string>

#include "model/prediction.h"

namespace amdahl::analysis {

struct ClassSpeedups {
  std::array<double, kOpClassCount> factor;  // 1: unchanged; inf: zero cost
  ClassSpeedups() { factor.fill(1.0); }
  bool any() const;
};

// The speed-up factors a what-if takes (--speedup's, --k): from 1e-6 (a million times slower) to
// 1e6 (a million times faster), or inf (zero cost) where allowed. Beyond 1e6 a class's time is
// below what the printed step shows (a 1 s class becomes 1 us: 'inf' says zero cost exactly);
// below 1e-6 a 1 ms op takes 1000 s, slower than any device amdahl models. The range keeps a
// what-if within twelve decades of the predicted step, so that every printed time and ratio is
// a number; the step-time cap (model::kMaxStepSeconds) still applies to the result.
inline constexpr double kMinSpeedupFactor = 1e-6;
inline constexpr double kMaxSpeedupFactor = 1e6;
// Empty when `k` is such a factor (inf only when `inf_allowed`), else the rule it breaks:
// "must be from 1e-06 to 1e+06, or inf for zero cost (got 1e-300)".
std::string speedup_factor_error(double k, bool inf_allowed);

// "conv=10,gemm=4" ("inf" for zero cost). Throws UserError for an unknown class (listing
// the classes), a malformed item, or a factor outside the speed-up range (nan, 1e300).
ClassSpeedups parse_speedups(const std::string& text);
std::string speedups_text(const ClassSpeedups& s);

// The step's per-op costs with the speedups applied.
std::vector<model::OpCost> scaled_costs(const model::CostedStep& step, const ClassSpeedups& s);
// The step with the speedups applied to its costs and (for `transfer`) to its link.
model::CostedStep with_speedups(const model::CostedStep& step, const ClassSpeedups& s);

struct WhatIf {
  double baseline_s = 0;
  double new_s = 0;
  double speedup = 1;  // baseline / new
  double bound_s = 0;  // the sped-up classes at zero cost
  double bound_speedup = 1;
  double sped_up_share = 0;           // critical-path share of the sped-up classes
  double amdahl_formula_speedup = 1;  // from the shares, ignoring overlap
};

WhatIf whatif(const model::CostedStep& step, const ClassSpeedups& speedups);

// `system` with device `instance` replaced by `replacement` (keeping the instance name).
// Throws UserError for an unknown instance.
hw::SystemSpec replace_device(const hw::SystemSpec& system, const std::string& instance,
                              hw::DeviceSpec replacement);

struct DeviceWhatIf {
  model::Prediction baseline;
  model::Prediction changed;
  double speedup = 1;  // baseline / changed
  double bound_s = 0;  // every accelerator op at zero cost: host, copies and dispatch remain
  double bound_speedup = 1;
};

// The step on the system's accelerator and on `replacement` in its place. Throws as
// model::predict().
DeviceWhatIf whatif_device(const graphs::LoweredNetwork& net, const hw::SystemSpec& system,
                           const model::PredictOptions& options, const hw::DeviceSpec& replacement);

}  // namespace amdahl::analysis
