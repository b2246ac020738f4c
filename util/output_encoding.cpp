#include "util/output_encoding.h"

#include <fmt/format.h>

#include <algorithm>

namespace amdahl {

namespace {

// The code point of the well-formed UTF-8 sequence at text[at] and its length in bytes (Unicode
// 15, table 3-7: no overlong form, no surrogate, nothing past U+10FFFF); length 0 when the
// bytes there are not one.
struct Decoded {
  char32_t code_point = 0;
  std::size_t length = 0;
};

Decoded decode_utf8(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) {
    return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0u;
  };
  const unsigned b0 = byte(0);
  if (b0 < 0x80) return {b0, 1};
  std::size_t length = 0;
  unsigned low = 0x80, high = 0xbf;  // the range of the second byte
  char32_t cp = 0;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    length = 2;
    cp = b0 & 0x1f;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    length = 3;
    cp = b0 & 0x0f;
    if (b0 == 0xe0) low = 0xa0;
    if (b0 == 0xed) high = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    length = 4;
    cp = b0 & 0x07;
    if (b0 == 0xf0) low = 0x90;
    if (b0 == 0xf4) high = 0x8f;
  } else {
    return {};
  }
  for (std::size_t i = 1; i < length; ++i) {
    const unsigned b = byte(i);
    if (b < (i == 1 ? low : 0x80) || b > (i == 1 ? high : 0xbf)) return {};
    cp = (cp << 6) | (b & 0x3f);
  }
  return {cp, length};
}

bool shown_as_itself(char32_t cp, Lines lines) {
  if (cp == '\n' || cp == '\t') return lines == Lines::kKept;
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return false;
  return !(cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069));
}

// `text` with each character in `special` preceded by a backslash.
std::string with_backslashes(std::string_view text, std::string_view special) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (special.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text, Lines lines) {
  if (std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; }))
    return std::string(text);  // the common case, printable ASCII
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const Decoded d = decode_utf8(text, at);
    const std::size_t length = d.length ? d.length : 1;
    if (d.length && shown_as_itself(d.code_point, lines))
      out.append(text.substr(at, length));
    else
      for (std::size_t i = 0; i < length; ++i)
        out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[at + i]));
    at += length;
  }
  return out;
}

std::string gnuplot_string(std::string_view text) {
  std::string out = "'";
  for (const char c : printable(text)) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string dot_string(std::string_view text) {
  return '"' + with_backslashes(printable(text), "\"\\") + '"';
}

std::string html_text(std::string_view text) {
  std::string out;
  for (const char c : printable(text)) {
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
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string markdown_text(std::string_view text) {
  return with_backslashes(printable(text), "\\`*_[]<>&|~#");
}

std::string markdown_code(std::string_view text) {
  const std::string shown = printable(text);
  std::size_t longest = 0;
  for (std::size_t at = shown.find('`'); at != std::string::npos;) {
    const std::size_t end = std::min(shown.find_first_not_of('`', at), shown.size());
    longest = std::max(longest, end - at);
    at = shown.find('`', end);
  }
  const std::string fence(longest + 1, '`');
  // A space each side keeps a backtick at either end from joining the fence; CommonMark strips
  // one space each side when both are there.
  const bool pad = !shown.empty() && (shown.front() == '`' || shown.back() == '`');
  return fence + (pad ? " " : "") + shown + (pad ? " " : "") + fence;
}

std::string csv_field(std::string_view text) {
  std::string shown = printable(text);
  if (shown.find_first_of(",\"") == std::string::npos) return shown;
  std::string out = "\"";
  for (const char c : shown) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace amdahl
