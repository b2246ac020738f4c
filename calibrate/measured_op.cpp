#include "calibrate/measured_op.h"

#include <fmt/format.h>

#include "graphs/conv_traffic.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::calibrate {
namespace {

std::int64_t integer(const Measurement& m, const std::string& key) {
  return static_cast<std::int64_t>(m.shape_number(key));
}

std::int64_t integer_or(const Measurement& m, const std::string& key, std::int64_t fallback) {
  return m.shape.count(key) ? integer(m, key) : fallback;
}

UserError not_a_convolution(const std::string& bench) {
  return UserError(fmt::format("bench '{}' is not a convolution (expected one of: {})", bench,
                               "conv_fwd, conv_bwd_data, conv_bwd_filter"));
}

graphs::GemmDims conv_dims(const std::string& bench, const ConvShape& g) {
  const std::int64_t p = g.p(), q = g.q(), c = g.c / g.groups, k = g.k / g.groups;
  if (bench == "conv_fwd") return {g.n * p * q, k, c * g.r * g.s, g.groups};
  if (bench == "conv_bwd_data") return {g.n * g.h * g.w, c, k * g.r * g.s, g.groups};
  if (bench == "conv_bwd_filter") return {k, c * g.r * g.s, g.n * p * q, g.groups};
  throw not_a_convolution(bench);
}

graphs::GemmDims rnn_dims(const Measurement& m) {
  const auto it = m.shape.find("type");
  if (it == m.shape.end())
    throw UserError(fmt::format("measurement {} {} has no 'type' in its shape", m.bench,
                                format_shape(m.shape)));
  const std::int64_t gates = rnn_gates(it->second);
  const std::int64_t hidden = integer(m, "hidden"), batch = integer(m, "batch");
  const std::int64_t steps = integer(m, "timesteps");
  if (m.bench == "rnn_fwd" || m.bench == "rnn_bwd_data") return {batch, gates * hidden, hidden, 1};
  if (m.bench == "rnn_bwd_filter") return {gates * hidden, hidden, batch * steps, 1};
  throw UserError(fmt::format("bench '{}' is not an RNN (expected one of: {})", m.bench,
                              "rnn_fwd, rnn_bwd_data, rnn_bwd_filter"));
}

}  // namespace

std::int64_t conv_out_dim(std::int64_t in, std::int64_t kernel, std::int64_t pad,
                          std::int64_t stride) {
  if (stride <= 0 || in + 2 * pad < kernel)
    throw UserError(
        fmt::format("convolution of size {} (pad {}) with kernel {} stride {} has no "
                    "output",
                    in, pad, kernel, stride));
  return (in + 2 * pad - kernel) / stride + 1;
}

ConvShape conv_shape(const Measurement& m) {
  ConvShape g{integer(m, "n"), integer(m, "c"),   integer(m, "h"),
              integer(m, "w"), integer(m, "k"),   integer(m, "r"),
              integer(m, "s"), integer(m, "pad"), integer(m, "stride")};
  g.groups = integer_or(m, "groups", 1);
  if (g.groups < 1 || g.c % g.groups != 0 || g.k % g.groups != 0)
    throw UserError(fmt::format("measurement {} {}: groups {} must divide c {} and k {}", m.bench,
                                format_shape(m.shape), g.groups, g.c, g.k));
  return g;
}

double conv_flops(const ConvShape& g) {
  const auto d = [](std::int64_t v) { return static_cast<double>(v); };
  return 2.0 * d(g.n) * d(g.k) * d(g.p()) * d(g.q()) * d(g.c / g.groups) * d(g.r) * d(g.s);
}

double conv_bytes(const std::string& bench, const ConvShape& g, double element_bytes) {
  const auto d = [](std::int64_t v) { return static_cast<double>(v); };
  const std::int64_t p = g.p(), q = g.q();
  double x = d(g.n) * d(g.c) * d(g.h) * d(g.w);
  if (bench == "conv_fwd" || bench == "conv_bwd_filter")
    x = d(g.n) * d(g.c) * d(graphs::conv_input_extent(g.h, p, g.r)) *
        d(graphs::conv_input_extent(g.w, q, g.s));
  else if (bench != "conv_bwd_data")
    throw not_a_convolution(bench);
  return element_bytes *
         (x + d(g.k) * d(g.c / g.groups) * d(g.r) * d(g.s) + d(g.n) * d(g.k) * d(p) * d(q));
}

int rnn_gates(const std::string& rnn_type) {
  if (rnn_type == "vanilla") return 1;
  if (rnn_type == "lstm") return 4;
  if (rnn_type == "gru") return 3;
  throw UserError(
      fmt::format("unknown RNN type '{}' (expected one of: vanilla, lstm, gru)", rnn_type));
}

graphs::Operator to_operator(const Measurement& m) {
  graphs::Operator op;
  const auto op_class = graphs::parse_op_class(m.op_class);
  if (!op_class)
    throw UserError(fmt::format("measurement {}: unknown op class '{}' (expected one of: {})",
                                m.bench, m.op_class, join(graphs::op_class_names())));
  op.op_class = *op_class;
  if (m.precision != "none") {
    const auto p = parse_precision(m.precision);
    if (!p)
      throw UserError(fmt::format("measurement {}: unknown precision '{}' (expected one of: {})",
                                  m.bench, m.precision, join(precision_names())));
    op.precision = *p;
  }
  op.name = m.bench;
  op.kind = m.bench;
  op.flops = m.flops;
  op.bytes_read = m.bytes;
  if (m.bench == "gemm" || m.bench.starts_with("gemm_"))
    op.gemm = {integer(m, "m"), integer(m, "n"), integer(m, "k"), integer_or(m, "batch", 1)};
  else if (m.bench.starts_with("conv_")) {
    const ConvShape g = conv_shape(m);
    op.gemm = conv_dims(m.bench, g);
    graphs::describe_convolution(
        op, {g.n, g.c, g.h, g.w, g.k, g.r, g.s, g.p(), g.q(), g.groups, g.stride, g.stride}, true);
  } else if (m.bench.starts_with("rnn_")) {
    op.gemm = rnn_dims(m);
  }
  if (m.bench.ends_with("_bwd_data")) op.phase = graphs::Phase::kBackwardData;
  if (m.bench.ends_with("_bwd_filter")) op.phase = graphs::Phase::kBackwardWeight;
  return op;
}

}  // namespace amdahl::calibrate
