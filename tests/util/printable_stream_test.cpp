// util/printable_stream.h: the terminal's backstop passes text through printable(text,
// Lines::kKept), whole UTF-8 sequences across its buffer's edge, and restores the stream.

#include "util/printable_stream.h"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>

TEST_CASE("printable stream: escapes reach the target as text, lines and UTF-8 kept",
          "[util][encoding]") {
  std::stringbuf text;
  std::ostream target(&text);
  {
    const amdahl::PrintableStream guard(target);
    CHECK(target.rdbuf() != &text);
    target << "alexnet\x1b[2J on \u00b5\x9b\n\tnext" << std::flush;
    target << "\u2013";
  }
  CHECK(target.rdbuf() == &text);
  CHECK(text.str() == "alexnet\\x1b[2J on \u00b5\\x9b\n\tnext\u2013");
}

TEST_CASE("printable stream: a UTF-8 sequence split by a full buffer is kept whole",
          "[util][encoding]") {
  std::ostringstream target;
  std::string text;
  for (int i = 0; i < 10000; ++i) text += i % 7 ? "\u00e9" : "a\u2013";  // 2- and 3-byte runs
  {
    const amdahl::PrintableStream guard(target);
    for (const char c : text) target.put(c);  // byte by byte: every edge is crossed
  }
  CHECK(target.str() == text);
}

TEST_CASE("printable stream: a target that fails (a full disk) fails the stream",
          "[util][encoding]") {
  struct Full : std::streambuf {
    int_type overflow(int_type) override { return traits_type::eof(); }
    std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
  } full;
  std::ostream out(&full);
  const amdahl::PrintableStream guard(out);
  out << "x" << std::flush;
  CHECK(out.bad());  // main's check of std::cout after its last flush
}
