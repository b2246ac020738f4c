#pragma once
// Measured runs of real frameworks (docs/output-format.md "Measured-runs CSV"): one row per
// measurement, in one of two layouts told apart by the header:
//   amdahl's      workload,batch,mode,precision,measured_s[,op_class]: the workload is an
//                 amdahl model (zoo name or network file), the time in seconds;
//   PyTorch's     model,batch,precision,mode,median_us[,params] (shared/data/h200/networks/
//                 steps.csv): the model is named as PyTorch names it (models.py, torchvision)
//                 and resolves to the zoo network whose `pytorch_name` it is; the time is
//                 the median in microseconds; `params`, where given, is the network's
//                 parameter count, checked against the zoo network's (check_parameters).
// Columns beyond those are kept and echoed.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

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
