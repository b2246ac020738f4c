#include "graphs/memory_footprint.h"

#include <algorithm>

#include "graphs/lower.h"
#include "graphs/optimizer.h"

namespace amdahl::graphs {
namespace {
constexpr double kF32 = 4;
}  // namespace

MemoryFootprint memory_footprint(const LoweredNetwork& net) {
  MemoryFootprint m;
  const double params = static_cast<double>(net.parameters);
  const bool training = net.mode == Mode::kTrain;
  m.weights_bytes = kF32 * params;
  if (training) {
    // Data parallel: DDP's buckets are a second fp32 copy of the gradients
    // (gradient_as_bucket_view=False, PyTorch's default).
    m.gradients_bytes = kF32 * params * (net.replicas > 1 ? 2 : 1);
    m.optimizer_state_bytes = kF32 * update_cost(net.optimizer).state_tensors * params;
  }
  // One micro-batch's activations and weight copies are live at a time under gradient
  // accumulation.
  const OpId end = net.micro_batch_end > 0 ? net.micro_batch_end : net.graph.size();
  for (OpId id = 0; id < end; ++id) {
    const Operator& op = net.graph.op(id);
    if (op.phase != Phase::kForward && op.phase != Phase::kHost) continue;
    if (op.kind == "weight_cast") {
      m.weights_bytes += op.bytes_written;
      continue;
    }
    const double own_output = op.in_place ? 0 : op.bytes_written;  // in place: the input's
    if (training) {
      m.activations_bytes += own_output;
    } else {
      const double live = own_output + op.input_elements * dtype_bytes(op.dtype);
      m.activations_bytes = std::max(m.activations_bytes, live);
    }
    if (is_matrix_class(op.op_class))
      m.workspace_bytes = std::max(m.workspace_bytes, op.bytes_written);
  }
  m.peak_bytes = m.weights_bytes + m.gradients_bytes + m.optimizer_state_bytes +
                 m.activations_bytes + m.workspace_bytes;
  return m;
}

}  // namespace amdahl::graphs
