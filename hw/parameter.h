#pragma once
// A number of a system addressed by its key path, so hardware can be a swept axis (amdahl
// explore). The path names what a system file names, checked against the same schemas:
//   <device>.<key path of the device file>   gpu0.peak.fp16 (= gpu0.peak.fp16.rate),
//                                            gpu0.memory.bandwidth, gpu0.launch_latency,
//                                            gpu0.efficiency.gemm.compute
//   links.<link>.<key of the link file>      links.cpu0-gpu0.bandwidth, links.gpu0-gpu1.p2p
//   network.<key of the link file>           the NIC link of a multi-node system
//   runtime.<key path of the runtime map>    runtime.dispatch_per_op,
//                                            runtime.collectives.step_latency
// A device or link name may be a glob (gpu*, links.gpu*-gpu*): every match takes the value.
// A link's `bandwidth` scales its achieved bandwidths (h2d/d2h pinned and pageable, p2p) with
// it, keeping each one's fraction of the nominal; naming one of those sets it alone.
//
// Values are set from the base system (never accumulated on a working copy), so a
// configuration's numbers do not depend on which configurations were set before it.

#include <functional>
#include <string>
#include <vector>

#include "hw/schema.h"
#include "hw/system.h"

namespace amdahl::hw {

class SystemParameter {
 public:
  // Binds `path` in `system`. Throws UserError for an unknown device or link (did you mean,
  // listing the names), an unknown key (did you mean, listing the keys at that level), a key
  // that is not a number, and a number explore cannot vary (listing those it can).
  SystemParameter(const SystemSpec& system, std::string path);

  const std::string& path() const { return path_; }
  Dimension dimension() const { return field_.dimension; }
  bool integer() const { return field_.type == FieldType::kInt; }
  // The devices or links set ("gpu0", "cpu0-gpu0"); one empty name for the runtime.
  const std::vector<std::string>& targets() const { return target_names_; }

  // The value in `system` (its first target's).
  double get(const SystemSpec& system) const;
  // Every target of `out` takes `value` (SI); `base` is the system `out` was copied from.
  void set(SystemSpec& out, const SystemSpec& base, double value) const;
  // Every target of `out` takes its value in `base` times `factor`.
  void scale(SystemSpec& out, const SystemSpec& base, double factor) const;

  // Throws ConfigError "<where>: <path>: <rule> (got '<text>')" when `value` (SI) is outside
  // what the schema allows for the key (a negative bandwidth, a fraction above 1, an integer
  // key given 2.5).
  void check(double value, const std::string& text, const SourceLocation& where) const;
  // "732 GB/s", "56", "0.8".
  std::string format(double value) const;

 private:
  std::string path_;
  Field field_;
  std::vector<std::size_t> targets_;  // indices into devices or links
  std::vector<std::string> target_names_;
  std::function<double(const SystemSpec&, std::size_t)> get_;
  std::function<void(SystemSpec&, const SystemSpec&, std::size_t, double)> set_;
};

}  // namespace amdahl::hw
