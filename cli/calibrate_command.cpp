// amdahl calibrate: fit a device's efficiency models to kernel measurements and write the
// calibrated device (and, for --target cpu, a system around it). Sources:
//   --from-deepbench DIR --dataset NAME   published DeepBench kernel results
//   --measurements FILE                   an amdahl measurements v1 CSV (amdahl-cudabench, ...)
//   --target cpu                          this machine's CPU, measured now (calibrate/cpu)
// The output is written atomically and loaded back before it replaces anything.

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "calibrate/algorithm_agreement.h"
#include "calibrate/calibration.h"
#include "calibrate/cpu/cpu_calibration.h"
#include "calibrate/cpu/framework_kernels.h"
#include "calibrate/deepbench.h"
#include "calibrate/holdout.h"
#include "calibrate/link_fit.h"
#include "calibrate/profile_writer.h"
#include "cli/commands.h"
#include "cli/table.h"
#include "hw/system_loader.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::cli {
namespace {
namespace fs = std::filesystem;

struct CalibrateOptions {
  std::string target;
  bool quick = false;
  std::string out;
  std::string deepbench_dir;
  std::string dataset;
  std::string precision = "fp32";
  std::string measured_device;
  std::string measurements;
  std::string base;
  std::string csv;
  std::string residuals;
  bool cross_validate = false;
  std::string link_base;
  std::string link_out;
  std::string check;
};

std::string percent(double v) { return fmt::format("{:.1f}%", 100 * v); }

// What is fitted: the CPU plan for a CPU device, else the GPU plan.
std::vector<calibrate::ClassPlan> plan_for(const hw::DeviceSpec& base,
                                           const calibrate::MeasurementSet& set) {
  return base.kind == hw::DeviceKind::kCpu ? calibrate::cpu_plan(set) : calibrate::gpu_plan();
}

void print_cross_validation(const CalibrateOptions& o, const calibrate::MeasurementSet& set,
                            const hw::DeviceSpec& base) {
  if (!o.cross_validate) return;
  const auto cv = calibrate::cross_validate(set, base, plan_for(base, set));
  Table t(
      {"class", "shapes x directions", "cross-validated median |err|", "p90 |err|", "max |err|"});
  for (const auto& c : cv)
    t.add({c.op_class, std::to_string(c.errors.count), percent(c.errors.median_abs),
           percent(c.errors.p90_abs), percent(c.errors.max_abs)});
  std::cout << fmt::format(
      "\ncross-validation: {} fits per class, each holding out one fold of "
      "shapes (index mod {}); every row predicted by the fit without it:\n",
      calibrate::kHoldOutEvery, calibrate::kHoldOutEvery);
  t.print(std::cout);
}

void write_residuals(const CalibrateOptions& o, const calibrate::Calibration& c) {
  if (o.residuals.empty()) return;
  calibrate::write_file_atomically(o.residuals, calibrate::residuals_csv(c.fits));
  std::cout << fmt::format("wrote {}\n", o.residuals);
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

// The model's kernel against the library's recorded algorithm (calibrate/algorithm_agreement.h),
// for entries whose rows name one; nothing when none do.
void print_algorithm_agreement(
    std::ostream& out,
    const std::vector<std::pair<std::string, const std::vector<calibrate::Residual>*>>& entries) {
  const auto agreement = calibrate::algorithm_agreement(entries);
  if (agreement.empty()) return;
  Table t({"entry", "rows", "library Winograd: model too", "library direct: model too",
           "library FFT", "median |err| agreeing", "median |err| other"});
  const auto median = [](const std::vector<double>& errors) {
    return errors.empty() ? std::string("-")
                          : percent(calibrate::summarize_errors(errors).median_abs);
  };
  for (const auto& a : agreement)
    t.add({a.entry, std::to_string(a.rows),
           fmt::format("{} of {}", a.both_winograd, a.library_winograd),
           fmt::format("{} of {}", a.both_direct, a.library_direct), std::to_string(a.library_fft),
           median(a.agreeing_errors), median(a.other_errors)});
  out << "\nthe model's algorithm against the library's recorded choice (rows naming it; "
         "Winograd or direct, the model has no FFT):\n";
  t.print(out);
}

void print_report(std::ostream& out, const calibrate::Calibration& c) {
  Table t({"class", "train", "held out", "structure", "compute", "memory", "tile", "k_half",
           "latency", "cache", "held-out median |err|", "held-out p90 |err|",
           "train median |err|"});
  for (const auto& f : c.fits) {
    const hw::ClassEfficiency& e = f.params;
    t.add({f.op_class, std::to_string(f.train.count), std::to_string(f.held_out.count),
           f.structure.empty() ? "-" : f.structure, fmt::format("{:.3f}", e.compute),
           fmt::format("{:.3f}", e.memory), tile_text(e), fmt::format("{:.4g}", e.gemm.k_half),
           fmt::format("{:.3g} us", e.latency_s * 1e6), cache_text(e),
           percent(f.held_out.median_abs), percent(f.held_out.p90_abs),
           percent(f.train.median_abs)});
  }
  t.print(out);
  out << fmt::format(
      "\nheld out: every {}th shape of each class (calibrate/holdout.h), never used in the fit; "
      "{} rows fitted, {} rows of other classes not used.\n",
      calibrate::kHoldOutEvery, c.rows_used, c.rows_ignored);
  std::vector<std::pair<std::string, const std::vector<calibrate::Residual>*>> entries;
  for (const auto& f : c.fits) entries.emplace_back(f.op_class, &f.residuals);
  print_algorithm_agreement(out, entries);
}

std::vector<std::string> entry_sources(const calibrate::Calibration& c, const std::string& what) {
  std::vector<std::string> out;
  for (const auto& f : c.fits)
    out.push_back(fmt::format(
        "fitted to {}: {} measurements{}; held out (every {}th shape) {}: median |err| {}, p90 "
        "{}",
        what, f.train.count,
        f.structure.empty()
            ? ""
            : fmt::format("; structure '{}' (chosen by cross-validation on them)", f.structure),
        calibrate::kHoldOutEvery, f.held_out.count, percent(f.held_out.median_abs),
        percent(f.held_out.p90_abs)));
  return out;
}

// The calibrated device file at `out` from `base_path`, validated by loading it before it is
// written; with `extra_keys` (e.g. a measured launch_latency) set on top.
calibrate::PendingFile device_file(
    const std::string& base_path, const std::string& out, const calibrate::Calibration& c,
    const std::string& what, const std::string& provenance,
    const std::vector<std::pair<std::string, std::string>>& extra_keys = {}) {
  return {out,
          calibrate::set_top_level_keys(
              calibrate::render_calibrated_device(calibrate::read_text_file(base_path), c.fits,
                                                  entry_sources(c, what), provenance),
              extra_keys),
          [](const std::string& tmp) { hw::load_device_file(tmp); }};
}

void require(const std::string& value, const char* option, const char* why) {
  if (value.empty()) throw UserError(fmt::format("{} is required {}", option, why));
}

// --check: `o.check` predicts every row as it is; per-entry errors, nothing fitted or written
// but the residuals.
void run_check(const CalibrateOptions& o, const calibrate::MeasurementSet& set,
               const hw::DeviceSpec& device, const std::string& source) {
  const std::vector<calibrate::ClassPlan> plan = plan_for(device, set);
  const auto checks = calibrate::check_device(set, device, plan);
  if (checks.empty()) {
    std::vector<std::string> entries;
    for (const auto& p : plan) entries.push_back(p.op_class);
    throw UserError(
        fmt::format("--check: {} has no measurements of an entry calibrated for {} "
                    "({}); nothing to check",
                    source, o.check, join(entries)));
  }
  Table t({"entry", "rows", "median |err|", "p90 |err|", "max |err|", "mean signed err"});
  std::vector<double> all;
  for (const auto& c : checks) {
    t.add({c.entry, std::to_string(c.errors.count), percent(c.errors.median_abs),
           percent(c.errors.p90_abs), percent(c.errors.max_abs),
           fmt::format("{:+.1f}%", 100 * c.errors.mean_signed)});
    for (const auto& r : c.residuals) all.push_back((r.predicted_s - r.measured_s) / r.measured_s);
  }
  const calibrate::ErrorStats total = calibrate::summarize_errors(all);
  t.add({"all", std::to_string(total.count), percent(total.median_abs), percent(total.p90_abs),
         percent(total.max_abs), fmt::format("{:+.1f}%", 100 * total.mean_signed)});
  std::cout << fmt::format(
      "{} checked against {}: every row predicted by the file as it is, nothing fitted; error = "
      "(predicted - measured) / measured, + = predicted too slow\n",
      o.check, source);
  t.print(std::cout);
  std::vector<std::pair<std::string, const std::vector<calibrate::Residual>*>> entries;
  for (const auto& c : checks) entries.emplace_back(c.entry, &c.residuals);
  print_algorithm_agreement(std::cout, entries);
  if (o.residuals.empty()) return;
  calibrate::write_file_atomically(o.residuals, calibrate::check_residuals_csv(checks));
  std::cout << fmt::format("wrote {}\n", o.residuals);
}

void run_deepbench(const CalibrateOptions& o) {
  require(o.dataset, "--dataset", "with --from-deepbench");
  if (o.check.empty()) {
    require(o.base, "--base", "with --from-deepbench (the device file to calibrate)");
    require(o.out, "--out", "with --from-deepbench");
  }
  calibrate::MeasurementSet set =
      calibrate::read_deepbench(o.deepbench_dir, o.dataset, o.precision);
  const hw::DeviceSpec target = hw::load_device_file(o.check.empty() ? o.base : o.check);
  const std::string measured_path =
      !o.measured_device.empty()
          ? o.measured_device
          : (fs::path(hw::catalog_dir()) / calibrate::deepbench_measured_device(o.dataset))
                .string();
  const hw::DeviceSpec measured = hw::load_device_file(measured_path);
  calibrate::adjust_for_clock(set, measured, target);
  if (!o.check.empty())
    return run_check(o, set, target,
                     fmt::format("DeepBench {} {} (measured on {}, adjusted to {})", o.dataset,
                                 o.precision, measured.model, target.model));
  const calibrate::Calibration c = calibrate::calibrate_device(set, target, calibrate::gpu_plan());
  print_report(std::cout, c);
  print_cross_validation(o, set, target);
  const auto& p = set.provenance;
  const std::string provenance = fmt::format(
      "DeepBench {} ({} {} at {}, {}): {}, host {}, CUDA {}, cuDNN {}, driver {}; precision {}; "
      "measured on {} and adjusted to this card: {}; fitted by `amdahl calibrate "
      "--from-deepbench --dataset {}` (docs/calibration.md)",
      o.dataset, p.at("repo"), p.at("path"), p.at("read_at_commit"), p.at("last_modified_date"),
      p.at("gpu_model"), p.at("cpu_model"), p.at("cuda"), p.at("cudnn"), p.at("driver"),
      o.precision, measured.model, p.at("clock_adjustment"), o.dataset);
  calibrate::write_files_atomically({device_file(
      o.base, o.out, c, fmt::format("DeepBench {} {}", o.dataset, o.precision), provenance)});
  if (!o.csv.empty()) calibrate::write_file_atomically(o.csv, calibrate::measurements_text(set));
  std::cout << fmt::format("wrote {}\n", o.out);
  write_residuals(o, c);
}

std::string microseconds(double s) { return fmt::format("{:.4g} us", s * 1e6); }

// The copy curves and launch times of amdahl-cudabench's transfer and launch rows.
void print_link_report(std::ostream& out, const std::vector<calibrate::CopyCurve>& curves,
                       const calibrate::LaunchTimes& launch) {
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

void run_measurements(const CalibrateOptions& o) {
  if (o.check.empty()) {
    require(o.base, "--base", "with --measurements (the device file to calibrate)");
    require(o.out, "--out", "with --measurements");
  }
  if (!o.link_out.empty()) require(o.link_base, "--link-base", "with --link-out");
  std::map<std::string, int> left_out;
  const calibrate::MeasurementSet set =
      calibrate::prefer_framework_rows(calibrate::read_measurements(o.measurements), &left_out);
  if (!o.check.empty()) return run_check(o, set, hw::load_device_file(o.check), o.measurements);
  for (const auto& [op_class, rows] : left_out)
    std::cout << fmt::format(
        "{}: {} library rows not fitted (the class has rows measured through a framework, "
        "which are)\n",
        op_class, rows);
  const calibrate::LaunchTimes launch = calibrate::launch_times(set);
  hw::DeviceSpec base = hw::load_device_file(o.base);
  // Every kernel time includes the launch latency (model/roofline.cpp), so the classes are
  // fitted with the measured one, which the device file then gets.
  if (launch.async_s > 0) base.launch_latency_s = launch.async_s;
  // A CPU measured through a framework: its fresh allocations' cost, from the same file.
  const auto allocation = base.kind == hw::DeviceKind::kCpu
                              ? calibrate::fit_allocation(set)
                              : std::optional<calibrate::FreshAllocation>();
  if (allocation) base.allocation = {allocation->above_bytes, allocation->bytes_per_s};
  const calibrate::Calibration c = calibrate::calibrate_device(set, base, plan_for(base, set));
  const std::vector<calibrate::CopyCurve> curves = calibrate::fit_copy_curves(set);
  if (!o.link_out.empty() && curves.empty())
    throw UserError(fmt::format("--link-out: {} has no copy rows ({})", o.measurements,
                                join(calibrate::copy_bench_names())));
  print_report(std::cout, c);
  print_link_report(std::cout, curves, launch);
  print_cross_validation(o, set, base);
  const std::string file = fs::path(o.measurements).filename().string();
  std::string provenance = file;
  for (const char* key : {"device", "machine", "date", "driver", "cuda", "cublas", "cudnn"})
    if (set.provenance.count(key))
      provenance += fmt::format("; {}: {}", key, set.provenance.at(key));
  provenance += "; fitted by `amdahl calibrate --measurements` (docs/calibration.md)";
  std::vector<std::pair<std::string, std::string>> device_keys;
  if (launch.async_s > 0)
    device_keys.push_back({"launch_latency", microseconds(launch.async_s) +
                                                 "  # measured: launch mode=async (" + file + ")"});
  if (allocation) device_keys.push_back({"allocation", calibrate::allocation_yaml(*allocation)});
  // Device and link are validated together before either is written: a bad link base, or a
  // link that fails its schema, leaves both files as they were.
  std::vector<calibrate::PendingFile> files{
      device_file(o.base, o.out, c, file, provenance, device_keys)};
  if (!o.link_out.empty())
    files.push_back({o.link_out,
                     calibrate::render_calibrated_link(calibrate::read_text_file(o.link_base),
                                                       curves, provenance),
                     [](const std::string& tmp) { hw::load_link_file(tmp); }});
  calibrate::write_files_atomically(files);
  for (const auto& f : files) std::cout << fmt::format("wrote {}\n", f.path);
  write_residuals(o, c);
}

void run_cpu(const CalibrateOptions& o) {
  require(o.out, "--out", "with --target cpu");
  calibrate::CpuCalibrationOptions options;
  options.quick = o.quick;
  options.out_system = o.out;
  const calibrate::CpuCalibrationResult r = calibrate::calibrate_cpu(options, std::cerr);
  print_report(std::cout, r.calibration);
  std::cout << fmt::format("wrote {}, {} and {}\n", r.system_path, r.device_path, r.csv_path);
  write_residuals(o, r.calibration);
}

}  // namespace

void register_calibrate(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "fit a device's efficiency models to kernel measurements (docs/calibration.md)");
  auto* target = cmd->add_option("--target", o->target,
                                 "measure this machine now: cpu (oneDNN GEMM/conv, memory, "
                                 "elementwise, reduction; the same through PyTorch, and its "
                                 "dispatch)")
                     ->check(CLI::IsMember({"cpu"}));
  cmd->add_flag("--quick", o->quick, "--target cpu: a small grid (under 2 minutes)");
  cmd->add_option("--out", o->out,
                  "output: the calibrated device file (--from-deepbench, --measurements) or the "
                  "system file, with the device and raw CSV beside it (--target cpu)");
  auto* db = cmd->add_option("--from-deepbench", o->deepbench_dir,
                             "DeepBench data folder (shared/data/deepbench)")
                 ->check(CLI::ExistingDirectory);
  cmd->add_option("--dataset", o->dataset, "DeepBench dataset, e.g. P100_baidu_2018");
  cmd->add_option("--precision", o->precision, "DeepBench precision column to fit")
      ->capture_default_str();
  cmd->add_option("--measured-device", o->measured_device,
                  "device file of the card DeepBench measured (default from the dataset)");
  auto* ms = cmd->add_option("--measurements", o->measurements,
                             "an amdahl measurements v1 CSV to fit (e.g. from amdahl-cudabench)")
                 ->check(CLI::ExistingFile);
  cmd->add_option("--base", o->base, "device file to calibrate (its peaks and memory are kept)")
      ->check(CLI::ExistingFile);
  auto* link_base =
      cmd->add_option("--link-base", o->link_base,
                      "--measurements: link file to calibrate from the copy rows (its nominal "
                      "bandwidth is kept)")
          ->check(CLI::ExistingFile);
  auto* link_out = cmd->add_option(
      "--link-out", o->link_out,
      "--measurements: write the calibrated link (per-copy latency, achieved bandwidths) here");
  cmd->add_option("--csv", o->csv, "--from-deepbench: also write the imported measurements here");
  cmd->add_option("--residuals", o->residuals,
                  "also write every measurement with its fitted prediction, error and the "
                  "kernel the prediction assumes (CSV; split train or held_out)");
  auto* cv =
      cmd->add_flag("--cross-validate", o->cross_validate,
                    "--from-deepbench, --measurements: also fit once per fold of shapes and report "
                    "the error of every shape predicted without it (5x the fitting time)");
  auto* check = cmd->add_option("--check", o->check,
                                "--from-deepbench, --measurements: predict every measurement "
                                "with this device file as it is and report the errors per "
                                "entry; nothing is fitted or written (but --residuals)")
                    ->check(CLI::ExistingFile);
  check->excludes(target)->excludes(cv)->excludes(link_base)->excludes(link_out);
  check->excludes("--out")->excludes("--base");
  target->excludes(db)->excludes(ms)->excludes(cv)->excludes(link_base)->excludes(link_out);
  db->excludes(link_base)->excludes(link_out);
  db->excludes(ms);
  cmd->callback([o] {
    if (!o->deepbench_dir.empty())
      run_deepbench(*o);
    else if (!o->measurements.empty())
      run_measurements(*o);
    else if (!o->target.empty())
      run_cpu(*o);
    else
      throw UserError(
          "calibrate needs one of --target cpu, --from-deepbench DIR, --measurements FILE");
  });
}

}  // namespace amdahl::cli
