#pragma once
// A plain-text table with aligned columns, also writable as CSV and Markdown.

#include <ostream>
#include <string>
#include <vector>

namespace amdahl {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Each rendering encodes the cells for where they go (util/output_encoding.h).
  // Aligned columns: numbers to the right, text to the left; each cell printable on one line.
  void print(std::ostream& out) const;
  // RFC 4180 CSV (csv_field).
  void print_csv(std::ostream& out) const;
  // A GitHub-flavoured Markdown table (markdown_text: a '|' in a cell escaped, no markup).
  void print_markdown(std::ostream& out) const;
  // An HTML <table> (html_text).
  void print_html(std::ostream& out) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// One CSV line (cells as csv_field, '\n' ended) appended to `out`: for tables too long to hold as a
// Table (amdahl explore's million points).
void append_csv_row(std::string& out, const std::vector<std::string>& row);

}  // namespace amdahl
