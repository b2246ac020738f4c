// Writer for amdahl measurements v1 CSV (calibrate/measurement_format.md).
//
// Layout: provenance comment lines "# key: value", one header row
//   bench,op_class,precision,shape,flops,bytes,time_s,reps
// then one row per measurement. Each row is flushed as it is written, so a run that is cut
// short still leaves every finished measurement behind.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace amdahl::cudabench {

// One row: the median time of one call of a kernel on one shape.
struct Measurement {
  std::string bench;        // gemm, conv_fwd, copy_h2d_pinned, ... (measurement_format.md)
  std::string op_class;     // the amdahl operator class it calibrates: gemm, conv, memory, ...
  std::string precision;    // fp32, tf32, fp16, bf16 or none
  std::string shape;        // key=value pairs joined by ';' (see ShapeString)
  std::uint64_t flops = 0;  // floating-point operations of one call, 0 where not meaningful
  std::uint64_t bytes = 0;  // minimum bytes read plus written by one call
  double time_s = 0.0;      // median seconds of one call, > 0
  int reps = 0;             // timed repetitions behind the median, > 0
};

// Ordered "# key: value" lines.
using Provenance = std::vector<std::pair<std::string, std::string>>;

// Builds the shape field: ShapeString().add("m", 1024).add("ta", "N").str() == "m=1024;ta=N".
class ShapeString {
 public:
  ShapeString& add(const std::string& key, const std::string& value);
  ShapeString& add(const std::string& key, const char* value) {
    return add(key, std::string(value));
  }
  template <typename Integer, typename = std::enable_if_t<std::is_integral_v<Integer>>>
  ShapeString& add(const std::string& key, Integer value) {
    return add(key, std::to_string(value));
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

class CsvWriter {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}

  // Writes the provenance lines and the header row; call once, before any row. Line breaks in
  // values become spaces.
  void write_preamble(const Provenance& provenance);
  // Writes one row (and the header row first, if write_preamble was not called). Throws
  // std::invalid_argument for a field holding a comma or line break, a time that is not
  // positive and finite, or reps < 1.
  void write_row(const Measurement& measurement);

 private:
  std::ostream& out_;
  void write_header();

  bool header_written_ = false;
};

}  // namespace amdahl::cudabench
