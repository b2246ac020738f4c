#include "calibrate/profile_kernels.h"

#include <fmt/format.h>

#include "graphs/lower.h"
#include "graphs/zoo.h"
#include "util/percent.h"
#include "util/precision.h"
#include "util/suggest.h"
#include "validate/kernel_profile.h"

namespace amdahl::calibrate {
namespace {

// One fitted entry: its key (the ops' class), the ops' phase in amdahl's lowering and the
// pass of the kernels that ran them (profile_kernels.h).
struct ProfileEntry {
  hw::EfficiencyKey entry;
  Phase op_phase;
  Phase kernel_phase;   // validate::kernel_phase
  const char* kernels;  // for the source string
};

const ProfileEntry kEntries[] = {
    {{OpClass::kNormalization}, Phase::kForward, Phase::kForward, "cuDNN bn_fw*"},
    {{OpClass::kNormalization, Phase::kBackwardData},
     Phase::kBackwardData,
     Phase::kBackwardData,
     "cuDNN bn_bw*"},
    {{OpClass::kPooling},
     Phase::kForward,
     Phase::kForward,
     "max_pool/avg_pool/adaptive_average forward"},
    {{OpClass::kPooling, Phase::kBackwardData},
     Phase::kBackwardData,
     Phase::kBackwardData,
     "max_pool/avg_pool backward, adaptive_average gradinput"},
    {{OpClass::kOptimizer}, Phase::kUpdate, Phase::kForward, "multi_tensor_apply (foreach SGD)"},
};

// The zoo network a profiled configuration ran, lowered as that training step.
graphs::LoweredNetwork lower_config(const validate::ProfiledConfig& c) {
  const std::string& zoo = graphs::zoo_network_for_pytorch(c.model, c.where + ": column model");
  graphs::LoweringOptions lo;
  lo.mode = graphs::Mode::kTrain;  // the profile's steps are training steps
  lo.precision = parse_workload_precision(c.precision, c.where + ": column precision");
  lo.fused_optimizer = kProfileOptimizer;
  lo.conv_bias_kernel = true;  // PyTorch on a GPU (graphs::LoweringOptions)
  return graphs::lower(graphs::bind_sizes(graphs::load_zoo_network(zoo), {{"batch", c.batch}}), lo);
}

}  // namespace

std::vector<ClassFit> fit_profile_entries(const std::string& path, const std::string& label,
                                          const hw::DeviceSpec& base) {
  const std::vector<validate::ProfiledConfig> configs = validate::read_kernel_profile(path);
  std::vector<graphs::LoweredNetwork> lowered;
  lowered.reserve(configs.size());
  for (const auto& c : configs) lowered.push_back(lower_config(c));

  FitOptions options;
  options.name = "";  // one structure: memory and latency
  options.min_rows_over_params = kProfileRowsOverParams;
  std::vector<ClassFit> out;
  hw::DeviceSpec device = base;
  for (const ProfileEntry& e : kEntries) {
    std::vector<Sample> samples;
    std::vector<std::string> where;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const validate::ProfiledConfig& c = configs[i];
      double measured = 0;
      int kernels = 0;
      for (const auto& k : c.kernels) {
        if (k.op_class == e.entry.op_class && k.phase == e.kernel_phase) {
          measured += k.device_s_per_step;
          ++kernels;
        }
      }
      Sample s;
      const graphs::OpGraph& g = lowered[i].graph;
      for (graphs::OpId id = 0; id < g.size(); ++id) {
        const graphs::Operator& op = g.op(id);
        if (op.op_class == e.entry.op_class && op.phase == e.op_phase) s.parts.push_back({op, 1});
      }
      // A configuration whose network has none of the entry's ops, or ran none of its
      // kernels, says nothing of it.
      if (kernels == 0 || s.parts.empty()) continue;
      s.op = s.parts.front().op;
      s.time_s = measured;
      s.label =
          fmt::format("{} batch {}: {} kernels, {} ops", c.model, c.batch, kernels, s.parts.size());
      samples.push_back(std::move(s));
      where.push_back(fmt::format("{} b{}", c.model, c.batch));
    }
    if (samples.empty()) continue;
    ClassFit fit = fit_class(e.entry, ModelForm::kMemoryBound, samples, {}, device, options);
    device.efficiency[e.entry] = fit.params;
    fit.source = fmt::format(
        "fitted to {} kernel rows ({}): {} configurations ({}), memory and latency fitted; "
        "|err| on them median {}, p90 {}",
        label, e.kernels, samples.size(), join(where), format_percent(fit.train.median_abs),
        format_percent(fit.train.p90_abs));
    out.push_back(std::move(fit));
  }
  return out;
}

}  // namespace amdahl::calibrate
