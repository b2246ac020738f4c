#pragma once
// Seconds (or shares) per slot of an enum-keyed breakdown: a prediction's time by op class, by
// phase and by binding limit, held in an array and read by enum. `Slots` says how many slots
// there are, which slot each key takes (`static int slot(Key)`, one overload per key type) and
// each slot's name (`static std::string_view name(int)`), the name outputs show it by.
//
// A slot is present when its value is positive: outputs list the present slots, in name order
// (by_name()), so a table, a CSV header or a JSON object reads the same whatever the enum order.

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

namespace amdahl {

template <typename Slots>
class Breakdown {
 public:
  static constexpr int kSlots = Slots::kSlots;

  template <typename Key>
  double& operator[](Key k) {
    return values_[static_cast<std::size_t>(Slots::slot(k))];
  }
  template <typename Key>
  double operator[](Key k) const {
    return values_[static_cast<std::size_t>(Slots::slot(k))];
  }
  double at_slot(int s) const { return values_[static_cast<std::size_t>(s)]; }
  double& at_slot(int s) { return values_[static_cast<std::size_t>(s)]; }
  static std::string_view name(int s) { return Slots::name(s); }

  // Every slot, in name order.
  static const std::array<int, kSlots>& by_name() {
    static const std::array<int, kSlots> order = [] {
      std::array<int, kSlots> o{};
      for (int s = 0; s < kSlots; ++s) o[static_cast<std::size_t>(s)] = s;
      std::sort(o.begin(), o.end(), [](int a, int b) { return Slots::name(a) < Slots::name(b); });
      return o;
    }();
    return order;
  }

  bool present(int s) const { return at_slot(s) > 0; }
  // The present slots' names and values, in name order.
  std::vector<std::pair<std::string_view, double>> named() const {
    std::vector<std::pair<std::string_view, double>> out;
    for (int s : by_name())
      if (present(s)) out.emplace_back(name(s), at_slot(s));
    return out;
  }
  // The present slots' sum, added in name order.
  double total() const {
    double t = 0;
    for (int s : by_name())
      if (present(s)) t += at_slot(s);
    return t;
  }
  bool empty() const {
    return std::none_of(values_.begin(), values_.end(), [](double v) { return v > 0; });
  }
  // Every slot's share of `whole` (seconds to shares of a step); all zero when `whole` is not
  // positive.
  Breakdown shares_of(double whole) const {
    Breakdown b;
    for (int s = 0; s < kSlots; ++s) b.at_slot(s) = whole > 0 ? at_slot(s) / whole : 0;
    return b;
  }

 private:
  std::array<double, kSlots> values_{};
};

// The slots present in any of `parts`, in name order: the rows of a table that shows several
// breakdowns of the same kind side by side.
template <typename Slots>
std::vector<int> present_in_any(const std::vector<const Breakdown<Slots>*>& parts) {
  std::vector<int> out;
  for (int s : Breakdown<Slots>::by_name())
    if (std::any_of(parts.begin(), parts.end(), [s](const auto* b) { return b->present(s); }))
      out.push_back(s);
  return out;
}
template <typename Slots>
std::vector<int> present_in_any(std::initializer_list<const Breakdown<Slots>*> parts) {
  return present_in_any(std::vector<const Breakdown<Slots>*>(parts));
}

}  // namespace amdahl
