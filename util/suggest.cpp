#include "util/suggest.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

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

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  return fmt::format("{}", fmt::join(items, sep));
}

std::string suggestion(std::string_view word, const std::vector<std::string>& choices) {
  const std::string near = closest(word, choices);
  if (near.empty()) return fmt::format("valid: {}", join(choices));
  return fmt::format("did you mean '{}'? valid: {}", near, join(choices));
}

std::string excerpt(std::string_view text, std::size_t limit) {
  std::string out;
  const std::size_t shown = std::min(text.size(), limit);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f)
      out += static_cast<char>(c);
    else
      out += fmt::format("\\x{:02x}", c);
  }
  if (shown < text.size()) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

std::string printable_message(std::string_view message) {
  std::string out;
  std::size_t line_chars = 0, line_bytes = 0;
  const auto end_line = [&] {
    if (line_bytes > line_chars) out += fmt::format("... ({} bytes)", line_bytes);
    line_chars = line_bytes = 0;
  };
  for (const char ch : message) {
    if (ch == '\n') {
      end_line();
      out += ch;
      continue;
    }
    ++line_bytes;
    if (line_chars == kMessageLineChars) continue;
    ++line_chars;
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += ch;
  }
  end_line();
  return out;
}

}  // namespace amdahl
