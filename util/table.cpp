#include "util/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "util/output_encoding.h"

namespace amdahl {

void Table::print(std::ostream& out) const {
  // Each cell on its line, whatever its text holds.
  const auto shown = [](const std::vector<std::string>& row) {
    std::vector<std::string> cells;
    for (const std::string& c : row) cells.push_back(printable(c));
    return cells;
  };
  const std::vector<std::string> header = shown(header_);
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : rows_) rows.push_back(shown(r));
  std::vector<std::size_t> width(header.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], row[i].size());
  };
  measure(header);
  for (const auto& r : rows) measure(r);
  // Columns of numbers are right-aligned, text columns left-aligned.
  std::vector<bool> numeric(header.size(), true);
  numeric[0] = false;
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < numeric.size(); ++i) {
      const std::string& c = r[i];
      const bool number_like = c.empty() || c == "-" ||
                               std::isdigit(static_cast<unsigned char>(c[0])) ||
                               ((c[0] == '-' || c[0] == '+') && c.size() > 1 &&
                                std::isdigit(static_cast<unsigned char>(c[1])));
      if (!number_like) numeric[i] = false;
    }
  auto line = [&](const std::vector<std::string>& row) {
    std::string s;
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      if (i > 0) s += "  ";
      s += numeric[i] ? fmt::format("{:>{}}", cell, width[i])
                      : fmt::format("{:<{}}", cell, width[i]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << '\n';
  };
  line(header);
  std::size_t total = 0;
  for (auto w : width) total += w;
  out << std::string(total + 2 * (width.size() - 1), '-') << '\n';
  for (const auto& r : rows) line(r);
}

void append_csv_row(std::string& out, const std::vector<std::string>& row) {
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i) out += ',';
    out += csv_field(row[i]);
  }
  out += '\n';
}

void Table::print_csv(std::ostream& out) const {
  std::string text;
  append_csv_row(text, header_);
  for (const auto& r : rows_) append_csv_row(text, r);
  out << text;
}

void Table::print_markdown(std::ostream& out) const {
  auto line = [&](const std::vector<std::string>& row) {
    out << '|';
    for (std::size_t i = 0; i < header_.size(); ++i) {
      out << ' ' << markdown_text(i < row.size() ? row[i] : "") << " |";
    }
    out << '\n';
  };
  line(header_);
  out << '|';
  for (std::size_t i = 0; i < header_.size(); ++i) out << " --- |";
  out << '\n';
  for (const auto& r : rows_) line(r);
}

void Table::print_html(std::ostream& out) const {
  out << "<table>\n<tr>";
  for (const auto& h : header_) out << "<th>" << html_text(h) << "</th>";
  out << "</tr>\n";
  for (const auto& r : rows_) {
    out << "<tr>";
    for (std::size_t i = 0; i < header_.size(); ++i)
      out << "<td>" << html_text(i < r.size() ? r[i] : "") << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n";
}

}  // namespace amdahl
