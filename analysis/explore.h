#pragma once
// Design-space exploration (amdahl explore, docs/explore.md): a set of workloads (each a
// lowered network at its sizes, mode, precision and GPU count: a "variant") predicted on every
// configuration of a grid over hardware parameters of a system (hw/parameter.h). Networks are
// lowered once; a configuration only changes device, link and runtime numbers, so each point
// is model::cost_step + model::simulate on the lowered variant.
//
// Besides the grid, the configurations evaluated are (all through the same points):
//   baseline     the system as loaded
//   elasticity   one parameter at base x (1 - h) and x (1 + h), the rest at base: the
//                elasticity of the step time, d log t / d log p ~ (log t+ - log t-) /
//                (log(1+h) - log(1-h)); an integer parameter p (parallel_units, copy_engines)
//                steps to p - 1 and p + 1 instead (to p and p + 1 when p is 1)
//   slice        one parameter at each value of its axis, the rest at base: the knee
// and from them, per configuration, the geometric-mean speedup over the baseline across the
// variants; the Pareto front of (cost, speedup); per variant and axis the knee.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graphs/lower.h"
#include "hw/parameter.h"
#include "model/prediction.h"

namespace amdahl::analysis {

struct HardwareAxis {
  hw::SystemParameter parameter;
  std::vector<double> values;  // SI, as given (each checked by the parameter's schema)
  std::string name;            // in cost expressions: the path with '.' and '-' as '_'
};

// One workload at one size point and GPU count, lowered.
struct Variant {
  std::string workload;  // as given (zoo name or file)
  std::string label;     // "resnet50 batch=64 gpus=2", unique within the exploration
  graphs::Bindings sizes;
  int gpus = 1;
  const graphs::LoweredNetwork* net = nullptr;  // outlives the exploration
  model::PredictOptions options;
};

// Parses one --vary of a hardware parameter: "PATH=VALUES" with VALUES a list of items, each a
// value ("32GB/s", "32 GB/s"), a geometric range "A..B:xF" or a stepped range "A..B:STEP"
// (inclusive); a number without a unit takes the unit of the next one that has one
// ("16,32,64GB/s", "5..40TFLOP/s:x2"). Every value is checked by the parameter's schema, as the
// same number in a file would be. Throws UserError (ConfigError for a value the schema
// refuses) naming the --vary.
HardwareAxis parse_hardware_axis(const hw::SystemSpec& system, const std::string& text);

// The names a cost expression may use for each axis: its `name`, and every shorter suffix of it
// (cut at '_') that no other axis shares ("gpu0_memory_bandwidth": "memory_bandwidth",
// "bandwidth"). Pairs of (name, axis index), sorted by name.
std::vector<std::pair<std::string, std::size_t>> cost_names(const std::vector<HardwareAxis>& axes);

enum class ConfigKind : std::uint8_t { kBaseline, kElasticity, kSlice, kGrid };

// The value of every hardware axis: set values (SI) or, with `scaled`, factors of the base.
// A slice or elasticity configuration has `axis` set; only it differs from the base.
struct Configuration {
  ConfigKind kind = ConfigKind::kGrid;
  int axis = -1;
  bool scaled = false;
  std::vector<double> values;  // one per axis; NaN: the base's value
};

// Whether a point has a step time, and why not.
enum class PointStatus : std::uint8_t {
  kOk,
  kRefused,  // the model refuses it (a step beyond model::kMaxStepSeconds, an impossible placement)
  kOutOfMemory,  // the variant's memory footprint exceeds its device's capacity (infeasible)
};
// "ok", "refused", "out_of_memory" (explore.csv's status column).
std::string_view point_status_name(PointStatus s);

// One prediction, small and trivially copyable (it travels between MPI ranks and into the
// checkpoint as bytes).
struct PointResult {
  double step_s = 0;                                  // NaN unless status is kOk
  std::array<double, model::kBoundCount> by_bound{};  // critical-path seconds per model::Bound
  PointStatus status = PointStatus::kOk;
};
static_assert(std::is_trivially_copyable_v<PointResult>);

// The relative step of the elasticity's finite difference (1%: small against every knee of a
// roofline, large against rounding).
inline constexpr double kElasticityStep = 0.01;

class Exploration {
 public:
  // `base` and the variants' networks must outlive it. Configurations: baseline, then two per
  // axis for the elasticities, then one per axis value (slices), then the grid (the last axis
  // varying fastest). Throws UserError when the grid has more than 2^63 configurations.
  Exploration(const hw::SystemSpec& base, std::vector<HardwareAxis> axes,
              std::vector<Variant> variants);

  const hw::SystemSpec& base() const { return *base_; }
  const std::vector<HardwareAxis>& axes() const { return axes_; }
  const std::vector<Variant>& variants() const { return variants_; }
  // Configurations are numbered from 0; the grid's are made from their number when asked (a
  // grid of 10^8 is never held).
  std::size_t configuration_count() const { return grid_begin_ + grid_size_; }
  Configuration configuration(std::size_t c) const;
  std::size_t grid_begin() const { return grid_begin_; }  // first grid configuration
  // Points: configuration c, variant v at c * variants + v.
  std::size_t points() const { return configuration_count() * variants_.size(); }

  // A worker's state: the system with the configuration it set last.
  struct Workspace {
    hw::SystemSpec system;
    std::size_t config = static_cast<std::size_t>(-1);
  };
  Workspace workspace() const { return Workspace{*base_}; }
  // The system of configuration `c` (what a point is predicted on).
  void configure(Workspace& w, std::size_t c) const;
  // Point `point` predicted. A point the model refuses (a step beyond model::kMaxStepSeconds, a
  // placement the configuration cannot hold) or, in the grid, whose variant's memory footprint
  // exceeds its device's capacity (model::memory_exceeded, the rule model::predict warns by: the
  // analysis points measure the time regardless, as model::predict does) has step_s NaN and that
  // status; `error` says why when given.
  PointResult evaluate(std::size_t point, Workspace& w, std::string* error = nullptr) const;

 private:
  const hw::SystemSpec* base_;
  std::vector<HardwareAxis> axes_;
  std::vector<Variant> variants_;
  // The value of axis `a` in grid configuration `c` (the last axis varies fastest).
  double grid_value(std::size_t c, std::size_t a) const;

  std::vector<Configuration> configs_;  // baseline, elasticity and slice configurations
  std::size_t grid_begin_ = 0;
  std::size_t grid_size_ = 0;
  std::vector<std::size_t> stride_;  // per axis: grid configurations per step of it
};

// What the points say (all from `results`, one per point of `e`).
struct Knee {
  // The value from which further steps along the axis (towards the faster end) change the step
  // time by less than the threshold each; nullopt when the last step still gains more.
  std::optional<double> value;
  bool still_gaining = false;  // the last step of the axis gains more than the threshold
};

struct ExploreSummary {
  std::vector<double> baseline_s;               // per variant
  std::vector<std::vector<double>> elasticity;  // [variant][axis]
  std::vector<std::vector<Knee>> knees;         // [variant][axis]
  std::vector<Knee> suite_knees;                // [axis]: of the geometric-mean time
  std::vector<double> geomean_speedup;          // per grid configuration (index from 0)
  std::vector<std::size_t> failed;              // per grid configuration: variants without a time
  std::vector<std::size_t> out_of_memory;       // per grid configuration: of those, out of memory
};

// The knee of times `t` at ascending axis values `x` (see Knee), `threshold` a relative gain.
Knee knee(const std::vector<double>& x, const std::vector<double>& t, double threshold);
// The Pareto front: indices of the points no other point beats on both (lower cost, higher
// speedup), by ascending cost. NaN speedups are never on it.
std::vector<std::size_t> pareto_front(const std::vector<double>& cost,
                                      const std::vector<double>& speedup);
// An elasticity smaller than this (in magnitude) is indifference: a 1% change of the
// parameter moves the step by less than 0.01%.
inline constexpr double kIndifferent = 0.01;
// The axis a variant's step time is most elastic to (largest |elasticity|, the first of equal
// ones; a NaN elasticity, from a point without a time, is never chosen); nullopt when it is
// indifferent to all of them (or there are none).
std::optional<std::size_t> most_elastic(const std::vector<double>& elasticity);
// exp(mean(log x)) of the finite positive values; NaN when there are none.
double geometric_mean(const std::vector<double>& x);

ExploreSummary summarize(const Exploration& e, const std::vector<PointResult>& results,
                         double knee_threshold);

}  // namespace amdahl::analysis
