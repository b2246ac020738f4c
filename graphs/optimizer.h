#pragma once
// Optimizer update cost per trainable element. Weights, gradients and optimizer state are
// fp32 (master weights under mixed precision), 4 bytes each.
//   sgd       w -= lr g                                   2 FLOPs, reads w g,     writes w
//   momentum  v = mu v + g; w -= lr v                     4 FLOPs, reads w g v,   writes w v
//   rmsprop   v = d v + (1-d) g^2; w -= lr g/(sqrt v+e)   8 FLOPs, reads w g v,   writes w v
//   adam      m, v moments, bias-corrected step          12 FLOPs, reads w g m v, writes w m v

#include "graphs/network.h"

namespace amdahl::graphs {

struct UpdateCost {
  double flops_per_element;
  double bytes_read_per_element;
  double bytes_written_per_element;
  int state_tensors;  // optimizer state per weight (momentum 1, adam 2)
};

UpdateCost update_cost(OptimizerKind kind);

}  // namespace amdahl::graphs
