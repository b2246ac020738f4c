#include "calibrate/calibration_run.h"

#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <optional>

#include "calibrate/cpu/cpu_calibration.h"
#include "calibrate/cpu/framework_kernels.h"
#include "calibrate/deepbench.h"
#include "calibrate/holdout.h"
#include "calibrate/profile_kernels.h"
#include "calibrate/profile_writer.h"
#include "calibrate/torch_kernels.h"
#include "hw/system_loader.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/path_policy.h"
#include "util/suggest.h"

namespace amdahl::calibrate {
namespace {
namespace fs = std::filesystem;

// What is fitted: the CPU plan for a CPU device, else the GPU plan with FFT (gpu_plan).
std::vector<ClassPlan> plan_for(const hw::DeviceSpec& base, const MeasurementSet& set) {
  return base.kind == hw::DeviceKind::kCpu ? cpu_plan(set) : gpu_plan(true);
}

void require(const std::string& value, const char* what, const char* source) {
  if (value.empty()) throw UserError(fmt::format("calibrate {}: {} is required", source, what));
}

std::vector<std::string> entry_sources(const Calibration& c, const std::string& what) {
  std::vector<std::string> out;
  for (const auto& f : c.fits)
    out.push_back(
        !f.source.empty()
            ? f.source
            : fmt::format("fitted to {}: {} measurements{}; held out (every {}th shape) {}: "
                          "median |err| {}, p90 {}",
                          what, f.train.count,
                          f.structure.empty()
                              ? ""
                              : fmt::format("; structure '{}' (chosen by cross-validation on them)",
                                            f.structure),
                          kHoldOutEvery, f.held_out.count, percent(f.held_out.median_abs),
                          percent(f.held_out.p90_abs)));
  return out;
}

// The calibrated device file at `out` from `base_path`, validated by loading it before it is
// written; with `extra_keys` (e.g. a measured launch_latency) set on top.
PendingFile device_file(const std::string& base_path, const std::string& out, bool force,
                        const Calibration& c, const std::string& what,
                        const std::string& provenance,
                        const std::vector<std::pair<std::string, std::string>>& extra_keys = {}) {
  // A calibration that fitted nothing (no entry, no launch latency) is not written as if it
  // had: the base would come out marked `calibrated: true` with nothing measured.
  if (c.fits.empty() && extra_keys.empty())
    throw UserError(fmt::format(
        "{}: nothing was fitted ({}): no measurement of a class amdahl fits; {} is not written",
        what, c.rows_ignored ? fmt::format("{} rows of other classes", c.rows_ignored) : "no rows",
        out));
  return {out,
          set_top_level_keys(render_calibrated_device(read_text_file(base_path), c.fits,
                                                      entry_sources(c, what), provenance),
                             extra_keys),
          [](const std::string& tmp) { hw::load_device_file(tmp); }, force,
          base_path};  // a refit in place (--out naming --base) replaces its base
}

void write_residuals(const std::string& path, bool force, const Calibration& c,
                     CalibrationSummary& s) {
  if (path.empty()) return;
  write_file_atomically({path, residuals_csv(c.fits), {}, force});
  s.written.push_back({path});
}

// A DeepBench dataset's rows, adjusted from the card measured to `target`'s clock; `measured`
// gets that card.
MeasurementSet deepbench_rows(const DeepBenchSource& source, const hw::DeviceSpec& target,
                              hw::DeviceSpec& measured) {
  MeasurementSet set = read_deepbench(source.dir, source.dataset, source.precision);
  const std::string measured_path =
      !source.measured_device.empty()
          ? source.measured_device
          : deepbench_measured_device(source.dataset, source.catalog_dir.empty()
                                                          ? hw::catalog_dir()
                                                          : source.catalog_dir);
  measured = hw::load_device_file(measured_path);
  adjust_for_clock(set, measured, target);
  return set;
}

CalibrationSummary fit(const DeepBenchSource& source, const CalibrationRequest& r) {
  require(source.dataset, "a dataset", "deepbench");
  require(r.base, "the base device file", "deepbench");
  require(r.out, "the output device file", "deepbench");
  const hw::DeviceSpec target = hw::load_device_file(r.base);
  hw::DeviceSpec measured;
  const MeasurementSet set = deepbench_rows(source, target, measured);
  CalibrationSummary s;
  s.source = fmt::format("DeepBench {} {}", source.dataset, source.precision);
  s.calibration = calibrate_device(set, target, gpu_plan(false), r.progress);
  if (r.cross_validate) s.cross_validation = cross_validate(set, target, gpu_plan(false));
  const auto& p = set.provenance;
  const std::string provenance = fmt::format(
      "DeepBench {} ({} {} at {}, {}): {}, host {}, CUDA {}, cuDNN {}, driver {}; precision {}; "
      "measured on {} and adjusted to this card: {}; fitted by `amdahl calibrate deepbench "
      "--dataset {}` (docs/calibration.md)",
      source.dataset, p.at("repo"), p.at("path"), p.at("read_at_commit"),
      p.at("last_modified_date"), p.at("gpu_model"), p.at("cpu_model"), p.at("cuda"), p.at("cudnn"),
      p.at("driver"), source.precision, measured.model, p.at("clock_adjustment"), source.dataset);
  write_files_atomically(
      {device_file(r.base, r.out, r.force, s.calibration, s.source, provenance)});
  if (!source.csv.empty()) write_file_atomically({source.csv, measurements_text(set), {}, r.force});
  s.written.push_back({r.out});
  write_residuals(r.residuals, r.force, s.calibration, s);
  return s;
}

std::string microseconds(double s) { return fmt::format("{:.4g} us", s * 1e6); }

// Measurements read from a file or a folder, fitted as one set.
struct ReadSet {
  MeasurementSet set;
  std::string label;  // the file or folder named in reports and provenance
  std::string command;
  std::string link_base;
  std::string link_out;
};

// launch_latency: the back-to-back launch time where measured (launch mode=async); else, for a
// framework's launches (whose eager rate is its host dispatch), the per-kernel time of a replayed
// CUDA graph: the device's own gap between kernels. 0 when neither was measured.
std::pair<double, const char*> measured_launch_latency(const LaunchTimes& launch) {
  if (launch.async_s > 0) return {launch.async_s, "launch mode=async"};
  if (launch.graph_kernel_s > 0) return {launch.graph_kernel_s, "per kernel of a replayed graph"};
  return {0, ""};
}

// Entries fitted after the measurement set's, on the device it calibrated (profile_kernels.h).
using MoreFits = std::function<std::vector<ClassFit>(const hw::DeviceSpec&)>;

CalibrationSummary fit_set(ReadSet in, const CalibrationRequest& r, CalibrationSummary s,
                           const MoreFits& more = nullptr) {
  require(r.base, "the base device file", in.command.c_str());
  require(r.out, "the output device file", in.command.c_str());
  if (!in.link_out.empty() && in.link_base.empty())
    throw UserError(
        fmt::format("calibrate {}: the calibrated link {} needs the link file to start from",
                    in.command, in.link_out));
  const MeasurementSet& set = in.set;
  s.launch = launch_times(set);
  hw::DeviceSpec base = hw::load_device_file(r.base);
  // Every kernel time includes the launch latency (model/roofline.cpp), so the classes are
  // fitted with the measured one, which the device file then gets.
  const auto [launch_s, launch_what] = measured_launch_latency(s.launch);
  if (launch_s > 0) base.launch_latency_s = launch_s;
  // A CPU measured through a framework: its fresh allocations' cost, from the same file.
  const auto allocation =
      base.kind == hw::DeviceKind::kCpu ? fit_allocation(set) : std::optional<FreshAllocation>();
  if (allocation) base.allocation = {allocation->above_bytes, allocation->bytes_per_s};
  s.source = in.label;
  s.calibration = calibrate_device(set, base, plan_for(base, set), r.progress);
  if (more)
    for (ClassFit& f : more(s.calibration.device)) {
      s.calibration.device.efficiency[f.entry] = f.params;
      s.calibration.fits.push_back(std::move(f));
    }
  s.copy_curves = fit_copy_curves(set);
  if (!in.link_out.empty() && s.copy_curves.empty())
    throw UserError(fmt::format("calibrate {}: {} has no copy rows ({}) for the link {}",
                                in.command, in.label, join(copy_bench_names()), in.link_out));
  if (r.cross_validate) s.cross_validation = cross_validate(set, base, plan_for(base, set));
  std::string provenance = in.label;
  for (const char* key :
       {"device", "machine", "date", "framework", "driver", "cuda", "cublas", "cudnn"})
    if (set.provenance.count(key))
      provenance += fmt::format("; {}: {}", key, set.provenance.at(key));
  provenance += fmt::format("; fitted by `amdahl calibrate {}` (docs/calibration.md)", in.command);
  std::vector<std::pair<std::string, std::string>> device_keys;
  if (launch_s > 0)
    device_keys.push_back({"launch_latency", microseconds(launch_s) + "  # measured: " +
                                                 launch_what + " (" + in.label + ")"});
  if (allocation) device_keys.push_back({"allocation", allocation_yaml(*allocation)});
  // Device and link are validated together before either is written: a bad link base, or a
  // link that fails its schema, leaves both files as they were.
  std::vector<PendingFile> files{
      device_file(r.base, r.out, r.force, s.calibration, in.label, provenance, device_keys)};
  if (!in.link_out.empty())
    files.push_back(
        {in.link_out,
         render_calibrated_link(read_text_file(in.link_base), s.copy_curves, provenance),
         [](const std::string& tmp) { hw::load_link_file(tmp); }, r.force, in.link_base});
  write_files_atomically(files);
  for (const auto& f : files) s.written.push_back({f.path});
  write_residuals(r.residuals, r.force, s.calibration, s);
  return s;
}

CalibrationSummary fit(const MeasurementsSource& source, const CalibrationRequest& r) {
  require(source.file, "a measurements file", "measurements");
  CalibrationSummary s;
  MeasurementSet set =
      prefer_framework_rows(read_measurements(source.file), &s.library_rows_left_out);
  return fit_set({std::move(set), fs::path(source.file).filename().string(), "measurements",
                  source.link_base, source.link_out},
                 r, std::move(s));
}

CalibrationSummary fit(const TorchKernelsSource& source, const CalibrationRequest& r) {
  require(source.dir, "the data folder", "torch");
  MeasurementSet set = read_torch_kernels(source.dir);
  const std::string label =
      fmt::format("{} kernels", fs::path(source.dir).lexically_normal().filename().string());
  // The profile's kernel rows beside the kernels, where the folder has them.
  const fs::path profile = fs::path(source.dir) / kTorchProfile;
  MoreFits more;
  if (fs::exists(profile))
    more = [&](const hw::DeviceSpec& device) {
      return fit_profile_entries(
          profile.string(),
          fmt::format("{} {}", fs::path(source.dir).lexically_normal().filename().string(),
                      kTorchProfile),
          device);
    };
  CalibrationSummary s =
      fit_set({set, label, "torch", source.link_base, source.link_out}, r, {}, more);
  if (!source.csv.empty()) {
    write_file_atomically({source.csv, measurements_text(set), {}, r.force});
    s.written.push_back({source.csv});
  }
  return s;
}

CalibrationSummary fit(const CpuSource& source, const CalibrationRequest& r, std::ostream& log) {
  require(r.out, "the output system file", "cpu");
  if (!r.base.empty())
    throw UserError("calibrate cpu: the device is described from this machine, not from a base");
  if (r.cross_validate)
    throw UserError("calibrate cpu: cross-validation applies to fits of given measurements");
  CpuCalibrationOptions options;
  options.quick = source.quick;
  options.out_system = r.out;
  options.force = r.force;
  const CpuCalibrationResult result = calibrate_cpu(options, log);
  CalibrationSummary s;
  s.source = "this machine's CPU";
  s.calibration = result.calibration;
  s.written.push_back({result.system_path, result.device_path, result.csv_path});
  write_residuals(r.residuals, r.force, s.calibration, s);
  return s;
}

}  // namespace

void check_outputs(const CalibrationRequest& request) {
  struct Output {
    std::string path;
    const char* option;
    std::string updates;  // the input it is the new version of (a refit in place)
  };
  std::vector<Output> outputs{{request.out, "--out", request.base},
                              {request.residuals, "--residuals", ""}};
  // The named input files are inputs from the start (they are read later), so that no output
  // names one.
  std::vector<std::string> inputs{request.base};
  std::visit(
      [&](const auto& source) {
        using S = std::decay_t<decltype(source)>;
        if constexpr (std::is_same_v<S, MeasurementsSource>) inputs.push_back(source.file);
        if constexpr (std::is_same_v<S, DeepBenchSource>) inputs.push_back(source.measured_device);
        if constexpr (std::is_same_v<S, DeepBenchSource> || std::is_same_v<S, TorchKernelsSource>)
          outputs.push_back({source.csv, "--csv", ""});
        if constexpr (std::is_same_v<S, MeasurementsSource> ||
                      std::is_same_v<S, TorchKernelsSource>) {
          inputs.push_back(source.link_base);
          outputs.push_back({source.link_out, "--link-out", source.link_base});
        }
      },
      request.source);
  for (const std::string& in : inputs)
    if (!in.empty()) note_input_file(in);
  std::vector<std::pair<fs::path, const char*>> seen;
  for (const Output& o : outputs) {
    if (o.path.empty()) continue;
    check_output_file(o.path, request.force, o.option, o.updates);
    const fs::path real = resolved_path(o.path);
    for (const auto& [other, other_option] : seen)
      if (other == real)
        throw UserError(fmt::format("{} {}: {} names the same file; each output needs its own",
                                    o.option, excerpt(o.path, 200), other_option));
    seen.push_back({real, o.option});
  }
}

CalibrationSummary run_calibration(const CalibrationRequest& request, std::ostream& log) {
  return std::visit(
      [&](const auto& source) -> CalibrationSummary {
        if constexpr (std::is_same_v<std::decay_t<decltype(source)>, CpuSource>)
          return fit(source, request, log);
        else
          return fit(source, request);
      },
      request.source);
}

CheckSummary run_check(const CheckRequest& request) {
  require(request.device, "the device file to check", "check");
  CheckSummary s;
  s.device = request.device;
  s.residuals = request.residuals;
  MeasurementSet set;
  hw::DeviceSpec device;
  if (const auto* db = std::get_if<DeepBenchSource>(&request.source)) {
    require(db->dataset, "a dataset", "check deepbench");
    device = hw::load_device_file(request.device);
    hw::DeviceSpec measured;
    set = deepbench_rows(*db, device, measured);
    s.source = fmt::format("DeepBench {} {} (measured on {}, adjusted to {})", db->dataset,
                           db->precision, measured.model, device.model);
  } else if (const auto* t = std::get_if<TorchKernelsSource>(&request.source)) {
    require(t->dir, "the data folder", "check torch");
    set = read_torch_kernels(t->dir);
    device = hw::load_device_file(request.device);
    s.source = t->dir;
  } else {
    const auto& m = std::get<MeasurementsSource>(request.source);
    require(m.file, "a measurements file", "check measurements");
    set = prefer_framework_rows(read_measurements(m.file));
    device = hw::load_device_file(request.device);
    s.source = m.file;
  }
  const std::vector<ClassPlan> plan = plan_for(device, set);
  s.checks = check_device(set, device, plan);
  if (s.checks.empty()) {
    std::vector<std::string> entries;
    for (const auto& p : plan) entries.push_back(p.entry.name());
    throw UserError(
        fmt::format("calibrate check: {} has no measurements of an entry calibrated for {} "
                    "({}); nothing to check",
                    s.source, request.device, join(entries)));
  }
  std::vector<double> all;
  for (const auto& c : s.checks)
    for (const auto& r : c.residuals) all.push_back((r.predicted_s - r.measured_s) / r.measured_s);
  s.total = summarize_errors(all);
  if (!request.residuals.empty())
    write_file_atomically({request.residuals, check_residuals_csv(s.checks), {}, request.force});
  return s;
}

}  // namespace amdahl::calibrate
