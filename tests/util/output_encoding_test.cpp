// util/output_encoding.h: each sink's encoder of text from an input, on the hostile texts of
// docs/reliability.md (terminal escapes, newlines that start a command, quotes, markup).

#include "util/output_encoding.h"

#include <catch2/catch.hpp>
#include <string>

using amdahl::Lines;
using amdahl::printable;

TEST_CASE("printable: controls, C1, bidi overrides and invalid UTF-8 escaped as hex, the rest kept",
          "[util][encoding]") {
  CHECK(printable("resnet-50 (fp16), 8 GB") == "resnet-50 (fp16), 8 GB");
  // ESC [2J clears the screen; ESC ]0; retitles the window; BEL; DEL.
  CHECK(printable("a\x1b[2Jb") == "a\\x1b[2Jb");
  CHECK(printable("\x1b]0;x\x07") == "\\x1b]0;x\\x07");
  CHECK(printable("x\x7fy") == "x\\x7fy");
  CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
  // Newline and tab: escaped in a name, kept in free text.
  CHECK(printable("a\nb\tc\rd") == "a\\x0ab\\x09c\\x0dd");
  CHECK(printable("a\nb\tc\rd", Lines::kKept) == "a\nb\tc\\x0dd");
  // Valid UTF-8 is kept: Tesla's en dash, micro, a CJK name, an emoji (4 bytes).
  CHECK(printable("P100 \u2013 \u00b5s \u6a21\u578b \U0001F680") ==
        "P100 \u2013 \u00b5s \u6a21\u578b \U0001F680");
  // U+009B (CSI in one code point) and U+0085 (next line): C1 controls.
  CHECK(printable("a\u009b2Jb\u0085") == "a\\xc2\\x9b2Jb\\xc2\\x85");
  // Right-to-left override, isolate, line separator (Trojan Source).
  CHECK(printable("ab\u202edc\u2066\u2028") == "ab\\xe2\\x80\\xaedc\\xe2\\x81\\xa6\\xe2\\x80\\xa8");
  // Invalid UTF-8: a lone continuation, a truncated sequence, an overlong '/', a surrogate,
  // past U+10FFFF; each byte shown.
  CHECK(printable("\x80x") == "\\x80x");
  CHECK(printable("\xe2\x82") == "\\xe2\\x82");
  CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");
  CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");
  CHECK(printable("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");
  // A valid sequence after an invalid byte is kept.
  CHECK(printable("\xff\u00e9") == "\\xff\u00e9");
}

TEST_CASE("gnuplot_string: a single-quoted literal, no newline, quotes doubled",
          "[util][encoding]") {
  using amdahl::gnuplot_string;
  CHECK(gnuplot_string("alexnet") == "'alexnet'");
  CHECK(gnuplot_string("it's") == "'it''s'");
  // Backquotes, macros and backslashes stay text: gnuplot substitutes none in single quotes.
  CHECK(gnuplot_string("`touch PWNED` @m \\n \"x\"") == "'`touch PWNED` @m \\n \"x\"'");
  // A newline would end the command and start the next: system("...").
  CHECK(gnuplot_string("a'\nsystem(\"touch PWNED\")\n'") ==
        "'a''\\x0asystem(\"touch PWNED\")\\x0a'''");
}

TEST_CASE("dot_string: a quoted ID, quotes and backslashes escaped, no raw control",
          "[util][encoding]") {
  using amdahl::dot_string;
  CHECK(dot_string("conv1") == "\"conv1\"");
  CHECK(dot_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  // A trailing backslash cannot escape the closing quote; \n is not read as a label newline.
  CHECK(dot_string("x\\") == "\"x\\\\\"");
  CHECK(dot_string("\x1b[2J\n}") == "\"\\\\x1b[2J\\\\x0a}\"");
}

TEST_CASE("html_text: the five characters of markup as entities", "[util][encoding]") {
  using amdahl::html_text;
  CHECK(html_text("<script>alert('x')</script> & \"y\"") ==
        "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;y&quot;");
  CHECK(html_text("a\x1b"
                  "b") == "a\\x1bb");
}

TEST_CASE("markdown_text and markdown_code: shown as written", "[util][encoding]") {
  using amdahl::markdown_code;
  using amdahl::markdown_text;
  CHECK(markdown_text("resnet-50 (v1.5)") == "resnet-50 (v1.5)");
  CHECK(markdown_text("a|b") == "a\\|b");
  CHECK(markdown_text("<img src=x onerror=alert(1)>") == "\\<img src=x onerror=alert(1)\\>");
  CHECK(markdown_text("[x](javascript:alert(1)) *y* _z_ `c` ~s~ &amp; #h") ==
        "\\[x\\](javascript:alert(1)) \\*y\\* \\_z\\_ \\`c\\` \\~s\\~ \\&amp; \\#h");
  CHECK(markdown_text("a\nb") == "a\\\\x0ab");
  CHECK(markdown_code("amdahl report --models x.yaml") == "`amdahl report --models x.yaml`");
  CHECK(markdown_code("a`b``c") == "```a`b``c```");
  CHECK(markdown_code("`x") == "`` `x ``");
  CHECK(markdown_code("<b>") == "`<b>`");  // literal inside a code span
}

TEST_CASE("csv_field: RFC 4180 quoting, no raw control byte", "[util][encoding]") {
  using amdahl::csv_field;
  CHECK(csv_field("alexnet") == "alexnet");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("a\r\nb") == "a\\x0d\\x0ab");
  CHECK(csv_field("a,\x1b") == "\"a,\\x1b\"");
}
