#include "cli/study.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cli/workload.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "hw/topology.h"
#include "util/error.h"

namespace amdahl::cli {

namespace {

namespace fs = std::filesystem;

// The smallest value from which `holds` is true of every later row; nullopt when the last
// row fails it.
template <typename Holds>
std::optional<std::int64_t> holds_from(const std::vector<analysis::SweepRow>& rows, Holds holds) {
  std::optional<std::int64_t> from;
  for (auto it = rows.rbegin(); it != rows.rend() && holds(*it); ++it) from = it->batch;
  return from;
}

ModeStudy study_mode(const WorkloadOptions& o, const hw::SystemSpec& system, const StudyOptions& so,
                     const hw::LinkSpec& to, const hw::DeviceSpec& replacement) {
  ModeStudy m;
  const Workload w = load_workload(o, size_overrides(o), system);
  m.mode = w.predict.mode;
  const model::CostedStep step = model::cost_step(w.lowered, system, w.predict);
  m.accel = model::predict(step);
  const std::string dev = w.predict.device.empty() ? system.default_device : w.predict.device;
  const hw::DeviceSpec* host = system.host_of(dev);
  if (host && host->name != dev) {
    model::PredictOptions on_host = w.predict;
    on_host.placement.all = "host";
    m.host = model::predict(w.lowered, system, on_host);
  }
  m.at2 = analysis::accelerability(step, 2);
  m.at10 = analysis::accelerability(step, 10);

  // Batch sweep, the CPU compared at each point.
  if (w.network.sizes.count("batch")) {
    analysis::SweepOptions sweep_options;
    sweep_options.predict = w.predict;
    sweep_options.compare_host = host != nullptr;
    sweep_options.threads = so.threads;
    const auto grid = analysis::sweep_grid({{"batch", so.batches}}, size_overrides(o));
    m.batches = analysis::sweep(lower_at(o, system), system, grid, sweep_options);
    m.device_bound_from = holds_from(m.batches, [](const analysis::SweepRow& r) {
      return model::host_binding(host_share(r)) == model::StepBinding::kDeviceBound;
    });
    if (host)
      m.accelerator_wins_from =
          holds_from(m.batches, [](const analysis::SweepRow& r) { return r.host_speedup > 1; });
  }

  // The host link replaced by the compared one, on the same GPU.
  if (host) {
    const hw::LinkSpec* from = system.host_route(dev).link;
    if (from && from->model != to.model) {
      hw::SystemSpec changed = system;
      changed.replace_links(*from, to);
      LinkStudy l;
      l.from = from->model;
      l.to = to.model;
      l.step_s = m.accel.step_time_s;
      l.changed_step_s = model::predict(w.lowered, changed, w.predict).step_time_s;
      l.slowdown = l.step_s > 0 ? l.changed_step_s / l.step_s : 1;
      m.link = l;
    }
  }

  // Scaling over the system's GPUs (training).
  const int capacity = data_parallel_capacity(system);
  if (m.mode == graphs::Mode::kTrain && capacity > 1) {
    std::vector<int> counts;
    for (int g = 1; g < capacity; g *= 2) counts.push_back(g);
    counts.push_back(capacity);
    for (const int g : counts) {
      WorkloadOptions at = o;
      at.gpus = g;
      const Workload wg = load_workload(at, size_overrides(at), system);
      const model::Prediction p = model::predict(wg.lowered, system, wg.predict);
      ScalingPoint s;
      s.gpus = g;
      s.step_s = p.step_time_s;
      s.samples_per_s = p.samples_per_s;
      s.exposed_s = p.communication.exposed_s;
      const double base = m.scaling.empty() ? p.samples_per_s : m.scaling.front().samples_per_s;
      s.speedup = base > 0 ? p.samples_per_s / base : 0;
      s.efficiency = s.speedup / g;
      m.scaling.push_back(s);
    }
  }

  m.whatif = analysis::whatif_device(w.lowered, system, w.predict, replacement);
  return m;
}

}  // namespace

double host_share(const analysis::SweepRow& r) { return r.share_by_bound[model::Bound::kDispatch]; }

std::vector<std::string> study_workloads(const StudyOptions& o) {
  return select_workloads(o.suite, o.workloads);
}

Study run_study(const StudyOptions& o, hw::SystemSpec system,
                const std::function<void(std::size_t, std::size_t, const std::string&)>& progress) {
  Study st;
  st.options = o;
  st.system = std::move(system);
  const std::vector<std::string> names = study_workloads(o);
  st.title =
      fmt::format("{} on {}", o.suite.empty() ? "selected workloads" : o.suite, st.system.name);
  st.whatif_device_file =
      o.whatif_device.empty()
          ? (fs::path(hw::catalog_dir()) / "devices" / "whatif-accel.yaml").string()
          : o.whatif_device;
  const hw::DeviceSpec replacement = hw::load_device_file(st.whatif_device_file);
  st.whatif_device_model = replacement.model;
  const hw::LinkSpec link = hw::load_link(o.link);  // an unknown link fails before any work
  // Every entry loads before any is studied: an unknown name fails the report at once.
  for (const std::string& name : names) load_workload(workload_entry(name), {}, st.system);

  const std::size_t total = 2 * names.size();
  std::size_t done = 0;
  for (const std::string& name : names) {
    WorkloadStudy ws;
    ws.name = name;
    for (const char* mode : {"train", "infer"}) {
      if (progress) progress(done, total, fmt::format("{} ({})", name, mode));
      WorkloadOptions wo = workload_entry(name);
      wo.mode = mode;
      ws.modes.push_back(study_mode(wo, st.system, o, link, replacement));
      ++done;
    }
    st.workloads.push_back(std::move(ws));
  }
  if (progress) progress(done, total, "done");
  return st;
}

}  // namespace amdahl::cli
