#pragma once
// Files written under -o DIR: fixed names per command, so runs are comparable.
//   predict, breakdown  prediction.json (the prediction object), timeline.json (Chrome
//                       trace-event JSON of the simulated step: Perfetto, chrome://tracing),
//                       config.json (the resolved configuration: inputs, sizes, system file)
//   sweep               sweep.csv, sweep.json
//   graph               graph.dot, graph.json
//   whatif              whatif.json, whatif.csv
//   report              report.md, summary.csv, classes.csv, bounds.csv, accelerability.csv,
//                       batch_sweep.csv, host_link.csv, scaling.csv, whatif.csv (docs/report.md)

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli/workload.h"
#include "model/prediction.h"

namespace amdahl::cli {

nlohmann::json timeline_json(const model::Prediction& p, const graphs::OpGraph& graph);

// -o DIR: the files a command writes, held until it has finished and then written atomically
// (util/atomic_file.h), so a run that fails leaves DIR as it was. DIR must be absent or empty
// unless `force` (--force): earlier results are never replaced by accident. With no DIR,
// nothing is written.
class OutputDir {
 public:
  // Checks DIR at once (before any work): a file in its place, or a non-empty folder without
  // `force`, is a UserError.
  OutputDir(std::string dir, bool force);
  explicit operator bool() const { return !dir_.empty(); }
  // Holds a file for commit(); ignored with no DIR, so callers test the OutputDir first to
  // avoid building the text at all.
  void add(const std::string& name, std::string text);
  // Creates DIR when absent, writes every file, and names each on stderr.
  void commit();

 private:
  std::string dir_;
  bool force_;
  std::vector<std::pair<std::string, std::string>> files_;  // name, text
};

// predict and breakdown: prediction.json, timeline.json and config.json.
void add_prediction_files(OutputDir& out, const WorkloadOptions& o, const Workload& w,
                          const model::Prediction& p);

}  // namespace amdahl::cli
