#include "calibrate/error_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/percent.h"

namespace amdahl::calibrate {

std::string percent(double fraction) { return format_percent(fraction); }

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return values[lo] + frac * (values[hi] - values[lo]);
}

ErrorStats summarize_errors(const std::vector<double>& signed_errors) {
  ErrorStats s;
  s.count = static_cast<int>(signed_errors.size());
  if (signed_errors.empty()) return s;
  std::vector<double> abs_errors;
  double sum = 0;
  for (double e : signed_errors) {
    abs_errors.push_back(std::abs(e));
    sum += e;
  }
  s.median_abs = percentile(abs_errors, 0.5);
  s.p90_abs = percentile(abs_errors, 0.9);
  s.max_abs = *std::max_element(abs_errors.begin(), abs_errors.end());
  s.mean_signed = sum / static_cast<double>(signed_errors.size());
  return s;
}

}  // namespace amdahl::calibrate
