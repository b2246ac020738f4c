#pragma once
// The characterization study `amdahl report` writes (docs/report.md): for each workload of a
// suite or list, in training and in inference, on one system: where the time goes by op class
// on the accelerator and on the host CPU alone, the binding resource, the accelerability of
// each class (2x, 10x and the Amdahl bound), a batch-size sweep with the accelerator's speedup
// over the CPU and where the step turns device-bound, what the host link is worth, scaling
// over the system's GPUs (training), and a hypothetical accelerator in the GPU's place. Every
// number comes from the functions predict, breakdown, whatif and sweep print from.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/accelerability.h"
#include "analysis/sweep.h"
#include "analysis/whatif.h"
#include "hw/system.h"
#include "model/prediction.h"

namespace amdahl::cli {

struct StudyOptions {
  std::string suite;                   // graphs::zoo_suites() name; empty when listed
  std::vector<std::string> workloads;  // zoo names, network YAML or ONNX files (with suite empty)
  std::vector<std::int64_t> batches{1, 2, 4, 8, 16, 32, 64, 128, 256};
  std::string link = "pcie3-x16";  // the host link to compare against (catalog name or file)
  std::string whatif_device;       // a device file; empty: the catalog's whatif-accel.yaml
  unsigned threads = 0;            // sweep workers (0: all cores)
};

// The accelerator's host link as the system has it and replaced by StudyOptions::link.
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
  double speedup = 1;     // against one GPU
  double efficiency = 1;  // speedup / gpus
  double exposed_s = 0;   // communication on the critical path
};

struct ModeStudy {
  graphs::Mode mode = graphs::Mode::kTrain;
  model::Prediction accel;                        // on the accelerator, the network's own batch
  std::optional<model::Prediction> host;          // every op on the host CPU (none: no host)
  analysis::Accelerability at2, at10;             // k = 2 and k = 10
  std::vector<analysis::SweepRow> batches;        // StudyOptions::batches, with the CPU compared
  std::optional<std::int64_t> device_bound_from;  // every batch from here device-bound
  std::optional<std::int64_t> accelerator_wins_from;  // every batch from here faster than the CPU
  std::optional<LinkStudy> link;      // none: no host link, or already the compared one
  std::vector<ScalingPoint> scaling;  // training on 1, 2, 4, ... of the system's GPUs
  analysis::DeviceWhatIf whatif;      // the hypothetical device in the GPU's place
};

struct WorkloadStudy {
  std::string name;              // as given (zoo name or file)
  std::vector<ModeStudy> modes;  // train, infer
};

struct Study {
  std::string title;  // "fathom on minsky"
  StudyOptions options;
  hw::SystemSpec system;
  std::string whatif_device_file;
  std::string whatif_device_model;
  std::vector<WorkloadStudy> workloads;
};

// The workloads of `o`: the suite's members, or the list. Throws UserError for an unknown
// suite (listing the suites), an empty list, or both given.
std::vector<std::string> study_workloads(const StudyOptions& o);

// The critical path's share of host dispatch and sync at one sweep point (by_bound "dispatch").
double host_share(const analysis::SweepRow& r);

// Runs the study on `system`. Every workload is loaded (and every error raised) before any is
// studied. `progress(done, total, what)` is called before each workload and mode.
Study run_study(
    const StudyOptions& o, hw::SystemSpec system,
    const std::function<void(std::size_t, std::size_t, const std::string&)>& progress = nullptr);

}  // namespace amdahl::cli
