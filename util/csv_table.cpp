#include "util/csv_table.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "util/error.h"
#include "util/input_file.h"
#include "util/suggest.h"

namespace amdahl {

std::optional<std::int64_t> parse_whole(std::string_view text, std::int64_t min, std::int64_t max) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
    return std::nullopt;
  return v;
}

std::string whole_number_rule(std::int64_t min, std::int64_t max) {
  return fmt::format("expected a whole number from {} to {}", min, max);
}

std::int64_t whole_number_cell(std::string_view text, std::string_view where,
                               std::string_view column, std::int64_t min, std::int64_t max) {
  if (const auto v = parse_whole(text, min, max)) return *v;
  throw UserError(fmt::format("{}: column {}: {} (got '{}')", where, column,
                              whole_number_rule(min, max), excerpt(text)));
}

double measured_cell(std::string_view text, std::string_view where, std::string_view column,
                     double scale, const PlausibleRange& range) {
  const std::string owned(text);
  char* end = nullptr;
  const double written = std::strtod(owned.c_str(), &end);
  const double v = written * scale;
  // A written value that scales to 0 (1e-320 us) is no zero: only a written 0 is.
  if (owned.empty() || *end != '\0' || !std::isfinite(v) || !range.contains(v) ||
      (v == 0 && written != 0))
    throw UserError(fmt::format("{}: column {}: expected {} (got '{}')", where, column, range.rule,
                                excerpt(text)));
  return v;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

CsvTable CsvTable::read(const std::string& path) {
  check_input_file(path, kMaxTextInputBytes, "file");
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot open file", path));
  CsvTable t;
  t.path_ = path;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (t.header_.empty()) {
      t.header_ = split_csv_line(line);
      continue;
    }
    t.rows_.push_back(split_csv_line(line));
    t.lines_.push_back(line_no);
  }
  if (t.header_.empty()) throw UserError(fmt::format("{}: no header row", path));
  return t;
}

bool CsvTable::has_column(const std::string& name) const {
  for (const auto& h : header_)
    if (h == name) return true;
  return false;
}

std::size_t CsvTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == name) return i;
  throw UserError(
      fmt::format("{}:1: missing column '{}' (the header has: {})", path_, name, header_excerpt()));
}

std::string CsvTable::header_excerpt() const { return excerpt(join(header_)); }

const std::string& CsvTable::cell(std::size_t row, std::size_t column) const {
  static const std::string kEmpty;
  const auto& cells = rows_.at(row);
  return column < cells.size() ? cells[column] : kEmpty;
}

std::string CsvTable::where(std::size_t row) const {
  return fmt::format("{}:{}", path_, lines_.at(row));
}

double CsvTable::number(std::size_t row, std::size_t column) const {
  const std::string& text = cell(row, column);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0')
    throw UserError(fmt::format("{}: column {}: expected a number (got '{}')", where(row),
                                header_.at(column), excerpt(text)));
  return v;
}

double CsvTable::measured(std::size_t row, std::size_t column, double scale,
                          const PlausibleRange& range) const {
  return measured_cell(cell(row, column), where(row), header_.at(column), scale, range);
}

std::int64_t CsvTable::whole_number(std::size_t row, std::size_t column, std::int64_t min,
                                    std::int64_t max) const {
  return whole_number_cell(cell(row, column), where(row), header_.at(column), min, max);
}

double CsvTable::finite_number(std::size_t row, std::size_t column, bool zero_allowed) const {
  const double v = number(row, column);
  if (!std::isfinite(v) || v < 0 || (v == 0 && !zero_allowed))
    throw UserError(fmt::format("{}: column {}: expected a finite number {} 0 (got '{}')",
                                where(row), header_.at(column), zero_allowed ? ">=" : ">",
                                excerpt(cell(row, column))));
  return v;
}

double CsvTable::positive_number(std::size_t row, std::size_t column) const {
  return finite_number(row, column, false);
}

double CsvTable::nonnegative_number(std::size_t row, std::size_t column) const {
  return finite_number(row, column, true);
}

}  // namespace amdahl
