#include "model/fft.h"

#include <cmath>

#include "graphs/tensor.h"

namespace amdahl::model {

namespace {
using graphs::Operator;

double d(std::int64_t v) { return static_cast<double>(v); }

// A transform between a spatial tensor of `spatial` elements and its `complex` values, `count`
// transforms of tile x tile; `to_frequency` reads the spatial tensor, else writes it.
Operator transform(const Operator& op, double spatial, double complex, double count, int tile,
                   bool to_frequency) {
  Operator t;
  t.op_class = OpClass::kElementwise;
  t.phase = op.phase;
  t.precision = Precision::kFp32;
  t.dtype = op.dtype;
  const double points = d(tile) * tile;
  t.flops = count * 2.5 * points * std::log2(points);
  const double spatial_bytes = graphs::dtype_bytes(op.dtype) * spatial;
  const double complex_bytes = kComplexBytes * complex;
  t.bytes_read = to_frequency ? spatial_bytes : complex_bytes;
  t.bytes_written = to_frequency ? complex_bytes : spatial_bytes;
  return t;
}
}  // namespace

bool fft_precision(Precision p) { return p == Precision::kFp32 || p == Precision::kFp16; }

bool fft_eligible(const Operator& op) {
  return op.op_class == OpClass::kConv && op.conv_batch > 0 && op.conv_groups == 1 &&
         op.conv_stride == 1 && op.conv_window_h >= kFftMinWindow &&
         op.conv_window_w >= kFftMinWindow && fft_precision(op.precision) &&
         op.conv_in_channels > 0 && op.conv_out_channels > 0 && fft_tile_fits(op, kFftTiles.back());
}

bool fft_tile_fits(const Operator& op, int tile) {
  return op.conv_window_h <= tile && op.conv_window_w <= tile;
}

FftParts fft_parts(const Operator& op, int tile) {
  const std::int64_t n = op.conv_batch, c = op.conv_in_channels, k = op.conv_out_channels;
  const auto tiles_along = [&](std::int64_t outputs, int window) {
    return std::ceil(d(outputs) / d(tile - window + 1));
  };
  const double tiles = d(n) * tiles_along(op.conv_output_h, op.conv_window_h) *
                       tiles_along(op.conv_output_w, op.conv_window_w);
  const double bins = d(tile) * (tile / 2 + 1);
  // Spatial elements and transformed values of X (C channels), Y (K) and W.
  const double x = op.conv_input_elements, y = op.conv_output_elements;
  const double w = d(k) * d(c) * op.conv_window_h * op.conv_window_w;
  const double x_hat = tiles * d(c) * bins, y_hat = tiles * d(k) * bins, w_hat = d(k) * d(c) * bins;
  const double x_count = tiles * d(c), y_count = tiles * d(k), w_count = d(k) * d(c);

  FftParts parts;
  Operator& p = parts.product;
  p.op_class = OpClass::kGemm;
  p.phase = Phase::kForward;
  p.precision = Precision::kFp32;
  p.dtype = graphs::DType::kF32;
  const auto product = [&](double m, double cols, double depth, double a, double b, double out) {
    p.gemm = {static_cast<std::int64_t>(m), static_cast<std::int64_t>(cols),
              static_cast<std::int64_t>(depth), static_cast<std::int64_t>(bins)};
    p.flops = 8 * m * cols * depth * bins;
    p.bytes_read = kComplexBytes * (a + b);
    p.bytes_written = kComplexBytes * out;
  };
  switch (op.phase) {
    case Phase::kBackwardData:
      parts.transforms = {transform(op, y, y_hat, y_count, tile, true),
                          transform(op, w, w_hat, w_count, tile, true),
                          transform(op, x, x_hat, x_count, tile, false)};
      product(tiles, d(c), d(k), y_hat, w_hat, x_hat);
      break;
    case Phase::kBackwardWeight:
      parts.transforms = {transform(op, x, x_hat, x_count, tile, true),
                          transform(op, y, y_hat, y_count, tile, true),
                          transform(op, w, w_hat, w_count, tile, false)};
      product(d(k), d(c), tiles, y_hat, x_hat, w_hat);
      break;
    default:
      parts.transforms = {transform(op, x, x_hat, x_count, tile, true),
                          transform(op, w, w_hat, w_count, tile, true),
                          transform(op, y, y_hat, y_count, tile, false)};
      product(tiles, d(k), d(c), x_hat, w_hat, y_hat);
      break;
  }
  return parts;
}

}  // namespace amdahl::model
