#pragma once
// Physical quantities at the boundary: "732 GB/s", "10.6 TFLOP/s", "5 us", "16 GiB".
// Inside amdahl every quantity is a double in SI base units (bytes, seconds, FLOP, Hz).
// Decimal prefixes are powers of 1000 (GB = 1e9 B); binary prefixes powers of 1024
// (GiB = 2^30 B). A value of the wrong dimension is rejected.

#include <string>
#include <string_view>

#include "util/csv_table.h"

namespace amdahl::hw {

enum class Dimension {
  kDimensionless,
  kBytes,
  kBandwidth,  // bytes per second
  kFlops,      // floating-point operations
  kFlopRate,   // FLOP per second
  kTime,       // seconds
  kFrequency,  // hertz
};

// "bytes", "B/s", ... as used in messages and `describe hw`.
std::string_view dimension_name(Dimension d);
// An example of a valid value of this dimension, for error messages ("732 GB/s").
std::string_view dimension_example(Dimension d);

struct Quantity {
  double value = 0;  // SI base units
  Dimension dimension = Dimension::kDimensionless;
};

// Parses "<number> <unit>". Throws UserError with a message that states the expected
// dimension and the text found. A bare number is accepted only for kDimensionless.
Quantity parse_quantity(std::string_view text);
double parse_quantity_as(std::string_view text, Dimension expected);

// The values amdahl models for each dimension, wide enough for any real or hypothetical machine
// (a link of 1 kB/s to 10 PB/s, a latency up to 3 hours) and narrow enough that a typo such as
// `bandwidth: 1e-300 B/s` is an error instead of a step time of inf. The schema checks every
// quantity against it, on top of each key's own range.
struct DimensionRange {
  double min;
  double max;
};
DimensionRange dimension_range(Dimension d);

// The values a measurement of dimension `d` may take (calibrate's and validate's CSVs, through
// CsvTable::measured): dimension_range(d), above zero (`zero_allowed`: or exactly 0). A time is
// at least 1 ns: a GPU clock cycle is 0.5-1 ns and no timer a measurement comes from (CUDA
// events, CUPTI, the host clock) resolves less, so a smaller time is a unit slip. A byte or FLOP
// count is at least 1. Throws InternalError for kDimensionless (no measurement is unitless).
PlausibleRange measured_range(Dimension d, bool zero_allowed = false);

// Renders a value with a readable decimal prefix: format_quantity(7.32e11, kBandwidth)
// == "732 GB/s".
std::string format_quantity(double value, Dimension d);

}  // namespace amdahl::hw
