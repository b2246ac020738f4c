#pragma once
// What a prediction relied on that was not measured: a key left at its default, a fallback, a
// framework's behaviour as modelled. The loaders and the model return these records; cli/ says
// them in words (cli/assumption_text.h), one sentence per kind, and lists them sorted.
//
// Each kind's `names` and `numbers` are positional, as the kind's comment lists them; numbers
// are in SI units (seconds, bytes, bytes per second) or plain fractions.

#include <cstdint>
#include <string>
#include <vector>

namespace amdahl {

enum class AssumptionKind : std::uint8_t {
  // Loading a hardware or runtime file.
  kDefaultedKey,       // names: owner (a device's model; empty for a runtime), path, value
  kEfficiencyFrom,     // names: model, source's model, source file, "fitted"|"uncalibrated"
  kDefaultEfficiency,  // names: model; numbers: compute, memory (efficiency.default absent)
  kNominalBandwidth,   // names: link's model, key; numbers: nominal bandwidth
  kCollectiveDefault,  // names: path, value, the key's description
  kUnmeasuredP2p,      // names: link's model; numbers: nominal bandwidth per direction
  // The runtime's host costs (model/host_runtime.h).
  kHostCostFallback,  // names: runtime, then each cost not given: its key, its fallback
  kClassDispatch,     // names: runtime, then the op classes; numbers: dispatch per op
  // Costing a step (model/prediction.h).
  kClassDefaultEntry,     // names: instance, model, op class; numbers: compute, memory
  kUncalibratedDevice,    // names: instance, model
  kUncalibratedLink,      // names: instance, model
  kUncalibratedRuntime,   // names: runtime; numbers: dispatch per op
  kNoPrecisionRate,       // names: model, precision
  kNonMatrixRate,         // names: model, precision, its rate's unit, the fp32 rate's unit
  kDdpBuckets,            // names: route; numbers: replicas, buckets, first bucket, bucket cap
  kPerVariableAllReduce,  // names: route; numbers: replicas, gradients
  kParameterServer,       // names: route, server; numbers: replicas, gradients
  kAllOnHost,             // names: host instance, host model
  kResidentOnDevice,      // names: accelerator (weights and step inputs)
  kInputsCopied,          // names: accelerator, "pinned"|"pageable"
  kPlacementCrossing,     // names: placement, host, accelerator, "" | "no link"
  kUnlinkedCopies,        // names: accelerator
  // Importing a network.
  kOnnxWeightInputs,  // names: the first tensors' names; numbers: tensors, elements
};

struct Assumption {
  AssumptionKind kind = AssumptionKind::kDefaultedKey;
  std::vector<std::string> names;
  std::vector<double> numbers;
  bool operator==(const Assumption&) const = default;
};

}  // namespace amdahl
