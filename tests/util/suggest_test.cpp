#include "util/suggest.h"

#include <catch2/catch.hpp>

using amdahl::closest;
using amdahl::double_quoted;
using amdahl::edit_distance;

TEST_CASE("edit distance counts insertions, deletions and substitutions", "[util]") {
  CHECK(edit_distance("bandwidth", "bandwidth") == 0);
  CHECK(edit_distance("bandwith", "bandwidth") == 1);  // one insertion
  CHECK(edit_distance("kitten", "sitting") == 3);      // the textbook example
}

TEST_CASE("closest suggests near names only", "[util]") {
  const std::vector<std::string> keys{"capacity", "bandwidth", "l2_cache"};
  CHECK(closest("bandwith", keys) == "bandwidth");
  CHECK(closest("zzzzzz", keys).empty());
}

TEST_CASE("excerpt and printable_message never echo a huge or raw value", "[util]") {
  using amdahl::excerpt;
  using amdahl::kExcerptChars;
  using amdahl::kMessageLineChars;
  using amdahl::printable_message;
  CHECK(excerpt("abc") == "abc");
  CHECK(excerpt("a\x1b[31mb") == "a\\x1b[31mb");
  CHECK(excerpt(std::string(100, 'x')) == std::string(kExcerptChars, 'x') + "... (100 bytes)");
  // Newlines and tabs keep their place; every other control byte is escaped.
  CHECK(printable_message("line one\n\tline two") == "line one\n\tline two");
  CHECK(printable_message("bad '\x1b]0;title\x07'") == "bad '\\x1b]0;title\\x07'");
  CHECK(printable_message("del \x7f") == "del \\x7f");
  // A line longer than the limit is cut with its length; the next line starts afresh.
  const std::string long_line(kMessageLineChars + 500, 'v');
  CHECK(printable_message("error: " + long_line + "\nnext") ==
        "error: " + std::string(kMessageLineChars - 7, 'v') + "... (" +
            std::to_string(kMessageLineChars + 507) + " bytes)\nnext");
  CHECK(printable_message(std::string(kMessageLineChars, 'w')) ==
        std::string(kMessageLineChars, 'w'));
}

TEST_CASE("double_quoted escapes quotes and backslashes and nothing else", "[util]") {
  CHECK(double_quoted("") == "\"\"");
  CHECK(double_quoted("DeepBench 1080Ti: 11 GB/s") == "\"DeepBench 1080Ti: 11 GB/s\"");
  CHECK(double_quoted(R"(a "b" \c)") == R"("a \"b\" \\c")");
}
