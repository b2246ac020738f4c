#pragma once
// The key of a device's efficiency entry: an op class, the phase whose kernels differ from the
// forward's, and the tensor-core precision of a matrix class. A device file names it as text:
// "gemm", "conv_bwd_data" (the backward data phase), "conv_bwd_filter" (backward weight),
// "gemm.fp16", "conv_bwd_data.tf32", and "default" for the entry every other class falls back
// on (model/efficiency.h gives the order an op looks its entries up in).

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/op_class.h"
#include "util/precision.h"

namespace amdahl::hw {

struct EfficiencyKey {
  std::optional<OpClass> op_class;     // nullopt: the `default` entry
  Phase phase = Phase::kForward;       // kBackwardData or kBackwardWeight: a phase entry
  std::optional<Precision> precision;  // a tensor-core precision of a matrix class

  auto operator<=>(const EfficiencyKey&) const = default;

  static EfficiencyKey fallback() { return {}; }
  bool is_default() const { return !op_class; }
  // "conv_bwd_data.tf32"
  std::string name() const;
};

// The entries a device file may give, in the order `describe hw` lists them: every class and
// `default`, the phase entries of the classes whose backward kernels differ from their forward
// (convolution and GEMM both directions; normalization and pooling data gradients, which CPU
// frameworks run at other rates), then every matrix class and phase entry at each tensor-core
// precision.
const std::vector<EfficiencyKey>& efficiency_keys();
std::vector<std::string> efficiency_key_names();

// The key named `name`, or nullopt when it is not one of efficiency_keys().
std::optional<EfficiencyKey> parse_efficiency_key(std::string_view name);
// The same, throwing UserError listing the valid names (for names written in code and tests).
EfficiencyKey entry(std::string_view name);

}  // namespace amdahl::hw
