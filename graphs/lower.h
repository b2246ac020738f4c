#pragma once
// Lowering a bound network to the operator DAG: forward ops in layer order; in training
// mode the backward ops (data gradients only where an input needs one, so the first layer
// gets none, as frameworks do; weight gradients for every weight), gradient accumulation
// where a tensor feeds several layers, and the optimizer update (per tensor or fused).
// Each network input is first copied host to device by a transfer op.

#include <cstdint>
#include <string>
#include <vector>

#include "graphs/memory_footprint.h"
#include "graphs/network.h"
#include "graphs/op_graph.h"

namespace amdahl::graphs {

enum class Mode { kTrain, kInfer };
std::string_view mode_name(Mode m);

struct LoweringOptions {
  Mode mode = Mode::kTrain;
  Precision precision = Precision::kFp32;
  bool fused_optimizer = false;
};

struct WeightTensor {
  std::string layer;
  std::string name;
  std::int64_t elements = 0;
};

struct LoweredNetwork {
  std::string name;
  OpGraph graph;
  std::vector<WeightTensor> weights;
  std::int64_t parameters = 0;
  double input_bytes = 0;
  OptimizerKind optimizer = OptimizerKind::kSgd;
  Mode mode = Mode::kTrain;
  Precision precision = Precision::kFp32;
  MemoryFootprint memory;  // device memory per device (memory_footprint.h)
};

// Throws UserError (located at the layer) for an unknown input name, a reference to a
// layer defined later (a cycle), a wrong input count, a shape mismatch, or training a
// network without a loss layer.
LoweredNetwork lower(const BoundNetwork& network, const LoweringOptions& options);

}  // namespace amdahl::graphs
