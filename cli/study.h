#pragma once
// The characterization study `amdahl report` writes (docs/report.md) over a suite or list of
// workloads: each loaded from its zoo name or file, in training and in inference, and studied
// by analysis::study_mode (analysis/study.h), which says what each mode's study holds.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/study.h"
#include "hw/system.h"

namespace amdahl::cli {

struct StudyOptions {
  std::string suite;                   // graphs::zoo_suites() name; empty when listed
  std::vector<std::string> workloads;  // zoo names, network YAML or ONNX files (with suite empty)
  std::vector<std::int64_t> batches{1, 2, 4, 8, 16, 32, 64, 128, 256};
  std::string link = "pcie3-x16";  // the host link to compare against (catalog name or file)
  std::string whatif_device;       // a device file; empty: the catalog's whatif-accel.yaml
  unsigned threads = 0;            // sweep workers (0: all cores)
};

struct WorkloadStudy {
  std::string name;                        // as given (zoo name or file)
  std::vector<analysis::ModeStudy> modes;  // train, infer
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

// Runs the study on `system`. Every workload is loaded (and every error raised) before any is
// studied. `progress(done, total, what)` is called before each workload and mode.
Study run_study(
    const StudyOptions& o, hw::SystemSpec system,
    const std::function<void(std::size_t, std::size_t, const std::string&)>& progress = nullptr);

}  // namespace amdahl::cli
