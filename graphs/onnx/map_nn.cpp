// ONNX rules for the neural-network ops: Conv, ConvTranspose, Gemm, MatMul, pooling,
// normalization, softmax, dropout. Each maps onto the zoo's kinds (conv2d, conv_transpose2d,
// linear, matmul, maxpool2d, avgpool2d, batchnorm2d, instance_norm, layer_norm, softmax,
// dropout), so their cost formulas apply.
// Weights (Conv W, Gemm B) give the geometry whether they are initializers or graph inputs;
// the kind counts them. Each weight's shape is checked against its input by the ONNX rule
// (channels, inner dims, per-channel parameters), so a model whose weights do not fit is an
// error naming both shapes, not a costed network of other sizes. Asymmetric ONNX pads become
// an explicit pad layer before a symmetric-padding kind.

#include <fmt/format.h>

#include "graphs/onnx/import_context.h"

namespace amdahl::graphs::onnx {
namespace {

// Spatial padding for a 2-D window op: the kind's `padding` (+ padding_mode), with an
// explicit pad layer in front when the ONNX pads are asymmetric. Returns the value name the
// window op reads.
std::string window_padding(ImportContext& ctx, const ::onnx::NodeProto& node, std::string x,
                           Params& params) {
  const std::string auto_pad = ctx.attr_string(node, "auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    params["padding_mode"] = std::string("same");
    return x;
  }
  if (auto_pad == "VALID") {
    params["padding_mode"] = std::string("valid");
    return x;
  }
  const IntList pads = ctx.attr_ints(node, "pads", {0, 0, 0, 0});
  if (pads.size() != 4) ctx.fail(node, fmt::format("expects 4 pads for 2-D (got {})", pads.size()));
  if (pads[0] == pads[2] && pads[1] == pads[3]) {
    params["padding"] = IntList{pads[0], pads[1]};
    return x;
  }
  const std::string padded = ctx.temp(node, "padded");
  ctx.emit(node, "pad", {{"pads", IntList{0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]}}}, {x},
           {padded}, "pad");
  params["padding"] = IntList{0, 0};
  return padded;
}

// "weight [4, 4, 3, 3] does not fit input [1, 3, 8, 8]: RULE".
[[noreturn]] void misfit(ImportContext& ctx, const ::onnx::NodeProto& node, const char* what,
                         const Shape& w, const char* of, const Shape& x, const std::string& rule) {
  ctx.fail(node,
           fmt::format("{} {} does not fit {} {}: {}", what, shape_str(w), of, shape_str(x), rule));
}

// An optional per-channel parameter input (a bias, a scale): rank 1 of `n` entries.
void check_vector(ImportContext& ctx, const ::onnx::NodeProto& node, int i, const char* what,
                  const Shape& x, std::int64_t n, const char* rule) {
  if (!ctx.has_input(node, i)) return;
  const Shape& s = ctx.input(node, i).info.shape;
  if (s.size() != 1 || s[0] != n)
    misfit(ctx, node, what, s, "input", x, fmt::format("{} must be [{}] ({})", what, n, rule));
}

std::int64_t times(ImportContext& ctx, const ::onnx::NodeProto& node, std::int64_t a,
                   std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) ctx.fail(node, fmt::format("{} x {} passes 2^63", a, b));
  return out;
}

void require_2d(ImportContext& ctx, const ::onnx::NodeProto& node, const Value& x) {
  if (x.info.shape.size() != 4)
    ctx.fail(node, fmt::format("only 2-D (NCHW, rank-4) inputs are supported (got {})",
                               shape_str(x.info.shape)));
}

// A convolution weight has the input's rank: [K, C, spatial...] for [N, C, spatial...].
void check_kernel_rank(ImportContext& ctx, const ::onnx::NodeProto& node, const Shape& x,
                       const Shape& w) {
  if (w.size() != x.size())
    misfit(ctx, node, "weight", w, "input", x,
           fmt::format("the kernel has {} spatial dims, the input {} (weight rank must equal "
                       "input rank)",
                       static_cast<std::int64_t>(w.size()) - 2,
                       static_cast<std::int64_t>(x.size()) - 2));
}

// ONNX Conv: X [N, C, H, W], W [K, C/group, R, S], B [K]; C = W[1] x group, K a multiple of
// group, kernel_shape (when given) W's spatial dims.
void check_conv(ImportContext& ctx, const ::onnx::NodeProto& node, const Shape& x, const Shape& w,
                std::int64_t groups) {
  check_kernel_rank(ctx, node, x, w);
  if (groups < 1) ctx.fail(node, fmt::format("group {} must be >= 1", groups));
  if (x[1] != times(ctx, node, w[1], groups))
    misfit(ctx, node, "weight", w, "input", x,
           fmt::format("input channels {} must equal weight dim 1 ({}) x group ({})", x[1], w[1],
                       groups));
  if (w[0] % groups != 0)
    misfit(ctx, node, "weight", w, "input", x,
           fmt::format("output channels {} (weight dim 0) must be a multiple of group {}", w[0],
                       groups));
  const IntList kernel = ctx.attr_ints(node, "kernel_shape", {w[2], w[3]});
  if (kernel != IntList{w[2], w[3]})
    ctx.fail(node, fmt::format("kernel_shape {} does not match the weight {}", shape_str(kernel),
                               shape_str(w)));
  check_vector(ctx, node, 2, "bias", x, w[0], "one per output channel, weight dim 0");
}

void conv(ImportContext& ctx, const ::onnx::NodeProto& node) {
  const Value& x = ctx.input(node, 0);
  const Value& w = ctx.input(node, 1);
  require_2d(ctx, node, x);
  const std::int64_t groups = ctx.attr_int(node, "group", 1);
  check_conv(ctx, node, x.info.shape, w.info.shape, groups);
  Params p{{"out_channels", w.info.shape[0]},
           {"kernel", IntList{w.info.shape[2], w.info.shape[3]}},
           {"stride", ctx.attr_ints(node, "strides", {1, 1})},
           {"dilation", ctx.attr_ints(node, "dilations", {1, 1})},
           {"groups", groups},
           {"bias", ctx.has_input(node, 2)}};
  const std::string in = window_padding(ctx, node, node.input(0), p);
  ctx.emit(node, "conv2d", std::move(p), {in}, {node.output(0)});
}

// ConvTranspose: X [N, C, H, W], weight [C, K/g, R, S], B [K]. Only symmetric explicit pads
// (or VALID) map onto conv_transpose2d; SAME auto_pad and an explicit output_shape are
// rejected.
void conv_transpose(ImportContext& ctx, const ::onnx::NodeProto& node) {
  const Value& x = ctx.input(node, 0);
  const Value& w = ctx.input(node, 1);
  require_2d(ctx, node, x);
  const Shape& xs = x.info.shape;
  const Shape& ws = w.info.shape;
  check_kernel_rank(ctx, node, xs, ws);
  const std::int64_t groups = ctx.attr_int(node, "group", 1);
  if (groups < 1) ctx.fail(node, fmt::format("group {} must be >= 1", groups));
  if (xs[1] != ws[0])
    misfit(ctx, node, "weight", ws, "input", xs,
           fmt::format("input channels {} must equal weight dim 0 ({})", xs[1], ws[0]));
  if (ws[0] % groups != 0)
    misfit(ctx, node, "weight", ws, "input", xs,
           fmt::format("input channels {} must be a multiple of group {}", ws[0], groups));
  check_vector(ctx, node, 2, "bias", xs, times(ctx, node, ws[1], groups),
               "one per output channel, weight dim 1 x group");
  const std::string auto_pad = ctx.attr_string(node, "auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID")
    ctx.fail(node, fmt::format("auto_pad {} is not supported (use NOTSET with explicit pads, or "
                               "VALID)",
                               auto_pad));
  if (ctx.has_attr(node, "output_shape"))
    ctx.fail(node, "the output_shape attribute is not supported (give pads and output_padding)");
  const IntList pads =
      auto_pad == "VALID" ? IntList{0, 0, 0, 0} : ctx.attr_ints(node, "pads", {0, 0, 0, 0});
  if (pads.size() != 4) ctx.fail(node, fmt::format("expects 4 pads for 2-D (got {})", pads.size()));
  if (pads[0] != pads[2] || pads[1] != pads[3])
    ctx.fail(node, fmt::format("asymmetric pads {} are not supported", shape_str(pads)));
  const IntList kernel = ctx.attr_ints(node, "kernel_shape", {ws[2], ws[3]});
  if (kernel != IntList{ws[2], ws[3]})
    ctx.fail(node, fmt::format("kernel_shape {} does not match the weight {}", shape_str(kernel),
                               shape_str(ws)));
  Params p{{"out_channels", ws[1] * groups},
           {"kernel", kernel},
           {"stride", ctx.attr_ints(node, "strides", {1, 1})},
           {"padding", IntList{pads[0], pads[1]}},
           {"output_padding", ctx.attr_ints(node, "output_padding", {0, 0})},
           {"dilation", ctx.attr_ints(node, "dilations", {1, 1})},
           {"groups", groups},
           {"bias", ctx.has_input(node, 2)}};
  ctx.emit(node, "conv_transpose2d", std::move(p), {node.input(0)}, {node.output(0)});
}

void pool(ImportContext& ctx, const ::onnx::NodeProto& node, const std::string& kind) {
  require_2d(ctx, node, ctx.input(node, 0));
  Params p{{"kernel", ctx.attr_ints(node, "kernel_shape")},
           {"ceil_mode", ctx.attr_int(node, "ceil_mode", 0) != 0}};
  p["stride"] = ctx.attr_ints(node, "strides", {1, 1});
  const std::string in = window_padding(ctx, node, node.input(0), p);
  ctx.emit(node, kind, std::move(p), {in}, {node.output(0)});
}

void global_pool(ImportContext& ctx, const ::onnx::NodeProto& node, const std::string& kind) {
  require_2d(ctx, node, ctx.input(node, 0));
  ctx.emit(node, kind, {{"global", true}}, {node.input(0)}, {node.output(0)});
}

// linear over the last dim of `a` with weight geometry from `b`, or matmul when b is a
// runtime tensor. Returns the name of the product value.
void matmul(ImportContext& ctx, const ::onnx::NodeProto& node) {
  const Value& a = ctx.input(node, 0);
  const Value& b = ctx.input(node, 1);
  // numpy matmul: A [..., M, K] (or [K]) times B [..., K, N] (or [K]).
  const Shape& as = a.info.shape;
  const Shape& bs = b.info.shape;
  if (as.empty() || bs.empty())
    ctx.fail(node,
             fmt::format("operands {} and {} must have rank >= 1", shape_str(as), shape_str(bs)));
  const std::int64_t kb = bs.size() >= 2 ? bs[bs.size() - 2] : bs[0];
  if (as.back() != kb)
    misfit(ctx, node, "B", bs, "A", as,
           fmt::format("A's last dim ({}) must equal B's {} ({})", as.back(),
                       bs.size() >= 2 ? "second-to-last dim" : "length", kb));
  if (b.is_constant() && !a.is_constant() && b.info.shape.size() == 2) {
    // MatMul + Add(bias) is how exporters write nn.Linear on rank > 2 inputs: one linear.
    const auto& users = ctx.consumers[node.output(0)];
    bool bias = false;
    std::string out = node.output(0);
    if (users.size() == 1 && users.front()->op_type() == "Add" &&
        users.front()->input_size() == 2 && users.front()->output_size() >= 1 &&
        !users.front()->output(0).empty() && !ctx.defined(users.front()->output(0))) {
      const ::onnx::NodeProto& add = *users.front();
      const int other = add.input(0) == node.output(0) ? 1 : 0;
      if (ctx.defined(add.input(other))) {
        const Value& c = ctx.input(add, other);
        if (c.is_constant() && c.trainable && c.info.elements() == b.info.shape[1] &&
            c.info.shape.size() == 1) {
          bias = true;
          out = add.output(0);
          ctx.absorbed.insert(&add);
        }
      }
    }
    ctx.emit(node, "linear", {{"out_features", b.info.shape[1]}, {"bias", bias}}, {node.input(0)},
             {out});
    return;
  }
  if (a.is_constant() != b.is_constant())
    ctx.fail(node, "a constant operand is supported only as the second, rank-2 operand (weights)");
  ctx.emit(node, "matmul", {}, {node.input(0), node.input(1)}, {node.output(0)});
}

// ONNX Gemm: A [M, K] (transA: [K, M]) times B [K, N] (transB: [N, K]), plus C broadcast to
// [M, N].
void gemm(ImportContext& ctx, const ::onnx::NodeProto& node) {
  const Value& b = ctx.input(node, 1);
  const bool trans_a = ctx.attr_int(node, "transA", 0) != 0;
  const bool trans_b = ctx.attr_int(node, "transB", 0) != 0;
  const Shape& as = ctx.input(node, 0).info.shape;
  const Shape& bs = b.info.shape;
  if (as.size() != 2 || bs.size() != 2)
    misfit(ctx, node, "B", bs, "A", as, "Gemm takes rank-2 A and B");
  const std::int64_t ka = trans_a ? as[0] : as[1], kb = trans_b ? bs[1] : bs[0];
  if (ka != kb)
    misfit(ctx, node, "B", bs, "A", as,
           fmt::format("the inner dims differ: A{} gives K = {}, B{} K = {}", trans_a ? "^T" : "",
                       ka, trans_b ? "^T" : "", kb));
  if (ctx.has_input(node, 2)) {
    const Shape& cs = ctx.input(node, 2).info.shape;
    const Shape mn{trans_a ? as[1] : as[0], trans_b ? bs[0] : bs[1]};
    bool fits = cs.size() <= 2;
    for (std::size_t i = 0; fits && i < cs.size(); ++i)
      fits = cs[i] == 1 || cs[i] == mn[2 - cs.size() + i];
    if (!fits) misfit(ctx, node, "C", cs, "the product", mn, "C must broadcast to [M, N]");
  }
  const bool has_c = ctx.has_input(node, 2);
  const bool c_is_bias = has_c && ctx.input(node, 2).is_constant();
  const std::string product = has_c && !c_is_bias ? ctx.temp(node, "product") : node.output(0);
  std::string a = node.input(0);
  if (trans_a) {
    const std::string t = ctx.temp(node, "a_t");
    ctx.emit(node, "transpose", {{"perm", IntList{1, 0}}}, {a}, {t}, "transpose_a");
    a = t;
  }
  if (b.is_constant()) {
    if (b.info.shape.size() != 2) ctx.fail(node, "expects a rank-2 B");
    ctx.emit(node, "linear",
             {{"out_features", trans_b ? b.info.shape[0] : b.info.shape[1]}, {"bias", c_is_bias}},
             {a}, {product});
  } else {
    ctx.emit(node, "matmul", {{"transpose_b", trans_b}}, {a, node.input(1)}, {product});
    if (c_is_bias) {
      const Value& c = ctx.input(node, 2);
      ctx.emit(node, "add_broadcast",
               {{"constant_shape", c.info.shape}, {"trainable", c.trainable}}, {product},
               {node.output(0)}, "bias");
      return;
    }
  }
  if (has_c && !c_is_bias)
    ctx.emit(node, "add_broadcast", {}, {product, node.input(2)}, {node.output(0)}, "add_c");
}

// BatchNormalization: scale, B, mean and var are [C], C the input's dim 1. One kind for both
// exports: batchnorm2d normalizes with the batch's statistics when the step trains (statistics,
// then scale-shift) and with the running ones when it infers (one folded scale-shift), so the
// mode of the prediction decides, not the export's. A model exported in training mode
// (training_mode = 1 from opset 14; before, the optional mean/var outputs asked for), as
// PyTorch must be for BatchNormalization to stay a node rather than fold into the
// convolutions, is read the same way; its updated running statistics (outputs 1 to 4) are [C]
// values that kernel writes besides y: constants of that shape here, which later nodes and the
// graph's outputs may name.
void batch_norm(ImportContext& ctx, const ::onnx::NodeProto& node) {
  const Value& x = ctx.input(node, 0);
  const Shape& xs = x.info.shape;
  if (xs.size() < 2) ctx.fail(node, fmt::format("expects [N, C, ...] (got {})", shape_str(xs)));
  const char* rule = "one per channel, input dim 1";
  check_vector(ctx, node, 1, "scale", xs, xs[1], rule);
  check_vector(ctx, node, 2, "bias", xs, xs[1], rule);
  check_vector(ctx, node, 3, "mean", xs, xs[1], rule);
  check_vector(ctx, node, 4, "var", xs, xs[1], rule);
  const DType dtype = x.info.dtype;
  const std::int64_t channels = xs[1];
  ctx.emit(node, "batchnorm2d",
           {{"eps", static_cast<double>(ctx.attr_float(node, "epsilon", 1e-5))}}, {node.input(0)},
           {node.output(0)});
  for (int i = 1; i < node.output_size(); ++i) {
    if (node.output(i).empty()) continue;
    Value stat;
    stat.info = TensorInfo{{channels}, dtype};
    ctx.define(node.output(i), std::move(stat));
  }
}

// LayerNormalization: scale and B broadcast to the normalized dims (axis to the end).
void layer_norm(ImportContext& ctx, const ::onnx::NodeProto& node) {
  const Shape& xs = ctx.input(node, 0).info.shape;
  const std::size_t axis = ctx.axis(node, ctx.attr_int(node, "axis", -1), xs.size());
  const Shape normalized(xs.begin() + static_cast<std::ptrdiff_t>(axis), xs.end());
  for (int i = 1; i <= 2; ++i) {
    if (!ctx.has_input(node, i)) continue;
    const Shape& s = ctx.input(node, i).info.shape;
    bool fits = s.size() <= normalized.size();
    for (std::size_t k = 0; fits && k < s.size(); ++k)
      fits = s[k] == 1 || s[k] == normalized[normalized.size() - s.size() + k];
    if (!fits)
      misfit(ctx, node, i == 1 ? "scale" : "bias", s, "input", xs,
             fmt::format("it must broadcast to the normalized dims {} (axis {} to the end)",
                         shape_str(normalized), axis));
  }
  ctx.emit(node, "layer_norm",
           {{"axis", ctx.attr_int(node, "axis", -1)},
            {"eps", static_cast<double>(ctx.attr_float(node, "epsilon", 1e-5))},
            {"affine", ctx.input(node, 1).trainable}},
           {node.input(0)}, {node.output(0)});
}

void softmax(ImportContext& ctx, const ::onnx::NodeProto& node) {
  // Opsets before 13 normalize the flattened trailing dims from `axis` (default 1); the
  // cost per element is the same, so the axis is passed through.
  const std::int64_t axis = ctx.attr_int(node, "axis", ctx.opset() < 13 ? 1 : -1);
  ctx.emit(node, "softmax", {{"axis", axis}}, {node.input(0)}, {node.output(0)});
}

void dropout(ImportContext& ctx, const ::onnx::NodeProto& node) {
  double p = ctx.attr_float(node, "ratio", 0.5);
  if (ctx.has_input(node, 1)) p = ctx.scalar(node, 1, "ratio");
  ctx.emit(node, "dropout", {{"p", p}}, {node.input(0)}, {node.output(0)});
}

}  // namespace

void add_nn_rules(OnnxRuleTable& t) {
  t["Conv"] = conv;
  t["ConvTranspose"] = conv_transpose;
  t["InstanceNormalization"] = [](ImportContext& c, const ::onnx::NodeProto& n) {
    const Shape& x = c.input(n, 0).info.shape;
    if (x.size() < 3) c.fail(n, fmt::format("expects [N, C, D1, ...] (got {})", shape_str(x)));
    check_vector(c, n, 1, "scale", x, x[1], "one per channel, input dim 1");
    check_vector(c, n, 2, "bias", x, x[1], "one per channel, input dim 1");
    c.emit(n, "instance_norm", {{"eps", static_cast<double>(c.attr_float(n, "epsilon", 1e-5))}},
           {n.input(0)}, {n.output(0)});
  };
  t["MaxPool"] = [](ImportContext& c, const ::onnx::NodeProto& n) { pool(c, n, "maxpool2d"); };
  t["AveragePool"] = [](ImportContext& c, const ::onnx::NodeProto& n) { pool(c, n, "avgpool2d"); };
  t["GlobalAveragePool"] = [](ImportContext& c, const ::onnx::NodeProto& n) {
    global_pool(c, n, "avgpool2d");
  };
  t["GlobalMaxPool"] = [](ImportContext& c, const ::onnx::NodeProto& n) {
    global_pool(c, n, "maxpool2d");
  };
  t["MatMul"] = matmul;
  t["Gemm"] = gemm;
  t["BatchNormalization"] = batch_norm;
  t["LayerNormalization"] = layer_norm;
  t["Softmax"] = softmax;
  // log_softmax costs what softmax does (max, subtract, exp, sum, log instead of divide).
  t["LogSoftmax"] = softmax;
  t["Dropout"] = dropout;
}

}  // namespace amdahl::graphs::onnx
