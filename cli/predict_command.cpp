#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/json_text.h"
#include "cli/output_files.h"
#include "cli/report.h"
#include "cli/workload.h"

namespace amdahl::cli {

void register_predict(CLI::App& app) {
  auto o = std::make_shared<WorkloadOptions>();
  CLI::App* cmd =
      app.add_subcommand("predict", "predict the time of one training step or inference pass");
  add_workload_options(cmd, *o, true, {"table", "csv", "json"});
  cmd->callback([o] {
    OutputDir out(o->out_dir, o->force);
    const Workload w = load_workload(*o);
    const model::Prediction p = model::predict(w.lowered, w.system, w.predict);
    switch (parse_format(o->format)) {
      case Format::kJson:
        std::cout << json_text(prediction_json(p), 2) << '\n';
        break;
      case Format::kCsv:
        print_prediction_csv(std::cout, p);
        break;
      case Format::kTable:
        print_prediction_table(std::cout, p);
        break;
    }
    add_prediction_files(out, *o, w, p);
    out.commit();
  });
}

void register_breakdown(CLI::App& app) {
  auto o = std::make_shared<WorkloadOptions>();
  CLI::App* cmd = app.add_subcommand(
      "breakdown", "where the time goes: by op class, phase, layer and binding resource");
  add_workload_options(cmd, *o, true, {"table", "csv", "json"});
  cmd->callback([o] {
    OutputDir out(o->out_dir, o->force);
    const Workload w = load_workload(*o);
    const model::Prediction p = model::predict(w.lowered, w.system, w.predict);
    switch (parse_format(o->format)) {
      case Format::kJson:
        std::cout << json_text(breakdown_json(p, w.lowered.graph), 2) << '\n';
        break;
      case Format::kCsv:
        print_breakdown_csv(std::cout, p, w.lowered.graph);
        break;
      case Format::kTable:
        print_breakdown_table(std::cout, p, w.lowered.graph);
        break;
    }
    add_prediction_files(out, *o, w, p);
    out.commit();
  });
}

}  // namespace amdahl::cli
