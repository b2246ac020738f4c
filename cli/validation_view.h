#pragma once
// What validate prints and draws of a comparison with measured runs, shared by `validate` and
// `report --measured`.

#include <string>

#include "cli/figures.h"
#include "hw/system.h"
#include "model/prediction.h"
#include "util/table.h"
#include "validate/comparison.h"

namespace amdahl::cli {

// The prediction of one measured configuration on `device` (empty: the system's), its
// parameter count checked when the measurement gives one. Throws UserError.
model::Prediction predict_run(const validate::MeasuredRun& run, const hw::SystemSpec& system,
                              const std::string& device);

// The group summaries: percentages in a table, fractions in CSV.
Table summary_table(const validate::ValidationReport& r, bool csv);

// Predicted against measured step time (whole-step points), a colour per mode and precision.
Figure validation_figure(const std::string& name, const validate::ValidationReport& r,
                         const std::string& system);

}  // namespace amdahl::cli
