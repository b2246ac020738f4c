#include "calibrate/calibration.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "calibrate/holdout.h"
#include "calibrate/measured_op.h"
#include "model/efficiency.h"
#include "util/error.h"

namespace amdahl::calibrate {

ClassPlan memory_bound_plan(const hw::EfficiencyKey& entry) {
  FitOptions cache;
  cache.name = "cache step";
  cache.fit_cache = true;
  FitOptions flat;
  flat.name = "flat";
  return {entry, ModelForm::kMemoryBound, flat, {cache}};  // a tie (no sweep) keeps flat
}

std::vector<ClassPlan> gpu_plan(bool fft_algorithm) {
  FitOptions tiles;
  tiles.tile_sizes = {32, 64, 128, 256};
  FitOptions tile_set;
  tile_set.tile_sizes = {16, 32, 64, 128, 256};
  tile_set.tile_set = true;
  tile_set.narrow_max = 16;  // cuBLAS/cuDNN run n <= 16 on other kernels than tiled SGEMM
  // Convolutions, four structures (model/efficiency.h), chosen per direction by
  // cross-validation on the training rows (ClassPlan::alternatives):
  //   tile set   the square tile set like GEMM, Winograd as a factor on the direct GEMM;
  //   winograd   the same tiles, Winograd as its own algorithm (the faster is taken);
  //   family     a kernel family of 128-row tiles by 32, 64 or 128 columns picked by least
  //              waste (cuDNN's 128x32/128x64/128x128 implicit-GEMM kernels), Winograd as its
  //              own algorithm;
  //   tile set waste   the square tile set, the tile picked by least waste (as the family),
  //              Winograd as a factor.
  FitOptions conv = tile_set;
  conv.name = "tile set";
  conv.fit_winograd = true;
  conv.fit_strided_work = true;
  // With fft_algorithm, every structure also weighs FFT for its eligible rows at fp32
  // (model/fft.h), as the libraries' algorithm searches do.
  conv.fft_algorithm = fft_algorithm;
  FitOptions winograd = conv;
  winograd.name = "winograd";
  winograd.winograd_algorithm = true;
  FitOptions family = winograd;
  family.name = "family";
  family.tile_sizes = {32, 64, 128};
  family.tile_rows = {128};
  family.tile_choices = {hw::TileChoice::kWaste};
  FitOptions least_waste = conv;
  least_waste.name = "tile set waste";
  least_waste.tile_choices = {hw::TileChoice::kWaste};
  const auto conv_plan = [&](Phase phase) {
    return ClassPlan{
        {OpClass::kConv, phase}, ModelForm::kGemmLike, conv, {winograd, family, least_waste}};
  };
  // Forward and filter gradients may also split the reduction of starved shapes (split-K, a
  // fitted cost), as four more structures.
  const auto with_split_k = [&](ClassPlan plan) {
    for (FitOptions o : std::vector<FitOptions>{conv, winograd, family, least_waste}) {
      o.name += ", split-K";
      o.fit_split_k = true;
      plan.alternatives.push_back(o);
    }
    return plan;
  };
  // Backward data may also run its stride-1 rows as forward convolutions (the conv entry, a
  // fitted time ratio), each structure then fitted to the strided rows.
  ClassPlan data_plan = conv_plan(Phase::kBackwardData);
  for (FitOptions o : std::vector<FitOptions>{conv, winograd, family, least_waste}) {
    o.name += ", stride 1 as forward";
    o.data_grad_as_forward = true;
    data_plan.alternatives.push_back(o);
  }

  // The memory-bound classes first: a recurrent layer's call (rnn_layer_*) also runs
  // reductions and copies, costed by their entries as fitted.
  return {// size sweeps from L2-resident to DRAM-resident operands
          memory_bound_plan({OpClass::kElementwise}),
          memory_bound_plan({OpClass::kReduction}),
          memory_bound_plan({OpClass::kSoftmax}),
          memory_bound_plan({OpClass::kDataMovement}),  // copy_d2d
          {{OpClass::kGemm}, ModelForm::kGemmLike, tile_set},
          with_split_k(conv_plan(Phase::kForward)),
          data_plan,
          with_split_k(conv_plan(Phase::kBackwardWeight)),
          {{OpClass::kRnn}, ModelForm::kGemmLike, tiles}};
}

std::vector<Sample> to_samples(const std::vector<Measurement>& rows,
                               const CallOverheads& overheads) {
  std::vector<Sample> out;
  out.reserve(rows.size());
  for (const auto& m : rows) {
    Sample s;
    MeasuredOp measured = measured_op(m);
    s.op = std::move(measured.op);
    for (auto& step : measured.steps) s.parts.push_back({std::move(step.op), step.count});
    s.time_s = m.time_s;
    s.threads = m.shape.count("threads")
                    ? static_cast<int>(m.shape_whole("threads", 0, std::numeric_limits<int>::max()))
                    : 0;
    s.call = overheads.of(m);
    s.label = m.bench + " " + format_shape(m.shape);
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

constexpr const char* kResidualsHeader =
    "entry,split,measurement,measured_us,predicted_us,error,model_kernel\n";

std::string residual_line(const std::string& entry, const char* split, const Residual& r) {
  return fmt::format("{},{},\"{}\",{:.6g},{:.6g},{:.4f},{}\n", entry, split, r.label,
                     r.measured_s * 1e6, r.predicted_s * 1e6,
                     (r.predicted_s - r.measured_s) / r.measured_s, model::kernel_name(r.kernel));
}

}  // namespace

std::string residuals_csv(const std::vector<ClassFit>& fits) {
  std::string out = kResidualsHeader;
  for (const auto& f : fits)
    for (const auto& r : f.residuals)
      out += residual_line(f.entry.name(), r.held_out ? "held_out" : "train", r);
  return out;
}

std::string check_residuals_csv(const std::vector<EntryCheck>& checks) {
  std::string out = kResidualsHeader;
  for (const auto& c : checks)
    for (const auto& r : c.residuals) out += residual_line(c.entry.name(), "check", r);
  return out;
}

namespace {

// Sum of squared log errors of `options`' fits over the kHoldOutEvery folds of `rows`, each
// fold predicted by the fit without it; infinite when some fold leaves too few rows to fit the
// structure's parameters (a small grid cannot choose a structure it cannot fit) or its fit
// does not converge on some fold.
double cross_validation_cost(const ClassPlan& plan, const FitOptions& options,
                             const std::vector<Measurement>& rows, const hw::DeviceSpec& base,
                             const hw::EfficiencyKey& key, const CallOverheads& overheads) {
  double cost = 0;
  for (int fold = 0; fold < kHoldOutEvery; ++fold) {
    const std::vector<bool> held = fold_rows(rows, fold);
    std::vector<Measurement> fit_rows, check_rows;
    for (std::size_t i = 0; i < rows.size(); ++i)
      (held[i] ? check_rows : fit_rows).push_back(rows[i]);
    ClassFit fit;
    try {
      fit = fit_class(key, plan.form, to_samples(fit_rows, overheads),
                      to_samples(check_rows, overheads), base, options);
    } catch (const UserError&) {  // too few rows, or no convergence: not a structure to choose
      return std::numeric_limits<double>::infinity();
    }
    for (const auto& r : fit.residuals)
      if (r.held_out) cost += std::pow(std::log(r.predicted_s / r.measured_s), 2);
  }
  return cost;
}

}  // namespace

const FitOptions& select_structure(const ClassPlan& plan, const std::vector<Measurement>& train,
                                   const hw::DeviceSpec& base,
                                   const std::optional<hw::EfficiencyKey>& entry,
                                   const CallOverheads& overheads) {
  if (plan.alternatives.empty()) return plan.options;
  const hw::EfficiencyKey key = entry.value_or(plan.entry);
  const FitOptions* best = &plan.options;
  double cost = cross_validation_cost(plan, plan.options, train, base, key, overheads);
  for (const auto& alternative : plan.alternatives) {
    const double c = cross_validation_cost(plan, alternative, train, base, key, overheads);
    if (c < cost) {
      cost = c;
      best = &alternative;
    }
  }
  return *best;
}

Calibration calibrate_device(const MeasurementSet& set, const hw::DeviceSpec& base,
                             const std::vector<ClassPlan>& plan, const FitProgress& progress) {
  return calibrate_device(set, base, plan, held_out_rows(set.rows), progress);
}

namespace {

bool planned(const std::vector<ClassPlan>& plan, const hw::EfficiencyKey& key) {
  for (const auto& p : plan)
    if (p.entry == key) return true;
  return false;
}

// The entry a row is fitted into: its phase entry (conv_bwd_data, ...) when the plan has one,
// else its class, at the op's tensor-core precision ("gemm.fp16", model/efficiency.h); nullopt
// for a row of a class the plan does not fit.
std::optional<hw::EfficiencyKey> entry_key(const Measurement& m,
                                           const std::vector<ClassPlan>& plan) {
  const std::optional<OpClass> op_class = parse_op_class(m.op_class);
  if (!op_class || !planned(plan, {*op_class})) return std::nullopt;
  const graphs::Operator op = to_operator(m);
  hw::EfficiencyKey key = model::phase_efficiency_key(op);
  if (!planned(plan, key)) key = {*op_class};
  key.precision = model::entry_precision(op);
  return key;
}

// Every entry the plan fits, in plan order, each followed by its precision variants.
std::vector<std::pair<const ClassPlan*, hw::EfficiencyKey>> plan_entries(
    const std::vector<ClassPlan>& plan) {
  std::vector<std::pair<const ClassPlan*, hw::EfficiencyKey>> out;
  for (const auto& p : plan) {
    out.push_back({&p, p.entry});
    if (!p.entry.op_class || !is_matrix_class(*p.entry.op_class)) continue;
    for (Precision precision : tensor_core_precisions()) {
      hw::EfficiencyKey at = p.entry;
      at.precision = precision;
      out.push_back({&p, at});
    }
  }
  return out;
}

}  // namespace

std::vector<CrossValidation> cross_validate(const MeasurementSet& set, const hw::DeviceSpec& base,
                                            const std::vector<ClassPlan>& plan) {
  std::map<hw::EfficiencyKey, std::vector<double>> errors;
  for (int fold = 0; fold < kHoldOutEvery; ++fold) {
    const Calibration c = calibrate_device(set, base, plan, fold_rows(set.rows, fold));
    for (const auto& f : c.fits)
      for (const auto& r : f.residuals)
        if (r.held_out) errors[f.entry].push_back((r.predicted_s - r.measured_s) / r.measured_s);
  }
  std::vector<CrossValidation> out;
  for (const auto& [p, key] : plan_entries(plan))
    if (errors.count(key)) out.push_back({key, summarize_errors(errors[key])});
  return out;
}

MeasurementSet prefer_framework_rows(const MeasurementSet& set,
                                     std::map<std::string, int>* left_out) {
  std::set<std::string> framework_classes;
  for (const auto& m : set.rows)
    if (m.shape.count("framework") && m.op_class != "dispatch")
      framework_classes.insert(m.op_class);
  MeasurementSet out;
  out.provenance = set.provenance;
  for (const auto& m : set.rows) {
    if (framework_classes.count(m.op_class) && !m.shape.count("framework")) {
      if (left_out) ++(*left_out)[m.op_class];
      continue;
    }
    out.rows.push_back(m);
  }
  return out;
}

Calibration calibrate_device(const MeasurementSet& set, const hw::DeviceSpec& base,
                             const std::vector<ClassPlan>& plan, const std::vector<bool>& held,
                             const FitProgress& progress) {
  Calibration result;
  result.device = base;
  std::map<hw::EfficiencyKey, std::vector<Measurement>> train_rows, held_rows;
  // the held-out rule is applied per class before the split
  for (std::size_t i = 0; i < set.rows.size(); ++i) {
    const std::optional<hw::EfficiencyKey> key = entry_key(set.rows[i], plan);
    if (!key) {
      ++result.rows_ignored;
      continue;
    }
    (held[i] ? held_rows : train_rows)[*key].push_back(set.rows[i]);
    ++result.rows_used;
  }
  std::vector<Measurement> training;
  for (std::size_t i = 0; i < set.rows.size(); ++i)
    if (!held[i]) training.push_back(set.rows[i]);
  result.call_overheads = estimate_call_overheads(training, base.launch_latency_s);
  const CallOverheads& overheads = result.call_overheads;
  const auto entries = plan_entries(plan);
  const std::size_t to_fit =
      static_cast<std::size_t>(std::count_if(entries.begin(), entries.end(), [&](const auto& e) {
        return train_rows.count(e.second) != 0 || held_rows.count(e.second) != 0;
      }));
  std::size_t fitted = 0;
  for (const auto& [p, key] : entries) {
    if (!train_rows.count(key) && !held_rows.count(key)) continue;
    if (progress) progress(fitted++, to_fit, key.name());
    const std::vector<Sample> train = to_samples(train_rows[key], overheads);
    const std::vector<Sample> held_out = to_samples(held_rows[key], overheads);
    // Fitted on the device as calibrated so far: conv_bwd_data's as_forward rows are costed
    // by the `conv` entry fitted before it.
    const FitOptions& options =
        select_structure(*p, train_rows[key], result.device, key, overheads);
    ClassFit fit = fit_class(key, p->form, train, held_out, result.device, options);
    result.device.efficiency[key] = fit.params;
    result.fits.push_back(std::move(fit));
  }
  if (progress) progress(to_fit, to_fit, "done");
  return result;
}

std::vector<EntryCheck> check_device(const MeasurementSet& set, const hw::DeviceSpec& device,
                                     const std::vector<ClassPlan>& plan) {
  std::map<hw::EfficiencyKey, std::vector<Measurement>> rows;
  for (const auto& m : set.rows)
    if (const auto key = entry_key(m, plan)) rows[*key].push_back(m);
  const CallOverheads overheads = estimate_call_overheads(set.rows, device.launch_latency_s);
  std::vector<EntryCheck> out;
  for (const auto& [p, key] : plan_entries(plan)) {
    if (!rows.count(key)) continue;
    EntryCheck check{key, {}, {}};
    std::vector<double> errors;
    for (const Sample& s : to_samples(rows[key], overheads)) {
      check.residuals.push_back(predicted_residual(s, device, false));
      const Residual& r = check.residuals.back();
      errors.push_back((r.predicted_s - r.measured_s) / r.measured_s);
    }
    check.errors = summarize_errors(errors);
    out.push_back(std::move(check));
  }
  return out;
}

}  // namespace amdahl::calibrate
