#pragma once
// Fits every planned op class of a measurement set with the held-out rule of holdout.h, and
// returns the fitted device (the base device with the fitted classes replaced) together with
// each class's fit and held-out error.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/call_overhead.h"
#include "calibrate/efficiency_fit.h"
#include "calibrate/measurement.h"
#include "hw/system.h"

namespace amdahl::calibrate {

struct ClassPlan {
  hw::EfficiencyKey entry;  // an op class (gemm, conv, ...) or a phase entry (conv_bwd_data,
                            // conv_bwd_filter; model/efficiency.h), never a precision variant
  ModelForm form = ModelForm::kGemmLike;
  FitOptions options;
  // Other model structures for the class. With alternatives, every structure (options
  // first) is scored by 5-fold cross-validation on the training rows alone (folds as
  // holdout.h's, over the training shapes): the one with the lowest held-in-turn cost (sum of
  // squared log errors) is fitted; a structure that some fold leaves with fewer rows than its
  // parameters + 1, or whose fit does not converge on some fold, is not chosen (all such:
  // `options`). The held-out rows never take part in the choice.
  std::vector<FitOptions> alternatives;
};

// The structure of `plan` to fit on `train` (ClassPlan::alternatives); plan.options when the
// plan has no alternatives (nothing is fitted then). `entry` is the efficiency entry fitted,
// plan.entry when not given, or one of its precision variants ("gemm.fp16").
const FitOptions& select_structure(const ClassPlan& plan, const std::vector<Measurement>& train,
                                   const hw::DeviceSpec& base,
                                   const std::optional<hw::EfficiencyKey>& entry = std::nullopt,
                                   const CallOverheads& overheads = {});

struct Calibration {
  hw::DeviceSpec device;  // base with the fitted efficiencies
  std::vector<ClassFit> fits;
  int rows_used = 0;
  int rows_ignored = 0;          // rows of classes without a plan (launch, transfer, ...)
  CallOverheads call_overheads;  // of rows timed around a framework call (call_overhead.h)
};

// A memory-bound class: with the cache step of the memory roofline (FitOptions::fit_cache,
// where the training sizes span a sweep) or with one flat bandwidth fraction, the structure
// chosen by cross-validation (a few noisy rows cannot carry the step's two parameters).
ClassPlan memory_bound_plan(const hw::EfficiencyKey& entry);

// The GPU plan: the memory-bound classes (elementwise, reduction, softmax, data_movement), then
// gemm and the three convolution directions (conv = forward, conv_bwd_data,
// conv_bwd_filter) as GEMM-like with a tile set from {16, ..., 256} (the CTA tile sizes of
// cuBLAS/CUTLASS SGEMM kernels, 16 for their skinny-GEMM kernels), convolutions with a
// Winograd factor; rnn with one tile pair from {32, 64, 128, 256}; elementwise and reduction
// as memory-bound. With fft_algorithm, the convolution entries at fp32 and fp16 also weigh FFT
// (model/fft.h): the plan of kernels timed through a framework (calibrate torch) and of
// amdahl-cudabench rows. DeepBench's catalogs are fitted without it: 2 of the P100's 94 and 1 of
// the V100's 94 forward rows record an FFT algorithm, and refitting the eight DeepBench
// catalogs (and the studies built on them) is a change of its own.
std::vector<ClassPlan> gpu_plan(bool fft_algorithm);

// Rows measured through a framework (shape key `framework`, calibrate/cpu/framework_kernels.h)
// describe what a network run by that framework reaches; a library benchmark of the same
// class (oneDNN's sgemm, an OpenMP loop) describes what the hardware can do. A class that has
// framework rows is fitted from them alone: `set` without the other rows of such classes
// (dispatch rows do not count). `left_out` (optional) gets the number of rows left out per class.
MeasurementSet prefer_framework_rows(const MeasurementSet& set,
                                     std::map<std::string, int>* left_out = nullptr);

// Samples of `rows`, each the op its row times (measured_op.h), threads from the shape's
// `threads` key (0 when absent); rnn_fwd and rnn_bwd_data rows as their timesteps, each step's
// ops as the lowering of the recurrent layer runs them (MeasuredOp::steps); a row timed around a
// framework call with its call's overhead from `overheads` (call_overhead.h).
std::vector<Sample> to_samples(const std::vector<Measurement>& rows,
                               const CallOverheads& overheads = {});

// A planned class without measurements is skipped (the base's entry stays); a class that
// cannot be fitted (too few rows, no convergence) throws UserError.
// Every fitted sample as CSV (entry, split, measurement, measured_us, predicted_us, error,
// model_kernel: the kernel the prediction assumes, model/kernel_choice.h):
// what `calibrate --residuals` writes, so that each validation point can be inspected.
std::string residuals_csv(const std::vector<ClassFit>& fits);

// Called before each entry is fitted: entries done, entries to fit, the entry's name.
using FitProgress = std::function<void(std::size_t, std::size_t, const std::string&)>;

Calibration calibrate_device(const MeasurementSet& set, const hw::DeviceSpec& base,
                             const std::vector<ClassPlan>& plan,
                             const FitProgress& progress = nullptr);
// With the rows held out given (held[i] for set.rows[i]) instead of the fixed rule.
Calibration calibrate_device(const MeasurementSet& set, const hw::DeviceSpec& base,
                             const std::vector<ClassPlan>& plan, const std::vector<bool>& held,
                             const FitProgress& progress = nullptr);

// Error of every shape predicted by the fit that held it out: kHoldOutEvery fits per entry,
// one per fold of holdout.h (fold_rows). More robust than the fixed split's fifth of the
// shapes; reported beside it, never used to choose parameters.
struct CrossValidation {
  hw::EfficiencyKey entry;
  ErrorStats errors;
};
std::vector<CrossValidation> cross_validate(const MeasurementSet& set, const hw::DeviceSpec& base,
                                            const std::vector<ClassPlan>& plan);

// A device file checked against measurements it was not fitted to (`calibrate check`):
// every row of a planned class goes to the entry calibrate_device would fit it into and is
// predicted by `device` as it is (an entry the device lacks falls back as in predictions,
// model/efficiency.h). Nothing is fitted; entries in plan order, each followed by its precision
// variants.
struct EntryCheck {
  hw::EfficiencyKey entry;
  ErrorStats errors;
  std::vector<Residual> residuals;  // held_out is false for every one
};
std::vector<EntryCheck> check_device(const MeasurementSet& set, const hw::DeviceSpec& device,
                                     const std::vector<ClassPlan>& plan);
// Every checked row as CSV, in residuals_csv's columns with split `check`.
std::string check_residuals_csv(const std::vector<EntryCheck>& checks);

}  // namespace amdahl::calibrate
