#include "calibrate/calibration_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <utility>

#include "calibrate/algorithm_agreement.h"
#include "calibrate/holdout.h"
#include "util/percent.h"
#include "util/suggest.h"
#include "util/table.h"

namespace amdahl::calibrate {
namespace {

std::string microseconds(double s) { return fmt::format("{:.4g} us", s * 1e6); }

// "a", "a and b", "a, b and c".
std::string and_list(const std::vector<std::string>& items) {
  if (items.size() <= 1) return items.empty() ? std::string() : items.front();
  const std::vector<std::string> head(items.begin(), items.end() - 1);
  return fmt::format("{} and {}", join(head), items.back());
}

// "128x64" (a tile pair), "16..256" (a tile set), "128x32..128 waste" (fixed rows, least waste).
std::string tile_text(const hw::ClassEfficiency& e) {
  if (e.gemm.tile_min > 0)
    return fmt::format("{}{}..{}{}", e.gemm.tile_m > 0 ? fmt::format("{}x", e.gemm.tile_m) : "",
                       e.gemm.tile_min, e.gemm.tile_max,
                       e.gemm.tile_choice == hw::TileChoice::kWaste ? " waste" : "");
  return e.gemm.tile_m > 0 ? fmt::format("{}x{}", e.gemm.tile_m, e.gemm.tile_n) : "-";
}

// "4.45x < 6.1 MB" (the cache term: boost, and the size where half of it is left), else "-".
std::string cache_text(const hw::ClassEfficiency& e) {
  if (e.traffic.cache_bytes <= 0) return "-";
  return fmt::format("{:.3g}x < {:.2g} MB", e.traffic.cache_boost, e.traffic.cache_bytes / 1e6);
}

// The model's kernel against the library's recorded algorithm (algorithm_agreement.h), for
// entries whose rows name one; nothing when none do.
void print_algorithm_agreement(
    std::ostream& out,
    const std::vector<std::pair<std::string, const std::vector<Residual>*>>& entries) {
  const auto agreement = algorithm_agreement(entries);
  if (agreement.empty()) return;
  Table t({"entry", "rows", "library Winograd: model too", "library direct: model too",
           "library FFT: model too", "median |err| agreeing", "median |err| other"});
  const auto median = [](const std::vector<double>& errors) {
    return errors.empty() ? std::string("-") : percent(summarize_errors(errors).median_abs);
  };
  for (const auto& a : agreement)
    t.add({a.entry, std::to_string(a.rows),
           fmt::format("{} of {}", a.both_winograd, a.library_winograd),
           fmt::format("{} of {}", a.both_direct, a.library_direct),
           fmt::format("{} of {}", a.both_fft, a.library_fft), median(a.agreeing_errors),
           median(a.other_errors)});
  out << "\nthe model's algorithm against the library's recorded choice (rows naming it; "
         "Winograd, FFT or direct):\n";
  t.print(out);
}

// A held-out statistic, "-" for an entry that held nothing out (profile_kernels.h).
std::string held_out_percent(const ClassFit& f, double value) {
  return f.held_out.count > 0 ? percent(value) : std::string("-");
}

void print_fits(std::ostream& out, const Calibration& c) {
  Table t({"class", "train", "held out", "structure", "compute", "memory", "tile", "k_half",
           "latency", "cache", "held-out median |err|", "held-out p90 |err|",
           "train median |err|"});
  for (const auto& f : c.fits) {
    const hw::ClassEfficiency& e = f.params;
    t.add({f.entry.name(), std::to_string(f.train.count), std::to_string(f.held_out.count),
           f.structure.empty() ? "-" : f.structure, fmt::format("{:.3f}", e.compute),
           fmt::format("{:.3f}", e.memory), tile_text(e), fmt::format("{:.4g}", e.gemm.k_half),
           fmt::format("{:.3g} us", e.latency_s * 1e6), cache_text(e),
           held_out_percent(f, f.held_out.median_abs), held_out_percent(f, f.held_out.p90_abs),
           percent(f.train.median_abs)});
  }
  t.print(out);
  out << fmt::format(
      "\nheld out: every {}th shape of each class (calibrate/holdout.h), never used in the fit; "
      "{} rows fitted, {} rows of other classes not used.\n",
      kHoldOutEvery, c.rows_used, c.rows_ignored);
  if (std::any_of(c.fits.begin(), c.fits.end(),
                  [](const ClassFit& f) { return f.held_out.count == 0; }))
    out << "entries with none held out are fitted to a profile's whole-network sums, every one "
           "of them in the fit (calibrate/profile_kernels.h)\n";
  std::vector<std::pair<std::string, const std::vector<Residual>*>> entries;
  for (const auto& f : c.fits) entries.emplace_back(f.entry.name(), &f.residuals);
  print_algorithm_agreement(out, entries);
}

// The framework call overhead of rows timed around a call (call_overhead.h).
void print_call_overheads(std::ostream& out, const CallOverheads& o) {
  if (o.empty()) return;
  Table t({"bench", "host per call", "before the kernel"});
  for (const auto& [bench, c] : o.by_bench)
    t.add({bench, microseconds(c.host_s), microseconds(c.before_kernel_s)});
  out << fmt::format(
      "\nframework call overhead of event-timed rows: measured = max(host, before + kernel); "
      "the host's time after the launch {} (calibrate/call_overhead.h):\n",
      microseconds(o.after_s));
  t.print(out);
}

// The copy curves and launch times of amdahl-cudabench's transfer and launch rows.
void print_link(std::ostream& out, const std::vector<CopyCurve>& curves,
                const LaunchTimes& launch) {
  if (!curves.empty()) {
    Table t({"copy", "sizes fitted", "held out", "latency", "bandwidth", "held-out median |err|",
             "held-out p90 |err|"});
    for (const auto& c : curves)
      t.add({c.bench, std::to_string(c.train.count), std::to_string(c.held_out.count),
             microseconds(c.latency_s), fmt::format("{:.4g} GB/s", c.bytes_per_s / 1e9),
             percent(c.held_out.median_abs), percent(c.held_out.p90_abs)});
    out << "\ncopies: time = latency + bytes / bandwidth (relative least squares):\n";
    t.print(out);
  }
  if (launch.async_s > 0 || launch.sync_s > 0 || launch.graph_kernel_s > 0) {
    out << "\nlaunch (as measured): ";
    std::vector<std::string> parts;
    if (launch.async_s > 0)
      parts.push_back(fmt::format("{} per back-to-back launch (the device file's launch_latency)",
                                  microseconds(launch.async_s)));
    if (launch.sync_s > 0)
      parts.push_back(
          fmt::format("{} launch + synchronize round trip", microseconds(launch.sync_s)));
    if (launch.graph_kernel_s > 0)
      parts.push_back(fmt::format("{} per kernel of a {}-kernel CUDA graph",
                                  microseconds(launch.graph_kernel_s), launch.graph_kernels));
    for (std::size_t i = 0; i < parts.size(); ++i) out << (i ? "; " : "") << parts[i];
    out << "\n";
  }
}

void print_cross_validation(std::ostream& out, const std::vector<CrossValidation>& cv) {
  if (cv.empty()) return;
  Table t(
      {"class", "shapes x directions", "cross-validated median |err|", "p90 |err|", "max |err|"});
  for (const auto& c : cv)
    t.add({c.entry.name(), std::to_string(c.errors.count), percent(c.errors.median_abs),
           percent(c.errors.p90_abs), percent(c.errors.max_abs)});
  out << fmt::format(
      "\ncross-validation: {} fits per class, each holding out one fold of "
      "shapes (index mod {}); every row predicted by the fit without it:\n",
      kHoldOutEvery, kHoldOutEvery);
  t.print(out);
}

std::string signed_percent(double v) { return format_percent(v, true); }

}  // namespace

std::string CalibrationSummary::brief_report() const {
  std::vector<std::string> entries, files;
  double lo = 0, hi = 0;
  bool any_held_out = false;
  for (const auto& f : calibration.fits) {
    entries.push_back(fmt::format("{} {}", f.entry.name(), f.train.count + f.held_out.count));
    if (f.held_out.count == 0) continue;
    lo = !any_held_out ? f.held_out.median_abs : std::min(lo, f.held_out.median_abs);
    hi = std::max(hi, f.held_out.median_abs);
    any_held_out = true;
  }
  for (const auto& group : written) files.insert(files.end(), group.begin(), group.end());
  return fmt::format("{}: {} entries fitted ({}), held-out median |err| {}..{}; wrote {}", source,
                     calibration.fits.size(), join(entries), percent(lo), percent(hi),
                     files.empty() ? std::string("nothing") : join(files));
}

std::string CalibrationSummary::full_report() const {
  std::ostringstream out;
  for (const auto& [op_class, rows] : library_rows_left_out)
    out << fmt::format(
        "{}: {} library rows not fitted (the class has rows measured through a framework, "
        "which are)\n",
        op_class, rows);
  print_fits(out, calibration);
  print_call_overheads(out, calibration.call_overheads);
  print_link(out, copy_curves, launch);
  print_cross_validation(out, cross_validation);
  for (const auto& group : written) out << fmt::format("wrote {}\n", and_list(group));
  return out.str();
}

std::string CheckSummary::brief_report() const {
  return fmt::format("{} checked against {}: {} rows, median |err| {}, p90 {}, mean signed {}",
                     device, source, total.count, percent(total.median_abs), percent(total.p90_abs),
                     signed_percent(total.mean_signed));
}

std::string CheckSummary::full_report() const {
  std::ostringstream out;
  Table t({"entry", "rows", "median |err|", "p90 |err|", "max |err|", "mean signed err"});
  for (const auto& c : checks)
    t.add({c.entry.name(), std::to_string(c.errors.count), percent(c.errors.median_abs),
           percent(c.errors.p90_abs), percent(c.errors.max_abs),
           signed_percent(c.errors.mean_signed)});
  t.add({"all", std::to_string(total.count), percent(total.median_abs), percent(total.p90_abs),
         percent(total.max_abs), signed_percent(total.mean_signed)});
  out << fmt::format(
      "{} checked against {}: every row predicted by the file as it is, nothing fitted; error = "
      "(predicted - measured) / measured, + = predicted too slow\n",
      device, source);
  t.print(out);
  std::vector<std::pair<std::string, const std::vector<Residual>*>> entries;
  for (const auto& c : checks) entries.emplace_back(c.entry.name(), &c.residuals);
  print_algorithm_agreement(out, entries);
  if (!residuals.empty()) out << fmt::format("wrote {}\n", residuals);
  return out.str();
}

}  // namespace amdahl::calibrate
