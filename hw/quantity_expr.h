#pragma once
// Arithmetic over named parameters and quantities, for a cost a user declares
// (amdahl explore --cost "0.5 * gpu0_peak_fp16 / 100TFLOP/s + bandwidth / 1TB/s"):
// numbers, quantities written with their unit ("100TFLOP/s", "1 TB/s": SI values), names,
// + - * / ^, unary minus and parentheses. Parsed once, evaluated per configuration.

#include <map>
#include <string>
#include <vector>

namespace amdahl::hw {

class QuantityExpression {
 public:
  // Throws UserError for a syntax error (the position), an unknown unit, or a name not in
  // `names` (did you mean, listing them).
  QuantityExpression(std::string text, const std::vector<std::string>& names);
  const std::string& text() const { return text_; }
  // `values` by the names' order given to the constructor.
  double evaluate(const std::vector<double>& values) const;

 private:
  struct Step {
    char op;  // 'n': push number; 'v': push values[index]; '~': negate; else a binary operator
    double number = 0;
    std::size_t index = 0;
  };
  std::string text_;
  std::vector<Step> program_;  // reverse Polish
};

}  // namespace amdahl::hw
