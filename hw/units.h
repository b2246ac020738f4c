#pragma once
// Physical quantities at the boundary: "732 GB/s", "10.6 TFLOP/s", "5 us", "16 GiB".
// Inside amdahl every quantity is a double in SI base units (bytes, seconds, FLOP, Hz).
// Decimal prefixes are powers of 1000 (GB = 1e9 B); binary prefixes powers of 1024
// (GiB = 2^30 B). A value of the wrong dimension is rejected.

#include <string>
#include <string_view>

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

// Renders a value with a readable decimal prefix: format_quantity(7.32e11, kBandwidth)
// == "732 GB/s".
std::string format_quantity(double value, Dimension d);

}  // namespace amdahl::hw
