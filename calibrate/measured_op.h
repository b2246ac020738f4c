#pragma once
// The operator a kernel measurement times, taken from the lowering of a one-layer network
// through the layer registry (graphs::lower; training mode for a backward bench and for the
// RNN benches, DeepBench's training kernels), so that a
// fitted efficiency model is evaluated on the op that predictions evaluate: its FLOPs, bytes,
// GEMM dims and convolution description are the registry's, never counted a second time here.
//
//   bench              layer (no bias)                                   op taken
//   gemm               linear, input [m, k], out_features n             forward
//                      (batch b > 1: matmul [b, m, k] x [b, k, n])
//   gemm_bwd_data      linear, input [m, n], out_features k             data gradient
//   gemm_bwd_filter    linear, input [k, n], out_features m             weight gradient
//   conv_fwd           conv2d, input [n, c, h, w], out_channels k,      forward
//   conv_bwd_data        kernel [r, s], stride, padding pad, groups     data gradient
//   conv_bwd_filter      (default 1)                                     weight gradient
//   rnn_fwd            lstm / gru / rnn (type lstm, gru, vanilla: relu   per timestep, the
//   rnn_bwd_data         as DeepBench's CUDNN_RNN_RELU), input            recurrent GEMM and
//                        [timesteps, batch, hidden], hidden_size hidden   the pointwise cell
//                                                                        (forward or gradient)
//   rnn_bwd_filter                                                       recurrent weight grad
//   rnn_layer_fwd      lstm / gru, num_layers `layers` (default 1), a    forward, every op
//   rnn_layer_train      framework's whole recurrent call (torch_kernels.h)  + backward
// An RNN row times a layer's recurrence (DeepBench's FLOPs count the recurrent GEMMs only),
// so the input projection GEMMs, which the lowering emits once per layer, are not part of it.
// Every other bench is a memory-bound op: the row's FLOPs and bytes, no GEMM dims.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "calibrate/measurement.h"
#include "graphs/op_graph.h"

namespace amdahl::calibrate {

struct MeasuredOp {
  // The op the row times; for a row run as a sequence of ops (`steps`), the first step's op,
  // which stands for the sequence where a fit looks at a shape (its GEMM dims, phase).
  graphs::Operator op;
  struct Step {
    graphs::Operator op;
    double count = 1;  // how many times the lowering runs it
  };
  // An RNN row's timesteps (rnn_fwd, rnn_bwd_data): each op of one step and how many times the
  // lowered layer runs it. Empty for a row that is one op.
  std::vector<Step> steps;
};

// Throws UserError for an op class amdahl does not know, an unknown precision, a shape missing
// a key the bench needs, a shape the layer rejects, or a row whose op class is not the class of
// the op its bench lowers to. Lowerings are kept per distinct row (a fit converts each row many
// times over its folds and structures), so a repeated call is a lookup.
MeasuredOp measured_op(const Measurement& m);
// measured_op(m).op.
graphs::Operator to_operator(const Measurement& m);

// The op of `phase` that one layer of `kind` lowers to, with integer `params` (one value a
// scalar, more a list, as a network file writes them) on an fp32 input of shape `input`,
// lowered for training when `training` (a backward phase needs it): the first such op of the
// layer. For benches that time one layer kind directly (calibrate/cpu/framework_kernels.h).
// UserError for parameters or an input the layer rejects, or a layer without an op in `phase`.
graphs::Operator layer_op(const std::string& kind,
                          const std::map<std::string, std::vector<std::int64_t>>& params,
                          const graphs::Shape& input, Phase phase, bool training);

// The first forward op of one layer of `kind` on fp32 `inputs` (a layer of several inputs gets
// them in order), lowered for inference: the op a bench that times one forward call runs.
graphs::Operator forward_layer_op(const std::string& kind,
                                  const std::map<std::string, std::vector<std::int64_t>>& params,
                                  const std::vector<graphs::Shape>& inputs);

// The row's FLOPs and bytes set to those of the op it times (measured_op; an RNN row's, the sum
// over its timesteps' ops), for a bench that writes rows of a lowered kind (gemm, conv, rnn).
void count_from_registry(Measurement& m);

// A convolution's shape as the conv benches' `shape` cells name it (square padding and
// stride).
struct ConvShape {
  std::int64_t n, c, h, w, k, r, s, pad, stride;
  std::int64_t groups = 1;
  // Output height and width (graphs/conv_traffic.h conv_output_extent); UserError when the
  // window does not fit the padded input.
  std::int64_t p() const;
  std::int64_t q() const;
};

// The shape of a conv bench's row (keys n c h w k r s pad stride, optional groups); UserError
// for a missing key or groups that do not divide C and K.
ConvShape conv_shape(const Measurement& m);

// The op a convolution bench (conv_fwd, conv_bwd_data, conv_bwd_filter) times on elements of
// `element_bytes` (4: fp32, 2: fp16), as the registry lowers the layer above. UserError for a
// bench that is not a convolution, another element size, or a shape the layer rejects.
graphs::Operator conv_operator(const std::string& bench, const ConvShape& g,
                               double element_bytes = 4);
// Its FLOPs (the direct convolution's, 2 N K P Q (C / groups) R S, any direction) and its
// bytes (measurement_format.md: X as the windows read it, graphs/conv_traffic.h, for conv_fwd
// and conv_bwd_filter, all of dX for conv_bwd_data, plus W and Y or dY).
double conv_flops(const ConvShape& g);
double conv_bytes(const std::string& bench, const ConvShape& g, double element_bytes);

// Gates of a cuDNN RNN cell type (vanilla 1, lstm 4, gru 3), as the registry's recurrent
// layer of that type has them; UserError for other types.
int rnn_gates(const std::string& rnn_type);

}  // namespace amdahl::calibrate
