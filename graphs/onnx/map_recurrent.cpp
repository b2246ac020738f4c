// ONNX rules for LSTM, GRU and RNN onto the zoo's recurrent kinds (graphs/ops/recurrent.cpp):
// one ONNX node is one layer (num_layers 1), forward or bidirectional, with two bias vectors
// per gate when B is given (ONNX's Wb and Rb, as cuDNN and PyTorch) and none otherwise.
// ONNX's Y is [T, D, N, H]; the kinds write y as [T, N, D*H], so Y is a view of it (exact
// for one direction; for two the element count and cost are the same). Y_h and Y_c match.

#include <fmt/format.h>

#include "graphs/onnx/import_context.h"

namespace amdahl::graphs::onnx {
namespace {

using Node = ::onnx::NodeProto;

void recurrent(ImportContext& ctx, const Node& node, const std::string& kind) {
  const Value& x = ctx.input(node, 0);
  if (x.info.shape.size() != 3) ctx.fail(node, "expects X of rank 3");
  if (ctx.attr_int(node, "layout", 0) != 0)
    ctx.fail(node, "layout 1 (batch first) is not supported; export with layout 0");
  const std::string direction = ctx.attr_string(node, "direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    ctx.fail(node,
             fmt::format("direction '{}' is none of forward, reverse, bidirectional", direction));
  const std::int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const std::int64_t hidden = ctx.attr_int(node, "hidden_size", 0);
  if (hidden <= 0) ctx.fail(node, "needs hidden_size");
  // ONNX: W [D, G*H, I], R [D, G*H, H], B [D, 2*G*H] for G gates (LSTM 4, GRU 3, RNN 1).
  const std::int64_t gates = kind == "lstm" ? 4 : kind == "gru" ? 3 : 1;
  std::int64_t gh = 0;
  if (__builtin_mul_overflow(gates, hidden, &gh) || gh > (std::int64_t{1} << 40))
    ctx.fail(node, fmt::format("hidden_size {} is too large", hidden));
  // (A sequence that unrolls into more ops than a lowering may make is lowering's error, counted
  // before any op is made: LayerKind::op_count.)
  const Shape& xs = x.info.shape;
  const Shape want[3] = {{dirs, gh, xs[2]}, {dirs, gh, hidden}, {dirs, 2 * gh}};
  const char* names[3] = {"W", "R", "B"};
  for (int i = 1; i <= 3; ++i) {
    if (!ctx.has_input(node, i)) {
      if (i < 3) ctx.fail(node, fmt::format("input {} ({}) is missing", i, names[i - 1]));
      continue;
    }
    const Shape& s = ctx.input(node, i).info.shape;
    if (s != want[i - 1])
      ctx.fail(node, fmt::format("{} {} does not fit input {}: {} must be {} (directions {}, {} "
                                 "gates x hidden_size {}{})",
                                 names[i - 1], shape_str(s), shape_str(xs), names[i - 1],
                                 shape_str(want[i - 1]), dirs, gates, hidden,
                                 i == 1   ? ", input size"
                                 : i == 2 ? ", hidden_size"
                                          : ", x 2"));
  }
  Params p{{"hidden_size", hidden},
           {"num_layers", std::int64_t{1}},
           {"bidirectional", dirs == 2},
           {"bias_vectors", std::int64_t{ctx.has_input(node, 3) ? 2 : 0}}};
  if (kind == "rnn") {
    const auto* acts = ctx.attr(node, "activations");
    const std::string act = acts && acts->strings_size() > 0 ? acts->strings(0) : "Tanh";
    if (act != "Tanh" && act != "Relu")
      ctx.fail(node, fmt::format("activation {} is not supported (Tanh, Relu)", act));
    p["nonlinearity"] = std::string(act == "Tanh" ? "tanh" : "relu");
  }
  // Initial states are inputs only when they are runtime tensors (zeros fold away).
  std::vector<std::string> inputs{node.input(0)};
  const int h0 = 5, c0 = 6;
  if (ctx.has_input(node, h0) && !ctx.input(node, h0).is_constant()) {
    inputs.push_back(node.input(h0));
    if (kind == "lstm" && ctx.has_input(node, c0) && !ctx.input(node, c0).is_constant())
      inputs.push_back(node.input(c0));
  }
  const std::string y = ctx.temp(node, "y");
  std::vector<std::string> outputs{y};
  for (int i = 1; i < node.output_size(); ++i) outputs.push_back(node.output(i));
  const auto values = ctx.emit(node, kind, std::move(p), inputs, outputs);
  if (node.output_size() > 0 && !node.output(0).empty()) {
    const Shape& s = values.front().info.shape;  // [T, N, D*H]
    ctx.emit(node, "reshape", {{"shape", Shape{s[0], dirs, s[1], hidden}}}, {y}, {node.output(0)},
             "y");
  }
}

}  // namespace

void add_recurrent_rules(OnnxRuleTable& t) {
  t["LSTM"] = [](ImportContext& c, const Node& n) { recurrent(c, n, "lstm"); };
  t["GRU"] = [](ImportContext& c, const Node& n) { recurrent(c, n, "gru"); };
  t["RNN"] = [](ImportContext& c, const Node& n) { recurrent(c, n, "rnn"); };
}

}  // namespace amdahl::graphs::onnx
