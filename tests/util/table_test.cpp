// util::Table's renderings: aligned text, CSV and Markdown of the same rows; parse_whole, the
// whole-number parser of the CSV readers (util/csv_table.h).

#include "util/table.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <sstream>

#include "util/csv_table.h"

using amdahl::Table;

TEST_CASE("table: Markdown rows with a '|' in a cell escaped, and CSV quoting commas",
          "[util][table]") {
  Table t({"name", "value"});
  t.add({"a|b", "1.5"});
  t.add({"c,d", "2"});
  std::ostringstream md, csv;
  t.print_markdown(md);
  t.print_csv(csv);
  CHECK(md.str() == "| name | value |\n| --- | --- |\n| a\\|b | 1.5 |\n| c,d | 2 |\n");
  CHECK(csv.str() == "name,value\na|b,1.5\n\"c,d\",2\n");
}

TEST_CASE("table: a cell's escape sequence and newline are shown as text on its own line",
          "[util][table]") {
  Table t({"name", "value"});
  t.add({"a\x1b[2J\nb", "1"});
  std::ostringstream text, csv, html;
  t.print(text);
  t.print_csv(csv);
  t.print_html(html);
  // The cell is 13 characters wide as shown: the column is measured after encoding.
  CHECK(text.str() == "name           value\n--------------------\na\\x1b[2J\\x0ab      1\n");
  CHECK(csv.str() == "name,value\na\\x1b[2J\\x0ab,1\n");
  CHECK(html.str().find("<td>a\\x1b[2J\\x0ab</td>") != std::string::npos);
}

TEST_CASE("parse_whole: decimal digits in range only", "[util][csv]") {
  using amdahl::parse_whole;
  CHECK(parse_whole("42", 0, 100) == 42);
  CHECK(parse_whole("+42", 0, 100) == 42);
  CHECK(parse_whole("-5", -10, 10) == -5);
  CHECK(parse_whole("9223372036854775807", 0, INT64_MAX) == INT64_MAX);
  for (const char* bad :
       {"", "+", "4.0", "1e3", " 4", "4 ", "0x10", "101", "-1", "9223372036854775808", "nan"}) {
    INFO(bad);
    CHECK_FALSE(parse_whole(bad, 0, 100));
  }
  CHECK(amdahl::whole_number_rule(1, 7) == "expected a whole number from 1 to 7");
}
