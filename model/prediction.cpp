#include "model/prediction.h"

#include <fmt/format.h>

#include <algorithm>

#include "hw/units.h"
#include "model/roofline.h"
#include "util/error.h"

namespace amdahl::model {

Prediction predict(const graphs::LoweredNetwork& net, const hw::SystemSpec& system,
                   const PredictOptions& options) {
  Prediction p;
  p.workload = net.name;
  p.system = system.name;
  p.device = options.device.empty() ? system.default_device : options.device;
  const hw::DeviceSpec& device = system.device(p.device);
  p.device_model = device.model;
  p.batch = options.batch;
  p.mode = options.mode;
  p.precision = options.precision;
  p.parameters = net.parameters;
  p.memory = net.memory;
  p.device_memory_bytes = device.memory.capacity_bytes;
  p.op_count = net.graph.size();

  const bool on_host = device.kind == hw::DeviceKind::kCpu;
  const hw::DeviceSpec* host = on_host ? &device : system.host_of(p.device);
  const hw::LinkSpec* link = host && !on_host ? system.link_between(host->name, p.device) : nullptr;
  const hw::RuntimeSpec& rt = system.runtime;

  ScheduleInput in;
  in.graph = &net.graph;
  in.dispatch_s = rt.dispatch_per_op_s;
  in.sync_latency_s = rt.sync_latency_s;
  in.graph_capture = rt.graph_capture;
  in.copy_engines = device.copy_engines;
  in.sync_at_end = rt.sync != hw::SyncPoint::kNone;
  for (graphs::OpId id = 0; id < net.graph.size(); ++id) {
    const graphs::Operator& op = net.graph.op(id);
    p.total_flops += op.flops;
    if (op.op_class == graphs::OpClass::kTransfer) {
      if (on_host) {
        in.costs.push_back(
            OpCost{.bound = Bound::kTransfer, .reason = "input already in host memory"});
        in.resources.push_back(Resource::kHost);
      } else if (link) {
        in.costs.push_back(
            estimate_transfer(op.bytes_written, *link, Direction::kHostToDevice, rt.pinned_inputs));
        in.resources.push_back(Resource::kCopy);
      } else {
        in.costs.push_back(OpCost{.bound = Bound::kTransfer,
                                  .reason = "no host link in this system; transfer not costed"});
        in.resources.push_back(Resource::kCopy);
        p.assumptions.push_back(
            fmt::format("{} has no link to a host: input copies cost nothing", p.device));
      }
      continue;
    }
    p.total_bytes += op.bytes();
    in.costs.push_back(estimate(op, device));
    in.resources.push_back(on_host ? Resource::kHost : Resource::kCompute);
    if (!in.costs.back().reason.empty()) p.assumptions.push_back(in.costs.back().reason);
    if (rt.sync == hw::SyncPoint::kAfterLoss && op.phase == graphs::Phase::kForward &&
        op.kind == "softmax_cross_entropy")
      in.sync_after = id;
  }
  p.schedule = simulate(in);
  p.costs = std::move(in.costs);
  p.resources = std::move(in.resources);
  p.step_time_s = p.schedule.makespan_s;
  p.samples_per_s =
      p.step_time_s > 0 && p.batch > 0 ? static_cast<double>(p.batch) / p.step_time_s : 0;

  for (const PathInterval& iv : p.schedule.critical_path) {
    const double dt = iv.end_s - iv.start_s;
    p.by_bound[std::string(bound_name(iv.bound))] += dt;
    if (iv.op == graphs::kNoOp) {
      p.by_class["dispatch"] += dt;
      p.by_phase["dispatch"] += dt;
    } else {
      const graphs::Operator& op = net.graph.op(iv.op);
      p.by_class[std::string(graphs::op_class_name(op.op_class))] += dt;
      p.by_phase[std::string(graphs::phase_name(op.phase))] += dt;
    }
  }
  for (graphs::OpId id = 0; id < net.graph.size(); ++id)
    p.busy_by_class[std::string(graphs::op_class_name(net.graph.op(id).op_class))] +=
        p.costs[id].time_s;

  // Everything the prediction relied on that was not measured.
  std::vector<std::string> a;
  auto uncalibrated = [&](const std::string& what, bool calibrated) {
    if (!calibrated)
      a.push_back(fmt::format("uncalibrated: {} (efficiencies are the file's defaults)", what));
  };
  uncalibrated(fmt::format("device {} ({})", device.name, device.model), device.calibrated);
  if (host && host != &device)
    uncalibrated(fmt::format("host {} ({})", host->name, host->model), host->calibrated);
  if (link) uncalibrated(fmt::format("link {} ({})", link->name, link->model), link->calibrated);
  if (!rt.calibrated)
    a.push_back(fmt::format("uncalibrated: runtime {} (dispatch {} per op)", rt.name,
                            hw::format_quantity(rt.dispatch_per_op_s, hw::Dimension::kTime)));
  a.insert(a.end(), device.assumptions.begin(), device.assumptions.end());
  if (host && host != &device)
    a.insert(a.end(), host->assumptions.begin(), host->assumptions.end());
  if (link) a.insert(a.end(), link->assumptions.begin(), link->assumptions.end());
  a.insert(a.end(), rt.assumptions.begin(), rt.assumptions.end());
  a.push_back(fmt::format("weights resident on {}; step inputs copied from {} host memory",
                          p.device, rt.pinned_inputs ? "pinned" : "pageable"));
  a.insert(a.end(), p.assumptions.begin(), p.assumptions.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  p.assumptions = std::move(a);
  return p;
}

}  // namespace amdahl::model
