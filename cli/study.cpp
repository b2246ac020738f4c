#include "cli/study.h"

#include <fmt/format.h>

#include <filesystem>

#include "cli/workload.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "util/error.h"

namespace amdahl::cli {

namespace {

namespace fs = std::filesystem;

// The entry `o` loaded for the study: at its own sizes, per sweep point and per GPU count.
analysis::StudyWorkload study_workload(const WorkloadOptions& o, const hw::SystemSpec& system) {
  Workload w = load_workload(o, size_overrides(o), system);
  analysis::StudyWorkload sw;
  sw.has_batch = w.network.sizes.count("batch") > 0;
  sw.step = {std::move(w.lowered), w.predict};
  sw.sizes = size_overrides(o);
  sw.lower_at = lower_at(o, system);
  sw.at_gpus = [o, &system](int gpus) {
    WorkloadOptions at = o;
    at.gpus = gpus;
    Workload wg = load_workload(at, size_overrides(at), system);
    return analysis::StudyStep{std::move(wg.lowered), wg.predict};
  };
  return sw;
}

}  // namespace

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
  analysis::StudySpec spec;
  spec.batches = o.batches;
  spec.replacement = hw::load_device_file(st.whatif_device_file);
  st.whatif_device_model = spec.replacement.model;
  spec.link = hw::load_link(o.link);  // an unknown link fails before any work
  spec.threads = o.threads;
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
      ws.modes.push_back(analysis::study_mode(study_workload(wo, st.system), st.system, spec));
      ++done;
    }
    st.workloads.push_back(std::move(ws));
  }
  if (progress) progress(done, total, "done");
  return st;
}

}  // namespace amdahl::cli
