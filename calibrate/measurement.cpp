#include "calibrate/measurement.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#include "hw/units.h"
#include "util/csv_table.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/op_class.h"
#include "util/precision.h"
#include "util/suggest.h"

namespace amdahl::calibrate {
namespace {

const std::vector<std::string> kColumns{"bench", "op_class", "precision", "shape",
                                        "flops", "bytes",    "time_s",    "reps"};

double number(const std::string& text, const std::string& where, const std::string& column) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    throw UserError(fmt::format("{}: column {}: expected a finite number (got '{}')", where, column,
                                excerpt(text)));
  return v;
}

// The precision of a row that runs no math at that precision (a copy, a launch).
constexpr const char* kNoPrecision = "none";

// Classes a measurement may carry besides the op classes: what the launch, dispatch,
// allocation and algorithm-search rows measure (measurement_format.md).
constexpr std::array<std::string_view, 4> kMeasuredOnlyClasses{"launch", "dispatch", "allocation",
                                                               "conv_algorithm"};

}  // namespace

const std::string& Measurement::shape_text(const std::string& key) const {
  const auto it = shape.find(key);
  if (it == shape.end())
    throw UserError(
        fmt::format("measurement {} {} has no '{}' in its shape", bench, format_shape(shape), key));
  return it->second;
}

double Measurement::shape_number(const std::string& key) const {
  return number(shape_text(key), bench, key);
}

std::int64_t Measurement::shape_whole(const std::string& key, std::int64_t min,
                                      std::int64_t max) const {
  const std::string& text = shape_text(key);
  if (const auto v = parse_whole(text, min, max)) return *v;
  throw UserError(fmt::format("measurement {} {}: {}: {} (got '{}')", bench, format_shape(shape),
                              key, whole_number_rule(min, max), excerpt(text)));
}

std::string format_shape(const std::map<std::string, std::string>& shape) {
  std::string out;
  for (const auto& [k, v] : shape) {
    if (!out.empty()) out += ';';
    out += k + "=" + v;
  }
  return out;
}

std::vector<std::string> split_fields(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep)) out.push_back(cell);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

std::map<std::string, std::string> parse_shape(const std::string& cell, const std::string& where) {
  std::map<std::string, std::string> shape;
  for (const auto& kv : split_fields(cell, ';')) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos)
      throw UserError(fmt::format("{}: shape entry '{}' is not key=value", where, kv));
    shape[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return shape;
}

MeasurementSet read_measurements(const std::string& path) {
  check_input_file(path, kMaxTextInputBytes, "the measurement file");
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot open measurement file", path));
  MeasurementSet set;
  std::string line;
  int line_no = 0;
  std::vector<int> index;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line.starts_with("#")) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string key = line.substr(1, colon - 1);
        std::string value = line.substr(colon + 1);
        auto trim = [](std::string& s) {
          s.erase(0, s.find_first_not_of(' '));
          s.erase(s.find_last_not_of(' ') + 1);
        };
        trim(key);
        trim(value);
        set.provenance[key] = value;
      }
      continue;
    }
    const auto cells = split_fields(line, ',');
    const std::string where = fmt::format("{}:{}", path, line_no);
    if (index.empty()) {
      for (const auto& col : kColumns) {
        int found = -1;
        for (std::size_t i = 0; i < cells.size(); ++i)
          if (cells[i] == col) found = static_cast<int>(i);
        if (found < 0)
          throw UserError(fmt::format("{}: missing column '{}' (header needs: {})", where, col,
                                      join(kColumns)));
        index.push_back(found);
      }
      continue;
    }
    auto cell = [&](int c) -> const std::string& {
      const auto i = static_cast<std::size_t>(index[static_cast<std::size_t>(c)]);
      if (i >= cells.size())
        throw UserError(fmt::format("{}: row has {} cells, column '{}' missing", where,
                                    cells.size(), kColumns[static_cast<std::size_t>(c)]));
      return cells[i];
    };
    Measurement m;
    m.bench = cell(0);
    m.op_class = cell(1);
    if (!parse_op_class(m.op_class) &&
        std::find(kMeasuredOnlyClasses.begin(), kMeasuredOnlyClasses.end(), m.op_class) ==
            kMeasuredOnlyClasses.end()) {
      std::vector<std::string> valid = op_class_names();
      valid.insert(valid.end(), kMeasuredOnlyClasses.begin(), kMeasuredOnlyClasses.end());
      throw UserError(fmt::format("{}: column op_class: unknown class '{}'; {}", where,
                                  excerpt(m.op_class), suggestion(m.op_class, valid)));
    }
    m.precision = cell(2);
    if (m.precision != kNoPrecision)
      parse_workload_precision(m.precision, where + ": column precision");
    m.shape = parse_shape(cell(3), where);
    // 0 where a count is not meaningful (measurement_format.md).
    m.flops =
        measured_cell(cell(4), where, "flops", 1, hw::measured_range(hw::Dimension::kFlops, true));
    m.bytes =
        measured_cell(cell(5), where, "bytes", 1, hw::measured_range(hw::Dimension::kBytes, true));
    m.time_s = measured_cell(cell(6), where, "time_s", 1, hw::measured_range(hw::Dimension::kTime));
    m.reps = static_cast<int>(
        whole_number_cell(cell(7), where, "reps", 1, std::numeric_limits<int>::max()));
    set.rows.push_back(std::move(m));
  }
  if (index.empty()) throw UserError(fmt::format("{}: no header row", path));
  return set;
}

std::string measurements_text(const MeasurementSet& set) {
  std::string out = "# amdahl measurements v1\n";
  for (const auto& [k, v] : set.provenance) out += "# " + k + ": " + v + "\n";
  out += join(kColumns, ",") + "\n";
  for (const auto& m : set.rows)
    out += fmt::format("{},{},{},{},{:.6g},{:.6g},{:.6e},{}\n", m.bench, m.op_class, m.precision,
                       format_shape(m.shape), m.flops, m.bytes, m.time_s, m.reps);
  return out;
}

}  // namespace amdahl::calibrate
