#pragma once
// "Did you mean" suggestions and lists of valid choices for error messages.

#include <string>
#include <string_view>
#include <vector>

namespace amdahl {

// Levenshtein distance between two strings (case-sensitive).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest choice to `word`, or empty when none is close (distance > max(2, len/3)).
std::string closest(std::string_view word, const std::vector<std::string>& choices);

// "did you mean 'x'? valid: a, b, c" — or just "valid: a, b, c" when nothing is close.
std::string suggestion(std::string_view word, const std::vector<std::string>& choices);

// `text` as a YAML double-quoted scalar (the files calibrate writes): each '"' and '\\'
// escaped with a backslash, each control byte as \xNN.
std::string double_quoted(std::string_view text);

// "a, b, c"
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

// A value quoted back in an error: at most kExcerptChars characters (then "..." and the full
// length), control and non-ASCII bytes escaped as \xNN, so that a huge or binary value (a
// 100 MB string, a file's contents, terminal escapes) is never echoed whole or raw.
inline constexpr std::size_t kExcerptChars = 60;
std::string excerpt(std::string_view text, std::size_t limit = kExcerptChars);

// An error or warning as the tool prints it, whatever its parts quote: printable(message,
// Lines::kKept) (util/output_encoding.h: no terminal escape reaches the terminal raw), and each
// line cut after kMessageLineChars (then "..." and its full length), so that a value quoted
// whole by some message never floods the terminal. The backstop behind `excerpt`.
inline constexpr std::size_t kMessageLineChars = 2000;
std::string printable_message(std::string_view message);

}  // namespace amdahl
