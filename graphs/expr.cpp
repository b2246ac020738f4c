#include "graphs/expr.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdint>

#include "util/checked_math.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::graphs {
namespace {

// Recursive-descent parser over: expr := term (('+'|'-') term)*; term := unary (('*'|'/'|'%')
// unary)*; unary := '-' unary | primary; primary := number | name | '(' expr ')'.
class Parser {
 public:
  Parser(std::string_view text, const Bindings* bindings, std::vector<std::string>* names)
      : text_(text), bindings_(bindings), names_(names) {}

  std::int64_t parse() {
    const std::int64_t v = expr();
    skip_space();
    if (pos_ != text_.size()) fail(fmt::format("unexpected '{}'", text_[pos_]));
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw UserError(fmt::format("in size expression '{}': {}", excerpt(text_), what));
  }
  // Every result is checked: a value beyond 2^63 is an error, never a wrapped number.
  std::int64_t checked(const CheckedInt& v) const {
    if (!v.ok()) fail("the value overflows 2^63 (sizes too large?)");
    return v.value();
  }
  // Parentheses and unary minus recurse: their nesting is bounded so that no expression can
  // exhaust the stack.
  struct Nested {
    explicit Nested(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxExpressionDepth)
        p_.fail(fmt::format("nested more than {} deep", kMaxExpressionDepth));
    }
    ~Nested() { --p_.depth_; }
    Parser& p_;
  };
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::int64_t expr() {
    std::int64_t v = term();
    for (;;) {
      if (accept('+'))
        v = checked(CheckedInt(v) + term());
      else if (accept('-'))
        v = checked(CheckedInt(v) - term());
      else
        return v;
    }
  }
  std::int64_t term() {
    std::int64_t v = unary();
    for (;;) {
      char op = 0;
      if (accept('*'))
        op = '*';
      else if (accept('/'))
        op = '/';
      else if (accept('%'))
        op = '%';
      else
        return v;
      const std::int64_t rhs = unary();
      if (op == '*') {
        v = checked(CheckedInt(v) * rhs);
      } else if (bindings_) {  // without bindings only names are collected
        if (rhs == 0) fail("division by zero");
        if (v == INT64_MIN && rhs == -1) fail("the value overflows 2^63 (sizes too large?)");
        v = op == '/' ? v / rhs : v % rhs;
      }
    }
  }
  std::int64_t unary() {
    if (accept('-')) {
      const Nested nested(*this);
      return checked(CheckedInt(0) - unary());
    }
    return primary();
  }
  std::int64_t primary() {
    skip_space();
    if (accept('(')) {
      const Nested nested(*this);
      const std::int64_t v = expr();
      if (!accept(')')) fail("missing ')'");
      return v;
    }
    if (pos_ >= text_.size()) fail("expected a number or a name");
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
        v = checked(CheckedInt(v) * 10 + (text_[pos_++] - '0'));
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      const std::string name(text_.substr(start, pos_ - start));
      if (names_) names_->push_back(name);
      if (!bindings_) return 1;
      const auto it = bindings_->find(name);
      if (it == bindings_->end()) {
        std::vector<std::string> bound;
        for (const auto& [k, v] : *bindings_) bound.push_back(k);
        fail(fmt::format("unbound size '{}' (bind it with --set {}=VALUE; {})", name, name,
                         suggestion(name, bound)));
      }
      return it->second;
    }
    fail(fmt::format("unexpected '{}'", c));
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  const Bindings* bindings_;
  std::vector<std::string>* names_;
};

}  // namespace

std::int64_t evaluate(std::string_view text, const Bindings& bindings) {
  return Parser(text, &bindings, nullptr).parse();
}

std::vector<std::string> referenced_names(std::string_view text) {
  std::vector<std::string> names;
  Parser(text, nullptr, &names).parse();
  return names;
}

std::pair<std::string, std::int64_t> parse_size_binding(std::string_view text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw UserError(fmt::format("expects NAME=VALUE (got '{}')", excerpt(text)));
  std::string name(text.substr(0, eq));
  const std::string_view value = text.substr(eq + 1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size())
    throw UserError(fmt::format("{}: expected an integer (got '{}')", name, excerpt(value)));
  if (v < 0) throw UserError(fmt::format("{}: the value must not be negative (got {})", name, v));
  return {std::move(name), v};
}

}  // namespace amdahl::graphs
