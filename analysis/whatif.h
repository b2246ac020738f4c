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
//
// The other what-ifs predict the step again on a changed system: another accelerator in the
// default device's place (whatif_device), the runtime in another execution mode
// (whatif_runtime), or one kind of link replaced by another (whatif_link).

#include <array>
#include <string>
#include <string_view>
#include <vector>

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

// The execution modes a runtime what-if names, and what each sets in the system's runtime.
struct RuntimeMode {
  std::string_view name;
  bool graph_capture;
  bool compile;
  std::string_view description;
};
inline constexpr std::array<RuntimeMode, 4> kRuntimeModes{{
    {"eager", false, false, "one framework call per op"},
    {"graph", true, false, "the step replayed from a captured CUDA graph"},
    {"compiled", false, true, "elementwise chains fused into one kernel each"},
    {"compiled+graph", true, true, "compiled and replayed from a captured graph"},
}};
// The mode `runtime` runs in (every combination of its two switches is one).
const RuntimeMode& runtime_mode_of(const hw::RuntimeSpec& runtime);

struct RuntimeWhatIf {
  struct Row {
    const RuntimeMode* mode;
    model::Prediction prediction;
  };
  model::Prediction baseline;                // the system's runtime as it is
  const RuntimeMode* baseline_mode;          // the mode it runs in
  const RuntimeMode* chosen;                 // the mode asked for
  std::vector<Row> modes;                    // every mode of kRuntimeModes, in its order
  double speedup = 1;                        // baseline / the chosen mode's step; 0 when that is 0
  const model::Prediction& changed() const;  // the chosen mode's prediction
};

// The step with the system's runtime in every execution mode. Throws as model::predict().
RuntimeWhatIf whatif_runtime(const graphs::LoweredNetwork& net, const hw::SystemSpec& system,
                             const model::PredictOptions& options, const RuntimeMode& chosen);

struct LinkWhatIf {
  model::Prediction baseline;
  model::Prediction changed;
  std::vector<std::string> replaced;  // the names of the links replaced
  double speedup = 1;                 // baseline / changed
};

// The step with every link of the system whose model is `from`'s taking `to`'s numbers,
// keeping its name and ends (hw::SystemSpec::replace_links): what the interconnect is worth
// to the step, its copies and its all-reduces. Throws UserError when the system has no such
// link, naming its link models; else as model::predict().
LinkWhatIf whatif_link(const graphs::LoweredNetwork& net, const hw::SystemSpec& system,
                       const model::PredictOptions& options, const hw::LinkSpec& from,
                       const hw::LinkSpec& to);

}  // namespace amdahl::analysis
