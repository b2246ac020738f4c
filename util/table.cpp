#include "util/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace amdahl {

std::string csv_escape(const std::string& cell) {
  if (cell.find_first_of(",\"\n") == std::string::npos) return cell;
  std::string out = "\"";
  for (char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], row[i].size());
  };
  measure(header_);
  for (const auto& r : rows_) measure(r);
  // Columns of numbers are right-aligned, text columns left-aligned.
  std::vector<bool> numeric(header_.size(), true);
  numeric[0] = false;
  for (const auto& r : rows_)
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
  line(header_);
  std::size_t total = 0;
  for (auto w : width) total += w;
  out << std::string(total + 2 * (width.size() - 1), '-') << '\n';
  for (const auto& r : rows_) line(r);
}

void append_csv_row(std::string& out, const std::vector<std::string>& row) {
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i) out += ',';
    out += csv_escape(row[i]);
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
      std::string cell = i < row.size() ? row[i] : "";
      for (std::size_t at = cell.find('|'); at != std::string::npos; at = cell.find('|', at + 2))
        cell.replace(at, 1, "\\|");
      out << ' ' << cell << " |";
    }
    out << '\n';
  };
  line(header_);
  out << '|';
  for (std::size_t i = 0; i < header_.size(); ++i) out << " --- |";
  out << '\n';
  for (const auto& r : rows_) line(r);
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void Table::print_html(std::ostream& out) const {
  out << "<table>\n<tr>";
  for (const auto& h : header_) out << "<th>" << html_escape(h) << "</th>";
  out << "</tr>\n";
  for (const auto& r : rows_) {
    out << "<tr>";
    for (std::size_t i = 0; i < header_.size(); ++i)
      out << "<td>" << html_escape(i < r.size() ? r[i] : "") << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n";
}

}  // namespace amdahl
