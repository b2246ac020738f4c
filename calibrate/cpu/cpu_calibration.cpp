#include "calibrate/cpu/cpu_calibration.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "calibrate/cpu/cpu_benchmarks.h"
#include "calibrate/cpu/framework_kernels.h"
#include "calibrate/measured_op.h"
#include "calibrate/profile_writer.h"
#include "hw/system_loader.h"
#include "model/efficiency.h"
#include "util/error.h"
#include "util/path_policy.h"
#include "util/percent.h"
#include "util/suggest.h"
#include "util/temp_dir.h"

namespace amdahl::calibrate {
namespace fs = std::filesystem;
namespace {

struct CpuInfo {
  std::string model = "unknown CPU";
  double mhz = 0;
  int cores = 1;
  std::set<std::string> flags;
  double mem_bytes = 0;
  double llc_bytes = 0;
};

CpuInfo read_cpu_info() {
  CpuInfo info;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name") info.model = value;
    if (key == "cpu MHz" && info.mhz == 0) info.mhz = std::atof(value.c_str());
    if (key == "flags" && info.flags.empty()) {
      std::istringstream in(value);
      std::string f;
      while (in >> f) info.flags.insert(f);
    }
  }
  info.cores = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  std::ifstream meminfo("/proc/meminfo");
  while (std::getline(meminfo, line))
    if (line.starts_with("MemTotal:")) info.mem_bytes = std::atof(line.c_str() + 9) * 1024;
  for (int index = 0; index < 8; ++index) {
    std::ifstream size(fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/size", index));
    std::string text;
    if (!(size >> text)) break;
    double v = std::atof(text.c_str());
    if (text.ends_with("K")) v *= 1024;
    if (text.ends_with("M")) v *= 1024 * 1024;
    info.llc_bytes = std::max(info.llc_bytes, v);
  }
  return info;
}

// FLOP per cycle per core at fp32 and the reason.
std::pair<int, std::string> fp32_flop_per_cycle(const CpuInfo& info) {
  if (info.flags.count("avx512f"))
    return {64, "avx512f: 2 FMA units x 16 fp32 lanes x 2 (ASSUMPTION: 2 FMA units per core)"};
  if (info.flags.count("avx2") && info.flags.count("fma"))
    return {32, "avx2+fma: 2 FMA units x 8 fp32 lanes x 2 (ASSUMPTION: 2 FMA units per core)"};
  return {8, "sse: 2 units x 4 fp32 lanes (ASSUMPTION)"};
}

std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

double dram_triad_bandwidth(const MeasurementSet& set) {
  double best_bytes = 0, bandwidth = 0;
  for (const auto& m : set.rows)
    if (m.bench == "mem_triad" && m.bytes > best_bytes) {
      best_bytes = m.bytes;
      bandwidth = m.bytes / m.time_s;
    }
  if (bandwidth <= 0) throw InternalError("the memory benchmark wrote no triad row");
  return bandwidth;
}

std::string base_device_text(const CpuInfo& info, double bandwidth, const std::string& date,
                             const std::optional<FreshAllocation>& allocation) {
  const auto [per_cycle, why] = fp32_flop_per_cycle(info);
  const double peak = info.cores * info.mhz * 1e6 * per_cycle;
  std::string t;
  t += fmt::format("# This machine's CPU, measured by `amdahl calibrate cpu` on {}.\n", date);
  t += fmt::format("name: {}\n", double_quoted(info.model));
  t += "kind: cpu\n";
  t += "source: \"/proc/cpuinfo, /proc/meminfo and sysfs of this machine; bandwidth measured\"\n";
  t += fmt::format("parallel_units: {}            # online cores (threads)\n", info.cores);
  t += fmt::format("clock: {:.0f} MHz\n", info.mhz);
  t += "peak:\n";
  t += fmt::format(
      "  fp32: {{rate: {:.1f} GFLOP/s, unit: simd, source: \"{} cores x {:.0f} MHz x {} "
      "({})\"}}\n",
      peak / 1e9, info.cores, info.mhz, per_cycle, why);
  t += fmt::format("  fp64: {{rate: {:.1f} GFLOP/s, unit: simd, source: \"half the fp32 rate\"}}\n",
                   peak / 2e9);
  t += "memory:\n";
  t += fmt::format("  capacity: {:.0f} MiB\n", info.mem_bytes / (1024 * 1024));
  t += fmt::format("  bandwidth: {:.2f} GB/s\n", bandwidth / 1e9);
  if (info.llc_bytes > 0) t += fmt::format("  l2_cache: {:.0f} KiB\n", info.llc_bytes / 1024);
  t += "  source: \"capacity /proc/meminfo; bandwidth: measured triad at the largest size of this "
       "run (DRAM-resident); cache: largest cache level in sysfs\"\n";
  if (allocation) t += "allocation: " + allocation_yaml(*allocation) + "\n";
  t += "launch_latency: 0 s          # a CPU op starts when the host thread reaches it\n";
  t += "calibrated: false\n";
  t += "efficiency:\n";
  t += "  default: {compute: 0.5, memory: 0.8, source: \"assumption: classes not measured\"}\n";
  return t;
}

// Whether the model's im2col + GEMM rule (model/efficiency.h runs_as_gemm) sends the same
// convolutions to the GEMM path as the framework did (each framework row's `backend`).
std::string gemm_path_check(const MeasurementSet& set, const hw::DeviceSpec& device) {
  int checked = 0, as_gemm = 0;
  std::vector<std::string> disagree;
  for (const auto& m : set.rows) {
    const auto it = m.shape.find("backend");
    if (!m.bench.starts_with("conv_") || it == m.shape.end()) continue;
    const bool model = model::runs_as_gemm(to_operator(m), device.efficiency_for(OpClass::kConv));
    const bool framework = it->second == "Slow2d";
    ++checked;
    as_gemm += framework ? 1 : 0;
    if (model != framework)
      disagree.push_back(
          fmt::format("{} {} (framework: {})", m.bench, format_shape(m.shape), it->second));
  }
  if (checked == 0) return "";
  std::string out = fmt::format(
      "convolution backends: the framework ran {} of {} rows as im2col + GEMM (Slow2d); the "
      "model's rule agrees on {}\n",
      as_gemm, checked, checked - static_cast<int>(disagree.size()));
  for (const auto& d : disagree) out += "  disagrees: " + d + "\n";
  return out;
}

std::string with_suffix(const std::string& path, const std::string& suffix) {
  const fs::path p(path);
  return (p.parent_path() / (p.stem().string() + suffix)).string();
}

}  // namespace

std::vector<ClassPlan> cpu_plan(const MeasurementSet& set) {
  FitOptions threads;
  threads.fit_thread_scaling = true;
  // Convolutions: the strided data gradients may or may not do the zero work (fitted). (A
  // cache term on their memory roofline was tried and dropped: fitted to the few large
  // framework convolutions, whose fresh outputs' page faults it stood in for, it drove
  // `memory` to 0 and made predictions grow with the square of the batch beyond the sweep;
  // hw::AllocationSpec models those faults instead.)
  FitOptions conv;
  conv.fit_strided_work = true;
  conv.max_evaluations = 20000;  // noisy framework timings: LM may need more steps
  const auto number = [&](const char* key) {
    const auto it = set.provenance.find(key);
    return it == set.provenance.end() ? 0.0 : std::atof(it->second.c_str());
  };
  conv.gemm_pointwise_below_batch =
      static_cast<int>(number("framework_conv_gemm_pointwise_below_batch"));
  conv.gemm_single_max_input = number("framework_conv_gemm_single_max_input");
  conv.name = "overlapped";
  FitOptions conv_series = conv;
  conv_series.name = "in series";
  conv_series.memory_in_series = true;
  // A linear layer's three GEMMs (x W^T, dY W, dY^T X) reach different rates through a
  // reference BLAS (its loops differ by transposition): one entry per phase.
  // A reference BLAS has no cache blocking: as a second structure, its GEMMs re-read an
  // operand per result row, with a cache step on that operand's size (model/efficiency.h).
  FitOptions unblocked = threads;
  unblocked.name = "unblocked";
  unblocked.unblocked = true;
  unblocked.fit_cache = true;
  unblocked.max_evaluations = 20000;  // compute is unseen when every row is memory-bound
  return {{{OpClass::kGemm}, ModelForm::kGemmLike, threads, {unblocked}},
          {{OpClass::kGemm, Phase::kBackwardData}, ModelForm::kGemmLike, threads, {unblocked}},
          {{OpClass::kGemm, Phase::kBackwardWeight}, ModelForm::kGemmLike, threads, {unblocked}},
          {{OpClass::kConv}, ModelForm::kGemmLike, conv, {conv_series}},
          // size sweeps from L1-resident to DRAM-resident operands
          memory_bound_plan({OpClass::kElementwise}),
          memory_bound_plan({OpClass::kReduction}),
          memory_bound_plan({OpClass::kDataMovement}),
          // framework_kernels.py only: batch norm, max pooling (forward and data gradient
          // each; PyTorch 1.13's max-pool forward runs scalar comparisons at a fraction of a
          // GFLOP/s, so it is fitted with a compute term) and the per-parameter update of a
          // training step (zero_grad, gradient accumulation, SGD-momentum step)
          memory_bound_plan({OpClass::kNormalization}),
          memory_bound_plan({OpClass::kNormalization, Phase::kBackwardData}),
          {{OpClass::kPooling}, ModelForm::kGemmLike, {}},
          memory_bound_plan({OpClass::kPooling, Phase::kBackwardData}),
          memory_bound_plan({OpClass::kOptimizer})};
}

CpuCalibrationResult calibrate_cpu(const CpuCalibrationOptions& options, std::ostream& log) {
  CpuCalibrationResult result;
  result.system_path = options.out_system;
  result.device_path = with_suffix(options.out_system, ".device.yaml");
  result.csv_path = with_suffix(options.out_system, ".csv");
  const fs::path dir = fs::path(options.out_system).has_parent_path()
                           ? fs::path(options.out_system).parent_path()
                           : fs::path(".");
  if (!fs::is_directory(dir))
    throw UserError(fmt::format("{}: folder {} does not exist", options.out_system, dir.string()));
  // Before the minutes of measuring: each file may be written.
  for (const std::string& path : {result.system_path, result.device_path, result.csv_path})
    check_output_file(path, options.force, "--out");

  const CpuInfo info = read_cpu_info();
  const std::string date = utc_date();
  MeasurementSet set;
  utsname uts{};
  uname(&uts);
  set.provenance = {{"machine", host_name()},
                    {"cpu_model", info.model},
                    {"cores", std::to_string(info.cores)},
                    {"kernel", fmt::format("{} {}", uts.sysname, uts.release)},
                    {"onednn", onednn_version()},
                    {"date", date},
                    {"mode", options.quick ? "quick" : "full"},
                    {"command", "amdahl calibrate cpu"}};
  CpuBenchOptions bench;
  bench.quick = options.quick;
  bench.cores = info.cores;
  log << fmt::format("calibrating {} ({} cores, {:.0f} MHz)\n", info.model, info.cores, info.mhz);
  run_cpu_benchmarks(bench, set, log);

  // The framework's own kernels and its dispatch cost (framework_kernels.h).
  FrameworkKernelOptions framework_options;
  framework_options.python = options.python;
  framework_options.quick = options.quick;
  FrameworkKernels framework;
  std::string why_not;
  log << "framework kernels (calibrate/cpu/framework_kernels.py):\n";
  result.dispatch_measured = run_framework_kernels(framework_options, framework, why_not);
  if (result.dispatch_measured) {
    set.rows.insert(set.rows.end(), framework.rows.begin(), framework.rows.end());
    for (const auto& [k, v] : framework.provenance) set.provenance[k] = v;
    log << fmt::format("framework dispatch ({}): {:.2f} us per op\n", framework.framework,
                       framework.dispatch_s * 1e6);
  } else {
    log << fmt::format(
        "framework kernels not measured: {}; the profile describes the libraries' kernels\n",
        why_not);
  }
  const double dispatch_s = framework.dispatch_s;

  const double bandwidth = dram_triad_bandwidth(set);
  const std::optional<FreshAllocation> allocation = fit_allocation(set);
  if (allocation)
    log << fmt::format(
        "fresh allocations above {:.1f} MiB: their pages fault in at {:.3g} GB/s ({} sizes)\n",
        allocation->above_bytes / (1024 * 1024), allocation->bytes_per_s / 1e9, allocation->sizes);
  const std::string base_text = base_device_text(info, bandwidth, date, allocation);
  const hw::DeviceSpec base = [&] {
    const TempDir scratch("amdahl-cpu-base");  // private: nothing can be planted in it
    const std::string tmp = (scratch.path() / "base.yaml").string();
    write_file_atomically({tmp, base_text});
    return hw::load_device_file(tmp);
  }();
  std::map<std::string, int> left_out;
  const MeasurementSet fitted = prefer_framework_rows(set, &left_out);
  for (const auto& [op_class, rows] : left_out)
    log << fmt::format(
        "{}: {} library rows kept in the CSV, not fitted ({}'s own rows of the class are)\n",
        op_class, rows, framework.framework);
  try {
    result.calibration = calibrate_device(fitted, base, cpu_plan(fitted));
  } catch (const UserError& e) {
    // The measurements stay valid when a fit fails (`calibrate measurements` fits them
    // again); they are kept under a name of their own, so that the CSV, device and system of
    // an earlier run at this path still belong together.
    const std::string unfitted = with_suffix(options.out_system, ".unfitted.csv");
    // The tool's own leftover of a failed run: replaced without --force (never a pipe, a
    // device or an input).
    write_file_atomically({unfitted, measurements_text(set), {}, true});
    throw UserError(fmt::format("{} (the measurements are in {}; no file of {} was changed)",
                                e.what(), unfitted, options.out_system));
  }
  write_file_atomically({result.csv_path, measurements_text(set), {}, options.force});
  log << gemm_path_check(fitted, result.calibration.device);
  const std::string through =
      result.dispatch_measured
          ? fmt::format("; {} on {} thread(s), BLAS {} (the fitted classes' rows)",
                        framework.framework, set.provenance["framework_threads"],
                        set.provenance["framework_blas"])
          : std::string();
  const std::string provenance = fmt::format(
      "{} measured on {} ({}, {} cores) at {} with oneDNN {}{}; {}; fitted by `amdahl calibrate "
      "cpu{}` (docs/calibration.md)",
      fs::path(result.csv_path).filename().string(), host_name(), info.model, info.cores, date,
      onednn_version(), through, set.provenance.at("kernel"), options.quick ? " --quick" : "");
  std::vector<std::string> sources;
  for (const auto& f : result.calibration.fits)
    sources.push_back(fmt::format(
        "fitted to {}: {} measurements; held out (every 5th shape) {}: median |err| {}, p90 {}",
        fs::path(result.csv_path).filename().string(), f.train.count, f.held_out.count,
        format_percent(f.held_out.median_abs), format_percent(f.held_out.p90_abs)));
  write_file_atomically(
      {result.device_path,
       render_calibrated_device(base_text, result.calibration.fits, sources, provenance),
       [](const std::string& tmp) { hw::load_device_file(tmp); }, options.force});

  std::string sys;
  sys += fmt::format("# This machine as a CPU-only system, from `amdahl calibrate cpu` on {}.\n",
                     date);
  sys += fmt::format("name: {}\n", fs::path(options.out_system).stem().string());
  sys += fmt::format("description: {}\n", double_quoted(fmt::format("{} ({} cores), calibrated {}",
                                                                    info.model, info.cores, date)));
  sys += "source: \"amdahl calibrate cpu (docs/calibration.md)\"\n";
  sys += "devices:\n";
  sys += fmt::format("  - {{name: cpu0, include: {}}}\n",
                     fs::path(result.device_path).filename().string());
  sys += "runtime:\n";
  if (result.dispatch_measured) {
    sys += fmt::format("  name: {}\n", double_quoted(framework.framework + " eager (CPU)"));
    sys += fmt::format("  source: {}\n",
                       double_quoted(fmt::format(
                           "measured: one-element adds through {}, median of 1000-add loops ({})",
                           framework.framework, fs::path(result.csv_path).filename().string())));
    sys += fmt::format("  dispatch_per_op: {:.3f} us\n", dispatch_s * 1e6);
    sys += "  calibrated: true\n";
  } else {
    sys += "  name: pytorch eager (CPU)\n";
    sys += fmt::format(
        "  source: {}\n",
        double_quoted(fmt::format("ASSUMPTION: not measured ({}); 10 us is a typical PyTorch "
                                  "eager per-op cost on a CPU",
                                  why_not)));
    sys += "  dispatch_per_op: 10 us\n";
    sys += "  calibrated: false\n";
  }
  sys += "  sync: none\n";
  sys += "default_device: cpu0\n";
  write_file_atomically({result.system_path, sys,
                         [](const std::string& tmp) { hw::load_system(tmp); }, options.force});
  return result;
}

}  // namespace amdahl::calibrate
