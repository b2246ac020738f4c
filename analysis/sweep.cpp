#include "analysis/sweep.h"

#include <fmt/format.h>

#include <atomic>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::analysis {
namespace {

std::int64_t parse_positive(const std::string& text, const std::string& item) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size() && v > 0) return v;
  } catch (const std::logic_error&) {
  }
  throw UserError(fmt::format("--vary {}: expected a positive integer (got '{}')", item, text));
}

}  // namespace

SweepAxis parse_vary(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UserError(
        fmt::format("--vary expects NAME=V1,V2,... or NAME=A..B[:STEP|:xF] (got '{}')", text));
  SweepAxis axis;
  axis.name = text.substr(0, eq);
  const std::string list = text.substr(eq + 1);
  std::size_t pos = 0;
  while (pos <= list.size()) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    const std::string item = list.substr(pos, comma - pos);
    pos = comma + 1;
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      axis.values.push_back(parse_positive(item, text));
      continue;
    }
    const auto colon = item.find(':', dots);
    const std::int64_t from = parse_positive(item.substr(0, dots), text);
    const std::int64_t to = parse_positive(
        item.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2),
        text);
    if (to < from) throw UserError(fmt::format("--vary {}: range {} runs backwards", text, item));
    bool geometric = false;
    std::int64_t step = 1;
    if (colon != std::string::npos) {
      std::string s = item.substr(colon + 1);
      geometric = !s.empty() && s.front() == 'x';
      if (geometric) s.erase(0, 1);
      step = parse_positive(s, text);
      if (geometric && step < 2)
        throw UserError(fmt::format("--vary {}: a geometric factor must be at least 2", text));
    }
    // Stops at `to` or where the next value would overflow; at most kMaxSweepPoints values.
    for (std::int64_t v = from; v <= to;) {
      if (axis.values.size() >= kMaxSweepPoints)
        throw UserError(fmt::format(
            "--vary {}: range {} has more than {} points, the most a sweep takes; give a step "
            "(A..B:STEP) or a factor (A..B:xF)",
            excerpt(text), excerpt(item), kMaxSweepPoints));
      axis.values.push_back(v);
      if (geometric ? __builtin_mul_overflow(v, step, &v) : __builtin_add_overflow(v, step, &v))
        break;
    }
  }
  return axis;
}

std::vector<graphs::Bindings> sweep_grid(const std::vector<SweepAxis>& axes,
                                         const graphs::Bindings& base) {
  std::set<std::string> seen;
  for (const auto& a : axes)
    if (!seen.insert(a.name).second)
      throw UserError(fmt::format("--vary {}: the size is varied twice", a.name));
  std::size_t points = 1;
  for (const auto& a : axes)
    if (__builtin_mul_overflow(points, a.values.size(), &points) || points > kMaxSweepPoints)
      throw UserError(
          fmt::format("--vary: the grid has more than {} points, the most a sweep "
                      "takes; vary fewer sizes or fewer values",
                      kMaxSweepPoints));
  std::vector<graphs::Bindings> grid{base};
  for (const auto& a : axes) {
    std::vector<graphs::Bindings> next;
    next.reserve(grid.size() * a.values.size());
    for (const auto& point : grid)
      for (std::int64_t v : a.values) {
        graphs::Bindings b = point;
        b[a.name] = v;
        next.push_back(std::move(b));
      }
    grid = std::move(next);
  }
  return grid;
}

namespace {

SweepRow evaluate_point(const LowerAt& lower_at, const hw::SystemSpec& system,
                        const graphs::Bindings& sizes, const SweepOptions& options) {
  SweepRow row;
  row.sizes = sizes;
  const graphs::LoweredNetwork& net = lower_at(sizes);
  model::PredictOptions po = options.predict;
  const auto b = sizes.find("batch");
  if (b != sizes.end()) po.batch = b->second;
  row.batch = po.batch;
  const model::Prediction p = model::predict(net, system, po);
  row.step_s = p.step_time_s;
  row.samples_per_s = p.samples_per_s;
  row.share_by_class = p.by_class.shares_of(p.step_time_s);
  row.share_by_bound = p.by_bound.shares_of(p.step_time_s);
  const std::string device = po.device.empty() ? system.default_device : po.device;
  const hw::DeviceSpec& accel = system.device(device);
  if (options.compare_host && accel.kind != hw::DeviceKind::kCpu && system.host_of(device)) {
    model::PredictOptions on_host = po;
    on_host.placement = model::PlacementSpec{};
    on_host.placement.all = "host";
    const model::CostedStep st = model::cost_step(net, system, on_host);
    row.host_step_s = step_time(st, st.input.costs);
    row.host_speedup = row.step_s > 0 ? row.host_step_s / row.step_s : 0;
  }
  return row;
}

}  // namespace

std::vector<SweepRow> sweep(const MakeLowerAt& make_lower_at, const hw::SystemSpec& system,
                            const std::vector<graphs::Bindings>& grid,
                            const SweepOptions& options) {
  std::vector<SweepRow> rows(grid.size());
  unsigned threads = options.threads ? options.threads : std::thread::hardware_concurrency();
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(grid.size())));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::size_t done = 0;
  std::mutex progress_mutex;
  std::exception_ptr error;
  std::mutex error_mutex;
  // Workers claim chunks of consecutive points, so that each sees runs of neighbouring
  // points (a structure change re-lowers once per run, not per point).
  const std::size_t chunk = std::max<std::size_t>(1, grid.size() / (8 * threads));
  auto work = [&] {
    try {
      const LowerAt lower_at = make_lower_at();
      for (std::size_t begin = next.fetch_add(chunk); begin < grid.size() && !failed;
           begin = next.fetch_add(chunk))
        for (std::size_t i = begin; i < std::min(begin + chunk, grid.size()) && !failed; ++i) {
          rows[i] = evaluate_point(lower_at, system, grid[i], options);
          if (options.progress) {
            const std::lock_guard<std::mutex> lock(progress_mutex);
            options.progress(++done, grid.size());
          }
        }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      failed = true;
    }
  };
  if (threads == 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
  return rows;
}

double host_share(const SweepRow& r) { return r.share_by_bound[model::Bound::kDispatch]; }

Scaling scaling_against(double samples_per_s, std::int64_t gpus, double base_samples_per_s,
                        std::int64_t base_gpus) {
  Scaling s;
  s.speedup = base_samples_per_s > 0 ? samples_per_s / base_samples_per_s : 0.0;
  s.efficiency = s.speedup * static_cast<double>(base_gpus) / static_cast<double>(gpus);
  return s;
}

}  // namespace amdahl::analysis
