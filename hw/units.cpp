#include "hw/units.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::hw {
namespace {

struct Prefix {
  std::string_view symbol;
  double factor;
};

// Longest symbols first so "Gi" wins over "G".
constexpr std::array kPrefixes{
    Prefix{"Ki", 1024.0},
    Prefix{"Mi", 1048576.0},
    Prefix{"Gi", 1073741824.0},
    Prefix{"Ti", 1099511627776.0},
    Prefix{"Pi", 1125899906842624.0},
    Prefix{"k", 1e3},
    Prefix{"K", 1e3},
    Prefix{"M", 1e6},
    Prefix{"G", 1e9},
    Prefix{"T", 1e12},
    Prefix{"P", 1e15},
    Prefix{"m", 1e-3},
    Prefix{"u", 1e-6},
    Prefix{"µ", 1e-6},
    Prefix{"n", 1e-9},
    Prefix{"p", 1e-12},
};

struct BaseUnit {
  std::string_view symbol;
  Dimension dimension;
};

constexpr std::array kBaseUnits{
    BaseUnit{"B/s", Dimension::kBandwidth},  BaseUnit{"FLOP/s", Dimension::kFlopRate},
    BaseUnit{"FLOPS", Dimension::kFlopRate}, BaseUnit{"FLOP", Dimension::kFlops},
    BaseUnit{"B", Dimension::kBytes},        BaseUnit{"s", Dimension::kTime},
    BaseUnit{"Hz", Dimension::kFrequency},
};

std::optional<Quantity> parse_unit(std::string_view unit) {
  for (const auto& base : kBaseUnits) {
    if (unit.size() < base.symbol.size()) continue;
    if (unit.substr(unit.size() - base.symbol.size()) != base.symbol) continue;
    const std::string_view prefix = unit.substr(0, unit.size() - base.symbol.size());
    if (prefix.empty()) return Quantity{1.0, base.dimension};
    for (const auto& p : kPrefixes) {
      if (p.symbol == prefix) {
        // Binary prefixes only make sense for bytes; sub-unit prefixes only for time.
        const bool binary = prefix.size() == 2 && prefix[1] == 'i';
        const bool sub_unit = p.factor < 1.0;
        if (binary && base.dimension != Dimension::kBytes &&
            base.dimension != Dimension::kBandwidth)
          return std::nullopt;
        if (sub_unit && base.dimension != Dimension::kTime) return std::nullopt;
        return Quantity{p.factor, base.dimension};
      }
    }
  }
  return std::nullopt;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view dimension_name(Dimension d) {
  switch (d) {
    case Dimension::kDimensionless:
      return "a plain number";
    case Dimension::kBytes:
      return "bytes";
    case Dimension::kBandwidth:
      return "bytes per second";
    case Dimension::kFlops:
      return "FLOP";
    case Dimension::kFlopRate:
      return "FLOP per second";
    case Dimension::kTime:
      return "a time";
    case Dimension::kFrequency:
      return "a frequency";
  }
  return "?";
}

std::string_view dimension_example(Dimension d) {
  switch (d) {
    case Dimension::kDimensionless:
      return "0.8";
    case Dimension::kBytes:
      return "16 GiB";
    case Dimension::kBandwidth:
      return "732 GB/s";
    case Dimension::kFlops:
      return "2 GFLOP";
    case Dimension::kFlopRate:
      return "10.6 TFLOP/s";
    case Dimension::kTime:
      return "5 us";
    case Dimension::kFrequency:
      return "1.48 GHz";
  }
  return "?";
}

DimensionRange dimension_range(Dimension d) {
  switch (d) {
    case Dimension::kDimensionless:
      return {-1e300, 1e300};
    case Dimension::kBytes:
      return {0, 0x1p60};  // up to 1 EiB
    case Dimension::kBandwidth:
      return {1e3, 1e16};  // 1 kB/s .. 10 PB/s
    case Dimension::kFlops:
      return {0, 1e30};
    case Dimension::kFlopRate:
      return {1e3, 1e21};  // 1 kFLOP/s .. 1 ZFLOP/s
    case Dimension::kTime:
      return {0, 1e4};  // up to 10,000 s
    case Dimension::kFrequency:
      return {1e3, 1e12};  // 1 kHz .. 1 THz
  }
  return {0, 0};
}

PlausibleRange measured_range(Dimension d, bool zero_allowed) {
  if (d == Dimension::kDimensionless)
    throw InternalError("measured_range: a measurement has a dimension");
  const DimensionRange r = dimension_range(d);
  double min = r.min;
  if (d == Dimension::kTime) min = 1e-9;
  if (d == Dimension::kBytes || d == Dimension::kFlops) min = 1;
  return {min, r.max, zero_allowed,
          fmt::format("{}{} from {} to {}", zero_allowed ? "0 or " : "", dimension_name(d),
                      format_quantity(min, d), format_quantity(r.max, d))};
}

Quantity parse_quantity(std::string_view text) {
  const std::string_view t = trim(text);
  const std::string owned(t);
  char* end = nullptr;
  const double number = std::strtod(owned.c_str(), &end);
  if (end == owned.c_str() || !std::isfinite(number))
    throw UserError(
        fmt::format("expected a number with a unit, such as '732 GB/s' (got '{}')", excerpt(t)));
  const std::string_view unit = trim(std::string_view(end));
  if (unit.empty()) return Quantity{number, Dimension::kDimensionless};
  const auto scale = parse_unit(unit);
  if (!scale) throw UserError(fmt::format("unknown unit '{}' in '{}'", unit, t));
  return Quantity{number * scale->value, scale->dimension};
}

double parse_quantity_as(std::string_view text, Dimension expected) {
  const Quantity q = parse_quantity(text);
  if (q.dimension != expected) {
    throw UserError(fmt::format("expected {} such as '{}', got {} '{}'", dimension_name(expected),
                                dimension_example(expected), dimension_name(q.dimension),
                                trim(text)));
  }
  return q.value;
}

std::string format_quantity(double value, Dimension d) {
  std::string_view unit;
  switch (d) {
    case Dimension::kDimensionless:
      return fmt::format("{:.4g}", value);
    case Dimension::kBytes:
      unit = "B";
      break;
    case Dimension::kBandwidth:
      unit = "B/s";
      break;
    case Dimension::kFlops:
      unit = "FLOP";
      break;
    case Dimension::kFlopRate:
      unit = "FLOP/s";
      break;
    case Dimension::kTime:
      unit = "s";
      break;
    case Dimension::kFrequency:
      unit = "Hz";
      break;
  }
  if (d == Dimension::kTime) {
    const double a = std::fabs(value);
    if (a >= 1 || a == 0) return fmt::format("{:.4g} s", value);
    if (a >= 1e-3) return fmt::format("{:.4g} ms", value * 1e3);
    if (a >= 1e-6) return fmt::format("{:.4g} us", value * 1e6);
    return fmt::format("{:.4g} ns", value * 1e9);
  }
  constexpr std::array<std::pair<double, std::string_view>, 5> kUp{
      {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (const auto& [factor, symbol] : kUp) {
    if (std::fabs(value) >= factor) return fmt::format("{:.4g} {}{}", value / factor, symbol, unit);
  }
  return fmt::format("{:.4g} {}", value, unit);
}

}  // namespace amdahl::hw
