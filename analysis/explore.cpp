#include "analysis/explore.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include "analysis/sweep.h"
#include "hw/units.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The elasticity's two values of axis `a`: factors of the base (scaled), or for an integer
// parameter the whole numbers beside its base value.
std::pair<Configuration, Configuration> elasticity_pair(const hw::SystemSpec& base,
                                                        const HardwareAxis& axis, int a,
                                                        std::size_t axes) {
  Configuration lo{ConfigKind::kElasticity, a, true, std::vector<double>(axes, kNaN)};
  Configuration hi = lo;
  if (axis.parameter.integer()) {
    const double p = axis.parameter.get(base);
    lo.scaled = hi.scaled = false;
    lo.values[a] = p >= 2 ? p - 1 : p;
    hi.values[a] = p + 1;
  } else {
    lo.values[a] = 1 - kElasticityStep;
    hi.values[a] = 1 + kElasticityStep;
  }
  return {lo, hi};
}

std::string trim(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

bool has_unit(const std::string& text) {
  for (const char c : text)
    if (std::isalpha(static_cast<unsigned char>(c)) && c != 'e' && c != 'E') return true;
  return false;
}

}  // namespace

HardwareAxis parse_hardware_axis(const hw::SystemSpec& system, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UserError(
        fmt::format("--vary '{}': expected PATH=VALUES, e.g. "
                    "gpu0.memory.bandwidth=0.5..4TB/s:x2",
                    excerpt(text)));
  const std::string path = text.substr(0, eq);
  const std::string list = text.substr(eq + 1);
  hw::SystemParameter parameter(system, path);
  const std::string what = fmt::format("--vary {}", excerpt(path));
  const SourceLocation where{"--vary", 0, 0};

  // The items' texts: "A", or "A..B" with a step ":xF" / ":S".
  struct Item {
    std::string from, to, step;
    bool geometric = false;
  };
  std::vector<Item> items;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::string item =
        trim(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.empty())
      throw UserError(fmt::format("{}: an empty value in '{}'", what, excerpt(list)));
    Item it;
    const std::size_t dots = item.find("..");
    if (dots == std::string::npos) {
      it.from = item;
    } else {
      it.from = trim(item.substr(0, dots));
      std::string rest = item.substr(dots + 2);
      const std::size_t colon = rest.find(':');
      if (colon != std::string::npos) {
        it.step = trim(rest.substr(colon + 1));
        rest = rest.substr(0, colon);
        if (!it.step.empty() && it.step[0] == 'x') {
          it.geometric = true;
          it.step = it.step.substr(1);
        }
      }
      it.to = trim(rest);
      if (it.from.empty() || it.to.empty())
        throw UserError(fmt::format("{}: '{}' is not a range A..B", what, excerpt(item)));
    }
    items.push_back(it);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  // Units: a bare number takes the unit of the next number with one.
  std::vector<std::string*> numbers;
  for (Item& it : items) {
    numbers.push_back(&it.from);
    if (!it.to.empty()) {
      if (!it.step.empty() && !it.geometric) numbers.push_back(&it.step);
      numbers.push_back(&it.to);
    }
  }
  std::string unit;
  for (auto n = numbers.rbegin(); n != numbers.rend(); ++n) {
    std::string& t = **n;
    if (has_unit(t)) {
      std::size_t u = 0;
      while (u < t.size() && (std::isdigit(static_cast<unsigned char>(t[u])) || t[u] == '.' ||
                              t[u] == 'e' || t[u] == 'E' || t[u] == '+' || t[u] == '-'))
        ++u;
      unit = trim(t.substr(u));
    } else if (!unit.empty()) {
      t += " " + unit;
    }
  }
  auto value = [&](const std::string& t) {
    try {
      return hw::parse_quantity_as(t, parameter.dimension());
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}: {}", what, e.what()));
    }
  };
  HardwareAxis axis{parameter, {}, ""};
  auto add = [&](double v, const std::string& shown) {
    parameter.check(v, shown, where);
    if (axis.values.size() >= kMaxSweepPoints)
      throw UserError(fmt::format("{}: more than {} values", what, kMaxSweepPoints));
    axis.values.push_back(v);
  };
  for (const Item& it : items) {
    const double a = value(it.from);
    if (it.to.empty()) {
      add(a, it.from);
      continue;
    }
    const double b = value(it.to);
    if (b < a)
      throw UserError(
          fmt::format("{}: range {}..{} runs backwards", what, excerpt(it.from), excerpt(it.to)));
    // Inclusive of B up to rounding in the steps.
    const double end = b * (1 + 1e-9);
    if (it.geometric) {
      char* stop = nullptr;
      const double f = std::strtod(it.step.c_str(), &stop);
      if (it.step.empty() || *stop != '\0' || !(f > 1) || !std::isfinite(f))
        throw UserError(fmt::format("{}: the factor of ':x{}' must be a number above 1", what,
                                    excerpt(it.step)));
      if (!(a > 0)) throw UserError(fmt::format("{}: a geometric range must start above 0", what));
      for (double v = a; v <= end; v *= f) add(v, parameter.format(v));
    } else {
      const double step = it.step.empty() ? (parameter.integer() ? 1.0 : b - a) : value(it.step);
      if (!(step > 0))
        throw UserError(fmt::format("{}: the step of '{}..{}' must be above 0", what,
                                    excerpt(it.from), excerpt(it.to)));
      for (std::size_t k = 0;; ++k) {
        const double v = a + static_cast<double>(k) * step;
        if (v > end) break;
        add(v, parameter.format(v));
        if (b == a) break;
      }
    }
  }
  std::vector<double> sorted = axis.values;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw UserError(fmt::format("{}: a value appears twice", what));
  for (const char c : path) axis.name += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return axis;
}

std::vector<std::pair<std::string, std::size_t>> cost_names(const std::vector<HardwareAxis>& axes) {
  std::map<std::string, std::vector<std::size_t>> owners;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const std::string& n = axes[a].name;
    owners[n].push_back(a);
    for (std::size_t cut = n.find('_'); cut != std::string::npos; cut = n.find('_', cut + 1))
      if (cut + 1 < n.size()) owners[n.substr(cut + 1)].push_back(a);
  }
  std::vector<std::pair<std::string, std::size_t>> out;
  for (const auto& [name, list] : owners)
    if (list.size() == 1) out.emplace_back(name, list.front());
  // An axis's full name always stands, even when a longer path ends with it.
  for (std::size_t a = 0; a < axes.size(); ++a)
    if (owners[axes[a].name].size() > 1) out.emplace_back(axes[a].name, a);
  std::sort(out.begin(), out.end());
  return out;
}

Exploration::Exploration(const hw::SystemSpec& base, std::vector<HardwareAxis> axes,
                         std::vector<Variant> variants)
    : base_(&base), axes_(std::move(axes)), variants_(std::move(variants)) {
  const std::size_t n = axes_.size();
  configs_.push_back({ConfigKind::kBaseline, -1, false, std::vector<double>(n, kNaN)});
  for (std::size_t a = 0; a < n; ++a) {
    auto [lo, hi] = elasticity_pair(base, axes_[a], static_cast<int>(a), n);
    configs_.push_back(std::move(lo));
    configs_.push_back(std::move(hi));
  }
  for (std::size_t a = 0; a < n; ++a)
    for (const double v : axes_[a].values) {
      Configuration c{ConfigKind::kSlice, static_cast<int>(a), false, std::vector<double>(n, kNaN)};
      c.values[a] = v;
      configs_.push_back(std::move(c));
    }
  grid_begin_ = configs_.size();
  stride_.assign(n, 1);
  grid_size_ = n == 0 ? 0 : 1;
  for (std::size_t a = n; a-- > 0;) {
    stride_[a] = grid_size_;
    if (__builtin_mul_overflow(grid_size_, axes_[a].values.size(), &grid_size_) ||
        grid_size_ > (std::size_t{1} << 62))
      throw UserError("explore: the grid has more configurations than amdahl counts");
  }
}

double Exploration::grid_value(std::size_t c, std::size_t a) const {
  const std::vector<double>& v = axes_[a].values;
  return v[((c - grid_begin_) / stride_[a]) % v.size()];
}

Configuration Exploration::configuration(std::size_t c) const {
  if (c < grid_begin_) return configs_.at(c);
  if (c >= configuration_count()) throw InternalError("explore: no such configuration");
  Configuration config{ConfigKind::kGrid, -1, false, std::vector<double>(axes_.size())};
  for (std::size_t a = 0; a < axes_.size(); ++a) config.values[a] = grid_value(c, a);
  return config;
}

void Exploration::configure(Workspace& w, std::size_t c) const {
  if (w.config == c) return;
  if (c >= grid_begin_) {
    for (std::size_t a = 0; a < axes_.size(); ++a)
      axes_[a].parameter.set(w.system, *base_, grid_value(c, a));
    w.config = c;
    return;
  }
  const Configuration& config = configs_.at(c);
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    const hw::SystemParameter& p = axes_[a].parameter;
    const double v = config.values[a];
    if (std::isnan(v))
      p.scale(w.system, *base_, 1.0);  // back to the base's value
    else if (config.scaled)
      p.scale(w.system, *base_, v);
    else
      p.set(w.system, *base_, v);
  }
  w.config = c;
}

PointResult Exploration::evaluate(std::size_t point, Workspace& w, std::string* error) const {
  const std::size_t c = point / variants_.size();
  const Variant& v = variants_[point % variants_.size()];
  configure(w, c);
  PointResult r;
  try {
    const model::CostedStep step = model::cost_step(*v.net, w.system, v.options);
    // Holding the variant is what makes a grid configuration feasible; the baseline, elasticity
    // and slice points measure the step time as model::predict does (which warns).
    const hw::DeviceSpec& device = model::memory_device(step.placement);
    if (c >= grid_begin_ &&
        model::memory_exceeded(v.net->memory.peak_bytes, device.memory.capacity_bytes)) {
      r.step_s = kNaN;
      r.status = PointStatus::kOutOfMemory;
      if (error)
        *error = fmt::format("peak memory {:.4g} GB exceeds the {:.4g} GB of {} ({})",
                             v.net->memory.peak_bytes / 1e9, device.memory.capacity_bytes / 1e9,
                             device.name, device.model);
      return r;
    }
    const model::Schedule schedule = model::simulate(step.input);
    r.step_s = schedule.makespan_s;
    model::check_step_time(r.step_s, v.label);
    r.by_bound = model::bound_times(schedule);
  } catch (const UserError& e) {
    r = PointResult{};
    r.step_s = kNaN;
    r.status = PointStatus::kRefused;
    if (error) *error = e.what();
  }
  return r;
}

std::string_view point_status_name(PointStatus s) {
  switch (s) {
    case PointStatus::kOk:
      return "ok";
    case PointStatus::kRefused:
      return "refused";
    case PointStatus::kOutOfMemory:
      return "out_of_memory";
  }
  return "?";
}

Knee knee(const std::vector<double>& x, const std::vector<double>& t, double threshold) {
  if (x.size() != t.size()) throw InternalError("knee: x and t differ in length");
  Knee k;
  if (x.empty()) return k;
  // Walk towards the faster end of the axis.
  std::vector<std::size_t> order(x.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (t.back() > t.front()) std::reverse(order.begin(), order.end());
  // The last step that still gains at least the threshold; the knee is the value it reaches.
  std::optional<std::size_t> last_gain;
  for (std::size_t j = 0; j + 1 < order.size(); ++j) {
    const double a = t[order[j]], b = t[order[j + 1]];
    if (!(std::isfinite(a) && std::isfinite(b) && b > 0)) return k;  // a failed point: no knee
    if (a / b - 1 >= threshold) last_gain = j + 1;
  }
  if (last_gain && *last_gain == order.size() - 1) {
    k.still_gaining = true;
    return k;
  }
  k.value = x[order[last_gain.value_or(0)]];
  return k;
}

std::vector<std::size_t> pareto_front(const std::vector<double>& cost,
                                      const std::vector<double>& speedup) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < cost.size(); ++i)
    if (std::isfinite(cost[i]) && std::isfinite(speedup[i])) order.push_back(i);
  // Ascending cost; at equal cost the higher speedup first, then the index (a stable answer).
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (cost[a] != cost[b]) return cost[a] < cost[b];
    if (speedup[a] != speedup[b]) return speedup[a] > speedup[b];
    return a < b;
  });
  std::vector<std::size_t> front;
  double best = -std::numeric_limits<double>::infinity();
  for (const std::size_t i : order)
    if (speedup[i] > best) {
      front.push_back(i);
      best = speedup[i];
    }
  return front;
}

std::optional<std::size_t> most_elastic(const std::vector<double>& elasticity) {
  std::optional<std::size_t> best;
  for (std::size_t a = 0; a < elasticity.size(); ++a)
    if (std::fabs(elasticity[a]) >= kIndifferent &&
        (!best || std::fabs(elasticity[a]) > std::fabs(elasticity[*best])))
      best = a;
  return best;
}

double geometric_mean(const std::vector<double>& x) {
  double sum = 0;
  std::size_t n = 0;
  for (const double v : x)
    if (std::isfinite(v) && v > 0) {
      sum += std::log(v);
      ++n;
    }
  return n ? std::exp(sum / static_cast<double>(n)) : kNaN;
}

ExploreSummary summarize(const Exploration& e, const std::vector<PointResult>& results,
                         double knee_threshold) {
  if (results.size() != e.points()) throw InternalError("summarize: one result per point");
  const std::size_t nv = e.variants().size();
  const std::size_t na = e.axes().size();
  auto t = [&](std::size_t c, std::size_t v) { return results[c * nv + v].step_s; };
  ExploreSummary s;
  for (std::size_t v = 0; v < nv; ++v) s.baseline_s.push_back(t(0, v));

  s.elasticity.assign(nv, std::vector<double>(na, kNaN));
  for (std::size_t a = 0; a < na; ++a) {
    const Configuration lo = e.configuration(1 + 2 * a);
    const Configuration hi = e.configuration(2 + 2 * a);
    const double dlogp = std::log(hi.values[a] / lo.values[a]);
    for (std::size_t v = 0; v < nv; ++v)
      s.elasticity[v][a] = std::log(t(2 + 2 * a, v) / t(1 + 2 * a, v)) / dlogp;
  }

  s.knees.assign(nv, std::vector<Knee>(na));
  std::size_t slice = 1 + 2 * na;
  for (std::size_t a = 0; a < na; ++a) {
    const std::vector<double>& values = e.axes()[a].values;
    // Ascending values, with each one's configuration.
    std::vector<std::size_t> order(values.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return values[x] < values[y]; });
    std::vector<double> x;
    for (const std::size_t i : order) x.push_back(values[i]);
    std::vector<double> suite;
    for (const std::size_t i : order) {
      std::vector<double> relative;
      for (std::size_t v = 0; v < nv; ++v) relative.push_back(t(slice + i, v) / s.baseline_s[v]);
      suite.push_back(geometric_mean(relative));
    }
    for (std::size_t v = 0; v < nv; ++v) {
      std::vector<double> times;
      for (const std::size_t i : order) times.push_back(t(slice + i, v));
      s.knees[v][a] = knee(x, times, knee_threshold);
    }
    s.suite_knees.push_back(knee(x, suite, knee_threshold));
    slice += values.size();
  }

  for (std::size_t c = e.grid_begin(); c < e.configuration_count(); ++c) {
    std::vector<double> speedups;
    std::size_t failed = 0, out_of_memory = 0;
    for (std::size_t v = 0; v < nv; ++v) {
      const double x = s.baseline_s[v] / t(c, v);
      failed += std::isfinite(x) ? 0 : 1;
      out_of_memory += results[c * nv + v].status == PointStatus::kOutOfMemory ? 1 : 0;
      speedups.push_back(x);
    }
    // A configuration where some variant failed has no suite speedup (a mean over the rest
    // would compare different sets of workloads).
    s.geomean_speedup.push_back(failed ? kNaN : geometric_mean(speedups));
    s.failed.push_back(failed);
    s.out_of_memory.push_back(out_of_memory);
  }
  return s;
}

}  // namespace amdahl::analysis
