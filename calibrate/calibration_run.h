#pragma once
// One calibration, end to end (`amdahl calibrate SOURCE`): read the measurements of a source,
// load the base device, fit its efficiency classes (calibration.h) and, from measurements that
// have them, the launch latency, a CPU's fresh-allocation cost and the link's copy curves
// (link_fit.h); collect the provenance and write the calibrated files. Every file is rendered,
// written to a temporary and loaded back before any of them replaces its target
// (profile_writer.h): a failed fit or a file that does not load leaves the previous files in
// place. The result is a summary that reports itself (calibration_summary.h); nothing is
// printed but `log`'s progress lines of a live CPU measurement.
//
// run_check predicts measurements with a device file as it is (check_device), nothing fitted.
//
// Failures (unreadable or malformed measurements, an unknown dataset, a device file that does
// not load, a class that cannot be fitted, a missing base or output) throw UserError.

#include <ostream>
#include <string>
#include <variant>

#include "calibrate/calibration_summary.h"

namespace amdahl::calibrate {

// Published DeepBench kernel results (deepbench.h).
struct DeepBenchSource {
  std::string dir;  // the DeepBench data folder (shared/data/deepbench)
  std::string dataset;
  std::string precision = "fp32";
  // Device file of the card the dataset was measured on; empty: the catalog device file that
  // lists the dataset under `deepbench_datasets` (deepbench_measured_device).
  std::string measured_device;
  std::string catalog_dir;  // where that device file is looked for; empty: hw::catalog_dir()
  std::string csv;          // fit only: also write the imported measurements here (optional)
};

// An amdahl measurements v1 CSV (measurement_format.md), e.g. from amdahl-cudabench.
struct MeasurementsSource {
  std::string file;
  // Fit only, both or neither: the link file to calibrate from the copy rows (its nominal
  // bandwidth kept) and where to write the calibrated link.
  std::string link_base;
  std::string link_out;
};

// Kernels timed through PyTorch in the layout of shared/data/h200 (torch_kernels.h).
struct TorchKernelsSource {
  std::string dir;        // holds kernels/ and info.json
  std::string link_base;  // as MeasurementsSource
  std::string link_out;
  std::string csv;  // fit only: also write the imported measurements here (optional)
};

// This machine's CPU, measured now (cpu/cpu_calibration.h).
struct CpuSource {
  bool quick = false;  // a small grid
};

struct CalibrationRequest {
  std::variant<DeepBenchSource, MeasurementsSource, TorchKernelsSource, CpuSource> source;
  std::string base;  // device file to calibrate (peaks and memory kept); not for CpuSource
  // The calibrated device file; for CpuSource the system file, with the device and the raw
  // measurements beside it.
  std::string out;
  std::string residuals;        // also write every fitted row's prediction here (optional)
  bool cross_validate = false;  // also fit once per fold of shapes; not for CpuSource
  FitProgress progress;         // told before each entry of the main fit (optional)
  // --force: every file written (out, residuals, a source's csv and link_out) may replace an
  // existing regular file; never a pipe, device or input of the run (util/path_policy.h).
  bool force = false;
};

// Throws UserError unless every file `request` would write may be written (check_output_file,
// util/path_policy.h: none an input the request names, but --out may name --base and
// --link-out --link-base, a refit in place) and no two of them are the same:
// checked before any measurement is read or fitted. The writes check again.
void check_outputs(const CalibrationRequest& request);

// `log` gets the progress of a live CPU measurement (CpuSource); other sources write nothing.
CalibrationSummary run_calibration(const CalibrationRequest& request, std::ostream& log);

struct CheckRequest {
  std::string device;  // the device file to check, as it is
  // csv, link_*: not used
  std::variant<DeepBenchSource, MeasurementsSource, TorchKernelsSource> source;
  std::string residuals;  // also write every checked row's prediction here (optional)
  bool force = false;     // as CalibrationRequest::force
};

// Throws UserError when the source has no row of an entry the device's plan calibrates.
CheckSummary run_check(const CheckRequest& request);

}  // namespace amdahl::calibrate
