#pragma once
// Measured runs of real frameworks (docs/output-format.md "Measured-runs CSV"): one row per
// measurement with at least workload,batch,mode,precision,measured_s; extra columns are
// kept and echoed.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace amdahl::validate {

struct MeasuredRun {
  std::string workload;
  std::int64_t batch = 0;
  std::string mode;
  std::string precision;
  double measured_s = 0;
  std::string op_class;  // empty for a whole-step row
  std::map<std::string, std::string> extra;
  int line = 0;
};

// Throws UserError "file:line: ..." for a missing required column or a bad value.
std::vector<MeasuredRun> read_measured_runs(const std::string& path);

struct ErrorSummary {
  std::size_t points = 0;
  double median_abs = 0;  // median |(predicted - measured) / measured|
  double p90_abs = 0;
};

// Signed relative error (predicted - measured) / measured.
double signed_error(double predicted, double measured);
ErrorSummary summarize(const std::vector<double>& signed_errors);

}  // namespace amdahl::validate
