#include "calibrate/call_overhead.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "calibrate/error_stats.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::calibrate {
namespace {

double median(std::vector<double> v) { return percentile(std::move(v), 0.5); }

// Zero-size intercept of the least-squares line time = a + b bytes through `rows`.
double intercept(const std::vector<const Measurement*>& rows) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(rows.size());
  for (const Measurement* m : rows) {
    sx += m->bytes;
    sy += m->time_s;
    sxx += m->bytes * m->bytes;
    sxy += m->bytes * m->time_s;
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  return (sy - slope * sx) / n;
}

}  // namespace

bool timed_around_call(const Measurement& m) {
  const auto it = m.shape.find("timing");
  return it != m.shape.end() && it->second == "event";
}

CallOverhead CallOverheads::of(const Measurement& m) const {
  if (!timed_around_call(m)) return {};
  const auto it = by_bench.find(m.bench);
  return it == by_bench.end() ? CallOverhead{} : it->second;
}

CallOverheads estimate_call_overheads(const std::vector<Measurement>& training_rows,
                                      double launch_latency_s) {
  std::map<std::string, std::vector<const Measurement*>> benches;
  for (const auto& m : training_rows)
    if (timed_around_call(m) && m.op_class != "dispatch" && m.op_class != "launch")
      benches[m.bench].push_back(&m);
  CallOverheads out;
  if (benches.empty()) return out;
  std::map<std::string, double> host;
  for (const auto& [bench, rows] : benches) {
    double fastest = rows.front()->time_s;
    for (const Measurement* m : rows) fastest = std::min(fastest, m->time_s);
    std::vector<const Measurement*> floor;
    for (const Measurement* m : rows)
      if (m->time_s <= (1 + kFloorBand) * fastest) floor.push_back(m);
    // The ratio of the largest to the smallest of a measure over the floor rows.
    const auto span = [&floor](double Measurement::*measure) {
      double lo = std::numeric_limits<double>::infinity(), hi = 0;
      for (const Measurement* m : floor) {
        lo = std::min(lo, m->*measure);
        hi = std::max(hi, m->*measure);
      }
      return lo > 0 ? hi / lo : 0.0;
    };
    if (floor.size() < 2 ||
        std::max(span(&Measurement::bytes), span(&Measurement::flops)) < kFloorSpan)
      continue;
    std::vector<double> times;
    for (const Measurement* m : floor) times.push_back(m->time_s);
    host[bench] = median(times);
  }
  std::vector<double> after;
  std::vector<std::string> elementwise;
  for (const auto& [bench, rows] : benches) {
    if (rows.front()->op_class != "elementwise" || !host.count(bench)) continue;
    elementwise.push_back(bench);
    std::vector<const Measurement*> bound;
    for (const Measurement* m : rows)
      if (m->time_s >= kKernelBoundFactor * host[bench] && m->bytes > 0) bound.push_back(m);
    if (bound.size() < 2) continue;
    after.push_back(host[bench] - (intercept(bound) - launch_latency_s));
  }
  if (after.empty())
    throw UserError(fmt::format(
        "rows timed around a framework call (timing=event) need an elementwise size sweep with "
        "at least two sizes of {}x its fastest time to separate the host's time after the "
        "launch (calibrate/call_overhead.h); elementwise benches: {}",
        kKernelBoundFactor, elementwise.empty() ? std::string("none") : join(elementwise)));
  out.after_s = median(after);
  for (const auto& [bench, h] : host) out.by_bench[bench] = {h, std::max(0.0, h - out.after_s)};
  return out;
}

}  // namespace amdahl::calibrate
