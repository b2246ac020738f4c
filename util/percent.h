#pragma once
// A fraction printed as a percentage: a share of the step, a prediction's error, an efficiency.

#include <string>

namespace amdahl {

// `fraction` x 100 with one decimal and a '%' ("12.3%"; with `sign`, "+12.3%"), the one format
// of a printed percentage. A percentage of a million or more (an error from a measurement at the
// edge of hw::measured_range) prints in exponent form ("+1.23e+08%"), never as hundreds of
// digits. Throws InternalError for a fraction that is not finite: every input is range-checked
// where it is read, so one here is a bug, never a number to print.
std::string format_percent(double fraction, bool sign = false);

}  // namespace amdahl
