#include "hw/quantity_expr.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "hw/units.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::hw {
namespace {

// Parentheses and unary minus nest at most this deep.
constexpr int kMaxDepth = 100;

class Parser {
 public:
  Parser(const std::string& text, const std::vector<std::string>& names, std::vector<char>& ops,
         std::vector<double>& numbers, std::vector<std::size_t>& indices)
      : s_(text), names_(names), ops_(ops), numbers_(numbers), indices_(indices) {}

  void parse() {
    expr(0);
    skip();
    if (i_ != s_.size()) fail("unexpected text");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw UserError(fmt::format("--cost '{}': {} at character {}", excerpt(s_), what, i_ + 1));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void emit(char op, double number = 0, std::size_t index = 0) {
    ops_.push_back(op);
    numbers_.push_back(number);
    indices_.push_back(index);
  }
  void expr(int depth) {
    term(depth);
    for (skip(); i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-'); skip()) {
      const char op = s_[i_++];
      term(depth);
      emit(op);
    }
  }
  void term(int depth) {
    unary(depth);
    for (skip(); i_ < s_.size() && (s_[i_] == '*' || s_[i_] == '/'); skip()) {
      const char op = s_[i_++];
      unary(depth);
      emit(op);
    }
  }
  void unary(int depth) {
    if (depth > kMaxDepth) fail(fmt::format("nesting deeper than {}", kMaxDepth));
    skip();
    if (i_ < s_.size() && s_[i_] == '-') {
      ++i_;
      unary(depth + 1);
      emit('~');
      return;
    }
    primary(depth);
    skip();
    if (i_ < s_.size() && s_[i_] == '^') {
      ++i_;
      unary(depth + 1);
      emit('^');
    }
  }
  static bool unit_char(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '/' ||
           static_cast<unsigned char>(c) >= 0x80;  // µ
  }
  // A quantity: the number, then its unit (adjacent, or after one space when it is a unit),
  // the longest run of unit characters that is one ("1TB/s/x": "TB/s").
  void quantity() {
    const char* begin = s_.c_str() + i_;
    char* end = nullptr;
    const double number = std::strtod(begin, &end);
    if (end == begin || !std::isfinite(number)) fail("expected a number");
    i_ += static_cast<std::size_t>(end - begin);
    std::size_t at = i_;
    if (at < s_.size() && s_[at] == ' ') ++at;
    std::size_t run = at;
    while (run < s_.size() && unit_char(s_[run])) ++run;
    for (std::size_t cut = run; cut > at; --cut) {
      if (cut != run && s_[cut] != '/') continue;
      try {
        const Quantity q = parse_quantity(fmt::format("{} {}", number, s_.substr(at, cut - at)));
        emit('n', q.value);
        i_ = cut;
        return;
      } catch (const UserError&) {
      }
    }
    if (at == i_ && run > at)
      fail(fmt::format("unknown unit '{}'", excerpt(s_.substr(at, run - at))));
    emit('n', number);
  }
  void primary(int depth) {
    skip();
    if (i_ >= s_.size()) fail("expected a number, a name or '('");
    const char c = s_[i_];
    if (c == '(') {
      ++i_;
      expr(depth + 1);
      skip();
      if (i_ >= s_.size() || s_[i_] != ')') fail("expected ')'");
      ++i_;
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return quantity();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
        ++i_;
      const std::string name = s_.substr(start, i_ - start);
      for (std::size_t k = 0; k < names_.size(); ++k)
        if (names_[k] == name) return emit('v', 0, k);
      throw UserError(fmt::format("--cost: unknown parameter '{}'; {}", excerpt(name),
                                  suggestion(name, names_)));
    }
    fail(fmt::format("unexpected '{}'", excerpt(std::string(1, c))));
  }

  const std::string& s_;
  const std::vector<std::string>& names_;
  std::vector<char>& ops_;
  std::vector<double>& numbers_;
  std::vector<std::size_t>& indices_;
  std::size_t i_ = 0;
};

}  // namespace

QuantityExpression::QuantityExpression(std::string text, const std::vector<std::string>& names)
    : text_(std::move(text)) {
  std::vector<char> ops;
  std::vector<double> numbers;
  std::vector<std::size_t> indices;
  Parser(text_, names, ops, numbers, indices).parse();
  for (std::size_t k = 0; k < ops.size(); ++k) program_.push_back({ops[k], numbers[k], indices[k]});
}

double QuantityExpression::evaluate(const std::vector<double>& values) const {
  std::vector<double> stack;
  for (const Step& s : program_) {
    switch (s.op) {
      case 'n':
        stack.push_back(s.number);
        continue;
      case 'v':
        stack.push_back(values.at(s.index));
        continue;
      case '~':
        stack.back() = -stack.back();
        continue;
      default:
        break;
    }
    const double b = stack.back();
    stack.pop_back();
    double& a = stack.back();
    switch (s.op) {
      case '+':
        a += b;
        break;
      case '-':
        a -= b;
        break;
      case '*':
        a *= b;
        break;
      case '/':
        a /= b;
        break;
      case '^':
        a = std::pow(a, b);
        break;
      default:
        throw InternalError("QuantityExpression: unknown operator");
    }
  }
  return stack.back();
}

}  // namespace amdahl::hw
