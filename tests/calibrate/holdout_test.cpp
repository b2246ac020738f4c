#include "calibrate/holdout.h"

#include <catch2/catch.hpp>

using namespace amdahl::calibrate;

namespace {
Measurement gemm(int m, int threads = 0) {
  Measurement x;
  x.bench = "gemm";
  x.op_class = "gemm";
  x.shape = {{"m", std::to_string(m)}, {"n", "8"}, {"k", "8"}};
  if (threads > 0) x.shape["threads"] = std::to_string(threads);
  return x;
}
}  // namespace

TEST_CASE("every fifth shape of a class is held out, in file order", "[calibrate][holdout]") {
  std::vector<Measurement> rows;
  for (int i = 0; i < 12; ++i) rows.push_back(gemm(i + 1));
  const auto held = held_out_rows(rows);
  std::vector<int> held_indices;
  for (std::size_t i = 0; i < held.size(); ++i)
    if (held[i]) held_indices.push_back(static_cast<int>(i));
  CHECK(held_indices == std::vector<int>{4, 9});
  CHECK(held_out_rows(rows) == held);  // deterministic: no seed, same answer
}

TEST_CASE("one shape's directions and thread counts fall on the same side of the split",
          "[calibrate][holdout]") {
  std::vector<Measurement> rows;
  for (int i = 0; i < 5; ++i) {
    rows.push_back(gemm(i + 1, 1));
    rows.push_back(gemm(i + 1, 2));
  }
  Measurement fwd;
  fwd.bench = "conv_fwd";
  fwd.op_class = "conv";
  fwd.shape = {{"n", "1"}, {"algo", "WINOGRAD"}};
  Measurement bwd = fwd;
  bwd.bench = "conv_bwd_data";
  bwd.shape.erase("algo");
  rows.push_back(fwd);
  rows.push_back(bwd);
  const auto held = held_out_rows(rows);
  CHECK(held[8]);  // shape 5 of gemm at 1 thread
  CHECK(held[9]);  // ... and at 2 threads
  CHECK(holdout_key(fwd) == holdout_key(bwd));
  CHECK_FALSE(held[10]);  // conv counts its own shapes: index 0
  CHECK_FALSE(held[11]);
  // amdahl-cudabench names the algorithm, math mode and layout cuDNN ran each direction in;
  // they may differ between directions and precisions of one convolution.
  Measurement tensor_op = fwd;
  tensor_op.shape["math"] = "TENSOR_OP";
  tensor_op.shape["layout"] = "NHWC";
  Measurement fma = bwd;
  fma.shape["math"] = "FMA";
  fma.shape["layout"] = "NCHW";
  CHECK(holdout_key(tensor_op) == holdout_key(fma));
  CHECK(holdout_key(tensor_op) == holdout_key(fwd));
}
