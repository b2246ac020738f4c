#pragma once
// Rendering predictions: the JSON object of docs/output-format.md, tables and CSV.

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/prediction.h"

namespace amdahl::cli {

// workload, system, device, batch, mode, precision, step_time_s, samples_per_s, by_class,
// by_bound, by_phase, ops, parameters, memory (footprint in bytes), flops, assumptions.
nlohmann::json prediction_json(const model::Prediction& p);

// Prints the memory footprint; warns when its peak exceeds the device's memory.
// "batch 64" or "batch 64 per GPU x 8 GPUs".
std::string batch_text(const model::Prediction& p);
// The first line of a prediction's table: workload, system, device, batch, mode, precision.
std::string prediction_header(const model::Prediction& p);

void print_prediction_table(std::ostream& out, const model::Prediction& p);
// Whether the footprint's peak exceeds the capacity of the prediction's device.
bool memory_exceeded(const model::Prediction& p);
void print_prediction_csv(std::ostream& out, const model::Prediction& p);

// Time and share by op class, phase, layer and binding resource; the 10 costliest ops.
void print_breakdown_table(std::ostream& out, const model::Prediction& p,
                           const graphs::OpGraph& graph);
nlohmann::json breakdown_json(const model::Prediction& p, const graphs::OpGraph& graph);
void print_breakdown_csv(std::ostream& out, const model::Prediction& p,
                         const graphs::OpGraph& graph);

// "\nTITLE:\n  - line" for each assumption (cli/assumption_text.h: sorted, each once);
// nothing when there are none.
void print_assumptions(std::ostream& out, const std::vector<std::string>& lines,
                       std::string_view title = "assumptions");
void print_assumptions(std::ostream& out, const std::vector<Assumption>& assumptions,
                       std::string_view title = "assumptions");

// "12.3 ms" style rendering of seconds.
std::string seconds(double s);
// "12.3%": part / whole to 0.1%; "-" when whole is not positive.
std::string pct(double part, double whole);

}  // namespace amdahl::cli
