// Recurrent layers (lstm, gru, rnn): multi-layer, optionally bidirectional, lowered the way
// cuDNN runs them (cudnnRNNForward / cudnnRNNBackwardData / cudnnRNNBackwardWeights):
//   per layer   one GEMM projects the input of every timestep for every direction at once,
//               m = T*N, n = D*G*H, k = input width;
//   per step    per direction one recurrent GEMM h_{t-1} W_hh^T (m = N, n = G*H, k = H) and
//               one pointwise kernel that adds the projections and biases, applies the gate
//               nonlinearities and updates the state;
//   backward    per step and direction the pointwise gradient and the recurrent data GEMM,
//               then per layer one GEMM for the input gradient and one each for dW_ih, dW_hh
//               over all timesteps, and a reduction for the biases.
// G is the gate count (lstm 4, gru 3, rnn 1), H the hidden size, D the directions.
//
// Pointwise FLOPs per hidden unit and step (b = bias vectors, 2 as cuDNN/PyTorch, 1 as
// TensorFlow; sigmoid and tanh 4 FLOPs as in activation.cpp):
//   lstm forward   4 (1 + b) gate sums + 3 sigmoids 12 + tanh(g) 4 + c = f c + i g 3
//                  + h = o tanh(c) 5                                      = 4 (1 + b) + 24
//   gru  forward   3 (1 + b) gate sums + r (.) 1 + 2 sigmoids 8 + tanh 4
//                  + h = (1 - z) n + z h 4                                = 3 (1 + b) + 17
//   rnn  forward   (1 + b) sums + the activation (tanh 4, relu 1, clipped_relu 2)
//   lstm backward  tanh(c) 4 + do 4 + dc 5 + di 4 + df 4 + dg 4 + dc_prev 1 + dh sum 1 = 27
//   gru  backward  dn 4 + dz 5 + dh direct 1 + dr 4 + d(h_n) 1 + dh sum 1        = 16
//   rnn  backward  activation derivative (tanh 3, relu 1, clipped_relu 2) + dh sum 1
// Layout: x is [T, N, I] ([N, T, I] with batch_first); outputs y [T, N, D*H] (same layout),
// h_n [L*D, N, H] and, for lstm, c_n [L*D, N, H]. Optional inputs: h0 (and c0 for lstm).

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

enum class Cell { kLstm, kGru, kRnn };

int gates(Cell c) { return c == Cell::kLstm ? 4 : c == Cell::kGru ? 3 : 1; }

struct RnnGeometry {
  Cell cell;
  std::int64_t t, n, input, hidden, layers, directions, bias_vectors;
  bool batch_first;
  // Exact sizes, overflow-checked in geometry(): the outputs' D*H, the states' L*D, the
  // rows G*H of one direction's gates and D*G*H of a layer's stacked weights (W_ih and W_hh
  // alike), and the T*N rows of the all-steps GEMMs.
  std::int64_t out_width, state_layers, gate_rows, rows, steps_rows;
  std::int64_t g() const { return gates(cell); }
  std::int64_t layer_input(std::int64_t l) const { return l == 0 ? input : out_width; }
  // Per step and direction: hidden units N*H, gate pre-activations N*G*H, and the state
  // tensors (h, and c for lstm).
  double units() const { return dprod(n, hidden); }
  double gate_units() const { return dprod(n, g(), hidden); }
  double state_tensors() const { return cell == Cell::kLstm ? 2 : 1; }
};

double activation_flops(const Layer& layer, bool backward) {
  const std::string& a = layer.get_string("nonlinearity");
  if (a == "tanh") return backward ? 3 : 4;
  if (a == "relu") return 1;
  return 2;  // clipped_relu
}

double pointwise_forward_flops(const RnnGeometry& g, const Layer& layer) {
  const double b = d(g.bias_vectors);
  switch (g.cell) {
    case Cell::kLstm:
      return 4 * (1 + b) + 24;
    case Cell::kGru:
      return 3 * (1 + b) + 17;
    case Cell::kRnn:
      return (1 + b) + activation_flops(layer, false);
  }
  return 0;
}

double pointwise_backward_flops(const RnnGeometry& g, const Layer& layer) {
  switch (g.cell) {
    case Cell::kLstm:
      return 27;
    case Cell::kGru:
      return 16;
    case Cell::kRnn:
      return activation_flops(layer, true) + 1;
  }
  return 0;
}

RnnGeometry geometry(Cell cell, const Layer& layer, const std::vector<TensorInfo>& in) {
  const TensorInfo& x = in.front();
  expect_rank(layer, x, 3, layer.get_bool("batch_first") ? "[N, T, I]" : "[T, N, I]");
  RnnGeometry g{};
  g.cell = cell;
  g.batch_first = layer.get_bool("batch_first");
  g.t = g.batch_first ? x.shape[1] : x.shape[0];
  g.n = g.batch_first ? x.shape[0] : x.shape[1];
  g.input = x.shape[2];
  g.hidden = layer.get_int("hidden_size");
  g.layers = layer.get_int("num_layers");
  g.directions = layer.get_bool("bidirectional") ? 2 : 1;
  g.bias_vectors = layer.get_int("bias_vectors");
  check(g.hidden > 0 && g.layers > 0, layer, "hidden_size and num_layers must be positive");
  check_stack_depth(layer, g.layers);
  check(g.bias_vectors >= 0 && g.bias_vectors <= 2, layer,
        [&] { return fmt::format("bias_vectors must be 0, 1 or 2 (got {})", g.bias_vectors); });
  g.out_width = checked_size(layer, "output width D*H", CheckedInt(g.directions) * g.hidden);
  g.state_layers = checked_size(layer, "state layers L*D", CheckedInt(g.layers) * g.directions);
  g.gate_rows = checked_size(layer, "gate rows G*H", CheckedInt(g.g()) * g.hidden);
  g.rows = checked_size(layer, "weight rows D*G*H", CheckedInt(g.directions) * g.gate_rows);
  g.steps_rows = checked_size(layer, "GEMM rows T*N", CheckedInt(g.t) * g.n);
  const Shape state{g.state_layers, g.n, g.hidden};
  for (std::size_t i = 1; i < in.size(); ++i)
    check(in[i].shape == state, layer, [&] {
      return fmt::format("initial state {} must be [layers*directions, N, H] = {} (got {})", i,
                         shape_str(state), shape_str(in[i].shape));
    });
  return g;
}

std::vector<TensorInfo> infer(Cell cell, const Layer& layer, const std::vector<TensorInfo>& in) {
  const RnnGeometry g = geometry(cell, layer, in);
  const DType t = in.front().dtype;
  const Shape y = g.batch_first ? Shape{g.n, g.t, g.out_width} : Shape{g.t, g.n, g.out_width};
  std::vector<TensorInfo> out{{y, t}, {{g.state_layers, g.n, g.hidden}, t}};
  if (cell == Cell::kLstm) out.push_back(out.back());
  return out;
}

std::vector<Weight> weights(Cell cell, const Layer& layer, const std::vector<TensorInfo>& in) {
  const RnnGeometry g = geometry(cell, layer, in);
  std::vector<Weight> w;
  const std::int64_t w_hh = checked_size(layer, "w_hh", CheckedInt(g.rows) * g.hidden);
  const std::int64_t bias = checked_size(layer, "bias", CheckedInt(g.bias_vectors) * g.rows);
  for (std::int64_t l = 0; l < g.layers; ++l) {
    w.push_back({fmt::format("l{}.w_ih", l),
                 checked_size(layer, "w_ih", CheckedInt(g.rows) * g.layer_input(l))});
    w.push_back({fmt::format("l{}.w_hh", l), w_hh});
    if (g.bias_vectors > 0) w.push_back({fmt::format("l{}.bias", l), bias});
  }
  return w;
}

// Index of layer l's tensors in weights(): w_ih, w_hh, bias.
int weight_index(const RnnGeometry& g, std::int64_t l, int which) {
  return static_cast<int>(l * (g.bias_vectors > 0 ? 3 : 2) + which);
}

std::string direction_tag(std::int64_t dir) { return dir == 0 ? "" : "r"; }

void forward(Cell cell, ForwardContext& ctx) {
  const RnnGeometry g = geometry(cell, ctx.layer, ctx.inputs);
  const double e = dtype_bytes(ctx.in().dtype);
  const double nh = g.units(), gates_per_step = g.gate_units(), state_tensors = g.state_tensors();
  const double per_unit = pointwise_forward_flops(g, ctx.layer);
  const std::int64_t rows = g.rows;
  for (std::int64_t l = 0; l < g.layers; ++l) {
    const std::int64_t in_width = g.layer_input(l);
    Operator xproj = ctx.make(
        fmt::format("l{}.xproj", l), OpClass::kRnn, 2.0 * dprod(g.t, g.n) * d(rows) * d(in_width),
        e * (dprod(g.t, g.n, in_width) + dprod(rows, in_width)), e * dprod(g.t, g.n, rows));
    xproj.gemm = {g.steps_rows, rows, in_width, 1};
    ctx.emit(std::move(xproj));
    for (std::int64_t s = 0; s < g.t; ++s) {
      for (std::int64_t dir = 0; dir < g.directions; ++dir) {
        const std::int64_t t = dir == 0 ? s : g.t - 1 - s;
        const std::string step = fmt::format("l{}{}.t{}", l, direction_tag(dir), t);
        Operator hproj = ctx.make(step + ".hproj", OpClass::kRnn, 2.0 * nh * d(g.gate_rows),
                                  e * (nh + dprod(g.gate_rows, g.hidden)), e * gates_per_step);
        hproj.gemm = {g.n, g.gate_rows, g.hidden, 1};
        ctx.emit(std::move(hproj));
        // Reads both projections, the biases and the previous cell state; writes the new
        // state, and in training the gate activations saved for the backward pass.
        ctx.emit(ctx.make(step + ".cell", OpClass::kRnn, per_unit * nh,
                          e * (2 * gates_per_step + dprod(g.bias_vectors, g.gate_rows) +
                               (state_tensors - 1) * nh),
                          e * (state_tensors * nh + (ctx.training ? gates_per_step : 0.0))));
      }
    }
  }
}

// The ops forward() and backward() emit, counted as they do from the geometry alone: per layer
// the input GEMM and two ops per step and direction; backward per layer two ops per step and
// direction less the last step's data GEMM when no initial state needs a gradient, the input
// gradient (not for layer 0 unless x needs one), dW_ih, dW_hh and the bias, then a copy per
// initial state that needs a gradient.
OpCount op_count(Cell cell, const Layer& layer, const std::vector<TensorInfo>& in,
                 const std::vector<bool>& needs) {
  const RnnGeometry g = geometry(cell, layer, in);
  const auto need = [&](std::size_t i) { return i < needs.size() && needs[i]; };
  const bool state_grad = need(1) || need(2);
  const double steps = dprod(g.t, g.directions);
  const double layers = d(g.layers);
  OpCount c;
  c.forward = layers * (1 + 2 * steps);
  c.backward =
      layers * (2 * steps - (state_grad ? 0 : d(g.directions)) + 3 + (g.bias_vectors > 0 ? 1 : 0)) -
      (need(0) ? 0 : 1);
  for (std::size_t i = 1; i < in.size(); ++i) c.backward += need(i) ? 1 : 0;
  return c;
}

void backward(Cell cell, BackwardContext& ctx) {
  const RnnGeometry g = geometry(cell, ctx.layer, ctx.inputs);
  const double e = dtype_bytes(ctx.in().dtype);
  const double nh = g.units(), gates_per_step = g.gate_units(), state_tensors = g.state_tensors();
  const double per_unit = pointwise_backward_flops(g, ctx.layer);
  const std::int64_t rows = g.rows;
  const bool state_grad = ctx.needs_input_grad(1) || ctx.needs_input_grad(2);
  bool first = true;
  auto emit = [&](Operator op, int grad_of_input = -1, int grad_of_weight = -1) {
    if (first)
      ctx.emit(std::move(op), grad_of_input, grad_of_weight);
    else
      ctx.emit_after(std::move(op), grad_of_input, grad_of_weight);
    first = false;
  };
  for (std::int64_t l = g.layers - 1; l >= 0; --l) {
    const std::int64_t in_width = g.layer_input(l);
    for (std::int64_t s = 0; s < g.t; ++s) {
      for (std::int64_t dir = 0; dir < g.directions; ++dir) {
        const std::int64_t t = dir == 0 ? g.t - 1 - s : s;
        const std::string step = fmt::format("l{}{}.t{}", l, direction_tag(dir), t);
        // Reads dh (and dc), the saved gates and the previous state; writes d(gates) and
        // the state gradient carried to the previous step.
        emit(ctx.make(step + ".cell_bwd", OpClass::kRnn, Phase::kBackwardData, per_unit * nh,
                      e * (state_tensors * nh + gates_per_step + nh),
                      e * (gates_per_step + (state_tensors - 1) * nh)));
        // dh_{t-1} = d(gates) W_hh: not needed after the last step unless h0 needs a gradient.
        if (s + 1 < g.t || state_grad) {
          Operator dh = ctx.make(step + ".hproj_bwd", OpClass::kRnn, Phase::kBackwardData,
                                 2.0 * nh * d(g.gate_rows),
                                 e * (gates_per_step + dprod(g.gate_rows, g.hidden)), e * nh);
          dh.gemm = {g.n, g.hidden, g.gate_rows, 1};
          emit(std::move(dh));
        }
      }
    }
    const double gemm_in = 2.0 * dprod(g.t, g.n) * d(rows) * d(in_width);
    if (l > 0 || ctx.needs_input_grad(0)) {
      Operator dx = ctx.make(
          fmt::format("l{}.xproj_bwd_data", l), OpClass::kRnn, Phase::kBackwardData, gemm_in,
          e * (dprod(g.t, g.n, rows) + dprod(rows, in_width)), e * dprod(g.t, g.n, in_width));
      dx.gemm = {g.steps_rows, in_width, rows, 1};
      emit(std::move(dx), l == 0 ? 0 : -1);
    }
    Operator dw_ih =
        ctx.make(fmt::format("l{}.bwd_w_ih", l), OpClass::kRnn, Phase::kBackwardWeight, gemm_in,
                 e * dprod(g.t, g.n, d(rows) + d(in_width)), e * dprod(rows, in_width));
    dw_ih.gemm = {rows, in_width, g.steps_rows, 1};
    emit(std::move(dw_ih), -1, weight_index(g, l, 0));
    Operator dw_hh =
        ctx.make(fmt::format("l{}.bwd_w_hh", l), OpClass::kRnn, Phase::kBackwardWeight,
                 2.0 * dprod(g.t, g.n) * d(rows) * d(g.hidden),
                 e * dprod(g.t, g.n, d(rows) + d(g.out_width)), e * dprod(rows, g.hidden));
    dw_hh.gemm = {rows, g.hidden, g.steps_rows, 1};
    emit(std::move(dw_hh), -1, weight_index(g, l, 1));
    if (g.bias_vectors > 0)
      emit(ctx.make(fmt::format("l{}.bwd_bias", l), OpClass::kReduction, Phase::kBackwardWeight,
                    dprod(g.t, g.n, rows), e * dprod(g.t, g.n, rows),
                    e * dprod(g.bias_vectors, rows)),
           -1, weight_index(g, l, 2));
  }
  for (std::size_t i = 1; i < ctx.inputs.size(); ++i)
    if (ctx.needs_input_grad(i))
      emit(ctx.make(fmt::format("bwd_state{}", i), OpClass::kDataMovement, Phase::kBackwardData, 0,
                    ctx.in(i).bytes(), ctx.in(i).bytes()),
           static_cast<int>(i));
}

LayerKind recurrent(Cell cell, std::string name, std::string summary) {
  std::vector<ParamDecl> params{
      int_param("hidden_size", "hidden units H per direction").at_least(1),
      int_param("num_layers", "stacked layers", "1").at_least(1),
      bool_param("bidirectional", "run a reverse direction too (outputs concatenated)", "false"),
      bool_param("batch_first", "x is [N, T, I] instead of [T, N, I]", "false"),
      int_param("bias_vectors", "bias vectors per gate: 2 as cuDNN/PyTorch, 1 as TensorFlow, 0",
                "2")};
  if (cell == Cell::kRnn)
    params.push_back(choice_param("nonlinearity", {"tanh", "relu", "clipped_relu"},
                                  "activation of the vanilla cell", "tanh"));
  return LayerKind{
      .name = std::move(name),
      .summary = std::move(summary),
      .op_class = OpClass::kRnn,
      .params = std::move(params),
      .min_inputs = 1,
      .max_inputs = cell == Cell::kLstm ? 3 : 2,
      .infer = [cell](const Layer& layer,
                      const std::vector<TensorInfo>& in) { return infer(cell, layer, in); },
      .weights = [cell](const Layer& layer,
                        const std::vector<TensorInfo>& in) { return weights(cell, layer, in); },
      .forward = [cell](ForwardContext& ctx) { forward(cell, ctx); },
      .backward = [cell](BackwardContext& ctx) { backward(cell, ctx); },
      .op_count = [cell](
                      const Layer& layer, const std::vector<TensorInfo>& in,
                      const std::vector<bool>& needs) { return op_count(cell, layer, in, needs); },
  };
}

}  // namespace

void register_recurrent_ops(LayerRegistry& r) {
  r.add(recurrent(Cell::kLstm, "lstm",
                  "LSTM, cuDNN-style: input GEMM for all steps, per-step recurrent GEMM + "
                  "pointwise; outputs y, h_n, c_n; optional inputs h0, c0"));
  r.add(recurrent(Cell::kGru, "gru",
                  "GRU (cuDNN/PyTorch form, reset after the recurrent GEMM); outputs y, h_n; "
                  "optional input h0"));
  r.add(recurrent(Cell::kRnn, "rnn",
                  "vanilla RNN h = act(W x + U h + b); outputs y, h_n; optional input h0"));
}

}  // namespace amdahl::graphs
