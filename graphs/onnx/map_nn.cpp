// ONNX rules for the neural-network ops: Conv, ConvTranspose, Gemm, MatMul, pooling,
// normalization, softmax, dropout. Each maps onto the zoo's kinds (conv2d, conv_transpose2d,
// linear, matmul, maxpool2d, avgpool2d, batchnorm2d, instance_norm, layer_norm, softmax,
// dropout), so their cost formulas apply.
// Weights (Conv W, Gemm B) give the geometry whether they are initializers or graph inputs;
// the kind counts them. Asymmetric ONNX pads become an explicit pad layer before a
// symmetric-padding kind.

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

void require_2d(ImportContext& ctx, const ::onnx::NodeProto& node, const Value& x) {
  if (x.info.shape.size() != 4)
    ctx.fail(node, fmt::format("only 2-D (NCHW, rank-4) inputs are supported (got {})",
                               shape_str(x.info.shape)));
}

void conv(ImportContext& ctx, const ::onnx::NodeProto& node) {
  const Value& x = ctx.input(node, 0);
  const Value& w = ctx.input(node, 1);
  require_2d(ctx, node, x);
  if (w.info.shape.size() != 4) ctx.fail(node, "expects a rank-4 weight [K, C/g, R, S]");
  Params p{{"out_channels", w.info.shape[0]},
           {"kernel", IntList{w.info.shape[2], w.info.shape[3]}},
           {"stride", ctx.attr_ints(node, "strides", {1, 1})},
           {"dilation", ctx.attr_ints(node, "dilations", {1, 1})},
           {"groups", ctx.attr_int(node, "group", 1)},
           {"bias", ctx.has_input(node, 2)}};
  const std::string in = window_padding(ctx, node, node.input(0), p);
  ctx.emit(node, "conv2d", std::move(p), {in}, {node.output(0)});
}

// ConvTranspose: weight [C, K/g, R, S]. Only symmetric explicit pads (or VALID) map onto
// conv_transpose2d; SAME auto_pad and an explicit output_shape are rejected.
void conv_transpose(ImportContext& ctx, const ::onnx::NodeProto& node) {
  const Value& x = ctx.input(node, 0);
  const Value& w = ctx.input(node, 1);
  require_2d(ctx, node, x);
  if (w.info.shape.size() != 4) ctx.fail(node, "expects a rank-4 weight [C, K/g, R, S]");
  const std::int64_t groups = ctx.attr_int(node, "group", 1);
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
  const IntList kernel = ctx.attr_ints(node, "kernel_shape", {w.info.shape[2], w.info.shape[3]});
  if (kernel != IntList{w.info.shape[2], w.info.shape[3]})
    ctx.fail(node, fmt::format("kernel_shape {} does not match the weight {}", shape_str(kernel),
                               shape_str(w.info.shape)));
  Params p{{"out_channels", w.info.shape[1] * groups},
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
  if (b.is_constant() && !a.is_constant() && b.info.shape.size() == 2) {
    // MatMul + Add(bias) is how exporters write nn.Linear on rank > 2 inputs: one linear.
    const auto& users = ctx.consumers[node.output(0)];
    bool bias = false;
    std::string out = node.output(0);
    if (users.size() == 1 && users.front()->op_type() == "Add") {
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

void gemm(ImportContext& ctx, const ::onnx::NodeProto& node) {
  const Value& b = ctx.input(node, 1);
  const bool trans_a = ctx.attr_int(node, "transA", 0) != 0;
  const bool trans_b = ctx.attr_int(node, "transB", 0) != 0;
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

void softmax(ImportContext& ctx, const ::onnx::NodeProto& node) {
  // Opsets before 13 normalize the flattened trailing dims from `axis` (default 1); the
  // cost per element is the same, so the axis is passed through.
  const std::int64_t axis = ctx.attr_int(node, "axis", ctx.opset() < 13 ? 1 : -1);
  ctx.emit(node, "softmax", {{"axis", axis}}, {node.input(0)}, {node.output(0)});
}

void dropout(ImportContext& ctx, const ::onnx::NodeProto& node) {
  double p = ctx.attr_float(node, "ratio", 0.5);
  if (ctx.has_input(node, 1)) p = ctx.numbers(node, 1, "ratio").at(0);
  ctx.emit(node, "dropout", {{"p", p}}, {node.input(0)}, {node.output(0)});
}

}  // namespace

void add_nn_rules(OnnxRuleTable& t) {
  t["Conv"] = conv;
  t["ConvTranspose"] = conv_transpose;
  t["InstanceNormalization"] = [](ImportContext& c, const ::onnx::NodeProto& n) {
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
  t["BatchNormalization"] = [](ImportContext& c, const ::onnx::NodeProto& n) {
    c.emit(n, "batchnorm2d", {{"eps", static_cast<double>(c.attr_float(n, "epsilon", 1e-5))}},
           {n.input(0)}, {n.output(0)});
  };
  t["LayerNormalization"] = [](ImportContext& c, const ::onnx::NodeProto& n) {
    c.emit(n, "layer_norm",
           {{"axis", c.attr_int(n, "axis", -1)},
            {"eps", static_cast<double>(c.attr_float(n, "epsilon", 1e-5))},
            {"affine", c.input(n, 1).trainable}},
           {n.input(0)}, {n.output(0)});
  };
  t["Softmax"] = softmax;
  // log_softmax costs what softmax does (max, subtract, exp, sum, log instead of divide).
  t["LogSoftmax"] = softmax;
  t["Dropout"] = dropout;
}

}  // namespace amdahl::graphs::onnx
