#pragma once
// A framework profile's device time per op class: the torch.profiler key averages of
// ../shared/data/h200/networks/profile.csv (model,batch,precision,op,calls,self_device_us,
// self_cpu_us,steps; one row per profiler key, summed over `steps` training steps), each
// kernel and device copy classified to an amdahl op class by its name (classify_profile_key).
// Host-side rows (aten operators, autograd nodes, CUDA runtime calls, annotations such as
// "Optimizer.step#SGD.step") carry the device time of the kernels they launched, which the
// kernel rows already hold: they are left out, never added to the kernels.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/op_class.h"

namespace amdahl::validate {

// What a profiler key is: a host-side row, a device activity of an op class, or a device
// activity no rule maps (reported as unmapped, never dropped).
struct ProfileKeyClass {
  bool host = false;
  std::optional<OpClass> op_class;  // set for a mapped device activity
  std::string_view family;          // the rule that matched ("cuDNN convolution", ...)
  // The pass a device activity serves where its name says so (kernel_phase): kBackwardData
  // for a gradient kernel, else kForward.
  Phase phase = Phase::kForward;
};

// The pass a kernel name marks: cuDNN's batch-norm gradient (`bn_bw`), PyTorch's gradient
// kernels (`..._backward...`, `..._gradinput...`) and cuDNN's data gradients (`dgrad`) are
// kBackwardData, cuDNN's weight gradients (`wgrad`) kBackwardWeight; every other name, which
// says nothing of its pass (cuBLAS GEMMs, elementwise kernels), kForward.
Phase kernel_phase(std::string_view name);

// The first rule of the table in kernel_profile.cpp whose pattern the name contains.
ProfileKeyClass classify_profile_key(std::string_view name);

struct ProfiledKernel {
  std::string name;
  std::string family;
  std::optional<OpClass> op_class;  // classify_profile_key of its name (none: unmapped)
  Phase phase = Phase::kForward;    // kernel_phase of its name
  double device_s_per_step = 0;
  double calls_per_step = 0;
};

// One profiled configuration: device seconds per step by op class name, "unmapped" for
// device activities no rule maps.
struct ProfiledConfig {
  std::string model;  // the PyTorch name
  std::int64_t batch = 0;
  std::string precision;
  int steps = 0;
  std::string where;  // "file:line" of its first row
  std::map<std::string, double> device_s_per_step;
  std::vector<ProfiledKernel> kernels;  // device activities, in file order
  double kernel_s_per_step() const;     // the sum over all device activities
};

// Throws UserError "file:line: column C: ..." for a missing column, a bad number or a
// configuration whose rows disagree on `steps`.
std::vector<ProfiledConfig> read_kernel_profile(const std::string& path);

// The name of the unmapped group in device_s_per_step.
inline constexpr std::string_view kUnmapped = "unmapped";

}  // namespace amdahl::validate
