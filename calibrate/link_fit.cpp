#include "calibrate/link_fit.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <limits>
#include <map>

#include "calibrate/holdout.h"
#include "calibrate/profile_writer.h"
#include "util/error.h"
#include "util/percent.h"

namespace amdahl::calibrate {
namespace {

constexpr int kMinTrainingSizes = 3;

struct Point {
  double bytes = 0;
  double time_s = 0;
};

double predicted(const CopyCurve& c, double bytes) { return c.latency_s + bytes / c.bytes_per_s; }

ErrorStats curve_errors(const CopyCurve& c, const std::vector<Point>& points) {
  std::vector<double> errors;
  for (const auto& p : points) errors.push_back((predicted(c, p.bytes) - p.time_s) / p.time_s);
  return summarize_errors(errors);
}

// Weighted least squares of time = a + b * bytes, each residual relative (divided by the
// measured time); a >= 0.
CopyCurve fit_curve(const std::string& bench, const std::vector<Point>& train) {
  const auto n = static_cast<Eigen::Index>(train.size());
  Eigen::MatrixXd a(n, 2);
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Point& p = train[static_cast<std::size_t>(i)];
    a(i, 0) = 1 / p.time_s;
    a(i, 1) = p.bytes / p.time_s;
  }
  Eigen::Vector2d x = a.colPivHouseholderQr().solve(ones);
  if (x[0] < 0) {  // through zero: the slope alone
    x[0] = 0;
    x[1] = a.col(1).dot(ones) / a.col(1).squaredNorm();
  }
  if (!(x[1] > 0))
    throw UserError(fmt::format(
        "{}: the copy times do not grow with size (fitted bandwidth not positive); no link "
        "file was written",
        bench));
  CopyCurve c;
  c.bench = bench;
  c.latency_s = x[0];
  c.bytes_per_s = 1 / x[1];
  return c;
}

std::string number(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

const std::vector<std::string>& copy_bench_names() {
  static const std::vector<std::string> kNames{"copy_h2d_pinned", "copy_d2h_pinned",
                                               "copy_h2d_pageable", "copy_d2h_pageable"};
  return kNames;
}

std::vector<CopyCurve> fit_copy_curves(const MeasurementSet& set) {
  const std::vector<bool> held = held_out_rows(set.rows);
  std::map<std::string, std::vector<Point>> train, held_out;
  for (std::size_t i = 0; i < set.rows.size(); ++i) {
    const Measurement& m = set.rows[i];
    if (std::find(copy_bench_names().begin(), copy_bench_names().end(), m.bench) ==
        copy_bench_names().end())
      continue;
    (held[i] ? held_out : train)[m.bench].push_back({m.bytes, m.time_s});
  }
  std::vector<CopyCurve> out;
  for (const std::string& bench : copy_bench_names()) {
    if (!train.count(bench) && !held_out.count(bench)) continue;
    if (static_cast<int>(train[bench].size()) < kMinTrainingSizes)
      throw UserError(
          fmt::format("{}: {} training sizes, at least {} are needed to fit latency and bandwidth",
                      bench, train[bench].size(), kMinTrainingSizes));
    CopyCurve c = fit_curve(bench, train[bench]);
    c.train = curve_errors(c, train[bench]);
    c.held_out = curve_errors(c, held_out[bench]);
    out.push_back(c);
  }
  return out;
}

LaunchTimes launch_times(const MeasurementSet& set) {
  LaunchTimes t;
  for (const auto& m : set.rows) {
    const auto mode = m.shape.find("mode");
    if (mode == m.shape.end()) continue;
    if (m.bench == "launch" && mode->second == "async") t.async_s = m.time_s;
    if (m.bench == "launch" && mode->second == "sync") t.sync_s = m.time_s;
    if (m.bench == "graph_launch" && mode->second == "async" && m.shape.count("kernels")) {
      const auto kernels =
          static_cast<int>(m.shape_whole("kernels", 0, std::numeric_limits<int>::max()));
      if (kernels > t.graph_kernels) {
        t.graph_kernels = kernels;
        t.graph_kernel_s = m.time_s;
      }
    }
  }
  return t;
}

std::string render_calibrated_link(const std::string& base_text,
                                   const std::vector<CopyCurve>& curves,
                                   const std::string& provenance) {
  if (curves.empty()) throw UserError("the measurements have no copy rows to calibrate a link");
  std::vector<std::pair<std::string, std::string>> keys;
  double pinned_latency = 0, all_latency = 0;
  int pinned = 0;
  std::string fits;
  for (const auto& c : curves) {
    keys.push_back({c.bench.substr(5), number(c.bytes_per_s / 1e9) + " GB/s"});  // "h2d_pinned"
    all_latency += c.latency_s;
    if (c.bench.ends_with("_pinned")) {
      pinned_latency += c.latency_s;
      ++pinned;
    }
    fits += fmt::format(
        "; {}: {} us + bytes / {} GB/s ({} sizes fitted, held-out median |err| {}, p90 {})",
        c.bench, number(c.latency_s * 1e6), number(c.bytes_per_s / 1e9), c.train.count,
        format_percent(c.held_out.median_abs), format_percent(c.held_out.p90_abs));
  }
  const double latency = pinned > 0 ? pinned_latency / pinned : all_latency / curves.size();
  keys.push_back({"latency", number(latency * 1e6) + " us"});
  keys.push_back({"calibrated", "true"});
  keys.push_back(
      {"note", quoted_yaml(fmt::format("{}; latency is the mean of the {} copies' fixed costs{}",
                                       provenance, pinned > 0 ? "pinned" : "", fits))});
  return set_top_level_keys(base_text, keys);
}

}  // namespace amdahl::calibrate
