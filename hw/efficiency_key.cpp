#include "hw/efficiency_key.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::hw {
namespace {

std::string_view phase_suffix(Phase p) {
  switch (p) {
    case Phase::kBackwardData:
      return "_bwd_data";
    case Phase::kBackwardWeight:
      return "_bwd_filter";
    default:
      return "";
  }
}

}  // namespace

std::string EfficiencyKey::name() const {
  if (!op_class) return "default";
  std::string n = fmt::format("{}{}", op_class_name(*op_class), phase_suffix(phase));
  if (precision) n += precision_suffix(*precision);
  return n;
}

const std::vector<EfficiencyKey>& efficiency_keys() {
  static const std::vector<EfficiencyKey> kKeys = [] {
    std::vector<EfficiencyKey> keys;
    for (int c = 0; c < kOpClassCount; ++c) keys.push_back({static_cast<OpClass>(c)});
    keys.push_back(EfficiencyKey::fallback());
    const std::vector<EfficiencyKey> phased{
        {OpClass::kConv, Phase::kBackwardData},          {OpClass::kConv, Phase::kBackwardWeight},
        {OpClass::kGemm, Phase::kBackwardData},          {OpClass::kGemm, Phase::kBackwardWeight},
        {OpClass::kNormalization, Phase::kBackwardData}, {OpClass::kPooling, Phase::kBackwardData}};
    keys.insert(keys.end(), phased.begin(), phased.end());
    std::vector<EfficiencyKey> matrix;
    for (int c = 0; c < kOpClassCount; ++c)
      if (is_matrix_class(static_cast<OpClass>(c))) matrix.push_back({static_cast<OpClass>(c)});
    for (const auto& k : phased)
      if (is_matrix_class(*k.op_class)) matrix.push_back(k);
    for (const auto& k : matrix)
      for (Precision p : tensor_core_precisions()) {
        EfficiencyKey at = k;
        at.precision = p;
        keys.push_back(at);
      }
    return keys;
  }();
  return kKeys;
}

std::vector<std::string> efficiency_key_names() {
  std::vector<std::string> names;
  for (const auto& k : efficiency_keys()) names.push_back(k.name());
  return names;
}

std::optional<EfficiencyKey> parse_efficiency_key(std::string_view name) {
  for (const auto& k : efficiency_keys())
    if (k.name() == name) return k;
  return std::nullopt;
}

EfficiencyKey entry(std::string_view name) {
  if (auto k = parse_efficiency_key(name)) return *k;
  throw UserError(fmt::format("unknown efficiency entry '{}'; {}", name,
                              suggestion(std::string(name), efficiency_key_names())));
}

}  // namespace amdahl::hw
