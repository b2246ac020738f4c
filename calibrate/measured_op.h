#pragma once
// The operator a kernel measurement times, built so that a fitted efficiency model is
// evaluated through model::estimate exactly as predictions evaluate it.
//
// FLOPs and bytes come from the measurement row (each bench writes them by the formulas in
// measurement_format.md); the GEMM dims come from the shape and follow the lowering rules:
//   gemm                m, n, k (batch: `batch`, default 1); gemm_bwd_data and
//                       gemm_bwd_filter (a linear layer's gradient GEMMs) the same
//   conv_fwd            m = N*P*Q, n = K, k = C*R*S            (graphs/ops/conv.cpp)
//   conv_bwd_data       m = N*H*W, n = C, k = K*R*S
//   conv_bwd_filter     m = K,     n = C*R*S, k = N*P*Q
//   (with `groups` g in the shape, default 1: C and K become C/g and K/g and the GEMM runs
//   as a batch of g, as the lowering does for grouped and depthwise convolutions)
//   rnn_fwd, rnn_bwd_data   one timestep's recurrent GEMM: m = batch, n = gates*hidden,
//                       k = hidden (the FLOPs cover all timesteps, which run in sequence;
//                       the fit costs the row step by step, calibration.h rnn_step_parts)
//   rnn_bwd_filter      m = gates*hidden, n = hidden, k = batch*timesteps
//   with P = (H + 2 pad - R) / stride + 1, Q = (W + 2 pad - S) / stride + 1 and
//   gates = 1 (vanilla), 4 (lstm), 3 (gru).
// Every other bench is a memory-bound op with no GEMM dims.

#include "calibrate/measurement.h"
#include "graphs/op_graph.h"

namespace amdahl::calibrate {

// Throws UserError for an op class amdahl does not know, an unknown precision, or a shape
// missing a key the bench needs.
graphs::Operator to_operator(const Measurement& m);

// Output size of a convolution along one dim (the formula above).
std::int64_t conv_out_dim(std::int64_t in, std::int64_t kernel, std::int64_t pad,
                          std::int64_t stride);

// A convolution's shape as the conv benches' `shape` cells name it (square padding and
// stride).
struct ConvShape {
  std::int64_t n, c, h, w, k, r, s, pad, stride;
  std::int64_t groups = 1;
  std::int64_t p() const { return conv_out_dim(h, r, pad, stride); }
  std::int64_t q() const { return conv_out_dim(w, s, pad, stride); }
};

// The shape of a conv bench's row (keys n c h w k r s pad stride, optional groups); UserError
// for a missing key or groups that do not divide C and K.
ConvShape conv_shape(const Measurement& m);

// Direct-convolution FLOPs of one direction: 2 N K P Q (C / groups) R S.
double conv_flops(const ConvShape& g);

// A conv bench's `bytes` (measurement_format.md), as graphs/ops/conv.cpp counts them: X as
// the windows read it (graphs/conv_traffic.h) for conv_fwd and conv_bwd_filter, all of dX for
// conv_bwd_data, plus W (K x C/groups x R x S) and Y (dY). UserError for a bench that is not a
// convolution.
double conv_bytes(const std::string& bench, const ConvShape& g, double element_bytes);

// Gates of a cuDNN RNN cell type (vanilla 1, lstm 4, gru 3); UserError for others.
int rnn_gates(const std::string& rnn_type);

}  // namespace amdahl::calibrate
