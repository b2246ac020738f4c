// Fuzz target: the output encoders (util/output_encoding.h) on any bytes, each held to what its
// sink needs, so that no name read from an input can become a command, markup or a terminal
// escape. A broken rule aborts (libFuzzer and the replay driver report it as a crash).

#include "util/output_encoding.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void require(bool ok, const char* rule, std::string_view text) {
  if (ok) return;
  std::fprintf(stderr, "output_encoding: %s (for %zu input bytes)\n", rule, text.size());
  std::abort();
}

// No C0 control or DEL; with `lines` newline and tab may stay.
bool no_controls(std::string_view s, bool lines) {
  for (const unsigned char c : s)
    if ((c < 0x20 || c == 0x7f) && !(lines && (c == '\n' || c == '\t'))) return false;
  return true;
}

// Valid UTF-8 with no C1 control (U+0080..U+009F), no bidirectional control or line or
// paragraph separator (U+061C, U+200E, U+200F, U+2028..U+202E, U+2066..U+2069).
bool valid_shown_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    char32_t cp = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
    for (std::size_t k = 1; k < n; ++k) {
      const unsigned char t = static_cast<unsigned char>(s[i + k]);
      if ((t >> 6) != 2) return false;
      cp = (cp << 6) | (t & 0x3f);
    }
    const bool overlong =
        (n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
    if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
        (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
      return false;
    i += n;
  }
  return true;
}

bool shown(std::string_view s, bool lines = false) {
  return no_controls(s, lines) && valid_shown_utf8(s);
}

// Inside `open`..`close` delimiters, `quote` appears only doubled (gnuplot '' and CSV "").
bool doubled_inside(std::string_view s, char open, char quote) {
  if (s.size() < 2 || s.front() != open || s.back() != open) return false;
  const std::string_view body = s.substr(1, s.size() - 2);
  for (std::size_t i = 0; i < body.size(); ++i)
    if (body[i] == quote) {
      if (i + 1 >= body.size() || body[i + 1] != quote) return false;
      ++i;
    }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace amdahl;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  require(shown(printable(text)), "printable left a control or invalid byte", text);
  require(shown(printable(text, Lines::kKept), true), "printable (lines kept)", text);

  const std::string gp = gnuplot_string(text);
  require(shown(gp) && doubled_inside(gp, '\'', '\''),
          "gnuplot_string is not one single-quoted literal of printable text", text);

  const std::string dot = dot_string(text);
  bool dot_ok = shown(dot) && dot.size() >= 2 && dot.front() == '"' && dot.back() == '"';
  for (std::size_t i = 1; dot_ok && i + 1 < dot.size(); ++i) {
    if (dot[i] == '\\') {
      dot_ok = i + 2 < dot.size() && (dot[i + 1] == '"' || dot[i + 1] == '\\');
      ++i;
    } else {
      dot_ok = dot[i] != '"';
    }
  }
  require(dot_ok, "dot_string is not one quoted ID with only \\\" and \\\\ escaped", text);

  const std::string html = html_text(text);
  require(shown(html) && html.find_first_of("<>\"'") == std::string::npos,
          "html_text left markup or a quote", text);

  const std::string md = markdown_text(text);
  bool md_ok = shown(md);
  for (std::size_t i = 0; md_ok && i < md.size(); ++i) {
    if (md[i] == '\\') {
      ++i;  // an escaped character
    } else {
      md_ok = std::string_view("`*_[]<>&|~#").find(md[i]) == std::string_view::npos;
    }
  }
  require(md_ok, "markdown_text left a markup character unescaped", text);

  const std::string code = markdown_code(text);
  if (printable(text).empty()) return 0;  // "``": shown as two backticks, inert
  std::size_t fence = 0;
  while (fence < code.size() && code[fence] == '`') ++fence;
  require(shown(code) && fence > 0 && code.size() >= 2 * fence &&
              code.compare(code.size() - fence, fence, std::string(fence, '`')) == 0 &&
              code.substr(fence, code.size() - 2 * fence).find(std::string(fence, '`')) ==
                  std::string::npos,
          "markdown_code's fence appears inside it", text);

  const std::string csv = csv_field(text);
  const bool quoted = !csv.empty() && csv.front() == '"';
  require(shown(csv) && (quoted ? doubled_inside(csv, '"', '"')
                                : csv.find_first_of(",\"") == std::string::npos),
          "csv_field is not one RFC 4180 field", text);
  return 0;
}
