#pragma once
// Kernel measurements in the shared CSV format (calibrate/measurement_format.md), written
// by the CPU and CUDA microbenchmarks and read by the fitters.

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace amdahl::calibrate {

struct Measurement {
  std::string bench;                         // gemm, conv_fwd, copy_h2d_pinned, ...
  std::string op_class;                      // gemm, conv, elementwise, transfer, ...
  std::string precision;                     // fp32, tf32, fp16, bf16, none
  std::map<std::string, std::string> shape;  // m=1024;n=...
  double flops = 0;
  double bytes = 0;
  double time_s = 0;
  int reps = 0;

  // shape value as a number; throws UserError naming the row when absent or not numeric.
  double shape_number(const std::string& key) const;
  // shape value as a whole number in [min, max] (a dim, a count); throws UserError naming the
  // row when absent or not such a number.
  std::int64_t shape_whole(const std::string& key, std::int64_t min = 0,
                           std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  // shape value as written; throws UserError naming the row when absent.
  const std::string& shape_text(const std::string& key) const;
};

struct MeasurementSet {
  std::map<std::string, std::string> provenance;  // from "# key: value" lines
  std::vector<Measurement> rows;
};

// Reads a measurement CSV. Throws UserError "file:line: ..." for a missing column, a
// malformed number, or a non-positive time.
MeasurementSet read_measurements(const std::string& path);
// The CSV text of `set` (written through util/atomic_file.h, like every output).
std::string measurements_text(const MeasurementSet& set);

std::string format_shape(const std::map<std::string, std::string>& shape);
// `line` cut at every `sep` (a trailing `sep` gives a last, empty field).
std::vector<std::string> split_fields(const std::string& line, char sep);
// A shape cell ("m=1024;n=512") as its key=value pairs; UserError "`where`: shape entry ...
// is not key=value" otherwise.
std::map<std::string, std::string> parse_shape(const std::string& cell, const std::string& where);

}  // namespace amdahl::calibrate
