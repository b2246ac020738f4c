#include "analysis/study.h"

#include "hw/topology.h"

namespace amdahl::analysis {

namespace {

// The smallest value from which `holds` is true of every later row; nullopt when the last
// row fails it.
template <typename Holds>
std::optional<std::int64_t> holds_from(const std::vector<SweepRow>& rows, Holds holds) {
  std::optional<std::int64_t> from;
  for (auto it = rows.rbegin(); it != rows.rend() && holds(*it); ++it) from = it->batch;
  return from;
}

// The batch sweep, the CPU compared at each point when the system has one.
void study_batches(ModeStudy& m, const StudyWorkload& w, const hw::SystemSpec& system,
                   const StudySpec& spec, bool has_host) {
  SweepOptions options;
  options.predict = w.step.predict;
  options.compare_host = has_host;
  options.threads = spec.threads;
  const auto grid = sweep_grid({{"batch", spec.batches}}, w.sizes);
  m.batches = sweep(w.lower_at, system, grid, options);
  m.device_bound_from = holds_from(m.batches, [](const SweepRow& r) {
    return model::host_binding(host_share(r)) == model::StepBinding::kDeviceBound;
  });
  if (has_host)
    m.accelerator_wins_from =
        holds_from(m.batches, [](const SweepRow& r) { return r.host_speedup > 1; });
}

// Training on 1, 2, 4, ... of the system's GPUs, and on all of them.
void study_scaling(ModeStudy& m, const StudyWorkload& w, const hw::SystemSpec& system) {
  const int capacity = hw::data_parallel_capacity(system);
  if (m.mode != graphs::Mode::kTrain || capacity <= 1) return;
  std::vector<int> counts;
  for (int g = 1; g < capacity; g *= 2) counts.push_back(g);
  counts.push_back(capacity);
  for (const int g : counts) {
    const StudyStep at = w.at_gpus(g);
    const model::Prediction p = model::predict(at.lowered, system, at.predict);
    ScalingPoint s;
    s.gpus = g;
    s.step_s = p.step_time_s;
    s.samples_per_s = p.samples_per_s;
    s.exposed_s = p.communication.exposed_s;
    const double base = m.scaling.empty() ? p.samples_per_s : m.scaling.front().samples_per_s;
    s.scaling = scaling_against(p.samples_per_s, g, base, 1);
    m.scaling.push_back(s);
  }
}

}  // namespace

ModeStudy study_mode(const StudyWorkload& w, const hw::SystemSpec& system, const StudySpec& spec) {
  ModeStudy m;
  const StudyStep& base = w.step;
  m.mode = base.predict.mode;
  const model::CostedStep step = model::cost_step(base.lowered, system, base.predict);
  m.accel = model::predict(step);
  const std::string dev = base.predict.device.empty() ? system.default_device : base.predict.device;
  const hw::DeviceSpec* host = system.host_of(dev);
  if (host && host->name != dev) {
    model::PredictOptions on_host = base.predict;
    on_host.placement.all = "host";
    m.host = model::predict(base.lowered, system, on_host);
  }
  m.at2 = accelerability(step, 2);
  m.at10 = accelerability(step, 10);
  if (w.has_batch) study_batches(m, w, system, spec, host != nullptr);

  // The host link replaced by the compared one, on the same GPU.
  if (host) {
    const hw::LinkSpec* from = system.host_route(dev).link;
    if (from && from->model != spec.link.model) {
      hw::SystemSpec changed = system;
      changed.replace_links(*from, spec.link);
      LinkStudy l;
      l.from = from->model;
      l.to = spec.link.model;
      l.step_s = m.accel.step_time_s;
      l.changed_step_s = model::predict(base.lowered, changed, base.predict).step_time_s;
      l.slowdown = l.step_s > 0 ? l.changed_step_s / l.step_s : 1;
      m.link = l;
    }
  }
  study_scaling(m, w, system);
  m.whatif = whatif_device(base.lowered, system, base.predict, spec.replacement);
  return m;
}

}  // namespace amdahl::analysis
