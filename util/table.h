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
  // Aligned columns: numbers to the right, text to the left.
  void print(std::ostream& out) const;
  void print_csv(std::ostream& out) const;
  // A GitHub-flavoured Markdown table ('|' in a cell escaped).
  void print_markdown(std::ostream& out) const;
  // An HTML <table> (cells escaped).
  void print_html(std::ostream& out) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

std::string csv_escape(const std::string& cell);
// One CSV line (cells escaped, '\n' ended) appended to `out`: for tables too long to hold as a
// Table (amdahl explore's million points).
void append_csv_row(std::string& out, const std::vector<std::string>& row);
// `text` with &, <, > and " as HTML entities.
std::string html_escape(const std::string& text);

}  // namespace amdahl
