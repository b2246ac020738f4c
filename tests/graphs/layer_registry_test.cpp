// Every kind of the layer registry (graphs/layer_kind.h, the table `amdahl describe ops`
// lists) against its formula written here from the op's definition and the conventions its
// family header documents: output shape, parameters, and the FLOPs and bytes of its forward
// ops (inference and training) and backward ops (training, every floating-point input needing
// a gradient), at two batch sizes. The table has one row per kind; a kind registered without a
// row fails the first test, so a new kind lands with its expectation.
//
// Conventions the formulas follow (graphs/ops/*.cpp headers): fp32 tensors, 4 bytes an
// element; an op reads each tensor it needs once and writes its output once; every arithmetic
// operation, comparison and elementary function counts 1 FLOP (unary.cpp), a GEMM 2 m n k.
// Elementwise backward ops read the output gradient and the saved tensors and write the input
// gradient.
//
// How a row is measured: each floating-point input x_i is first scaled by a learned scalar
// (`mul`, layer p<i>), so that it needs a gradient; the layer under test is `l`; a loss kind
// is the network's loss, any other is followed by `mse` against a target of its output's
// shape. Only ops whose layer is `l` are summed.

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>

#include "graphs/layer_kind.h"
#include "graphs/lower.h"
#include "test_network.h"

using namespace amdahl;
using namespace amdahl::graphs;

namespace {

constexpr double kE = 4;  // fp32 bytes per element
constexpr double kB = 1;  // bool bytes per element
constexpr double kI = 8;  // int64 bytes per element
// Sums of a few doubles, each an integer below 2^53: exact, so a relative 1e-12 only absorbs
// the order of summation.
constexpr double kRelTol = 1e-12;
// A byte count the row leaves unchecked (a long unrolled lowering whose bytes other tests pin:
// recurrent_test.cpp, attention_test.cpp); its FLOPs are still checked.
constexpr double kUnchecked = std::numeric_limits<double>::quiet_NaN();

struct Cost {
  double flops = 0, read = 0, written = 0;
};

struct Case {
  std::vector<TensorInfo> inputs;
  ParamMap params;
  Shape out;  // output 0
  DType out_dtype = DType::kF32;
  std::int64_t parameters = 0;
  Cost forward;                       // inference (a loss has none: inference drops it)
  std::optional<Cost> forward_train;  // when training's forward differs
  Cost backward;                      // training, all ops of both backward phases
};

TensorInfo f32(Shape s) { return TensorInfo{std::move(s), DType::kF32}; }
TensorInfo i64(Shape s) { return TensorInfo{std::move(s), DType::kI64}; }
TensorInfo boolean(Shape s) { return TensorInfo{std::move(s), DType::kBool}; }
IntList ints(std::initializer_list<std::int64_t> v) { return IntList(v); }
std::int64_t i(std::int64_t v) { return v; }

// The row of a kind at batch size n.
using Row = std::function<Case(double n)>;

// Unary elementwise over x [n, 8]: `fwd` FLOPs per element, reading x and writing y; the
// backward `bwd` per element reading dy and one saved tensor (none without a gradient).
Row unary(double fwd, double bwd, bool differentiable = true, ParamMap params = {}) {
  return [=](double n) {
    const double m = 8 * n;
    Case c{{f32({std::int64_t(n), 8})}, params, {std::int64_t(n), 8}};
    c.forward = {fwd * m, kE * m, kE * m};
    if (differentiable) c.backward = {bwd * m, 2 * kE * m, kE * m};
    return c;
  };
}

// Binary with broadcasting: a [n, 8] op b [8] -> [n, 8]. Operand a's gradient is full size:
// `ga` FLOPs per element (none, and no op, when it is dy itself); b's is summed over the
// batch dim: `gb` + 1 add per output element. Each reads dy and, when its derivative has
// FLOPs, the other operand.
Row binary(double ga, double gb, bool differentiable = true, DType out = DType::kF32,
           DType in = DType::kF32) {
  return [=](double n) {
    const double m = 8 * n, eb = in == DType::kBool ? kB : kE, eo = out == DType::kBool ? kB : kE;
    Case c{
        {TensorInfo{{std::int64_t(n), 8}, in}, TensorInfo{{8}, in}}, {}, {std::int64_t(n), 8}, out};
    c.forward = {m, eb * (m + 8), eo * m};
    if (differentiable) {
      if (ga > 0) c.backward = {ga * m, kE * m + kE * 8, kE * m};
      c.backward.flops += (gb + 1) * m;
      c.backward.read += kE * m + (gb > 0 ? kE * m : 0);
      c.backward.written += kE * 8;
    }
    return c;
  };
}

// Reduction of x [n, 4, 8] over its last dim -> [n, 4]: `per_in` FLOPs per input element and
// `per_out` per output element; the backward broadcasts dy back (`bwd` per input element),
// reading x too when it finds the winner or divides by it.
Row reduce(double per_in, double per_out, double bwd, bool reads_input) {
  return [=](double n) {
    const double in = 32 * n, out = 4 * n;
    Case c{{f32({std::int64_t(n), 4, 8})},
           {{"axes", ints({-1})}, {"keepdims", false}},
           {std::int64_t(n), 4}};
    c.forward = {per_in * in + per_out * out, kE * in, kE * out};
    c.backward = {bwd * in, kE * out + (reads_input ? kE * in : 0), kE * in};
    return c;
  };
}

// A GEMM y = x W^T (+ b) of `rows` x `in` by `in` x `out` as linear and the projections lower
// it: forward, and the data, weight and bias gradients.
Cost gemm_forward(double rows, double in, double out, bool bias) {
  return {2 * rows * in * out + (bias ? rows * out : 0),
          kE * (rows * in + in * out + (bias ? out : 0)), kE * rows * out};
}
double gemm_backward_flops(double rows, double in, double out, bool bias, bool data = true) {
  return (data ? 2 : 1) * 2 * rows * in * out + (bias ? rows * out : 0);
}

// lstm (gates 4), gru (3), rnn (1) over x [T=3, n, I=4], hidden H=5, one layer, one
// direction, two bias vectors: cuDNN's lowering (recurrent.cpp): one input GEMM for all steps,
// per step a recurrent GEMM and a pointwise kernel of `cell` FLOPs per hidden unit; backward
// per step the pointwise gradient (`cell_bwd`) and, but for the first step, the recurrent data
// GEMM; then the input-gradient GEMM, dW_ih, dW_hh and the bias reduction.
Row recurrent(double gates, double cell, double cell_bwd, double states) {
  return [=](double n) {
    const double t = 3, in = 4, h = 5, g = gates * h;
    Case c{{f32({3, std::int64_t(n), 4})}, {{"hidden_size", i(5)}}, {3, std::int64_t(n), 5}};
    c.parameters = std::int64_t(g * in + g * h + 2 * g);
    const double xproj = 2 * t * n * g * in, hproj = 2 * n * h * g;
    c.forward.flops = xproj + t * (hproj + cell * n * h);
    // xproj reads x and W_ih, writes T N G H; hproj reads h and W_hh, writes N G H; the cell
    // reads both projections, the biases and (lstm) the cell state, writes the states and in
    // training also the gates.
    c.forward.read = kE * (t * n * in + g * in) +
                     t * kE * (n * h + g * h + 2 * n * g + 2 * g + (states - 1) * n * h);
    c.forward.written = kE * t * n * g + t * kE * (n * g + states * n * h);
    c.forward_train = c.forward;
    c.forward_train->written += t * kE * n * g;
    c.backward.flops = t * cell_bwd * n * h + (t - 1) * hproj + 2 * xproj + 2 * t * n * g * h +
                       t * n * g;  // dX, dW_ih, dW_hh, dbias
    c.backward.read = c.backward.written = kUnchecked;
    return c;
  };
}

Cost operator+(Cost a, const Cost& b) {
  return {a.flops + b.flops, a.read + b.read, a.written + b.written};
}

std::map<std::string, Row> rows() {
  std::map<std::string, Row> r;
  // Unary (unary.cpp): FLOPs of the closed form, forward and derivative times dy.
  r["exp"] = unary(1, 1);           // e^x; dy * y
  r["log"] = unary(1, 1);           // ln x; dy / x
  r["sqrt"] = unary(1, 2);          // sqrt x; dy * 0.5 / y
  r["reciprocal"] = unary(1, 2);    // 1 / x; -dy * y * y (the sign folds into a multiply)
  r["erf"] = unary(1, 4);           // erf; dy * 2/sqrt(pi) * exp(-x^2): square, exp, 2 mul
  r["neg"] = unary(1, 1);           // -x; -dy
  r["abs"] = unary(1, 2);           // |x|; dy * sign(x)
  r["sin"] = unary(1, 2);           // sin; dy * cos x
  r["cos"] = unary(1, 2);           // cos; -dy * sin x
  r["softplus"] = unary(3, 5);      // exp, add, log; dy * sigmoid(x) (4 + 1)
  r["softsign"] = unary(3, 4);      // abs, add, div; dy / (1 + |x|)^2: abs, add, square, div
  r["elu"] = unary(4, 3);           // compare, exp, sub, mul; dy * (x > 0 ? 1 : y + alpha)
  r["selu"] = unary(5, 3);          // elu's 4 and the gamma mul; dy * (x > 0 ? g : y + g a)
  r["hard_sigmoid"] = unary(4, 2);  // mul, add, max, min; dy * alpha inside (0, 1): select, mul
  r["hard_swish"] = unary(5, 4);    // x * relu6(x + 3) / 6; dy * (x / 3 + 0.5) in (-3, 3): 2 + 2
  r["leaky_relu"] = unary(2, 2);    // compare, mul; select, mul
  r["clip"] = unary(2, 2);          // max, min; dy masked by the two bounds
  r["pow_scalar"] = unary(1, 3);    // x^p; dy * p * x^(p-1): pow, 2 mul
  for (const char* k : {"floor", "ceil", "round", "sign", "not"}) r[k] = unary(1, 0, false);
  r["is_nan"] = [](double n) {  // x != x: one compare per element into a bool
    Case c = unary(1, 0, false)(n);
    c.out_dtype = DType::kBool;
    c.forward.written = kB * 8 * n;
    return c;
  };
  // Activations (activation.cpp), the same rule with an inplace flag.
  r["relu"] = unary(1, 1);          // max(x, 0); select
  r["clipped_relu"] = unary(2, 2);  // max, min; two-sided select
  r["sigmoid"] = unary(4, 3);       // exp, add, divide, negate; dy * y * (1 - y)
  r["tanh"] = unary(4, 3);          // as sigmoid; dy * (1 - y * y)
  r["gelu"] = unary(12, 20);        // tanh form: 12, its derivative 20 (activation.cpp)
  r["silu"] = unary(5, 8);          // x * sigmoid(x); sigmoid (1 + x (1 - s)) * dy
  // Binary (binary.cpp): 1 FLOP per output element; gradient FLOPs of each operand.
  r["add_broadcast"] = binary(0, 0);  // dy, dy
  r["sub"] = binary(0, 1);            // dy, -dy
  r["mul"] = binary(1, 1);            // dy * b, dy * a
  r["div"] = binary(1, 3);            // dy / b, -dy * a / b^2
  r["pow"] = binary(3, 3);            // dy b a^(b-1), dy ln(a) a^b
  r["max"] = binary(1, 1);            // a select each
  r["min"] = binary(1, 1);
  r["mod"] = binary(0, 0, false);
  for (const char* k : {"equal", "less", "greater"}) r[k] = binary(0, 0, false, DType::kBool);
  for (const char* k : {"and", "or"}) r[k] = binary(0, 0, false, DType::kBool, DType::kBool);
  // where(cond [n, 8], x [n, 8], y [8]): a select per element; dx the masked dy, dy summed
  // over the batch too; each reads dy and the condition.
  r["where"] = [](double n) {
    const double m = 8 * n;
    Case c{{boolean({std::int64_t(n), 8}), f32({std::int64_t(n), 8}), f32({8})},
           {},
           {std::int64_t(n), 8}};
    c.forward = {m, kB * m + kE * m + kE * 8, kE * m};
    c.backward = {m + 2 * m, 2 * (kE * m + kB * m), kE * m + kE * 8};
    return c;
  };
  // add of three [n, 8]: two adds per element; the gradient passes to each (no op).
  r["add"] = [](double n) {
    const double m = 8 * n;
    const TensorInfo x = f32({std::int64_t(n), 8});
    Case c{{x, x, x}, {}, {std::int64_t(n), 8}};
    c.forward = {2 * m, 3 * kE * m, kE * m};
    return c;
  };
  // reparameterize(mean, logvar) [n, 8]: eps draw, scale, exp, mul, add = 5; writes z and eps.
  // d(mean) = dz (no op); d(logvar) = dz eps exp(logvar / 2) / 2 = 3, reading dz, eps, logvar.
  r["reparameterize"] = [](double n) {
    const double m = 8 * n;
    const TensorInfo x = f32({std::int64_t(n), 8});
    Case c{{x, x}, {}, {std::int64_t(n), 8}};
    c.forward = {5 * m, 2 * kE * m, 2 * kE * m};
    c.backward = {3 * m, 3 * kE * m, kE * m};
    return c;
  };
  // dropout [n, 8]: nothing in inference; in training a mask draw and multiply (2 FLOPs),
  // writing y and a 1-byte mask; backward dy * mask.
  r["dropout"] = [](double n) {
    const double m = 8 * n;
    Case c{{f32({std::int64_t(n), 8})}, {}, {std::int64_t(n), 8}};
    c.forward_train = Cost{2 * m, kE * m, kE * m + kB * m};
    c.backward = {m, kE * m + kB * m, kE * m};
    return c;
  };
  // softmax over the last of [n, 8]: max, sub, exp, sum, div = 5; y (dy - sum(dy y)) = 4.
  r["softmax"] = unary(5, 4);
  // Reductions (reduce.cpp).
  r["reduce_sum"] = reduce(1, 0, 0, false);   // add; broadcast dy
  r["reduce_mean"] = reduce(1, 1, 1, false);  // add, then divide; dy / count
  r["reduce_max"] = reduce(1, 0, 1, true);    // compare; dy where x is the max
  r["reduce_min"] = reduce(1, 0, 1, true);
  r["reduce_prod"] = reduce(1, 0, 2, true);        // mul; dy * y / x
  r["reduce_sum_square"] = reduce(2, 0, 2, true);  // mul, add; 2 dy x
  r["reduce_l2"] = reduce(2, 1, 2, true);          // mul, add, then sqrt; dy x / y
  // Pooling (pool.cpp) over x [n, 2, 8, 8]: one compare or add per window element.
  r["maxpool2d"] = [](double n) {  // 2x2 stride 2 -> 4x4; backward reads x for the argmax
    Case c{{f32({std::int64_t(n), 2, 8, 8})}, {{"kernel", ints({2})}}, {std::int64_t(n), 2, 4, 4}};
    const double out = n * 2 * 16, in = n * 2 * 64, flops = out * 4;
    c.forward = {flops, kE * in, kE * out};
    c.backward = {flops, kE * out + kE * in, kE * in};
    return c;
  };
  r["avgpool2d"] = [](double n) {  // 3x3 stride 1 padding 1 -> 8x8
    Case c{{f32({std::int64_t(n), 2, 8, 8})},
           {{"kernel", ints({3})}, {"stride", ints({1})}, {"padding", ints({1})}},
           {std::int64_t(n), 2, 8, 8}};
    const double out = n * 2 * 64, flops = out * 9;
    c.forward = {flops, kE * out, kE * out};
    c.backward = {flops, kE * out, kE * out};
    return c;
  };
  // Normalization (norm.cpp) over x [n, 4, 2, 2] (C = 4): batch norm folds into a 2-FLOP
  // scale-shift in inference; in training statistics (3) and scale-shift (4) read x twice;
  // backward 9 per element reading x and dy twice, writing dx, dgamma and dbeta.
  const auto norm = [](bool batch) {
    return [batch](double n) {
      const double m = 16 * n;
      Case c{{f32({std::int64_t(n), 4, 2, 2})}, {}, {std::int64_t(n), 4, 2, 2}};
      c.parameters = 2 * 4;
      const Cost train{7 * m, 2 * kE * m, kE * m};
      c.forward = batch ? Cost{2 * m, kE * m, kE * m} : train;
      c.forward_train = train;
      c.backward = {9 * m, 4 * kE * m, kE * m + 2 * kE * 4};
      return c;
    };
  };
  r["batchnorm2d"] = norm(true);
  r["instance_norm"] = norm(false);  // its own statistics in inference too
  // layer_norm over the last dim of [n, 3, 8]: mean 1, variance 3, normalize 2, scale-shift 2;
  // backward dx 10 + dgamma 2 + dbeta 1, reading dy and x, writing dx and the [8] gradients.
  r["layer_norm"] = [](double n) {
    const double m = 24 * n;
    Case c{{f32({std::int64_t(n), 3, 8})}, {}, {std::int64_t(n), 3, 8}};
    c.parameters = 2 * 8;
    c.forward = {8 * m, kE * m, kE * m};
    c.backward = {13 * m, 2 * kE * m, kE * m + 2 * kE * 8};
    return c;
  };
  // lrn with radius 2 (a window of 5 channels): window sum of squares 2 * 5, then bias, power
  // and multiply 3; backward twice that, 4 * 5 + 6, reading dy and two saved tensors.
  r["lrn"] = [](double n) {
    const double m = 32 * n;
    Case c{{f32({std::int64_t(n), 8, 2, 2})}, {}, {std::int64_t(n), 8, 2, 2}};
    c.forward = {13 * m, kE * m, kE * m};
    c.backward = {26 * m, 3 * kE * m, kE * m};
    return c;
  };
  // linear 8 -> 5 over x [n, 3, 8]: M = 3n rows.
  r["linear"] = [](double n) {
    const double rows = 3 * n;
    Case c{{f32({std::int64_t(n), 3, 8})}, {{"out_features", i(5)}}, {std::int64_t(n), 3, 5}};
    c.parameters = 8 * 5 + 5;
    c.forward = gemm_forward(rows, 8, 5, true);
    // dX = dY W (reads dY, W; writes dX), dW = dY^T X (reads dY, X), db = sum dY.
    c.backward = {gemm_backward_flops(rows, 8, 5, true),
                  kE * (rows * 5 + 40) + kE * (rows * 5 + rows * 8) + kE * rows * 5,
                  kE * (rows * 8 + 40 + 5)};
    return c;
  };
  // matmul [n, 3, 4] x [n, 4, 5]: 2 * n * 3 * 5 * 4; dA = dC B^T, dB = A^T dC.
  r["matmul"] = [](double n) {
    const double a = 12 * n, b = 20 * n, out = 15 * n, flops = 2 * n * 3 * 5 * 4;
    Case c{
        {f32({std::int64_t(n), 3, 4}), f32({std::int64_t(n), 4, 5})}, {}, {std::int64_t(n), 3, 5}};
    c.forward = {flops, kE * (a + b), kE * out};
    c.backward = {2 * flops, kE * (2 * out + a + b), kE * (a + b)};
    return c;
  };
  // conv2d 2 -> 4 channels, 3x3, padding 1, over [n, 2, 6, 6]: 2 N K P Q (C/g) R S + a bias
  // add per output; dW and dX the same MACs, db one add per output.
  r["conv2d"] = [](double n) {
    Case c{{f32({std::int64_t(n), 2, 6, 6})},
           {{"out_channels", i(4)}, {"kernel", ints({3})}, {"padding", ints({1})}},
           {std::int64_t(n), 4, 6, 6}};
    const double in = n * 72, out = n * 144, w = 4 * 2 * 9, macs = 2 * n * 4 * 36 * 2 * 9;
    c.parameters = std::int64_t(w) + 4;
    c.forward = {macs + out, kE * (in + w + 4), kE * out};
    c.backward = {2 * macs + out, kE * (out + in) + kE * (out + w) + kE * out, kE * (w + in + 4)};
    return c;
  };
  // conv_transpose2d 4 -> 2 channels, 2x2 stride 2, over [n, 4, 3, 3]: output (3 - 1) 2 + 2 =
  // 6; the MACs 2 N C H W (K/g) R S of the conv it transposes; weight [C, K/g, R, S].
  r["conv_transpose2d"] = [](double n) {
    Case c{{f32({std::int64_t(n), 4, 3, 3})},
           {{"out_channels", i(2)}, {"kernel", ints({2})}, {"stride", ints({2})}},
           {std::int64_t(n), 2, 6, 6}};
    const double in = n * 36, out = n * 72, w = 4 * 2 * 4, macs = 2 * n * 4 * 9 * 2 * 4;
    c.parameters = std::int64_t(w) + 2;
    c.forward = {macs + out, kE * (in + w + 2), kE * out};
    c.backward = {2 * macs + out, kE * (out + in) + kE * (out + w) + kE * out, kE * (w + in + 2)};
    return c;
  };
  // embedding of ids [n, 3] in a 10 x 4 table: reads the ids and a row per id, no FLOPs; the
  // sparse weight gradient adds dy into the rows (1 FLOP per element), reading dy and ids.
  r["embedding"] = [](double n) {
    const double ids = 3 * n, out = 12 * n;
    Case c{{i64({std::int64_t(n), 3})},
           {{"num_embeddings", i(10)}, {"embedding_dim", i(4)}},
           {std::int64_t(n), 3, 4}};
    c.parameters = 40;
    c.forward = {0, kI * ids + kE * out, kE * out};
    c.backward = {out, kE * out + kI * ids, kE * out};
    return c;
  };
  // position_encoding, temporal, of memories [n, M=3, S=5, E=4] -> [n, 3, 4]: 2 FLOPs per
  // word element (multiply, sum) and 1 per output for the learned [M, E] matrix; backward the
  // gradient broadcast over the words (1 per input element) and the temporal sum over n.
  r["position_encoding"] = [](double n) {
    const double in = 60 * n, out = 12 * n;
    Case c{{f32({std::int64_t(n), 3, 5, 4})}, {{"temporal", true}}, {std::int64_t(n), 3, 4}};
    c.parameters = 3 * 4;
    c.forward = {2 * in + out, kE * in, kE * out};
    c.backward = {in + out, 2 * kE * out, kE * in + kE * 12};
    return c;
  };
  // Views: no op forward; the gradient passes through.
  r["identity"] = [](double n) {
    return Case{{f32({std::int64_t(n), 2, 3})}, {}, {std::int64_t(n), 2, 3}};
  };
  r["flatten"] = [](double n) {
    return Case{{f32({std::int64_t(n), 2, 3})}, {}, {std::int64_t(n), 6}};
  };
  r["reshape"] = [](double n) {  // 0 copies dim 0, -1 is inferred
    return Case{
        {f32({std::int64_t(n), 2, 3})}, {{"shape", ints({0, -1, 2})}}, {std::int64_t(n), 3, 2}};
  };
  // Copies: read the input once, write the output once; the gradient moves back the same way.
  r["transpose"] = [](double n) {
    const double m = 6 * n;
    Case c{{f32({std::int64_t(n), 2, 3})}, {{"perm", ints({0, 2, 1})}}, {std::int64_t(n), 3, 2}};
    c.forward = {0, kE * m, kE * m};
    c.backward = {0, kE * m, kE * m};
    return c;
  };
  r["concat"] = [](double n) {  // [n, 2] and [n, 3] along 1; backward a slice copy each
    Case c{{f32({std::int64_t(n), 2}), f32({std::int64_t(n), 3})},
           {{"axis", i(1)}},
           {std::int64_t(n), 5}};
    c.forward = {0, kE * 5 * n, kE * 5 * n};
    c.backward = {0, kE * 5 * n, kE * 5 * n};
    return c;
  };
  r["cast"] = [](double n) {  // fp32 -> fp16 [n, 8]; the gradient cast back
    const double m = 8 * n;
    Case c{{f32({std::int64_t(n), 8})}, {{"to", std::string("fp16")}}, {std::int64_t(n), 8}};
    c.out_dtype = DType::kF16;
    c.forward = {0, kE * m, 2 * m};
    c.backward = {0, 2 * m, kE * m};
    return c;
  };
  // Movement (movement.cpp): a copy reads the output's worth of the input (plus gather's
  // indices) and writes the output; slice and gather scatter dy into a zero-filled dx (writes
  // dx and the scattered values), split and pad copy dx once, expand and tile sum dy over the
  // copies (1 add per output element).
  r["slice"] = [](double n) {  // [n, 8] elements 1, 3, 5 of dim 1
    Case c{{f32({std::int64_t(n), 8})},
           {{"starts", ints({1})}, {"ends", ints({7})}, {"axes", ints({1})}, {"steps", ints({2})}},
           {std::int64_t(n), 3}};
    c.forward = {0, kE * 3 * n, kE * 3 * n};
    c.backward = {0, kE * 3 * n, kE * 8 * n + kE * 3 * n};
    return c;
  };
  r["split"] = [](double n) {  // [n, 8] into [n, 3] and [n, 5]: views
    Case c{{f32({std::int64_t(n), 8})},
           {{"axis", i(1)}, {"sizes", ints({3, 5})}},
           {std::int64_t(n), 3}};
    c.backward = {0, kE * 8 * n, kE * 8 * n};
    return c;
  };
  r["gather"] = [](double n) {  // [n, 8] by indices [2, 3] along 1 -> [n, 2, 3]
    Case c{{f32({std::int64_t(n), 8}), i64({2, 3})}, {{"axis", i(1)}}, {std::int64_t(n), 2, 3}};
    c.forward = {0, kE * 6 * n + kI * 6, kE * 6 * n};
    c.backward = {0, kE * 6 * n, kE * 8 * n + kE * 6 * n};
    return c;
  };
  r["expand"] = [](double n) {  // [n, 1, 4] to [1, 3, 4] -> [n, 3, 4]
    Case c{{f32({std::int64_t(n), 1, 4})}, {{"shape", ints({1, 3, 4})}}, {std::int64_t(n), 3, 4}};
    c.forward = {0, kE * 12 * n, kE * 12 * n};
    c.backward = {12 * n, kE * 12 * n, kE * 4 * n};
    return c;
  };
  r["pad"] = [](double n) {  // [n, 4] padded by 1 and 2 on dim 1 -> [n, 7]
    Case c{{f32({std::int64_t(n), 4})}, {{"pads", ints({0, 1, 0, 2})}}, {std::int64_t(n), 7}};
    c.forward = {0, kE * 7 * n, kE * 7 * n};
    c.backward = {0, kE * 4 * n, kE * 4 * n};
    return c;
  };
  r["tile"] = [](double n) {  // [n, 4] twice along dim 1 -> [n, 8]
    Case c{{f32({std::int64_t(n), 4})}, {{"repeats", ints({1, 2})}}, {std::int64_t(n), 8}};
    c.forward = {0, kE * 8 * n, kE * 8 * n};
    c.backward = {8 * n, kE * 8 * n, kE * 4 * n};
    return c;
  };
  // Losses (loss.cpp); scalar outputs (4 bytes), no forward in inference.
  // softmax_cross_entropy of logits [n, 5] and labels [n]: softmax 5 per logit and a pick per
  // row, writing the probabilities; backward (p - onehot) / N: 2 per logit.
  r["softmax_cross_entropy"] = [](double n) {
    const double m = 5 * n;
    Case c{{f32({std::int64_t(n), 5}), i64({std::int64_t(n)})}, {}, {}};
    c.forward_train = Cost{5 * m + n, kE * m + kI * n, kE * m + 4};
    c.backward = {2 * m, kE * m + kI * n, kE * m};
    return c;
  };
  // mse and vae_kl of two [n, 4]: per element 3 (difference, square, sum) and 6
  // (square, exp, three sums, reduce); gradients (2, 2) and (1: mean, 3: (exp(logvar) - 1) / 2),
  // each reading both inputs.
  const auto pairwise = [](double fwd, double g0, double g1) {
    return [=](double n) {
      const double m = 4 * n;
      const TensorInfo x = f32({std::int64_t(n), 4});
      Case c{{x, x}, {}, {}};
      c.forward_train = Cost{fwd * m, 2 * kE * m, 4};
      c.backward = {(g0 + g1) * m, 4 * kE * m, 2 * kE * m};
      return c;
    };
  };
  r["mse"] = pairwise(3, 2, 2);
  r["vae_kl"] = pairwise(6, 1, 3);
  // ctc of logits [T=6, n, C=5] and labels [n, S=2]: the lattice has 2S + 1 = 5 states per
  // frame: log-softmax 5 per logit, alpha 8 per state and frame (written, 4 bytes each);
  // backward beta 8 + posteriors 4 per state, 2 per logit.
  r["ctc"] = [](double n) {
    const double logits = 30 * n, states = 6 * n * 5;
    Case c{{f32({6, std::int64_t(n), 5}), i64({std::int64_t(n), 2})}, {}, {}};
    c.forward_train =
        Cost{5 * logits + 8 * states, kE * logits + kI * 2 * n, kE * logits + kE * states};
    c.backward = {12 * states + 2 * logits, 2 * kE * logits + kE * states, kE * logits};
    return c;
  };
  // td_huber of Q [n, 3] and target [n]: one-hot pick and max 2 per Q value, error and Huber
  // clip 4 per row (Q read twice); backward the clipped error scattered, 2 per Q value.
  r["td_huber"] = [](double n) {
    const double q = 3 * n;
    Case c{{f32({std::int64_t(n), 3}), f32({std::int64_t(n)})}, {}, {}};
    c.forward_train = Cost{2 * q + 4 * n, 2 * kE * q + kE * n, 4};
    c.backward = {2 * q, 2 * kE * q + kE * n, kE * q};
    return c;
  };
  // sampled_softmax of hidden [n, 3, H=4] (M = 3n rows) over 20 classes with 5 shared
  // samples: gather the 5 + M weight rows and biases; logits M x 5 (GEMM, k = H) plus the true
  // logits (2 H per row); softmax cross-entropy over 6 logits per row. Backward: the logit
  // gradient (2 per logit), dh (GEMM over the 6 logits) and the sparse dW into the rows.
  r["sampled_softmax"] = [](double n) {
    const double m = 3 * n, h = 4, s = 5, rows = s + m, logits = m * (s + 1);
    Case c{{f32({std::int64_t(n), 3, 4}), i64({std::int64_t(n), 3})},
           {{"num_classes", i(20)}, {"num_sampled", i(5)}},
           {}};
    c.parameters = 20 * 4 + 20;
    c.forward_train = Cost{0, kE * rows * (h + 1), kE * rows * (h + 1)} +
                      Cost{2 * m * h * s + 2 * m * h, kE * (m * h + rows * h), kE * logits} +
                      Cost{5 * logits, kE * logits + kI * m, kE * logits + 4};
    c.backward = {2 * logits + 2 * 2 * m * h * (s + 1), kUnchecked, kUnchecked};
    return c;
  };
  // Recurrent (recurrent.cpp): pointwise FLOPs per hidden unit and step with two bias vectors:
  // lstm 4 (1 + 2) + 24 forward, 27 backward; gru 3 (1 + 2) + 17, 16; rnn (tanh) 3 + 4, 3 + 1.
  r["lstm"] = recurrent(4, 36, 27, 2);
  r["gru"] = recurrent(3, 26, 16, 1);
  r["rnn"] = recurrent(1, 7, 4, 1);
  // attention: self-attention over x [n, L=4, E=8], 2 heads (d = 4), projections with biases:
  // in_proj (8 -> 24) and out_proj (8 -> 8) GEMMs, S = Q K^T and O = P V 2 N Lq Lk E each,
  // scale-mask-softmax 7 per score (scores N heads Lq Lk); backward two GEMMs per forward GEMM
  // (and the biases), softmax 4 per score.
  r["attention"] = [](double n) {
    const double rows = 4 * n, scores = n * 2 * 4 * 4, sv = 2 * n * 4 * 4 * 8;
    Case c{{f32({std::int64_t(n), 4, 8})}, {{"heads", i(2)}}, {std::int64_t(n), 4, 8}};
    c.parameters = 24 * 8 + 24 + 8 * 8 + 8;
    c.forward = gemm_forward(rows, 8, 24, true) + gemm_forward(rows, 8, 8, true) +
                Cost{sv, kE * n * 8 * 8, kE * scores} + Cost{7 * scores, kE * scores, kE * scores} +
                Cost{sv, kE * (scores + n * 4 * 8), kE * n * 4 * 8};
    c.backward = {gemm_backward_flops(rows, 8, 24, true) + gemm_backward_flops(rows, 8, 8, true) +
                      4 * sv + 4 * scores,
                  kUnchecked, kUnchecked};
    return c;
  };
  // attention_decoder: x [Td=2, n, E=3], encoder states [Te=4, n, H=5], one LSTM layer, A = H.
  // Keys once (Te N x A, k = H); per step merge (N x H, k = E + H), gates (N x 4H, k = 2H),
  // the LSTM cell (28 per unit), query (N x A, k = 2H), scores 7 per [N, Te, A] element,
  // softmax 5 per [N, Te], context (batched 1 x H, k = Te) and out (N x H, k = 2H); biased
  // GEMMs add one per output. Backward: two GEMMs per biased GEMM and the keys, the context's
  // data gradient only, cell 27 per unit, scores 9, softmax 4.
  r["attention_decoder"] = [](double n) {
    const double h = 5, a = 5, e = 3, te = 4, td = 2;
    Case c{{f32({2, std::int64_t(n), 3}), f32({4, std::int64_t(n), 5})},
           {{"hidden_size", i(5)}},
           {2, std::int64_t(n), 5}};
    c.parameters = std::int64_t(a * h + (h * (e + h) + h) + (4 * h * 2 * h + 4 * h) +
                                (a * 2 * h + a) + a + (h * 2 * h + h));
    const double merge = 2 * n * h * (e + h), gates = 2 * n * 4 * h * 2 * h,
                 query = 2 * n * a * 2 * h, context = 2 * n * h * te, out = 2 * n * h * 2 * h,
                 keys = 2 * te * n * a * h;
    c.forward.flops = keys + td * (merge + n * h + gates + 4 * n * h + 28 * n * h + query + n * a +
                                   7 * n * te * a + 5 * n * te + context + out + n * h);
    c.forward.read = c.forward.written = kUnchecked;
    c.forward_train = c.forward;
    c.backward = {2 * keys + td * (2 * (merge + gates + query + out) + context + 27 * n * h +
                                   9 * n * te * a + 4 * n * te),
                  kUnchecked, kUnchecked};
    return c;
  };
  return r;
}

bool is_float(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBf16 || t == DType::kF64;
}

// The measuring network of the header: p<i> scales each float input by a learned scalar, l is
// the kind, and a non-loss kind feeds mse against a target of its output.
BoundNetwork network_for(const std::string& kind, const Case& c) {
  BoundNetwork net;
  net.name = kind;
  std::vector<std::string> inputs;
  for (std::size_t k = 0; k < c.inputs.size(); ++k) {
    const std::string x = "x" + std::to_string(k);
    net.inputs.push_back({x, c.inputs[k]});
    if (!is_float(c.inputs[k].dtype)) {
      inputs.push_back(x);
      continue;
    }
    const std::string p = "p" + std::to_string(k);
    net.layers.push_back(test::with_defaults(
        test::layer(p, "mul", {x}, {{"constant_shape", IntList{1}}, {"trainable", true}})));
    inputs.push_back(p);
  }
  net.layers.push_back(test::with_defaults(test::layer("l", kind, inputs, c.params)));
  if (!layer_registry().get(kind).is_loss) {
    net.inputs.push_back({"target", TensorInfo{c.out, c.out_dtype}});
    net.layers.push_back(test::with_defaults(test::layer("loss", "mse", {"l", "target"}, {})));
  }
  return net;
}

struct Measured {
  Cost forward, backward;
  std::int64_t parameters = 0;
};

Measured measure(const LoweredNetwork& lowered) {
  Measured m;
  for (OpId id = 0; id < lowered.graph.size(); ++id) {
    const Operator& op = lowered.graph.op(id);
    if (op.layer != "l" || op.phase == Phase::kUpdate || op.phase == Phase::kHost) continue;
    Cost& sum = op.phase == Phase::kForward ? m.forward : m.backward;
    sum.flops += op.flops;
    sum.read += op.bytes_read;
    sum.written += op.bytes_written;
  }
  for (const WeightTensor& w : lowered.weights)
    if (w.layer == "l") m.parameters += w.elements;
  return m;
}

void check_cost(const char* what, const Cost& got, const Cost& want) {
  INFO(what);
  CHECK(got.flops == Approx(want.flops).epsilon(kRelTol));
  if (!std::isnan(want.read)) CHECK(got.read == Approx(want.read).epsilon(kRelTol));
  if (!std::isnan(want.written)) CHECK(got.written == Approx(want.written).epsilon(kRelTol));
}

}  // namespace

TEST_CASE("every registered layer kind has a formula row", "[graphs][layer_registry]") {
  const auto table = rows();
  for (const auto& [name, kind] : layer_registry().kinds()) {
    INFO("kind " << name << " is registered without a row in layer_registry_test.cpp");
    CHECK(table.count(name) == 1);
  }
  for (const auto& [name, row] : table) {
    INFO("row " << name << " names no registered kind");
    CHECK(layer_registry().find(name) != nullptr);
  }
}

TEST_CASE("every layer kind matches its formula in inference and training at two sizes",
          "[graphs][layer_registry]") {
  for (const auto& [kind, row] : rows()) {
    for (const double n : {2.0, 4.0}) {
      DYNAMIC_SECTION(kind << " at batch " << n) {
        const Case c = row(n);
        const BoundNetwork net = network_for(kind, c);
        const bool is_loss = layer_registry().get(kind).is_loss;

        const LoweredNetwork infer = lower(net, {.mode = Mode::kInfer});
        const Measured fwd = measure(infer);
        if (!is_loss) check_cost("inference forward", fwd.forward, c.forward);

        const LoweredNetwork train = lower(net, {.mode = Mode::kTrain});
        const Measured t = measure(train);
        check_cost("training forward", t.forward, c.forward_train.value_or(c.forward));
        check_cost("training backward", t.backward, c.backward);
        CHECK(t.parameters == c.parameters);

        // The output's shape and type from the kind's shape rule, given the inputs the
        // scaling layers pass on unchanged.
        const Layer& layer = net.layers[net.layers.size() - (is_loss ? 1 : 2)];
        const std::vector<TensorInfo> out = layer_registry().get(kind).infer(layer, c.inputs);
        CHECK(out.front().shape == c.out);
        CHECK(out.front().dtype == c.out_dtype);
      }
    }
  }
}
