#pragma once
// The characterization study of one workload in one mode on one system (docs/report.md):
// where the time goes on the accelerator and on the host CPU alone, the accelerability of each
// class (2x, 10x and the Amdahl bound), a batch sweep with the accelerator's speedup over the
// CPU and where the step turns device-bound, what the host link is worth, scaling over the
// system's GPUs (training), and a hypothetical accelerator in the GPU's place. Every number
// comes from the functions predict, accelerability, sweep and whatif print from.
//
// The caller loads the workload (files, zoo entries, size overrides: cli/study.h) and hands it
// over as a StudyWorkload; the study only evaluates.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/accelerability.h"
#include "analysis/sweep.h"
#include "analysis/whatif.h"
#include "graphs/lower.h"
#include "hw/system.h"
#include "model/prediction.h"

namespace amdahl::analysis {

// What the study compares against: the sweep's batches, the host link and the device it puts
// in the accelerator's place.
struct StudySpec {
  std::vector<std::int64_t> batches;
  hw::LinkSpec link;           // the host link the system's is replaced by
  hw::DeviceSpec replacement;  // the hypothetical accelerator
  unsigned threads = 0;        // sweep workers (0: all cores)
};

// A workload lowered and ready to predict.
struct StudyStep {
  graphs::LoweredNetwork lowered;
  model::PredictOptions predict;
};

// One workload in one mode, loaded by the caller.
struct StudyWorkload {
  StudyStep step;          // at its own sizes
  bool has_batch = false;  // the network has a "batch" size: the batch sweep runs
  graphs::Bindings sizes;  // the size overrides the sweep's points sit on
  MakeLowerAt lower_at;    // the network lowered at each sweep point
  std::function<StudyStep(int gpus)> at_gpus;  // the same step on `gpus` data-parallel ranks
};

// The accelerator's host link as the system has it and replaced by StudySpec::link.
struct LinkStudy {
  std::string from;  // link models: "NVLink 1.0 x2"
  std::string to;    // "PCIe 3.0 x16"
  double step_s = 0;
  double changed_step_s = 0;
  double slowdown = 1;  // changed_step_s / step_s
};

struct ScalingPoint {
  int gpus = 1;
  double step_s = 0;
  double samples_per_s = 0;
  Scaling scaling;       // against one GPU
  double exposed_s = 0;  // communication on the critical path
};

struct ModeStudy {
  graphs::Mode mode = graphs::Mode::kTrain;
  model::Prediction accel;                            // on the accelerator, the network's own batch
  std::optional<model::Prediction> host;              // every op on the host CPU (none: no host)
  Accelerability at2, at10;                           // k = 2 and k = 10
  std::vector<SweepRow> batches;                      // StudySpec::batches, with the CPU compared
  std::optional<std::int64_t> device_bound_from;      // every batch from here device-bound
  std::optional<std::int64_t> accelerator_wins_from;  // every batch from here faster than the CPU
  std::optional<LinkStudy> link;      // none: no host link, or already the compared one
  std::vector<ScalingPoint> scaling;  // training on 1, 2, 4, ... of the system's GPUs
  DeviceWhatIf whatif;                // the hypothetical device in the GPU's place
};

// Studies `w` on `system`.
ModeStudy study_mode(const StudyWorkload& w, const hw::SystemSpec& system, const StudySpec& spec);

}  // namespace amdahl::analysis
