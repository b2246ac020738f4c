#pragma once
// Relative prediction errors, (predicted - measured) / measured, summarized as docs/architecture.md
// asks of every comparison: median and 90th percentile of |error| (linear interpolation between
// order statistics, as numpy.percentile does by default), the largest |error| and the mean
// signed error (bias).

#include <string>
#include <vector>

namespace amdahl::calibrate {

struct ErrorStats {
  int count = 0;
  double median_abs = 0;
  double p90_abs = 0;
  double max_abs = 0;
  double mean_signed = 0;
};

// q in [0, 1]; `values` need not be sorted. 0 for an empty list.
double percentile(std::vector<double> values, double q);
ErrorStats summarize_errors(const std::vector<double>& signed_errors);
// A relative error or fraction as reports print it: "12.3%".
std::string percent(double fraction);

}  // namespace amdahl::calibrate
