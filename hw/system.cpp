#include "hw/system.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::hw {

std::string_view device_kind_name(DeviceKind k) {
  switch (k) {
    case DeviceKind::kCpu:
      return "cpu";
    case DeviceKind::kGpu:
      return "gpu";
    case DeviceKind::kAccelerator:
      return "accelerator";
  }
  return "?";
}

std::string_view compute_unit_name(ComputeUnit u) {
  switch (u) {
    case ComputeUnit::kFma:
      return "fma";
    case ComputeUnit::kTensor:
      return "tensor";
    case ComputeUnit::kSimd:
      return "simd";
    case ComputeUnit::kMatrix:
      return "matrix";
  }
  return "?";
}

std::optional<PeakRate> DeviceSpec::peak_for(Precision p) const {
  if (auto it = peak.find(p); it != peak.end()) return it->second;
  if (p == Precision::kTf32) return peak_for(Precision::kFp32);
  return std::nullopt;
}

const ClassEfficiency& DeviceSpec::efficiency_for(OpClass op_class) const {
  if (auto it = efficiency.find({op_class}); it != efficiency.end()) return it->second;
  return default_efficiency();
}

const ClassEfficiency& DeviceSpec::default_efficiency() const {
  return efficiency.at(EfficiencyKey::fallback());
}

const DeviceSpec& SystemSpec::device(const std::string& device_name) const {
  std::vector<std::string> names;
  for (const auto& d : devices) {
    if (d.name == device_name) return d;
    names.push_back(d.name);
  }
  throw UserError(fmt::format("{}: no device '{}' in system '{}'; {}", file, device_name, name,
                              suggestion(device_name, names)));
}

const LinkSpec* SystemSpec::link_between(const std::string& a, const std::string& b) const {
  for (const auto& l : links)
    if ((l.from == a && l.to == b) || (l.from == b && l.to == a)) return &l;
  return nullptr;
}

const DeviceSpec* SystemSpec::host_of(const std::string& accelerator) const {
  for (const auto& d : devices)
    if (d.kind == DeviceKind::kCpu && link_between(d.name, accelerator)) return &d;
  for (const auto& d : devices)
    if (d.kind == DeviceKind::kCpu) return &d;
  return nullptr;
}

std::vector<std::string> SystemSpec::uncalibrated_parts() const {
  std::vector<std::string> out;
  for (const auto& d : devices)
    if (!d.calibrated) out.push_back(fmt::format("device {} ({})", d.name, d.model));
  for (const auto& l : links)
    if (!l.calibrated) out.push_back(fmt::format("link {} ({})", l.name, l.model));
  if (!runtime.calibrated) out.push_back(fmt::format("runtime {}", runtime.name));
  return out;
}

}  // namespace amdahl::hw
