// util::Table's renderings: aligned text, CSV and Markdown of the same rows.

#include "util/table.h"

#include <catch2/catch.hpp>
#include <sstream>

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
