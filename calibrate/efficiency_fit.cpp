#include "calibrate/efficiency_fit.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <set>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>
#include <utility>

#include "model/efficiency.h"
#include "model/fft.h"
#include "model/roofline.h"
#include "util/error.h"

namespace amdahl::calibrate {
namespace {

using Param = hw::EfficiencyParam;

// The model's time for `s` on `device` as it stands (its threads already applied).
double sample_time(const Sample& s, const hw::DeviceSpec& device) {
  double t = 0;
  if (s.parts.empty()) t = model::estimate(s.op, device).time_s;
  for (const SamplePart& p : s.parts) t += p.count * model::estimate(p.op, device).time_s;
  if (s.call.host_s > 0) return std::max(s.call.host_s, s.call.before_kernel_s + t);
  return t;
}

double logistic(double u) { return 1.0 / (1.0 + std::exp(-u)); }
double logit(double f) {
  const double c = std::clamp(f, 1e-4, 1.0 - 1e-4);
  return std::log(c / (1.0 - c));
}

// A fit's starting value (hw/class_efficiency.h): the base's, unless it gives none (0 switches a
// model term off, which has no gradient) or the parameter always starts from its own.
double start_value(Param p, double base) {
  const hw::EfficiencyParamSpec& spec = hw::efficiency_param(p);
  return base > 0 && !spec.start_always ? base : spec.start;
}

// Between a parameter's value and its unconstrained coordinate (hw::FitTransform);
// `bound` is kBelow's upper bound.
double to_coordinate(Param p, double v, double bound) {
  const hw::EfficiencyParamSpec& spec = hw::efficiency_param(p);
  switch (spec.transform) {
    case hw::FitTransform::kRange:
      return logit((v - spec.fit_min) / (spec.fit_max - spec.fit_min));
    case hw::FitTransform::kAboveOne:
      return std::log(std::max(v - 1.0, 1e-6));
    case hw::FitTransform::kBelow:
      return logit(v / bound);
    case hw::FitTransform::kFraction:
      return logit(v);
    case hw::FitTransform::kPositive:
      return std::log(v);
    case hw::FitTransform::kFixed:
      break;
  }
  throw InternalError(fmt::format("efficiency parameter '{}' is not fitted", spec.key));
}
double from_coordinate(Param p, double u, double bound) {
  const hw::EfficiencyParamSpec& spec = hw::efficiency_param(p);
  switch (spec.transform) {
    case hw::FitTransform::kRange:
      return spec.fit_min + (spec.fit_max - spec.fit_min) * logistic(u);
    case hw::FitTransform::kAboveOne:
      return 1.0 + std::exp(u);
    case hw::FitTransform::kBelow:
      return bound * logistic(u);
    case hw::FitTransform::kFraction:
      return logistic(u);
    case hw::FitTransform::kPositive:
      return std::exp(u);
    case hw::FitTransform::kFixed:
      break;
  }
  throw InternalError(fmt::format("efficiency parameter '{}' is not fitted", spec.key));
}

struct Problem {
  hw::EfficiencyKey entry;
  std::vector<Param> params;
  std::vector<const Sample*> samples;
  std::vector<hw::DeviceSpec> devices;  // per sample (thread variants), efficiency updated
  hw::ClassEfficiency fixed;            // tiles and parameters not fitted
  Eigen::VectorXd start;
  // The cache step must lie inside the size sweep, so that its largest samples pin `memory`:
  // cache_bytes < the largest sample's bytes / kCacheStepInside.
  double cache_bytes_max = 0;

  hw::ClassEfficiency efficiency(const Eigen::VectorXd& u) const {
    hw::ClassEfficiency e = fixed;
    for (std::size_t i = 0; i < params.size(); ++i)
      hw::efficiency_param(params[i]).access.set(
          e, from_coordinate(params[i], u[static_cast<Eigen::Index>(i)], cache_bytes_max));
    return e;
  }
};

// Eigen's functor protocol for NumericalDiff and LevenbergMarquardt.
struct Residuals {
  using Scalar = double;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;

  Problem* problem = nullptr;
  int inputs() const { return static_cast<int>(problem->params.size()); }
  int values() const { return static_cast<int>(problem->samples.size() + problem->params.size()); }

  int operator()(const Eigen::VectorXd& u, Eigen::VectorXd& r) const {
    const hw::ClassEfficiency e = problem->efficiency(u);
    const std::size_t n = problem->samples.size();
    for (std::size_t i = 0; i < n; ++i) {
      hw::DeviceSpec& d = problem->devices[i];
      d.efficiency[problem->entry] = e;
      const double predicted = sample_time(*problem->samples[i], d);
      r[static_cast<Eigen::Index>(i)] = std::log(predicted / problem->samples[i]->time_s);
    }
    for (std::size_t j = 0; j < problem->params.size(); ++j) {
      const auto jj = static_cast<Eigen::Index>(j);
      r[static_cast<Eigen::Index>(n) + jj] = kPriorWeight * (u[jj] - problem->start[jj]);
    }
    return 0;
  }
};

bool converged(int status) {
  using namespace Eigen::LevenbergMarquardtSpace;
  switch (status) {
    case RelativeReductionTooSmall:
    case RelativeErrorTooSmall:
    case RelativeErrorAndReductionTooSmall:
    case CosinusTooSmall:
    case FtolTooSmall:  // no further reduction is possible at machine precision
    case XtolTooSmall:
    case GtolTooSmall:
      return true;
    default:
      return false;
  }
}

std::string status_name(int status) {
  using namespace Eigen::LevenbergMarquardtSpace;
  switch (status) {
    case ImproperInputParameters:
      return "improper input parameters";
    case TooManyFunctionEvaluation:
      return "too many function evaluations";
    case UserAsked:
      return "stopped";
    default:
      return fmt::format("status {}", status);
  }
}

struct RunResult {
  hw::ClassEfficiency params;
  double cost = 0;
  int evaluations = 0;
  int status = 0;
  bool converged = false;
};

RunResult run_lm(Problem& problem, const FitOptions& options) {
  Residuals f;
  f.problem = &problem;
  Eigen::NumericalDiff<Residuals> diff(f);
  Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Residuals>> lm(diff);
  lm.parameters.maxfev = options.max_evaluations;
  Eigen::VectorXd u = problem.start;
  const int status = lm.minimize(u);
  Eigen::VectorXd r(f.values());
  f(u, r);
  const double cost = r.head(static_cast<Eigen::Index>(problem.samples.size())).squaredNorm();
  return {problem.efficiency(u), cost, static_cast<int>(lm.nfev), status,
          converged(status) && std::isfinite(cost)};
}

// One discrete model structure tried by fit_class.
struct Structure {
  int tile_m = 0, tile_n = 0;      // a fixed tile pair
  int tile_min = 0, tile_max = 0;  // a tile set
  int tile_rows = 0;               // the set's fixed rows (tile_m), 0: rows from the set
  hw::TileChoice choice = hw::TileChoice::kFill;
  bool winograd_algorithm = false;

  void apply(hw::ClassEfficiency& e) const {
    e.gemm.tile_m = tile_min > 0 ? tile_rows : tile_m;
    e.gemm.tile_n = tile_n;
    e.gemm.tile_min = tile_min;
    e.gemm.tile_max = tile_max;
    e.gemm.tile_choice = choice;
    e.conv.winograd_algorithm = winograd_algorithm;
  }
  std::string name() const {
    if (tile_min > 0)
      return fmt::format("tile set {}..{}{}{}", tile_min, tile_max,
                         tile_rows > 0 ? fmt::format(" rows {}", tile_rows) : "",
                         choice == hw::TileChoice::kWaste ? " (least waste)" : "");
    return tile_m > 0 ? fmt::format("tile {}x{}", tile_m, tile_n) : std::string("no tiles");
  }
};

}  // namespace

hw::DeviceSpec device_at_threads(const hw::DeviceSpec& device, int threads) {
  if (threads <= 0 || threads == device.parallel_units) return device;
  hw::DeviceSpec d = device;
  const double scale = static_cast<double>(threads) / std::max(device.parallel_units, 1);
  for (auto& [precision, rate] : d.peak) rate.flops_per_s *= scale;
  d.parallel_units = threads;
  return d;
}

double predict_time(const Sample& s, const hw::DeviceSpec& device) {
  if (s.threads > 0 && s.threads != device.parallel_units)
    return sample_time(s, device_at_threads(device, s.threads));
  return sample_time(s, device);
}

Residual predicted_residual(const Sample& s, const hw::DeviceSpec& device, bool held_out) {
  const hw::DeviceSpec d = device_at_threads(device, s.threads);
  const model::OpCost first = model::estimate(s.parts.empty() ? s.op : s.parts.front().op, d);
  return {s.label, held_out, s.time_s, sample_time(s, d), first.kernel};
}

ErrorStats prediction_errors(const std::vector<Sample>& samples, const hw::DeviceSpec& device) {
  std::vector<double> errors;
  errors.reserve(samples.size());
  for (const auto& s : samples) errors.push_back((predict_time(s, device) - s.time_s) / s.time_s);
  return summarize_errors(errors);
}

namespace {

// The starting entry of a fit (never the base's entry for the class, so that calibrating a
// file that is already calibrated gives the same parameters again: the shipped files
// reproduce), and the parameters `train` lets it fit, with the cache step's upper bound.
struct Setup {
  hw::ClassEfficiency start;
  std::vector<Param> params;
  double cache_bytes_max = 0;
};

Setup setup_fit(const hw::EfficiencyKey& entry, ModelForm form, const std::vector<Sample>& train,
                const hw::DeviceSpec& base, const FitOptions& options) {
  Setup setup;
  hw::ClassEfficiency& start = setup.start;
  std::vector<Param>& params = setup.params;
  start.compute = base.default_efficiency().compute;
  if (form == ModelForm::kGemmLike) {
    start.gemm.narrow_max = options.narrow_max;
    start.cpu.gemm_pointwise_below_batch = options.gemm_pointwise_below_batch;
    start.cpu.gemm_single_max_input = options.gemm_single_max_input;
    start.traffic.memory_in_series = options.memory_in_series;
    start.traffic.unblocked = options.unblocked;
    start.conv.fft_algorithm =
        options.fft_algorithm && model::fft_precision(entry.precision.value_or(Precision::kFp32));
  }
  if (form == ModelForm::kGemmLike && options.unblocked) {
    // Every row streams m n k elements for 2 m n k FLOPs (half a FLOP per byte): memory binds
    // at any compute fraction, which the rows cannot see and so do not set. The full peak at
    // any depth (k_half 0) keeps the compute roof out of the way.
    start.compute = 1;
    start.gemm.k_half = 0;
    params = {Param::kMemory, Param::kLatency};
  } else if (form == ModelForm::kGemmLike) {
    params = {Param::kCompute, Param::kMemory, Param::kKHalf, Param::kLatency};
    // Thread scaling is seen only across thread counts (0: all of the device's units);
    // framework rows all run at the framework's own count.
    std::set<int> threads;
    for (const auto& s : train) threads.insert(s.threads > 0 ? s.threads : base.parallel_units);
    if (options.fit_thread_scaling && threads.size() > 1) params.push_back(Param::kThreadScaling);
    if (options.tile_set) params.push_back(Param::kTileReuseHalf);
    if (options.narrow_max > 0) {
      bool narrow = false;
      for (const auto& s : train)
        narrow = narrow ||
                 (!s.op.gemm.empty() && std::min(s.op.gemm.m, s.op.gemm.n) <= options.narrow_max);
      if (narrow) params.push_back(Param::kNarrowCompute);
    }
    // Tensor-core rows off 16-byte alignment see the unaligned kernels' fraction.
    bool unaligned = false;
    for (const auto& s : train) unaligned = unaligned || !model::tensor_core_aligned(s.op);
    if (unaligned) params.push_back(Param::kUnaligned);
    if (options.fit_strided_work) {
      bool strided = false;
      for (const auto& s : train)
        strided = strided || (s.op.phase == Phase::kBackwardData && s.op.conv_stride > 1);
      if (strided) params.push_back(Param::kStridedWork);
    }
    // Data gradients that run as forward convolutions are costed by the `conv` entry: their
    // ratio is fitted here, and they take no part in this entry's Winograd.
    bool as_forward = false;
    if (options.data_grad_as_forward)
      for (const auto& s : train) as_forward = as_forward || model::can_run_as_forward(s.op);
    if (as_forward) params.push_back(Param::kAsForward);
    if (options.fit_split_k) {
      bool gemm_like = false;
      for (const auto& s : train) gemm_like = gemm_like || !s.op.gemm.empty();
      if (gemm_like) params.push_back(Param::kSplitK);
    }
    if (options.fit_winograd) {
      bool eligible = false;
      for (const auto& s : train)
        eligible = eligible || (model::is_winograd_eligible(s.op) &&
                                !(as_forward && model::can_run_as_forward(s.op)));
      if (eligible) params.push_back(Param::kWinograd);
    }
  } else {
    params = {Param::kMemory, Param::kLatency};
  }
  if (options.fit_cache) {
    double smallest = std::numeric_limits<double>::infinity(), largest = 0;
    for (const auto& s : train) {
      const double size = model::memory_traffic(s.op, start).cache_size;
      smallest = std::min(smallest, size);
      largest = std::max(largest, size);
    }
    const double span = options.unblocked ? kCacheStepInside : kCacheSpan;
    if (smallest > 0 && largest >= span * smallest) {
      params.insert(params.end(), {Param::kCacheBoost, Param::kCacheBytes});
      setup.cache_bytes_max = largest / kCacheStepInside;
    }
  }
  return setup;
}

}  // namespace

ClassFit fit_class(const hw::EfficiencyKey& entry, ModelForm form, const std::vector<Sample>& train,
                   const std::vector<Sample>& held_out, const hw::DeviceSpec& base,
                   const FitOptions& options) {
  Problem problem;
  problem.entry = entry;
  const Setup setup = setup_fit(entry, form, train, base, options);
  const hw::ClassEfficiency& start = setup.start;
  problem.params = setup.params;
  problem.cache_bytes_max = setup.cache_bytes_max;
  const std::size_t needed =
      problem.params.size() + static_cast<std::size_t>(std::max(options.min_rows_over_params, 0));
  if (train.size() < needed)
    throw UserError(fmt::format(
        "calibration of '{}' needs at least {} training measurements to fit {} parameters (got "
        "{})",
        entry.name(), needed, problem.params.size(), train.size()));
  for (const auto& s : train) {
    hw::EfficiencyKey phase = model::phase_efficiency_key(s.op), cls{s.op.op_class};
    phase.precision = cls.precision = model::entry_precision(s.op);
    if (problem.entry != cls && problem.entry != phase)
      throw InternalError(fmt::format("sample {} of class {} given to the '{}' fit", s.label,
                                      op_class_name(s.op.op_class), entry.name()));
    problem.samples.push_back(&s);
    problem.devices.push_back(device_at_threads(base, s.threads));
  }

  problem.fixed = start;
  problem.start.resize(static_cast<Eigen::Index>(problem.params.size()));
  for (std::size_t i = 0; i < problem.params.size(); ++i) {
    const Param p = problem.params[i];
    problem.start[static_cast<Eigen::Index>(i)] =
        to_coordinate(p, start_value(p, hw::efficiency_param(p).access.get(problem.fixed)),
                      problem.cache_bytes_max);
  }

  // The discrete structure: a tile pair (tile_m, tile_n), or a tile set (tile_min, tile_max)
  // with its fixed rows and tile choice, and the Winograd form. Every structure is fitted.
  std::vector<Structure> structures{Structure{}};
  if (form == ModelForm::kGemmLike && options.tile_set) {
    for (int rows : options.tile_rows)
      for (hw::TileChoice choice : options.tile_choices)
        for (int lo : options.tile_sizes)
          for (int hi : options.tile_sizes)
            if (hi > lo) structures.push_back({0, 0, lo, hi, rows, choice});
  } else if (form == ModelForm::kGemmLike) {
    for (int tm : options.tile_sizes)
      for (int tn : options.tile_sizes) structures.push_back({tm, tn});
  }
  if (options.fit_winograd && options.winograd_algorithm)
    for (auto& s : structures) s.winograd_algorithm = true;

  // Structures whose run does not converge are set aside, and the fit fails when none
  // converges or when a run that did not converge reached a lower cost than every converged
  // one (the best fit would then be unconverged).
  ClassFit best;
  best.cost = std::numeric_limits<double>::infinity();
  RunResult best_unconverged;
  best_unconverged.cost = std::numeric_limits<double>::infinity();
  Structure unconverged_structure;
  int evaluations = 0;
  for (const Structure& s : structures) {
    s.apply(problem.fixed);
    const RunResult run = run_lm(problem, options);
    evaluations += run.evaluations;
    if (!run.converged) {
      if (run.cost < best_unconverged.cost || !std::isfinite(best_unconverged.cost)) {
        best_unconverged = run;
        unconverged_structure = s;
      }
      continue;
    }
    if (run.cost < best.cost) {
      best.params = run.params;
      best.cost = run.cost;
    }
  }
  if (!std::isfinite(best.cost) || best_unconverged.cost < best.cost)
    throw UserError(fmt::format(
        "calibration of '{}' did not converge ({}: {} after {} evaluations, cost {:.4g}); the "
        "measurements do not fit the model (no profile was written)",
        entry.name(), unconverged_structure.name(), status_name(best_unconverged.status),
        best_unconverged.evaluations, best_unconverged.cost));
  best.entry = entry;
  best.structure = options.name;
  best.form = form;
  best.evaluations = evaluations;
  hw::DeviceSpec fitted = base;
  fitted.efficiency[problem.entry] = best.params;
  best.train = prediction_errors(train, fitted);
  best.held_out = prediction_errors(held_out, fitted);
  for (const auto* set : {&train, &held_out})
    for (const auto& s : *set)
      best.residuals.push_back(predicted_residual(s, fitted, set == &held_out));
  return best;
}

}  // namespace amdahl::calibrate
