#pragma once
// Efficiency entries fitted to a framework profile's kernel rows: the classes that no kernel
// benchmark covers (../shared/data/h200/README.md: batch norm, pooling and the optimizer's
// kernels), from the device time of the kernels real training steps ran.
//
// A profile (validate/kernel_profile.h) gives, per profiled configuration (a zoo network by its
// PyTorch name, a batch, a precision), each kernel's device time per step. One sample per
// configuration and fitted entry: the kernels of the entry's class and pass (kernel_phase)
// summed, against the ops of that class and phase of the zoo network lowered at the
// configuration (a training step; the optimizer's one foreach update, kProfileOptimizer), each
// costed by the entry as predictions cost it (efficiency_fit.h, memory-bound form: memory and
// latency). The samples of an entry are its configurations that run at least one of its
// kernels; all of them are fitted (a sum over a network is no shape to hold out), so the
// residuals are the training errors, reported with the fit; an entry needs at least as many
// configurations as parameters (kProfileRowsOverParams), else the fit is refused with the counts.
//
//   entry                    ops (class, phase)             kernels (class, pass)
//   normalization            normalization, forward         bn_fw* (cuDNN batch norm, training)
//   normalization_bwd_data   normalization, backward_data   bn_bw*
//   pooling                  pooling, forward               max_pool / avg_pool / adaptive_average
//   pooling_bwd_data         pooling, backward_data         their _backward / _gradinput kernels
//   optimizer                optimizer, update              multi_tensor_apply (foreach SGD)

#include <string>
#include <vector>

#include "calibrate/efficiency_fit.h"
#include "hw/system.h"

namespace amdahl::calibrate {

// The fewest configurations an entry is fitted from, relative to its parameters: as many
// configurations as parameters determine them (no residual left to judge the fit by; the
// whole steps of the same networks validate it).
inline constexpr int kProfileRowsOverParams = 0;

// The profile's steps ran PyTorch's default SGD on CUDA, the multi-tensor foreach
// implementation (../shared/data/h200/README.md): one update op for every parameter tensor.
inline constexpr bool kProfileOptimizer = true;

// Fits the table's entries on `base` (its other entries as they are) from the profile CSV at
// `path`, in the table's order, entries without samples left out; each fit's `source` names
// `label` ("h200 networks/profile.csv"), the kernels and configurations.
// Throws UserError for an unreadable profile, a model no zoo network names as its PyTorch
// definition, or an entry that cannot be fitted (too few configurations, no convergence).
std::vector<ClassFit> fit_profile_entries(const std::string& path, const std::string& label,
                                          const hw::DeviceSpec& base);

}  // namespace amdahl::calibrate
