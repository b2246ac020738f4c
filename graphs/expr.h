#pragma once
// Integer size expressions in network files: "batch", "4*hidden", "(image-1)/2+1".
// Operators + - * / % ( ), integer division truncating toward zero, names bound by the
// caller. Errors are UserError naming the expression and the problem.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace amdahl::graphs {

using Bindings = std::map<std::string, std::int64_t>;

// Parentheses and unary minus nest at most this deep (no real size expression comes close).
inline constexpr int kMaxExpressionDepth = 100;

// Evaluates `text`. Throws UserError for a syntax error, division by zero, a value beyond
// 2^63, nesting deeper than kMaxExpressionDepth or an unbound name (the message names it and
// lists the bound names).
std::int64_t evaluate(std::string_view text, const Bindings& bindings);

// The names `text` refers to (for checking a network's sizes before binding).
std::vector<std::string> referenced_names(std::string_view text);

// One size binding "NAME=VALUE" as `--set` and a measured run's `sizes` give it: NAME not
// empty, VALUE a whole number >= 0 (0 turns a variant switch off; a dim that evaluates to 0 is
// rejected when the network binds). Throws UserError saying what is wrong, for the caller to
// place: "expects NAME=VALUE (got 'x')", "NAME: expected an integer (got 'v')" or "NAME: the
// value must not be negative (got -1)".
std::pair<std::string, std::int64_t> parse_size_binding(std::string_view text);

}  // namespace amdahl::graphs
