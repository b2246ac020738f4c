#include "cli/output_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>

#include "cli/json_text.h"
#include "cli/report.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/suggest.h"

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
      case model::Resource::kCollective:
        return {3, p.device + " collective stream (gradient exchanges)"};
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
    nlohmann::json args = {{"phase", phase_name(op.phase)},
                           {"layer", op.layer},
                           {"flops", op.flops},
                           {"bytes", op.bytes()},
                           {"bound", model::bound_name(p.costs[id].bound)},
                           {"issued_us", s.issue_s * 1e6}};
    if (p.costs[id].kernel.algorithm != model::Algorithm::kNone)
      args["kernel"] = model::kernel_name(p.costs[id].kernel);
    events.push_back({{"name", op.name},
                      {"cat", op_class_name(op.op_class)},
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

OutputDir::OutputDir(std::string dir, bool force) : dir_(std::move(dir)), force_(force) {
  if (dir_.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(dir_, ec);
  if (!fs::exists(st)) return;
  if (!fs::is_directory(st))
    throw UserError(fmt::format("-o {}: exists and is not a folder", excerpt(dir_)));
  if (!force_ && !fs::is_empty(dir_, ec))
    throw UserError(fmt::format(
        "-o {}: the folder is not empty; give --force to replace the files amdahl writes there",
        excerpt(dir_)));
}

void OutputDir::add(const std::string& name, std::string text) {
  if (dir_.empty()) return;  // no -o: nothing is kept (callers skip building the text too)
  files_.emplace_back(name, std::move(text));
}

void OutputDir::commit() {
  if (dir_.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool created = fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_))
    throw UserError(
        fmt::format("-o {}: cannot create the folder ({})", excerpt(dir_), ec.message()));
  std::vector<PendingFile> pending;
  std::vector<fs::path> made;  // sub-folders this commit created (a name may hold one)
  for (const auto& [name, text] : files_) {
    const fs::path path = fs::path(dir_) / name;
    for (fs::path up = path.parent_path(); up != fs::path(dir_) && !fs::exists(up);
         up = up.parent_path())
      made.push_back(up);
    fs::create_directories(path.parent_path(), ec);
    pending.push_back({path.string(), text, {}, force_});
  }
  try {
    write_files_atomically(pending);
  } catch (...) {
    std::sort(made.begin(), made.end(), std::greater<>());  // deepest first
    for (const fs::path& d : made) fs::remove(d, ec);
    if (created) fs::remove(dir_, ec);
    throw;
  }
  for (const auto& f : pending) std::cerr << fmt::format("wrote {}\n", f.path);
}

void add_prediction_files(OutputDir& out, const WorkloadOptions& o, const Workload& w,
                          const model::Prediction& p) {
  if (!out) return;  // no -o: nothing to build
  out.add("prediction.json", json_text(prediction_json(p), 1) + "\n");
  out.add("timeline.json", json_text(timeline_json(p, w.lowered.graph), 1) + "\n");
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
  out.add("config.json", json_text(config, 1) + "\n");
}

}  // namespace amdahl::cli
