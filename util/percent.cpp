#include "util/percent.h"

#include <fmt/format.h>

#include <cmath>

#include "util/error.h"

namespace amdahl {

std::string format_percent(double fraction, bool sign) {
  const double p = 100 * fraction;
  if (!std::isfinite(p))
    throw InternalError(fmt::format("a percentage to print is not a number ({})", fraction));
  if (std::fabs(p) >= 1e6) return sign ? fmt::format("{:+.3g}%", p) : fmt::format("{:.3g}%", p);
  return sign ? fmt::format("{:+.1f}%", p) : fmt::format("{:.1f}%", p);
}

}  // namespace amdahl
