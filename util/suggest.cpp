#include "util/suggest.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "util/output_encoding.h"

namespace amdahl {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string closest(std::string_view word, const std::vector<std::string>& choices) {
  // A choice that extends the word ("dispatch" -> "dispatch_per_op") is the likeliest meaning.
  if (word.size() >= 3)
    for (const auto& c : choices)
      if (c.size() > word.size() && std::string_view(c).substr(0, word.size()) == word) return c;
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : choices) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string double_quoted(std::string_view text) {
  std::string q = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      q += fmt::format("\\x{:02x}", byte);
      continue;
    }
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + '"';
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  return fmt::format("{}", fmt::join(items, sep));
}

std::string suggestion(std::string_view word, const std::vector<std::string>& choices) {
  const std::string near = closest(word, choices);
  if (near.empty()) return fmt::format("valid: {}", join(choices));
  return fmt::format("did you mean '{}'? valid: {}", near, join(choices));
}

namespace {

// Appends at most `limit` bytes of `text`, each byte `shown_raw` rejects written as \xNN, then,
// when cut, "... (N bytes)".
template <class ShownRaw>
void append_quoted(std::string& out, std::string_view text, std::size_t limit, ShownRaw shown_raw) {
  const std::size_t shown = std::min(text.size(), limit);
  for (const char ch : text.substr(0, shown)) {
    const auto c = static_cast<unsigned char>(ch);
    if (shown_raw(c))
      out += ch;
    else
      out += fmt::format("\\x{:02x}", c);
  }
  if (shown < text.size()) out += fmt::format("... ({} bytes)", text.size());
}

}  // namespace

std::string excerpt(std::string_view text, std::size_t limit) {
  std::string out;
  append_quoted(out, text, limit, [](unsigned char c) { return c >= 0x20 && c < 0x7f; });
  return out;
}

std::string printable_message(std::string_view message) {
  std::string out;
  for (std::size_t start = 0;;) {
    const std::size_t newline = message.find('\n', start);
    const std::string_view line = message.substr(start, newline - start);
    out += printable(line.substr(0, kMessageLineChars), Lines::kKept);
    if (line.size() > kMessageLineChars) out += fmt::format("... ({} bytes)", line.size());
    if (newline == std::string_view::npos) break;
    out += '\n';
    start = newline + 1;
  }
  return out;
}

}  // namespace amdahl
