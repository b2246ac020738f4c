#pragma once
// Kernel timings measured through PyTorch, in the layout of shared/data/h200 (its README.md):
// DIR/kernels/gemm.csv, conv.csv, rnn.csv and micro.csv, and DIR/info.json. Every row becomes a
// measurement of measurement_format.md, its FLOPs and bytes those of the op the layer registry
// lowers it to (measured_op.h), its shape marked `framework=pytorch <version>` (a framework row)
// and `timing=event` (CUDA events recorded around one call) or `timing=wall` (host wall time
// with a synchronize), the times the medians:
//
//   file        row                                         measurements
//   gemm.csv    precision,m,n,k,transA,transB,median_us     gemm (ta, tb kept)
//   conv.csv    precision,N,C,H,W,K,R,S,stride,pad,          conv_fwd, conv_bwd_data,
//               fwd_us,bwd_data_us,bwd_filter_us              conv_bwd_filter
//   rnn.csv     cell,hidden,batch,timesteps,layers,          rnn_layer_fwd (forward of the
//               fwd_us,fwd_bwd_us                             stacked layers), rnn_layer_train
//                                                             (forward and backward)
//   micro.csv   d2d_copy                                     copy_d2d (data_movement)
//               h2d_pinned, d2h_pinned, h2d_pageable         copy_h2d_pinned, copy_d2h_pinned,
//                                                             copy_h2d_pageable (transfer)
//               add_fp32, relu_inplace_fp32, sum_fp32,       elementwise_add, elementwise_relu,
//               softmax_rows1024_fp32 (elements)              reduce_sum, softmax (rows of 1024)
//               1000_tiny_launches_event / _wall / _graph    dispatch mode=event / mode=wall
//                                                             (the framework's per-op host cost),
//                                                             graph_launch (per replayed kernel)
//
// DIR/networks/profile.csv, where present, is the profile of whole training steps whose kernel
// rows calibrate the classes no kernel file covers (profile_kernels.h).
//
// Errors: a missing file or column, a non-numeric or non-positive number, an unknown precision,
// cell or benchmark name: UserError "file:line: column C: ..." naming what was expected.

#include <string>

#include "calibrate/measurement.h"

namespace amdahl::calibrate {

MeasurementSet read_torch_kernels(const std::string& dir);

// The profile's path inside DIR.
inline constexpr const char* kTorchProfile = "networks/profile.csv";

}  // namespace amdahl::calibrate
