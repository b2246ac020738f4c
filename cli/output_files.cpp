#include "cli/output_files.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "cli/report.h"
#include "util/error.h"

namespace amdahl::cli {

nlohmann::json timeline_json(const model::Prediction& p, const graphs::OpGraph& g) {
  nlohmann::json events = nlohmann::json::array();
  auto lane = [&](model::Resource r, int copy_lane) -> std::pair<int, std::string> {
    switch (r) {
      case model::Resource::kHost:
        return {1, "host thread (ops)"};
      case model::Resource::kCompute:
        return {2, p.device + " compute stream"};
      case model::Resource::kCopy:
        return {10 + copy_lane, fmt::format("copy engine {}", copy_lane)};
    }
    return {0, "?"};
  };
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"args", {{"name", fmt::format("{} on {}", p.workload, p.system)}}}});
  events.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"tid", 0},
                    {"args", {{"name", "host dispatch"}}}});
  std::map<int, std::string> lanes;
  for (graphs::OpId id = 0; id < g.size(); ++id) {
    const auto& op = g.op(id);
    const auto& s = p.schedule.ops[id];
    const auto [tid, name] = lane(p.resources[id], s.lane);
    lanes[tid] = name;
    nlohmann::json args = {{"phase", graphs::phase_name(op.phase)},
                           {"layer", op.layer},
                           {"flops", op.flops},
                           {"bytes", op.bytes()},
                           {"bound", model::bound_name(p.costs[id].bound)},
                           {"issued_us", s.issue_s * 1e6}};
    if (p.costs[id].kernel.algorithm != model::Algorithm::kNone)
      args["kernel"] = model::kernel_name(p.costs[id].kernel);
    events.push_back({{"name", op.name},
                      {"cat", graphs::op_class_name(op.op_class)},
                      {"ph", "X"},
                      {"ts", s.start_s * 1e6},
                      {"dur", (s.end_s - s.start_s) * 1e6},
                      {"pid", 1},
                      {"tid", tid},
                      {"args", std::move(args)}});
  }
  for (const auto& c : p.schedule.copies) {
    const int tid = 10 + c.lane;
    lanes[tid] = fmt::format("copy engine {}", c.lane);
    events.push_back(
        {{"name", fmt::format("{} -> {}", g.op(c.from).name, g.op(c.to).name)},
         {"cat", "transfer"},
         {"ph", "X"},
         {"ts", c.start_s * 1e6},
         {"dur", (c.end_s - c.start_s) * 1e6},
         {"pid", 1},
         {"tid", tid},
         {"args",
          {{"direction", c.to_device ? "host to device" : "device to host"}, {"bytes", c.bytes}}}});
  }
  for (const auto& [tid, name] : lanes)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", tid},
                      {"args", {{"name", name}}}});
  for (const auto& iv : p.schedule.critical_path)
    if (iv.op == graphs::kNoOp)
      events.push_back({{"name", "host (dispatch/sync)"},
                        {"cat", "host"},
                        {"ph", "X"},
                        {"ts", iv.start_s * 1e6},
                        {"dur", (iv.end_s - iv.start_s) * 1e6},
                        {"pid", 1},
                        {"tid", 0}});
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out || !(out << text)) throw UserError(fmt::format("{}: cannot write", path));
}

namespace {
void write_json(const std::filesystem::path& path, const nlohmann::json& j) {
  write_text_file(path.string(), j.dump(1) + "\n");
}
}  // namespace

void write_output_files(const std::string& dir, const WorkloadOptions& o, const Workload& w,
                        const model::Prediction& p) {
  prepare_out_dir(dir);
  const std::filesystem::path d(dir);
  write_json(d / "prediction.json", prediction_json(p));
  write_json(d / "timeline.json", timeline_json(p, w.lowered.graph));
  nlohmann::json config;
  config["model"] = o.model;
  config["onnx"] = o.onnx;
  config["graph"] = o.graph_file;
  config["system"] = o.system;
  config["system_file"] = w.system.file;
  config["device"] = p.device;
  config["sizes"] = w.network.sizes;
  config["mode"] = o.mode;
  config["precision"] = o.precision;
  write_json(d / "config.json", config);
}

}  // namespace amdahl::cli
