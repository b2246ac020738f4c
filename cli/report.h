#pragma once
// Rendering predictions: the JSON object of docs/output-format.md, tables and CSV.

#include <nlohmann/json.hpp>
#include <ostream>

#include "model/prediction.h"

namespace amdahl::cli {

// workload, system, device, batch, mode, precision, step_time_s, samples_per_s, by_class,
// by_bound, by_phase, ops, parameters, memory (footprint in bytes), flops, assumptions.
nlohmann::json prediction_json(const model::Prediction& p);

// Prints the memory footprint; warns when its peak exceeds the device's memory.
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

// "12.3 ms" style rendering of seconds.
std::string seconds(double s);

}  // namespace amdahl::cli
