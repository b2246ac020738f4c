#pragma once
// Measured runs of real frameworks (docs/output-format.md "Measured-runs CSV"): one row per
// measurement, in one of two layouts told apart by the header:
//   amdahl's      workload,batch,mode,precision,measured_s[,op_class]: the workload is an
//                 amdahl model (zoo name or network file), the time in seconds; or, in place
//                 of measured_s, samples_per_s: a published throughput over all GPUs, the
//                 step then batch x gpus / samples_per_s;
//   PyTorch's     model,batch,precision,mode,median_us[,params] (shared/data/h200/networks/
//                 steps.csv): the model is named as PyTorch names it (models.py, torchvision)
//                 and resolves to the zoo network whose `pytorch_name` it is; the time is
//                 the median in microseconds; `params`, where given, is the network's
//                 parameter count, checked against the zoo network's (check_parameters).
// Optional in both: `gpus` (data-parallel replicas of `batch` each; default 1),
// `variable_update` (how they exchanged gradients, a hw::variable_update_names() value;
// default the system's) and `sizes` (further size bindings, "NAME=VALUE ...", such as
// "aux=0 image=227").
// Columns beyond those are kept and echoed.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hw/system.h"

namespace amdahl::validate {

struct MeasuredRun {
  std::string workload;  // the amdahl model: zoo name or network file
  std::string model;     // as the file names it (PyTorch layout); empty in amdahl's layout
  std::int64_t batch = 0;
  std::string mode;       // train or infer
  std::string precision;  // a util/precision.h name
  double measured_s = 0;
  std::string op_class;  // empty for a whole-step row
  // Column `inputs` (host or device; default host); the PyTorch layout's harness
  // (shared/data/h200/models.py) makes its inputs on the device.
  bool inputs_on_device = false;
  std::optional<std::int64_t> parameters;  // the `params` column
  int gpus = 1;
  std::optional<hw::VariableUpdate> variable_update;  // empty: the system's
  std::map<std::string, std::int64_t> sizes;          // beside batch
  std::map<std::string, std::string> extra;
  std::string where;  // "file:line"
};

// Throws UserError "file:line: column C: rule (got value)" for a missing required column, a
// non-positive or non-numeric time or batch, an unknown mode or precision, or (PyTorch
// layout) a model that no zoo network is, listing the PyTorch names the zoo has.
std::vector<MeasuredRun> read_measured_runs(const std::string& path);

// Throws UserError at the run's row when it gives a parameter count other than the
// network's (a measured network that is not the zoo network it resolved to).
void check_parameters(const MeasuredRun& run, std::int64_t network_parameters);

struct ErrorSummary {
  std::size_t points = 0;
  double median_abs = 0;  // median |(predicted - measured) / measured|
  double p90_abs = 0;
};

// Signed relative error (predicted - measured) / measured.
double signed_error(double predicted, double measured);
// Median and 90th percentile of |error|, linear interpolation between order statistics.
ErrorSummary summarize(const std::vector<double>& signed_errors);

}  // namespace amdahl::validate
