#pragma once
// What a calibration run (calibration_run.h) did, able to report itself briefly or in full
// (as Ceres' Solver::Summary does). The reports are text; the library prints nothing.

#include <map>
#include <string>
#include <vector>

#include "calibrate/calibration.h"
#include "calibrate/link_fit.h"

namespace amdahl::calibrate {

// A fit: the calibrated device, and what else was fitted and written.
struct CalibrationSummary {
  std::string source;       // "DeepBench P100_baidu_2018 fp32", "h200.csv", "this machine's CPU"
  Calibration calibration;  // the fitted classes and their held-out errors
  std::map<std::string, int> library_rows_left_out;  // per class (prefer_framework_rows)
  std::vector<CopyCurve> copy_curves;                // measurements with copy rows
  LaunchTimes launch;                                // measurements with launch rows
  std::vector<CrossValidation> cross_validation;     // only when requested
  // Every file written, one group per "wrote" line of the full report, in writing order.
  std::vector<std::vector<std::string>> written;

  // One line: the source, the entries fitted with their rows, the held-out median error
  // range and the files written.
  std::string brief_report() const;
  // The tables `amdahl calibrate` prints: per entry the fitted parameters and held-out
  // errors, the algorithm agreement, the copy curves and launch times, the cross-validation,
  // and the files written.
  std::string full_report() const;
};

// A device file checked against measurements, nothing fitted (run_check).
struct CheckSummary {
  std::string device;  // the device file, as given
  std::string source;  // what its predictions were checked against
  std::vector<EntryCheck> checks;
  ErrorStats total;       // every checked row
  std::string residuals;  // written residuals file, empty when none

  // One line: the device, the source, the rows and the overall median and p90 |err|.
  std::string brief_report() const;
  // The per-entry error table (with the overall row), the algorithm agreement and the
  // residuals file written.
  std::string full_report() const;
};

}  // namespace amdahl::calibrate
