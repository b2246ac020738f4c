#pragma once
// Least-squares fit of one op class's efficiency parameters (hw::ClassEfficiency) to kernel
// measurements. The model is the one predictions use, evaluated through model::estimate:
//   time = max(FLOPs / (peak x eff_compute(shape)), bytes / (bandwidth x eff_memory(bytes)))
//          + launch latency + class latency
// with eff_compute and eff_memory from model/efficiency.h.
//
// Model forms and their free parameters:
//   kGemmLike      compute, memory, k_half, latency (+ thread_scaling on a CPU when the
//                  samples ran at several thread counts); tile_m and tile_n are chosen from
//                  FitOptions::tile_sizes (plus "no tiles") by fitting every pair and keeping
//                  the lowest training cost. With FitOptions::tile_set, the pairs are
//                  (tile_min, tile_max) of a tile set and tile_reuse_half is fitted too;
//                  with fit_winograd, the Winograd factor of 3x3 stride-1 convolutions.
//   kMemoryBound   memory, latency (compute and half_bytes are kept from the base device);
//                  with fit_cache, cache_boost and cache_bytes too.
//                  For a memory-bound op bytes / (bandwidth x memory x bytes / (bytes +
//                  half_bytes)) = bytes / (bandwidth x memory) + half_bytes / (bandwidth x
//                  memory): half_bytes only adds a fixed time, which the latency term already
//                  is, so the two cannot be told apart and only latency is fitted.
// The residual of a sample is log(predicted / measured), so every shape weighs the same
// whatever its size, and the fit minimizes relative error. Continuous parameters are fitted by
// Levenberg-Marquardt (Eigen's MINPACK port, unsupported/Eigen/NonLinearOptimization) in
// unconstrained coordinates (fractions through a logistic, positive values through exp), with
// a weak pull (kPriorWeight per parameter) toward the starting values so that a parameter the
// data cannot see (e.g. `memory` when no sample is memory-bound) stays where it started.

#include <string>
#include <vector>

#include "calibrate/error_stats.h"
#include "graphs/op_graph.h"
#include "hw/system.h"
#include "model/kernel_choice.h"

namespace amdahl::calibrate {

inline constexpr double kPriorWeight = 0.01;
inline constexpr double kCacheSpan = 100;
inline constexpr double kCacheStepInside = 8;

// One op of a sample that the model costs as several (an RNN row: its timesteps), with how
// many times it runs.
struct SamplePart {
  graphs::Operator op;
  double count = 1;
};

// A row timed around one framework call (calibrate/call_overhead.h): the measured time is
//   max(host_s, before_kernel_s + the kernel's time)
// host_s 0: a kernel timed on its own, the measured time the kernel's.
struct CallOverhead {
  double host_s = 0;           // the host's time for the call, event to event
  double before_kernel_s = 0;  // the host's time from the start event to the kernel's start
};

struct Sample {
  // The op measured; with `parts`, the op that stands for them where the fit looks at a
  // sample's shape (tiles, narrow GEMMs), while its time is theirs.
  graphs::Operator op;
  std::vector<SamplePart> parts;
  double time_s = 0;  // measured
  int threads = 0;    // CPU: threads the kernel ran on (0: all of the device's cores)
  CallOverhead call;  // a row timed around a framework call
  std::string label;  // bench and shape, for reports
};

enum class ModelForm { kGemmLike, kMemoryBound };

struct FitOptions {
  std::string name;             // the structure, for reports (ClassFit::structure)
  std::vector<int> tile_sizes;  // candidates for tile_m and tile_n; empty: no tiles
  bool fit_thread_scaling = false;
  // tile_sizes are a tile set's bounds: every (tile_min, tile_max) with tile_min < tile_max is
  // fitted (plus no tiles), and tile_reuse_half is a free parameter.
  bool tile_set = false;
  // Tile sets: the fixed tile rows tried (0: rows from the set, as columns) and the tile
  // choices tried (hw::ClassEfficiency::tile_m, tile_choice); every combination is fitted.
  std::vector<int> tile_rows{0};
  std::vector<hw::TileChoice> tile_choices{hw::TileChoice::kFill};
  // Fit `winograd` (in [1, 4]) when some training sample is a 3x3 stride-1 convolution; with
  // winograd_algorithm, as the efficiency factor of Winograd as its own algorithm.
  bool fit_winograd = false;
  // Fit `strided_work` (in [0, 1]) when some training sample is a strided backward-data op.
  bool fit_strided_work = false;
  // Fit the cache term of the memory roofline (either form) (cache_boost >= 1, cache_bytes) when
  // the training samples' bytes span at least kCacheSpan (a size sweep from cache-resident to
  // DRAM-resident), with cache_bytes below the largest sample's bytes / kCacheStepInside (the step
  // inside the sweep, so that the largest samples pin `memory`).
  bool fit_cache = false;
  bool winograd_algorithm = false;
  // Stride-1 convolutions may run as FFT convolutions (hw::ClassEfficiency fft_algorithm,
  // model/fft.h): set on the entries of the precisions the library's FFT runs (fp32, fp16);
  // nothing of it is fitted, it is costed with the entries fitted before.
  bool fft_algorithm = false;
  // conv_bwd_data: stride-1 data gradients run as forward convolutions costed by the base
  // device's `conv` entry, and their time ratio `as_forward` is fitted (model/efficiency.h).
  bool data_grad_as_forward = false;
  // Fit split_k, the efficiency fraction of split-K kernels (model/efficiency.h).
  bool fit_split_k = false;
  // The entry's memory time in series with its compute (hw::ClassEfficiency; not fitted).
  bool memory_in_series = false;
  // The entry's GEMMs re-read an operand per result row (hw::ClassEfficiency::unblocked; not
  // fitted). The cache term is then keyed on that operand's size and fitted when those sizes
  // span kCacheStepInside (a framework's layers span tens, not a sweep from L1 to DRAM; the
  // step must still lie inside them).
  bool unblocked = false;
  // GEMMs with min(m, n) <= narrow_max get the narrow kernel's own fraction, narrow_compute
  // (fitted when some training sample is that narrow; 0: no narrow kernel).
  int narrow_max = 0;
  // A CPU framework's convolutions run as im2col + GEMM (hw::ClassEfficiency; measured, not
  // fitted): written into the entry, so those samples are costed with the `gemm` entry.
  int gemm_pointwise_below_batch = 0;
  double gemm_single_max_input = 0;
  int max_evaluations = 4000;  // per Levenberg-Marquardt run
  // The fewest training samples, less the free parameters: 1 leaves a residual to judge the
  // fit by; 0 lets as many samples as parameters determine them (profile_kernels.h).
  int min_rows_over_params = 1;
};

// One measurement with the fitted model's prediction (calibrate --residuals).
struct Residual {
  std::string label;
  bool held_out = false;
  double measured_s = 0;
  double predicted_s = 0;
  model::KernelChoice kernel;  // the kernel the prediction assumes
};

struct ClassFit {
  hw::EfficiencyKey entry;  // the entry fitted
  ModelForm form = ModelForm::kGemmLike;
  hw::ClassEfficiency params;
  ErrorStats train;
  ErrorStats held_out;
  std::vector<Residual> residuals;  // every training and held-out sample, in that order
  std::string structure;            // FitOptions::name of the structure fitted
  std::string source;  // the entry's `source:` text when the fit composes its own (profile fits)
  double cost = 0;     // sum of squared log residuals over the training samples
  int evaluations = 0;
};

// `device` with `threads` cores: peaks scaled by threads / parallel_units (the model's view of
// a CPU kernel run on fewer threads). Returns `device` unchanged for threads <= 0.
hw::DeviceSpec device_at_threads(const hw::DeviceSpec& device, int threads);

// Predicted time of one sample with `device`'s efficiencies.
double predict_time(const Sample& s, const hw::DeviceSpec& device);
// The sample predicted on `device`, with the kernel of its op (of its first part, for a sample
// costed in parts).
Residual predicted_residual(const Sample& s, const hw::DeviceSpec& device, bool held_out);

// Relative errors of `device`'s predictions over `samples`.
ErrorStats prediction_errors(const std::vector<Sample>& samples, const hw::DeviceSpec& device);

// Fits `op_class` on `train` from fixed starting values (start_value in the .cpp; compute for
// kMemoryBound from the base's `default` entry), never from the base's entry for the class, so
// that refitting a calibrated file reproduces it; reports
// the error on `held_out` (which never enters the fit). Throws UserError when there are fewer
// training samples than free parameters plus options.min_rows_over_params, when a sample's class
// differs, or when the optimizer does not converge (naming the class, the tile pair and the
// optimizer's status).
ClassFit fit_class(const hw::EfficiencyKey& entry, ModelForm form, const std::vector<Sample>& train,
                   const std::vector<Sample>& held_out, const hw::DeviceSpec& base,
                   const FitOptions& options);

}  // namespace amdahl::calibrate
