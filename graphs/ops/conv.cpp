// Convolution (2-D, NCHW, groups, dilation, stride, padding). FLOPs count the direct
// convolution, 2*N*K*P*Q*(C/g)*R*S (DeepBench's convention); convolution runs as an
// implicit GEMM with m = N*P*Q, n = K, k = (C/g)*R*S per group.
// Transposed convolution (conv_transpose2d, the gradient of a conv with respect to its
// input; Dumoulin & Visin 2016, "A guide to convolution arithmetic", relation 14): output
// (in-1)*stride - 2*pad + dilation*(k-1) + output_padding + 1, FLOPs 2*N*C*H*W*(K/g)*R*S,
// the MACs of the conv it transposes; it runs as a GEMM then col2im (Caffe's Deconvolution)
// with m = N*H*W, n = (K/g)*R*S, k = C/g per group.

#include <cmath>

#include "graphs/conv_traffic.h"
#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

// What a convolution and a transposed convolution share: input N x C x H x W, K output
// channels in `groups`, an R x S window with strides, and the output P x Q.
struct WindowGeometry {
  std::int64_t n, c, h, w, k, r, s, p, q, groups;
  std::int64_t stride_h, stride_w;
  bool plain = false;  // a convolution, not transposed, not dilated
  void describe(Operator& op) const {
    describe_convolution(op, {n, c, h, w, k, r, s, p, q, groups, stride_h, stride_w}, plain);
  }
  // The GEMM dimensions of the lowerings: the input and output grids N*H*W and N*P*Q, and the
  // windows (C/g)*R*S and (K/g)*R*S.
  std::int64_t input_grid(const Layer& layer) const {
    return checked_size(layer, "GEMM rows N*H*W", CheckedInt(n) * h * w);
  }
  std::int64_t output_grid(const Layer& layer) const {
    return checked_size(layer, "GEMM rows N*P*Q", CheckedInt(n) * p * q);
  }
  std::int64_t in_window(const Layer& layer) const {
    return checked_size(layer, "GEMM depth (C/g)*R*S", CheckedInt(c / groups) * r * s);
  }
  std::int64_t out_window(const Layer& layer) const {
    return checked_size(layer, "GEMM width (K/g)*R*S", CheckedInt(k / groups) * r * s);
  }
};

// Reads everything but P x Q from the layer and its NCHW input; checks the groups.
WindowGeometry read_window(const Layer& layer, const TensorInfo& x) {
  expect_rank(layer, x, 4, "[N, C, H, W]");
  WindowGeometry g{};
  g.n = x.shape[0];
  g.c = x.shape[1];
  g.h = x.shape[2];
  g.w = x.shape[3];
  g.k = layer.get_int("out_channels");
  g.groups = layer.get_int("groups");
  check(g.groups > 0 && g.c % g.groups == 0 && g.k % g.groups == 0, layer, [&] {
    return fmt::format("groups {} must divide in channels {} and out_channels {}", g.groups, g.c,
                       g.k);
  });
  const auto kernel = layer.get_ints("kernel", 2);
  const auto stride = layer.get_ints("stride", 2);
  g.r = kernel[0];
  g.s = kernel[1];
  g.stride_h = stride[0];
  g.stride_w = stride[1];
  return g;
}

// Emits a convolution's or a transposed convolution's backward ops in order: the data
// gradient (reads dY and W, writes dX; an implicit GEMM over the input grid, `flops`), the
// layer's own `weight_grad`, and the bias gradient (dY reduced per output channel).
void emit_data_and_bias_grads(BackwardContext& ctx, const WindowGeometry& g, double flops,
                              double weight_bytes, Operator weight_grad) {
  if (ctx.needs_input_grad(0)) {
    Operator op = ctx.make("bwd_data", OpClass::kConv, Phase::kBackwardData, flops,
                           ctx.out().bytes() + weight_bytes, ctx.in().bytes());
    op.gemm = {g.input_grid(ctx.layer), g.c / g.groups, g.out_window(ctx.layer), g.groups};
    g.describe(op);
    ctx.emit(std::move(op), 0);
  }
  ctx.emit(std::move(weight_grad), -1, 0);
  if (ctx.layer.get_bool("bias")) {
    const double e = dtype_bytes(ctx.in().dtype);
    ctx.emit(ctx.make("bwd_bias", OpClass::kReduction, Phase::kBackwardWeight,
                      d(ctx.out().elements()), ctx.out().bytes(), e * d(g.k)),
             -1, 1);
  }
}

struct ConvGeometry : WindowGeometry {
  double macs_per_output() const { return dprod(c / groups, r, s); }
  double forward_flops() const { return 2.0 * d(n) * d(k) * d(p) * d(q) * macs_per_output(); }
  // Input elements the windows read (graphs/conv_traffic.h): all of X unless the kernel is
  // smaller than its stride.
  double input_read() const {
    return dprod(n, c, conv_input_extent(h, p, r), conv_input_extent(w, q, s));
  }
};

// Output size of one spatial dim. padding "same" follows TensorFlow (ceil(in/stride)),
// "valid" pads nothing, an integer pads both sides.
std::int64_t out_dim(const Layer& layer, std::int64_t in, std::int64_t kernel, std::int64_t stride,
                     std::int64_t dilation, std::int64_t pad, const std::string& mode) {
  if (mode == "same")
    return checked_size(layer, "output size", (CheckedInt(in) + stride - 1) / stride);
  const std::int64_t padding = mode == "valid" ? 0 : pad;
  // conv_output_extent's span and padded input, checked here so that its message can show them.
  const std::int64_t span =
      checked_size(layer, "dilated kernel", CheckedInt(dilation) * (kernel - 1) + 1);
  const std::int64_t padded =
      checked_size(layer, "padded input", CheckedInt(in) + CheckedInt(2) * padding);
  const auto out = conv_output_extent(in, kernel, padding, stride, dilation);
  check(out.has_value(), layer, [&] {
    return fmt::format("kernel {} (dilated {}) with stride {} has no output on the padded input {}",
                       kernel, span, stride, padded);
  });
  return *out;
}

ConvGeometry geometry(const Layer& layer, const TensorInfo& x) {
  ConvGeometry g{read_window(layer, x)};
  const auto dilation = layer.get_ints("dilation", 2);
  const auto pad = layer.get_ints("padding", 2);
  const std::string& mode = layer.get_string("padding_mode");
  g.plain = dilation[0] == 1 && dilation[1] == 1;
  g.p = out_dim(layer, g.h, g.r, g.stride_h, dilation[0], pad[0], mode);
  g.q = out_dim(layer, g.w, g.s, g.stride_w, dilation[1], pad[1], mode);
  return g;
}

std::vector<TensorInfo> infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const ConvGeometry g = geometry(layer, in.front());
  return {TensorInfo{{g.n, g.k, g.p, g.q}, in.front().dtype}};
}

// The output size does not enter (infer() has checked it).
std::vector<Weight> weights(const Layer& layer, const std::vector<TensorInfo>& in) {
  const WindowGeometry g = read_window(layer, in.front());
  std::vector<Weight> w{
      {"weight", checked_size(layer, "weight", CheckedInt(g.k) * (g.c / g.groups) * g.r * g.s)}};
  if (layer.get_bool("bias")) w.push_back({"bias", g.k});
  return w;
}

// The bias of a convolution with `k` output channels, one FLOP per output element, after the
// convolution op was emitted: in that op's own kernel (its FLOPs and the bias's bytes added to
// it) or, with ctx.conv_bias_kernel, as a broadcast add over the output in place after it.
void emit_conv_bias(ForwardContext& ctx, std::int64_t k) {
  if (!ctx.layer.get_bool("bias")) return;
  const double e = dtype_bytes(ctx.in().dtype);
  const double n = d(ctx.out().elements());
  if (!ctx.conv_bias_kernel) {
    Operator& conv = ctx.emitted().front();
    conv.flops += n;
    conv.bytes_read += e * d(k);
    return;
  }
  Operator add =
      ctx.make("bias", OpClass::kElementwise, n, ctx.out().bytes() + e * d(k), ctx.out().bytes());
  add.in_place = true;
  ctx.emit(std::move(add));
}

void forward(ForwardContext& ctx) {
  const ConvGeometry g = geometry(ctx.layer, ctx.in());
  const double e = dtype_bytes(ctx.in().dtype);
  const double weight_bytes = e * dprod(g.k, g.c / g.groups, g.r, g.s);
  Operator op = ctx.make("fwd", OpClass::kConv, g.forward_flops(),
                         e * g.input_read() + weight_bytes, ctx.out().bytes());
  op.gemm = {g.output_grid(ctx.layer), g.k / g.groups, g.in_window(ctx.layer), g.groups};
  g.describe(op);
  ctx.emit(std::move(op));
  emit_conv_bias(ctx, g.k);
}

void backward(BackwardContext& ctx) {
  const ConvGeometry g = geometry(ctx.layer, ctx.in());
  const double e = dtype_bytes(ctx.in().dtype);
  const double weight_bytes = e * dprod(g.k, g.c / g.groups, g.r, g.s);
  // dW = X^T (*) dY: the same MACs as the forward pass.
  Operator dw = ctx.make("bwd_weight", OpClass::kConv, Phase::kBackwardWeight, g.forward_flops(),
                         ctx.out().bytes() + e * g.input_read(), weight_bytes);
  dw.gemm = {g.k / g.groups, g.in_window(ctx.layer), g.output_grid(ctx.layer), g.groups};
  g.describe(dw);
  // dX = dY (*) W^T: the same MACs again.
  emit_data_and_bias_grads(ctx, g, g.forward_flops(), weight_bytes, std::move(dw));
}

// conv_transpose2d: input [N, C, H, W], output [N, K, P, Q], weight [C, K/g, R, S].
struct ConvTransposeGeometry : WindowGeometry {
  double forward_flops() const {
    return 2.0 * d(n) * d(c) * d(h) * d(w) * d(k / groups) * d(r) * d(s);
  }
  std::int64_t weight_elements(const Layer& layer) const {
    return checked_size(layer, "weight", CheckedInt(c) * (k / groups) * r * s);
  }
};

std::int64_t transposed_out_dim(const Layer& layer, std::int64_t in, std::int64_t kernel,
                                std::int64_t stride, std::int64_t dilation, std::int64_t pad,
                                std::int64_t output_padding) {
  check(output_padding < std::max(stride, dilation), layer, [&] {
    return fmt::format("output_padding {} must be smaller than the stride {} or the dilation {}",
                       output_padding, stride, dilation);
  });
  const std::int64_t out =
      checked_size(layer, "output size",
                   (CheckedInt(in) - 1) * stride - CheckedInt(2) * pad +
                       CheckedInt(dilation) * (kernel - 1) + output_padding + 1);
  check(out > 0, layer, [&] {
    return fmt::format("padding {} leaves no output (input {}, kernel {}, stride {})", pad, in,
                       kernel, stride);
  });
  return out;
}

ConvTransposeGeometry transpose_geometry(const Layer& layer, const TensorInfo& x) {
  ConvTransposeGeometry g{read_window(layer, x)};
  const auto dilation = layer.get_ints("dilation", 2);
  const auto pad = layer.get_ints("padding", 2);
  const auto output_padding = layer.get_ints("output_padding", 2);
  g.p = transposed_out_dim(layer, g.h, g.r, g.stride_h, dilation[0], pad[0], output_padding[0]);
  g.q = transposed_out_dim(layer, g.w, g.s, g.stride_w, dilation[1], pad[1], output_padding[1]);
  return g;
}

std::vector<TensorInfo> transpose_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const ConvTransposeGeometry g = transpose_geometry(layer, in.front());
  return {TensorInfo{{g.n, g.k, g.p, g.q}, in.front().dtype}};
}

std::vector<Weight> transpose_weights(const Layer& layer, const std::vector<TensorInfo>& in) {
  const ConvTransposeGeometry g{read_window(layer, in.front())};  // as weights()
  std::vector<Weight> w{{"weight", g.weight_elements(layer)}};
  if (layer.get_bool("bias")) w.push_back({"bias", g.k});
  return w;
}

void transpose_forward(ForwardContext& ctx) {
  const ConvTransposeGeometry g = transpose_geometry(ctx.layer, ctx.in());
  const double e = dtype_bytes(ctx.in().dtype);
  const double weight_bytes = e * d(g.weight_elements(ctx.layer));
  Operator op = ctx.make("fwd", OpClass::kConv, g.forward_flops(), ctx.in().bytes() + weight_bytes,
                         ctx.out().bytes());
  op.gemm = {g.input_grid(ctx.layer), g.out_window(ctx.layer), g.c / g.groups, g.groups};
  g.describe(op);
  ctx.emit(std::move(op));
  emit_conv_bias(ctx, g.k);
}

void transpose_backward(BackwardContext& ctx) {
  const ConvTransposeGeometry g = transpose_geometry(ctx.layer, ctx.in());
  const double e = dtype_bytes(ctx.in().dtype);
  const double weight_bytes = e * d(g.weight_elements(ctx.layer));
  // dW = X^T (*) dY: the same MACs as the forward pass.
  Operator dw = ctx.make("bwd_weight", OpClass::kConv, Phase::kBackwardWeight, g.forward_flops(),
                         ctx.out().bytes() + ctx.in().bytes(), weight_bytes);
  dw.gemm = {g.c / g.groups, g.out_window(ctx.layer), g.input_grid(ctx.layer), g.groups};
  g.describe(dw);
  // dX = conv(dY, W): a forward convolution, P x Q -> H x W, the same MACs again.
  emit_data_and_bias_grads(ctx, g, g.forward_flops(), weight_bytes, std::move(dw));
}

}  // namespace

void register_conv_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "conv2d",
      .summary = "2-D convolution, NCHW; groups, dilation, stride, padding (int, same, valid)",
      .op_class = OpClass::kConv,
      .params = {int_param("out_channels", "output channels K").at_least(1),
                 ints_param("kernel", "kernel R x S (one value or [R, S])").at_least(1),
                 ints_param("stride", "stride", "1").at_least(1),
                 ints_param("padding", "zero padding per side", "0").at_least(0),
                 choice_param("padding_mode", {"explicit", "same", "valid"},
                              "explicit uses `padding`; same/valid as TensorFlow", "explicit"),
                 ints_param("dilation", "dilation", "1").at_least(1),
                 int_param("groups", "groups", "1").at_least(1),
                 bool_param("bias", "add a bias", "true")},
      .infer = infer,
      .weights = weights,
      .forward = forward,
      .backward = backward,
  });
  r.add(LayerKind{
      .name = "conv_transpose2d",
      .summary = "2-D transposed convolution, NCHW; groups, dilation, stride, output_padding",
      .op_class = OpClass::kConv,
      .params =
          {int_param("out_channels", "output channels K").at_least(1),
           ints_param("kernel", "kernel R x S (one value or [R, S])").at_least(1),
           ints_param("stride", "stride", "1").at_least(1),
           ints_param("padding", "padding removed from each side of the output", "0").at_least(0),
           ints_param("output_padding", "extra rows/columns at the end of the output", "0")
               .at_least(0),
           ints_param("dilation", "dilation", "1").at_least(1),
           int_param("groups", "groups", "1").at_least(1),
           bool_param("bias", "add a bias", "true")},
      .infer = transpose_infer,
      .weights = transpose_weights,
      .forward = transpose_forward,
      .backward = transpose_backward,
  });
}

}  // namespace amdahl::graphs
