#pragma once
// Files written under -o DIR: fixed names, so runs are comparable.
//   prediction.json  the prediction object
//   timeline.json    Chrome trace-event JSON of the simulated step (Perfetto,
//                    chrome://tracing)
//   config.json      the resolved configuration (inputs, sizes, system file)

#include <nlohmann/json.hpp>
#include <string>

#include "cli/workload.h"
#include "model/prediction.h"

namespace amdahl::cli {

nlohmann::json timeline_json(const model::Prediction& p, const graphs::OpGraph& graph);
// Writes `text` to `path`; UserError "PATH: cannot write" when it cannot.
void write_text_file(const std::string& path, const std::string& text);
void write_output_files(const std::string& dir, const WorkloadOptions& o, const Workload& w,
                        const model::Prediction& p);

}  // namespace amdahl::cli
