#pragma once
// A comma-separated table with a header row and RFC 4180 quoting ("a, b" is one cell), read
// whole: published data files (DeepBench), measured runs and profiles (validate/). Cells are
// looked up by column name.

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amdahl {

// The values a measured quantity read from a file may take, in SI units: outside them a cell is
// a typo or a unit slip (1e-300 s, 1e308 B/s), never data, and would print as a 300-digit error.
// hw::measured_range gives one per dimension, from hw::dimension_range.
struct PlausibleRange {
  double min = 0;  // > 0
  double max = 0;
  bool zero_allowed = false;  // 0 also valid (a profiler row with no device time)
  std::string rule;           // for messages: "a time from 1 ns to 10000 s"
  bool contains(double v) const { return (zero_allowed && v == 0) || (v >= min && v <= max); }
};

// `text` as a number times `scale` (the SI value of the cell's unit: 1e-6 for microseconds)
// when that is finite and inside `range`; UserError "`where`: column `column`: expected RULE
// (got 'text')" otherwise. The one rule for every measured number calibrate and validate read
// (CsvTable::measured, and readers that split their own lines).
double measured_cell(std::string_view text, std::string_view where, std::string_view column,
                     double scale, const PlausibleRange& range);

class CsvTable {
 public:
  // Throws UserError when the file cannot be opened or has no header row.
  static CsvTable read(const std::string& path);

  const std::string& path() const { return path_; }
  std::size_t size() const { return rows_.size(); }
  const std::vector<std::string>& header() const { return header_; }
  // The header row as an error quotes it: an excerpt (util/suggest.h), since the file may not
  // be a CSV at all and its first line is not for the terminal.
  std::string header_excerpt() const;
  bool has_column(const std::string& column) const;
  // Throws UserError naming the file and the columns it has when `column` is absent.
  std::size_t column(const std::string& column) const;
  const std::string& cell(std::size_t row, std::size_t column) const;
  // "file:line" of a row, for messages.
  std::string where(std::size_t row) const;
  // The cell as a number; UserError "file:line: column C: expected a number (got 'x')".
  double number(std::size_t row, std::size_t column) const;
  // The cell as a finite number > 0; UserError "file:line: column C: expected a finite number
  // > 0 (got 'x')". Times, sizes and rates.
  double positive_number(std::size_t row, std::size_t column) const;
  // The cell as a finite number >= 0; UserError "... expected a finite number >= 0 (got 'x')".
  // Times and counts where zero means none (a profiler row with no device time).
  double nonnegative_number(std::size_t row, std::size_t column) const;
  // The cell as a measured quantity (measured_cell).
  double measured(std::size_t row, std::size_t column, double scale,
                  const PlausibleRange& range) const;
  // The cell as a whole number in [min, max] (parse_whole); UserError "file:line: column C:
  // expected a whole number from MIN to MAX (got 'x')".
  std::int64_t whole_number(std::size_t row, std::size_t column, std::int64_t min,
                            std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;

 private:
  double finite_number(std::size_t row, std::size_t column, bool zero_allowed) const;

  std::string path_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;
};

// `text` as a whole number in [min, max], written in decimal digits with an optional sign (no
// fraction, no exponent); nullopt otherwise. Counts, sizes and dims read from measurement files
// go through it, never through a cast of a double (which is undefined out of range).
std::optional<std::int64_t> parse_whole(std::string_view text, std::int64_t min, std::int64_t max);
// "expected a whole number from MIN to MAX", for the errors of parse_whole's callers.
std::string whole_number_rule(std::int64_t min, std::int64_t max);
// parse_whole of a cell, or UserError "`where`: column `column`: expected a whole number from
// MIN to MAX (got 'x')" (CsvTable::whole_number, and readers that split their own lines).
std::int64_t whole_number_cell(std::string_view text, std::string_view where,
                               std::string_view column, std::int64_t min, std::int64_t max);

// Splits one CSV line honouring double quotes ("" inside quotes is a quote).
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace amdahl
