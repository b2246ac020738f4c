#pragma once
// Exact arithmetic on 64-bit sizes. A CheckedInt adds, subtracts, multiplies and divides like
// std::int64_t, except that where the exact result lies outside the int64 range it is marked
// overflowed instead: plain int64 arithmetic would be undefined behaviour there, and in
// practice a wrapped, wrong number. An overflowed operand makes every later result overflowed,
// and the first step that overflowed is kept so that the caller can say which one it was:
//
//   const CheckedInt m = CheckedInt(n) * h * w;  // the first factor makes the rest checked
//   if (!m.ok()) throw UserError(fmt::format("{} overflows 2^63", m.overflow()));
//
// (`n * h * CheckedInt(w)` would multiply n * h unchecked: the CheckedInt comes first.)
// Size expressions (graphs/expr.cpp) and the op rules (graphs/ops/common.h checked_size) use it.

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <string>

namespace amdahl {

class CheckedInt {
 public:
  // Implicit, so that sizes and constants mix into a formula after its first CheckedInt.
  constexpr CheckedInt(std::int64_t v) : value_(v) {}  // NOLINT(google-explicit-constructor)

  constexpr bool ok() const { return op_ == 0; }
  // The exact value; meaningful only when ok().
  constexpr std::int64_t value() const { return value_; }
  // The first step that overflowed, "a * b"; empty when ok().
  std::string overflow() const {
    return ok() ? std::string() : fmt::format("{} {} {}", lhs_, op_, rhs_);
  }

  friend constexpr CheckedInt operator+(const CheckedInt& a, const CheckedInt& b) {
    std::int64_t r = 0;
    const bool overflowed = __builtin_add_overflow(a.value_, b.value_, &r);
    return a.then(b, '+', overflowed, r);
  }
  friend constexpr CheckedInt operator-(const CheckedInt& a, const CheckedInt& b) {
    std::int64_t r = 0;
    const bool overflowed = __builtin_sub_overflow(a.value_, b.value_, &r);
    return a.then(b, '-', overflowed, r);
  }
  friend constexpr CheckedInt operator*(const CheckedInt& a, const CheckedInt& b) {
    std::int64_t r = 0;
    const bool overflowed = __builtin_mul_overflow(a.value_, b.value_, &r);
    return a.then(b, '*', overflowed, r);
  }
  CheckedInt& operator+=(const CheckedInt& b) { return *this = *this + b; }
  CheckedInt& operator-=(const CheckedInt& b) { return *this = *this - b; }
  CheckedInt& operator*=(const CheckedInt& b) { return *this = *this * b; }

  // Truncates toward zero, as int64 does. A zero divisor has no result: it is marked like an
  // overflow so that the division stays defined, but callers are to exclude it (and say so).
  friend constexpr CheckedInt operator/(const CheckedInt& a, const CheckedInt& b) {
    const bool overflowed =
        b.value_ == 0 || (a.value_ == std::numeric_limits<std::int64_t>::min() && b.value_ == -1);
    return a.then(b, '/', overflowed, overflowed ? 0 : a.value_ / b.value_);
  }

 private:
  // The result `r` of *this `op` b, or the first overflow among the operands and this step.
  constexpr CheckedInt then(const CheckedInt& b, char op, bool overflowed, std::int64_t r) const {
    if (!ok()) return *this;
    if (!b.ok()) return b;
    CheckedInt out(r);
    if (overflowed) {
      out.op_ = op;
      out.lhs_ = value_;
      out.rhs_ = b.value_;
    }
    return out;
  }

  std::int64_t value_;
  char op_ = 0;  // the operator of the first overflowed step; 0: none
  std::int64_t lhs_ = 0, rhs_ = 0;
};

}  // namespace amdahl
